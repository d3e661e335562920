"""``checkers league``: a round robin between agents, with ratings, crosstable, plots and PDN.
The league itself (:mod:`checkers_evaluation.league`) is imported only when it runs."""

from __future__ import annotations

import argparse
import os

from checkers_evaluation.common_options import (
    add_agent_spec,
    add_egdb_folder,
    add_egdb_pieces,
    add_out,
    add_seed,
    add_whole_number,
)
from checkers_evaluation.options import (
    TRUST_PICKLES_HELP,
    DeprecatedAlias,
    add_ray_option,
    max_egdb_pieces,
    positive_number,
    warn_deprecated,
    whole_number,
)


def _max_bootstrap() -> int:
    from checkers_evaluation.league.ratings import MAX_BOOTSTRAP

    return MAX_BOOTSTRAP


class _OldBackend(argparse.Action):
    """The old ``--backend local|ray``: ``--backend ray`` is ``--ray`` now (``local`` is the default)."""

    def __call__(self, parser, namespace, values, option_string=None):
        warn_deprecated(
            f"--backend {values}", "--ray [ADDRESS]" if values == "ray" else "no option (local is the default)"
        )
        namespace.ray = namespace.ray or values == "ray"


def openings_option(text: str) -> str:
    """An argparse type: ``--openings``. A value that names a file is read and checked as
    the league will (``league.schedule.openings_from_file``) when it is parsed, before any game
    or folder is made: a named pipe would block the league for ever, a bad line would stop
    it later."""
    if text in ("ballot", "ballot:crossboard") or text.startswith("random:") or not os.path.lexists(text):
        return text  # the league checks the rest, with the choices in its message
    from .league.files import LeagueError
    from .league.schedule import openings_from_file

    try:
        openings_from_file(text)
    except (LeagueError, FileNotFoundError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


HELP = "round robin between agents, with ratings, crosstable, plots and PDN"
DESCRIPTION = (
    "Play a round robin: every pair plays each opening twice with colours "
    "swapped. Games are appended to OUT/games.jsonl as they end; --resume continues a "
    "killed run. OUT then holds crosstable.md/.csv, ratings.md/.csv, heatmap.png, "
    "ratings.png and games.pdn."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers league`` on its parser."""
    parser.add_argument(
        "agents",
        metavar="AGENT_SPEC",
        nargs="+",
        help="e.g. random greedy alphabeta:depth=4; add name=NAME to a spec to show NAME in the tables "
        "(td-minimax:weights=a.safetensors,name=td-a); 'zoo' stands for every zoo agent",
    )
    add_agent_spec(
        parser,
        "--gauntlet",
        "a gauntlet: SPEC plays every AGENT_SPEC, who do not play each other "
        "(checkers league zoo --gauntlet td-minimax:weights=mine.safetensors)",
    )
    parser.add_argument(
        "--games-per-pair",
        type=whole_number(2),
        default=20,
        metavar="N",
        help="games each pair of agents plays: N/2 openings, each with both colours (even, >= 2; default 20)",
    )
    parser.add_argument(
        "--openings",
        type=openings_option,
        default="ballot",
        help="ballot (default: the ACF 3-move deck, 156 openings, each game tagged with its ACF number), "
        "ballot:crossboard (the deck's 144 crossboard openings), "
        "random:PLIES (games start after PLIES random single moves), or a file with one opening in PDN per line",
    )
    parser.add_argument(
        "--time-per-move",
        type=positive_number,
        metavar="S",
        help="seconds per move for the agents that take a time parameter (alphabeta, mcrd, td-minimax)",
    )
    add_whole_number(parser, "--workers", "processes playing games at once", 1, minimum=1, metavar="K")
    add_ray_option(parser, "play the games")
    parser.add_argument("--backend", choices=("local", "ray"), dest="ray", action=_OldBackend, help=argparse.SUPPRESS)
    add_out(parser, "output folder (default runs/league)", default="runs/league")
    parser.add_argument(
        "--resume", action="store_true", help="continue the league in --out; new AGENT_SPECs play only their own games"
    )
    parser.add_argument("--overwrite", action="store_true", help="discard the games already in --out")
    add_seed(parser, "seed of the random openings and of every game")
    what = "a game longer than this many plies (single moves) is drawn"
    add_whole_number(parser, "--max-plies", what, 400, minimum=1, metavar="N")
    parser.add_argument(
        "--bootstrap",
        type=whole_number(0, _max_bootstrap),
        default=1000,
        metavar="N",
        help="resamples of the games behind the ratings' 95 %% intervals, %(minimum)s to %(maximum)s "
        "(default 1000; 0: no intervals)",
    )
    parser.add_argument("--trust-pickles", action="store_true", help=TRUST_PICKLES_HELP)
    parser.add_argument(
        "--adjudicate",
        choices=("egdb",),
        help="egdb: a game that reaches a position of the endgame database ends there with the database's "
        "result (termination egdb in the PDN); default: games are played to their end",
    )
    add_egdb_pieces(parser, "--egdb-pieces", "pieces of the adjudicating database")
    parser.add_argument(
        "--adjudicate-pieces",
        dest="egdb_pieces",
        type=whole_number(2, max_egdb_pieces),
        action=DeprecatedAlias,
        new="--egdb-pieces",
        help=argparse.SUPPRESS,
    )
    add_egdb_folder(parser, "the endgame database folder (default $CHECKERS_EGDB, else the platform's cache folder)")
    parser.set_defaults(handler=run_league)


def run_league(args: argparse.Namespace) -> int:
    """Play the league ``args`` describes; returns the exit status."""
    from checkers_env import Rules
    from checkers_evaluation.league import League, expand_zoo

    league = League(
        expand_zoo(args.agents),
        gauntlet=args.gauntlet,
        out=args.out,
        games_per_pair=args.games_per_pair,
        openings=args.openings,
        time_per_move=args.time_per_move,
        workers=args.workers,
        ray=args.ray,
        resume=args.resume,
        overwrite=args.overwrite,
        seed=args.seed,
        rules=Rules(max_plies=args.max_plies),
        bootstrap=args.bootstrap,
        adjudicate=args.adjudicate,
        adjudicate_pieces=args.egdb_pieces,
        egdb_folder=args.egdb_folder,
        trusted=args.trust_pickles,
    )
    league.run()
    return 0
