"""Array kernels over the scalar primitives: move lists, perft and random playouts.

A move list is an ``int64[MAX_MOVES, MOVE_FIELDS]`` buffer given by the caller; each row is
``(from_bit, to_bit, captured, path, hops)`` where ``path`` packs the landing bits of every
hop, 5 bits each, first hop lowest. Kernels return how many rows they wrote.
"""

from __future__ import annotations

import numba
import numpy as np

from .bitboard import (
    FULL,
    apply_move,
    capture_search,
    count_moves,
    jumpers,
    lowest_bit_index,
    men_directions,
    nth_move,
    popcount,
    step,
)

MAX_MOVES = 128  # no reachable English-draughts position comes near this
MOVE_FIELDS = 5
FROM, TO, CAPTURED, PATH, HOPS = range(MOVE_FIELDS)


def new_move_buffer() -> np.ndarray:
    """A buffer for one move list."""
    return np.zeros((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)


@numba.njit(cache=True, inline="always")
def generate_moves(mover, opponent, kings, black_to_move, out):
    """Write every legal complete move of the side to move into ``out``; return the count.

    Captures are mandatory: when any exists only capture sequences are listed, each complete
    path once (two paths that capture the same pieces are two moves).
    """
    n = 0
    jumping = jumpers(mover, opponent, kings, black_to_move)
    if jumping:
        while jumping:
            frm = lowest_bit_index(jumping)
            jumping &= jumping - 1
            count = capture_search(mover, opponent, kings, black_to_move, frm, -1)[0]
            for i in range(count):
                if n >= out.shape[0]:
                    return n
                _, to, captured, path, hops = capture_search(
                    mover, opponent, kings, black_to_move, frm, i
                )
                out[n, 0] = frm
                out[n, 1] = to
                out[n, 2] = captured
                out[n, 3] = path
                out[n, 4] = hops
                n += 1
        return n
    empty = ~(mover | opponent) & FULL
    lo, hi = men_directions(black_to_move)
    for d in range(4):
        pieces = mover if lo <= d <= hi else mover & kings
        targets = step(pieces, d) & empty
        while targets:
            if n >= out.shape[0]:
                return n
            to = lowest_bit_index(targets)
            targets &= targets - 1
            out[n, 0] = lowest_bit_index(step(1 << to, 3 - d))
            out[n, 1] = to
            out[n, 2] = 0
            out[n, 3] = to
            out[n, 4] = 1
            n += 1
    return n


@numba.njit(cache=True)
def generate_moves_kernel(mover, opponent, kings, black_to_move, out):
    """Non-inlined entry point of ``generate_moves`` for Python callers."""
    return generate_moves(mover, opponent, kings, black_to_move, out)


@numba.njit(cache=True)
def perft_kernel(black, white, kings, black_to_move, depth, bulk, buffers):
    """Number of move paths of length ``depth`` (iterative, one buffer per ply).

    Args:
        buffers: ``int64[depth, MAX_MOVES, MOVE_FIELDS]``.
        bulk: count the last ply's moves without making them.
    """
    if depth == 0:
        return 1
    if black_to_move:
        mover, opponent = black, white
    else:
        mover, opponent = white, black
    movers_at = np.empty(depth + 1, dtype=np.int64)
    opponents_at = np.empty(depth + 1, dtype=np.int64)
    kings_at = np.empty(depth + 1, dtype=np.int64)
    counts = np.empty(depth + 1, dtype=np.int64)
    index = np.empty(depth + 1, dtype=np.int64)
    total = 0
    ply = 0
    movers_at[0] = mover
    opponents_at[0] = opponent
    kings_at[0] = kings
    side = black_to_move
    if bulk and depth == 1:
        return count_moves(mover, opponent, kings, side)
    counts[0] = generate_moves(mover, opponent, kings, side, buffers[0])
    index[0] = 0
    while ply >= 0:
        if index[ply] >= counts[ply]:
            ply -= 1
            side = not side
            continue
        row = buffers[ply, index[ply]]
        index[ply] += 1
        m, o, k = apply_move(
            movers_at[ply], opponents_at[ply], kings_at[ply], side, row[0], row[1], row[2]
        )
        if ply + 1 == depth:
            total += 1
            continue
        # The opponent moves next: swap roles.
        child = ply + 1
        child_side = not side
        if bulk and child + 1 == depth:
            total += count_moves(o, m, k, child_side)
            continue
        movers_at[child] = o
        opponents_at[child] = m
        kings_at[child] = k
        counts[child] = generate_moves(o, m, k, child_side, buffers[child])
        index[child] = 0
        ply = child
        side = child_side
    return total


@numba.njit(cache=True, inline="always")
def xorshift64(state):
    """One step of Marsaglia's xorshift64; returns the new state (also the random number)."""
    # int64 arithmetic: left shifts wrap, right shifts are masked to act unsigned.
    state ^= state << 13
    state ^= (state >> 7) & 0x01FFFFFFFFFFFFFF
    state ^= state << 17
    return state


@numba.njit(cache=True, inline="always")
def seed_state(seed, stream):
    """A non-zero xorshift state for stream ``stream`` of ``seed`` (splitmix-style mixing)."""
    z = seed * 0x2545F4914F6CDD1D + (stream + 1) * 0x5851F42D4C957F2D
    z ^= (z >> 31) & 0x1FFFFFFFF
    z *= 0x4CF5AD432745937F
    z ^= (z >> 29) & 0x7FFFFFFFF
    return z | 1


@numba.njit(cache=True, inline="always")
def random_below(state, n):
    """(new_state, uniform integer in [0, n)) from a xorshift64 state."""
    state = xorshift64(state)
    return state, ((state >> 11) & 0xFFFFFFFF) * n >> 32


@numba.njit(cache=True)
def random_playout(black, white, kings, black_to_move, max_plies, state):
    """Play uniformly random complete moves until a side cannot move or ``max_plies``.

    Returns:
        ``(winner, plies, state)``: winner 0 Black, 1 White, -1 unfinished at the cap.
    """
    if black_to_move:
        mover, opponent = black, white
    else:
        mover, opponent = white, black
    side = black_to_move
    for ply in range(max_plies):
        n = count_moves(mover, opponent, kings, side)
        if n == 0:
            return (1 if side else 0), ply, state
        state, k = random_below(state, n)
        frm, to, captured, _, _ = nth_move(mover, opponent, kings, side, k)
        mover, opponent, kings = apply_move(mover, opponent, kings, side, frm, to, captured)
        mover, opponent = opponent, mover
        side = not side
    return -1, max_plies, state


@numba.njit(cache=True, parallel=True)
def random_playouts(black, white, kings, black_to_move, games, max_plies, seed):
    """Many random playouts with ``prange``; returns ``int64[3]`` Black wins, White wins, caps."""
    results = np.zeros((games, 3), dtype=np.int64)
    for g in numba.prange(games):
        state = xorshift64(seed_state(seed, g))
        winner, _, _ = random_playout(black, white, kings, black_to_move, max_plies, state)
        if winner >= 0:
            results[g, winner] = 1
        else:
            results[g, 2] = 1
    return results.sum(axis=0)


__all__ = [
    "MAX_MOVES",
    "MOVE_FIELDS",
    "generate_moves",
    "generate_moves_kernel",
    "new_move_buffer",
    "perft_kernel",
    "random_playout",
    "random_playouts",
    "popcount",
]
