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
    capture_walk_next,
    capture_walk_start,
    count_moves_inline,
    jumpers,
    lowest_bit_index,
    popcount,
    step_origin,
    step_targets,
)

MAX_MOVES = 128  # no reachable English-draughts position comes near this
MOVE_FIELDS = 5
#: The columns of a move row, by name (kernels index rows with these constants).
FROM, TO, CAPTURED, PATH, HOPS = range(MOVE_FIELDS)


def new_move_buffer() -> np.ndarray:
    """A buffer for one move list."""
    return np.zeros((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)


@numba.njit(cache=True)
def write_captures(mover, opponent, kings, black_to_move, origin, out, n):
    """Write the capture sequences of the piece on bit ``origin`` into ``out`` from row
    ``n`` on; return the new row count (``len(out)`` once full)."""
    # Called, not inlined: this keeps the walk out of every kernel that inlines
    # generate_moves (compile time), at the price of one call per capturing piece.
    size = out.shape[0]
    empty, allowed, crown, level, cur, path, todo, captured = capture_walk_start(
        mover, opponent, kings, black_to_move, origin
    )
    while True:
        level, cur, path, todo, captured, hops, to, seq_captured, seq_path = capture_walk_next(
            origin, opponent, empty, allowed, crown, level, cur, path, todo, captured
        )
        if hops == 0 or n >= size:
            return n
        out[n, FROM] = origin
        out[n, TO] = to
        out[n, CAPTURED] = seq_captured
        out[n, PATH] = seq_path
        out[n, HOPS] = hops
        n += 1


@numba.njit(cache=True, inline="always")
def generate_moves(mover, opponent, kings, black_to_move, out):
    """Write every legal complete move of the side to move into ``out``; return the count.

    Captures are mandatory: when any exists only capture sequences are listed, each complete
    path once (two paths that capture the same pieces are two moves). A full buffer stops
    the listing (the count is then ``len(out)``).
    """
    jumping = jumpers(mover, opponent, kings, black_to_move)
    if jumping:
        n = 0
        while jumping:
            origin = lowest_bit_index(jumping)
            jumping &= jumping - 1
            n = write_captures(mover, opponent, kings, black_to_move, origin, out, n)
        return n
    n = 0
    size = out.shape[0]
    empty = ~(mover | opponent) & FULL
    for d in range(4):
        targets = step_targets(mover, empty, kings, black_to_move, d)
        while targets:
            if n >= size:
                return n
            to = lowest_bit_index(targets)
            targets &= targets - 1
            out[n, FROM] = step_origin(to, d)
            out[n, TO] = to
            out[n, CAPTURED] = 0
            out[n, PATH] = to
            out[n, HOPS] = 1
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
    side = black_to_move != 0
    if bulk and depth == 1:
        return count_moves_inline(mover, opponent, kings, side)
    # The move lists of this ply are the last ones played out: each move's child is then
    # counted by count_moves (bulk) or, itself a leaf, counted as one.
    last = depth - 2 if bulk else depth - 1
    # Per ply: the position (``mover`` to move) and the next move of its list to play.
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
    arrived = True  # at a position whose moves are not listed yet
    while ply >= 0:
        mover, opponent, kings = movers_at[ply], opponents_at[ply], kings_at[ply]
        if arrived:
            # One call site only: generate_moves is inlined, and each copy costs compile time.
            counts[ply] = generate_moves(mover, opponent, kings, side, buffers[ply])
            index[ply] = 0
            arrived = False
        if ply == last:
            # Play out the whole list in one tight loop, then back up.
            for i in range(counts[ply]):
                m, o, k = apply_move(
                    mover,
                    opponent,
                    kings,
                    side,
                    buffers[ply, i, FROM],
                    buffers[ply, i, TO],
                    buffers[ply, i, CAPTURED],
                )
                if bulk:
                    total += count_moves_inline(o, m, k, not side)
                else:
                    # The leaf is made and stacked like any other position.
                    movers_at[ply + 1] = o
                    opponents_at[ply + 1] = m
                    kings_at[ply + 1] = k
                    total += 1
            ply -= 1
            side = not side
            continue
        i = index[ply]
        if i == counts[ply]:
            ply -= 1
            side = not side
            continue
        index[ply] = i + 1
        m, o, k = apply_move(
            mover, opponent, kings, side, buffers[ply, i, FROM], buffers[ply, i, TO], buffers[ply, i, CAPTURED]
        )
        # The opponent moves next: swap roles.
        ply += 1
        side = not side
        movers_at[ply] = o
        opponents_at[ply] = m
        kings_at[ply] = k
        arrived = True
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


@numba.njit(cache=True, inline="always")
def keep_best(score, i, best, best_index, ties, state):
    """One step of an argmax whose exact ties are broken uniformly by a reservoir draw:
    item ``i`` with ``score`` against the best so far (``best`` at ``best_index``, shared
    by ``ties`` items). Returns the new ``(best, best_index, ties, state)``; the draw
    ``random_below(state, ties)`` is made on ties only."""
    if score > best:
        return score, i, 1, state
    if score == best:
        ties += 1
        state, pick = random_below(state, ties)
        if pick == 0:
            best_index = i
    return best, best_index, ties, state


__all__ = [
    "CAPTURED",
    "FROM",
    "HOPS",
    "MAX_MOVES",
    "PATH",
    "TO",
    "MOVE_FIELDS",
    "generate_moves",
    "generate_moves_kernel",
    "keep_best",
    "new_move_buffer",
    "perft_kernel",
    "popcount",
]
