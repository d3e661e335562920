"""Perft: the number of move paths of a given length, the standard check of a move generator.

Deep counts take minutes to hours, so they are counted in slices: the tree is split in
Python until each subtree is at most ``SLICE_DEPTH`` plies deep, and each subtree is one
numba call (well under a second from any position). Between calls Python runs, so Ctrl-C
stops a count within about a second and a progress bar can follow ``perft_slices``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .board import BLACK, Board, Move
from .movegen import MAX_MOVES, MOVE_FIELDS, perft_kernel

#: Subtrees at most this deep are counted in one numba call (perft 10 from the start,
#: 18 M paths, takes about 0.2 s): short enough for Ctrl-C, long enough that the Python
#: between calls costs nothing measurable.
SLICE_DEPTH = 10

#: Deepest count accepted. Each ply multiplies the count by about 4.5 (perft 13 is 1.8
#: billion paths), so no machine finishes anywhere near 40; the bound also
#: keeps the slicing's recursion (one level per ply over ``SLICE_DEPTH``) far from
#: Python's limit.
MAX_DEPTH = 40


def _check(board: Board, depth: int, bulk: bool) -> None:
    if not isinstance(board, Board):
        raise TypeError(f"perft: board must be a Board (e.g. Board.from_fen(...)), got {board!r}")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise TypeError(f"perft: depth must be a whole number of plies, got {depth!r}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be 0 to {MAX_DEPTH}, got {depth}")
    if not isinstance(bulk, (bool, np.bool_)):
        raise TypeError(f"perft: bulk must be True or False, got {bulk!r}")


def perft(board: Board, depth: int, bulk: bool = True) -> int:
    """Count the complete-move paths of ``depth`` plies from ``board``.

    Different capture paths are different moves, as in the published counts
    (1:7, 2:49, 3:302, ... 13:1766623630 from the start).

    Args:
        board: the position to count from.
        depth: plies to look ahead, 0 to ``MAX_DEPTH``.
        bulk: count the last ply's moves without making them (faster, same result).

    Raises:
        TypeError: ``board`` is not a ``Board`` or ``depth`` not a whole number.
        ValueError: ``depth`` is negative or over ``MAX_DEPTH``.
    """
    return sum(count for _, _, count in perft_slices(board, depth, bulk))


def perft_slices(board: Board, depth: int, bulk: bool = True) -> Iterator[tuple[tuple[Move, ...], float, int]]:
    """Count ``perft(board, depth)`` one subtree at a time, for progress and Ctrl-C.

    Yields:
        ``(path, share, count)`` per subtree: the moves leading to it from ``board``, the
        share of the tree's branches it stands for (the shares sum to 1, dividing each
        position's share evenly among its moves) and its count. The counts sum to
        ``perft(board, depth, bulk)``.
    """
    _check(board, depth, bulk)
    yield from _slices(board, int(depth), bool(bulk), (), 1.0)


def _slices(board: Board, depth: int, bulk: bool, path: tuple[Move, ...], share: float):
    if depth <= SLICE_DEPTH:
        yield path, share, _count(board, depth, bulk)
        return
    moves = board.legal_moves()
    if not moves:
        yield path, share, 0
        return
    for move in moves:
        yield from _slices(board.play(move), depth - 1, bulk, path + (move,), share / len(moves))


def _count(board: Board, depth: int, bulk: bool) -> int:
    """One numba call: the whole subtree of ``depth`` plies."""
    buffers = np.zeros((max(depth, 1), MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    return int(perft_kernel(board.black, board.white, board.kings, board.turn == BLACK, depth, bulk, buffers))


def divide(board: Board, depth: int) -> dict[Move, int]:
    """Perft of ``depth - 1`` below each legal move: the standard way to find a wrong count."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise TypeError(f"divide: depth must be a whole number of plies, got {depth!r}")
    if depth < 1:
        raise ValueError(f"divide depth must be >= 1, got {depth}")
    _check(board, depth, True)
    return {move: perft(board.play(move), depth - 1) for move in board.legal_moves()}


__all__ = ["MAX_DEPTH", "SLICE_DEPTH", "divide", "perft", "perft_slices"]
