"""Perft: the number of move paths of a given length, the standard check of a move generator."""

from __future__ import annotations

import numpy as np

from .board import BLACK, Board, Move
from .kernels import MAX_MOVES, MOVE_FIELDS, perft_kernel


def perft(board: Board, depth: int, bulk: bool = True) -> int:
    """Count the complete-move paths of ``depth`` plies from ``board``.

    Different capture paths are different moves, as in the published counts
    (1:7, 2:49, 3:302, ... 13:1766623630 from the start).

    Args:
        bulk: count the last ply's moves without making them (faster, same result).
    """
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    buffers = np.zeros((max(depth, 1), MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    return int(
        perft_kernel(board.black, board.white, board.kings, board.turn == BLACK, depth, bulk, buffers)
    )


def divide(board: Board, depth: int) -> dict[Move, int]:
    """Perft of ``depth - 1`` below each legal move: the standard way to find a wrong count."""
    if depth < 1:
        raise ValueError(f"divide depth must be >= 1, got {depth}")
    return {move: perft(board.play(move), depth - 1) for move in board.legal_moves()}


__all__ = ["divide", "perft"]
