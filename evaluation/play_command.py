"""``checkers play``: a game against any agent in the terminal (:mod:`checkers_evaluation.play`,
imported only when it runs)."""

from __future__ import annotations

from checkers_evaluation.common_options import add_agent_spec
from checkers_evaluation.options import TRUST_PICKLES_HELP, lazy_handler, whole_number

HELP = "play against an agent in the terminal"
DESCRIPTION = (
    "Play a game against any agent in the terminal. The board shows square "
    "numbers; type moves in PDN, the standard notation (11-15 a step, 22x15 a capture, "
    "9x18x27 a double capture, or short 9x27), or a command: "
    "undo, hint, moves, board, save FILE, load FILE|FEN, resign, help, quit. Ctrl-C offers to save the game."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers play`` on its parser."""
    add_agent_spec(
        parser,
        "--opponent",
        "the agent to play against, as a spec string (random, greedy, alphabeta:depth=6, "
        "zoo:td-minimax; checkers agents lists them)",
        required=True,
    )
    parser.add_argument(
        "--color",
        "--colour",
        dest="color",
        choices=("black", "white"),
        default="black",
        help="your colour (default black; Black moves first from the start position)",
    )
    parser.add_argument("--fen", help="start from this PDN FEN (its side to move moves first)")
    parser.add_argument("--seed", type=whole_number(0), help="seed the opponent's generator (reproducible games)")
    parser.add_argument("--trust-pickles", action="store_true", help=TRUST_PICKLES_HELP)
    parser.set_defaults(handler=lazy_handler("checkers_evaluation.play", "play_main"))
