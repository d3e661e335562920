"""Which positions the outcome net learns from: the quiet ones, whose side to move has no
capture (the alpha-beta's quiescence search evaluates no other)."""

from __future__ import annotations

import numba
import numpy as np

from checkers_env.bitboard import jumpers


@numba.njit(cache=True)
def quiet_mask(black, white, kings, black_to_move):
    """Positions whose side to move has no capture (what the search evaluates).

    Args:
        black, white, kings: uint32 bitboards of the positions, one entry each.
        black_to_move: nonzero where Black is to move.

    Returns:
        A boolean array, True where the position is quiet.
    """
    out = np.zeros(black.shape[0], dtype=np.bool_)
    for i in range(black.shape[0]):
        side = black_to_move[i]
        mover, opponent = (black[i], white[i]) if side else (white[i], black[i])
        out[i] = jumpers(mover, opponent, kings[i], side) == 0
    return out


__all__ = ["quiet_mask"]
