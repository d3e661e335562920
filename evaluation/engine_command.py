"""``checkers engine``: one of the suite's agents as an engine that another program drives
over stdin and stdout (:mod:`checkers_evaluation.engine_server`, imported only when it
runs; the protocol is ``docs/engine-protocol.md``)."""

from __future__ import annotations

from checkers_evaluation.common_options import add_agent_spec
from checkers_evaluation.options import lazy_handler

HELP = "serve an agent over stdin/stdout with the engine protocol"
DESCRIPTION = (
    "Serve one of the suite's agents as an engine: commands come one a line on stdin "
    "(hello, isready, newgame, position, go, setoption, quit) and each answer is one line "
    "on stdout (docs/engine-protocol.md). Any program can drive it; the suite's own "
    "client is the agent kind engine:cmd=..."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers engine`` on its parser."""
    add_agent_spec(
        parser,
        "--agent",
        "the agent that chooses the moves, as a spec string (default alphabeta; "
        "checkers agents lists them); the driver may change it with setoption name agent value SPEC",
        default="alphabeta",
    )
    parser.set_defaults(handler=lazy_handler("checkers_evaluation.engine_server", "engine_main"))
