"""``checkers perft``: count the move paths of DEPTH plies (checks the move generator,
measures its speed)."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterator

from checkers_evaluation.options import UsageError, board_from_fen, whole_number

#: From this depth on, perft shows a progress bar over the root moves (on a terminal).
PROGRESS_DEPTH = 12


def _perft_max_depth() -> int:
    from checkers_env.perft import MAX_DEPTH

    return MAX_DEPTH


HELP = "count the move paths of DEPTH plies (checks the move generator, measures speed)"
DESCRIPTION = (
    "Count the complete-move paths of DEPTH plies from a position "
    "(from the start: 1:7, 2:49, 3:302, 4:1469, ..., OEIS A133046)."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers perft`` on its parser."""
    parser.add_argument(
        "depth",
        metavar="DEPTH",
        type=whole_number(0, _perft_max_depth),
        help="plies (single moves) to look ahead, %(minimum)s to %(maximum)s",
    )
    parser.add_argument("--fen", help="start from this PDN FEN instead of the start position")
    parser.add_argument("--divide", action="store_true", help="print the count below each root move, then the total")
    parser.add_argument(
        "--no-bulk",
        dest="bulk",
        action="store_false",
        help="make every leaf move instead of counting the last ply in bulk (slower)",
    )
    parser.set_defaults(handler=_run_perft)


def _run_perft(args: argparse.Namespace) -> int:
    from checkers_env import perft
    from checkers_env.perft import perft_slices

    board = board_from_fen(args.fen)
    if args.divide and args.depth < 1:
        raise UsageError(f"--divide needs a depth >= 1, got {args.depth}")
    perft(board, 1, args.bulk)  # compile (or load the cached kernel) outside the timing

    # --divide counts below each root move; otherwise the whole tree is one part.
    parts = [(move, board.play(move)) for move in board.legal_moves()] if args.divide else [(None, board)]
    depth = args.depth - 1 if args.divide else args.depth
    show = args.depth >= PROGRESS_DEPTH and sys.stderr.isatty()
    started = time.perf_counter()
    total = 0
    with _progress(f"perft {args.depth}", len(parts), show) as advance:
        for root, position in parts:
            count = 0
            # Slices of at most a second each: Ctrl-C gets through and the bar moves.
            for path, share, slice_count in perft_slices(position, depth, args.bulk):
                count += slice_count
                advance(share, (root,) + path if root is not None else path)
            total += count
            if args.divide:
                print(f"{root}: {count}", flush=True)
    elapsed = time.perf_counter() - started

    label = "total" if args.divide else f"perft {args.depth}"
    nodes = "node" if total == 1 else "nodes"
    print(f"{label}: {total} {nodes} in {elapsed:.3f} s ({_rate(total, elapsed)} nodes/s)")
    return 0


@contextlib.contextmanager
def _progress(description: str, parts: int, show: bool) -> Iterator[Callable]:
    """A rich bar on stderr over ``parts`` parts, moved by ``advance(share, path)`` after each
    slice (``share`` of one part; ``path`` names the line just counted). The bar disappears
    when done, so stdout keeps only the counts. With ``show`` false it draws nothing."""
    if not show:
        yield lambda share, path: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=parts)

        def advance(share: float, path: tuple) -> None:
            line = " ".join(str(move) for move in path[:2])
            progress.update(task, advance=share, description=f"{description}, counted {line}" if line else description)

        yield advance


def _rate(count: int, seconds: float) -> str:
    if seconds <= 0:
        return "inf"
    rate = count / seconds
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate >= scale:
            return f"{rate / scale:.1f} {unit}"
    return f"{rate:.0f}"
