"""``checkers serve``: the local web app (:mod:`checkers_evaluation.serve`, imported only when
it runs)."""

from __future__ import annotations

import argparse

from checkers_evaluation.common_options import add_egdb_folder, add_out, add_whole_number
from checkers_evaluation.options import DeprecatedAlias, folder_path, lazy_handler, positive_number

HELP = "the web page: play an agent, watch two play, replay a league's games"
DESCRIPTION = (
    "Start a local web app (needs the serve extra: pip install 'checkers-suite[serve]') "
    "with three tabs: Play (any agent, either colour, from a ballot opening or a FEN, moves by "
    "clicking), Watch (two agents play each other) and League (ratings, crosstable, heatmap and "
    "replays of a league's games). It binds to 127.0.0.1 unless --host says otherwise. Requests "
    "may name agents, zoo entries and plain values only, never a file (SECURITY.md)."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers serve`` on its parser."""

    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    add_whole_number(parser, "--port", "port, 0 to 65535", 8000, maximum=65535)
    parser.add_argument(
        "--league",
        action="append",
        metavar="DIR",
        help="a league output folder (checkers league --out DIR) for the League tab; repeat for several",
    )
    parser.add_argument(
        "--think-limit",
        type=positive_number,
        default=10.0,
        metavar="S",
        help="seconds an agent may think about one move; past it the move is stopped (default 10)",
    )
    add_whole_number(parser, "--workers", "agent moves thought about at once, each in its own process", 2, minimum=1)
    add_out(parser, "output folder: append every finished game to DIR/games.jsonl (the league's format)", dest="record")
    parser.add_argument(
        "--record", dest="record", type=folder_path, action=DeprecatedAlias, new="--out", help=argparse.SUPPRESS
    )
    add_egdb_folder(parser, "endgame database folder (default: the cache folder's, when one is built)")
    parser.add_argument(
        "--agents-dir",
        action="append",
        metavar="DIR",
        help="a folder of agents to offer the page, laid out as the zoo (DIR/NAME/card.json beside its weights); "
        "the page names one zoo:NAME (the zoo's own entries first). Requests can name no other file; repeat for several",
    )
    parser.set_defaults(handler=lazy_handler("checkers_evaluation.serve", "serve_main"))
