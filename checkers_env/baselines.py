"""The random and greedy baselines as numba move choosers, shared by the ``random`` and
``greedy`` agents and the envs' in-kernel opponents (so both choose exactly the same way)."""

from __future__ import annotations

import numba

from .bitboard import apply_move, popcount
from .movegen import CAPTURED, FROM, TO, keep_best, random_below

#: Material points used by ``greedy`` (and the material reward): a king is worth more
#: than a man because it moves both ways.
MAN_POINTS = 2
KING_POINTS = 3

OPPONENT_NONE = 0  # self-play: the same policy plays both sides
OPPONENT_RANDOM = 1
OPPONENT_GREEDY = 2
OPPONENT_EXTERNAL = 3  # a Python Agent chooses outside the kernel


@numba.njit(cache=True, inline="always")
def material(pieces, kings):
    """Material points of one side."""
    return MAN_POINTS * popcount(pieces & ~kings) + KING_POINTS * popcount(pieces & kings)


@numba.njit(cache=True)
def choose_random(n, rng):
    """Uniform index in ``[0, n)``; returns ``(index, rng)``."""
    rng, k = random_below(rng, n)
    return k, rng


@numba.njit(cache=True)
def choose_greedy(moves, n, mover, opponent, kings, black_to_move, rng):
    """Index of the move that leaves the best material balance for the mover (one ply),
    ties broken uniformly at random (reservoir sampling); returns ``(index, rng)``."""
    best = -(1 << 30)
    best_index = 0
    ties = 0
    for i in range(n):
        m, o, k = apply_move(mover, opponent, kings, black_to_move, moves[i, FROM], moves[i, TO], moves[i, CAPTURED])
        best, best_index, ties, rng = keep_best(material(m, k) - material(o, k), i, best, best_index, ties, rng)
    return best_index, rng


@numba.njit(cache=True)
def choose(kind, moves, n, mover, opponent, kings, black_to_move, rng):
    """Dispatch on the opponent kind (``OPPONENT_RANDOM`` or ``OPPONENT_GREEDY``)."""
    if kind == OPPONENT_GREEDY:
        return choose_greedy(moves, n, mover, opponent, kings, black_to_move, rng)
    return choose_random(n, rng)
