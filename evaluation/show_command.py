"""``checkers show``: a position as an ASCII board with its legal moves."""

from __future__ import annotations

import argparse

from checkers_evaluation.options import board_from_fen

HELP = "print a position as an ASCII board with its legal moves"
DESCRIPTION = (
    "Print the position of a PDN FEN (like 'B:W18,K30:B14') as an ASCII board "
    "with square numbers, then its legal moves."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers show`` on its parser."""
    parser.add_argument("fen", metavar="FEN", help="the position, in PDN FEN")
    parser.set_defaults(handler=_run_show)


def _run_show(args: argparse.Namespace) -> int:
    board = board_from_fen(args.fen)
    print(board)
    print(f"FEN: {board.fen()}")
    moves = board.legal_moves()
    if not moves:
        print(f"{board.turn} has no legal move and loses")
        return 0
    kind = "capture" if board.is_capture_position() else "move"
    plural = "" if len(moves) == 1 else "s"
    print(f"{len(moves)} legal {kind}{plural} for {board.turn}: " + " ".join(map(str, moves)))
    return 0
