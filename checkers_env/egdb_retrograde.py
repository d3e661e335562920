"""The endgame databases' build in numba: retrograde analysis, slice pair by slice pair
(the index and the probe are ``egdb_index``).

**Build** (retrograde analysis by levels). A slice's quiet moves (no capture, no crowning)
lead to the slice with the sides swapped, ``(om, ok, mm, mk)``: the two are solved
together, a *pair*. Every other move (a capture, a crowning) leads to a slice with fewer
pieces or fewer men, solved before: an *exit* whose value is already known. Pairs are
solved by total pieces, then total men, ascending. For a pair:

1. *Init* (parallel over positions): generate the moves; look up every exit child's value;
   count the quiet children (``counter``, plus one that is never removed when an exit child
   is drawn: such a position cannot be lost). A position with no move is lost in 0; one
   with a lost exit child is scheduled as a win at (its distance + 1); one whose every
   child is an exit won by the opponent is scheduled as a loss at (the longest + 1).
2. *Levels* ``L = 0, 1, 2, ...``: resolve every position scheduled at ``L`` that is still
   open (a win if ``L`` is odd, a loss if even); then, for each position resolved at ``L``,
   generate its predecessors by un-making quiet moves (a king steps back any way, a man
   backward; the square left must be empty and the predecessor must have no capture, or
   the quiet move was not legal there). A predecessor of a loss is scheduled as a win at
   ``L + 1``; a predecessor of a win loses one from its counter, and at zero is scheduled
   as a loss at ``max(L + 1, longest exit win + 1)``. Levels go on while anything is
   resolved or scheduled later.
3. What is still open is a draw.

Positions are resolved in order of distance, so a win takes the shortest way and a loss
the longest. Step 2 propagates from each slice of the pair into the other one, so the
two slices run on two threads without sharing a write.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .bitboard import FULL, crowning_row, jumpers, step_ne, step_nw, step_se, step_sw
from .egdb_index import DRAW, MAX_DISTANCE, child_frame, probe, slice_index, slice_position
from .encoding import half_turn
from .movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves


# ---------------------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------------------

#: Positions per parallel chunk of the init pass (one move buffer each).
CHUNK = 4096


@numba.njit(cache=True)
def _init_position(values, offsets, mover, opponent, kings, moves):
    """Init of one position: ``(schedule, counter, exit_longest_win)``.

    ``schedule`` is the level + 1 at which it is resolved for sure (0: not yet known);
    ``counter`` its quiet children plus one if an exit child is drawn; ``exit_longest_win``
    the longest distance of an exit child won by the opponent (0: none).
    """
    n = generate_moves(mover, opponent, kings, True, moves)
    if n == 0:
        return 1, 0, 0  # no move: lost in 0
    crown = crowning_row(True)
    best_win = 0  # schedule of the fastest win through an exit, 0: none
    longest = 0
    quiet = 0
    drawn = 0
    for k in range(n):
        frm = moves[k, FROM]
        to = moves[k, TO]
        captured = moves[k, CAPTURED]
        from_bb = np.int64(1) << frm
        crowned = (kings & from_bb) == 0 and ((np.int64(1) << to) & crown) != 0
        if captured == 0 and not crowned:
            quiet += 1
            continue
        c_mover, c_opponent, c_kings = child_frame(mover, opponent, kings, frm, to, captured)
        v = probe(values, offsets, c_mover, c_opponent, c_kings)
        if v == DRAW:
            drawn = 1
        elif (v - 1) % 2 == 0:
            # The opponent loses in v - 1 plies: a win in v, resolved at level v.
            if best_win == 0 or v + 1 < best_win:
                best_win = v + 1
        elif v > longest:
            longest = v
    if best_win:
        return best_win, quiet + drawn, longest
    counter = quiet + drawn
    if counter == 0:
        return longest + 1, 0, longest  # every child an exit won by the opponent
    return 0, counter, longest


@numba.njit(cache=True, parallel=True)
def init_slice(values, offsets, mm, mk, om, ok, schedule, counter, longest):
    """Step 1 for one slice: fills ``schedule``, ``counter`` and ``longest`` (uint8 each)."""
    size = schedule.shape[0]
    chunks = (size + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
        end = min(size, (c + 1) * CHUNK)
        for index in range(c * CHUNK, end):
            mover, opponent, kings = slice_position(mm, mk, om, ok, index)
            s, n, w = _init_position(values, offsets, mover, opponent, kings, moves)
            schedule[index] = s
            counter[index] = n
            longest[index] = w


@numba.njit(cache=True, parallel=True)
def resolve_level(level, value, schedule):
    """Resolve the open positions scheduled at ``level``; returns ``(resolved, later)``:
    how many were resolved and how many open positions are scheduled later."""
    size = value.shape[0]
    chunks = (size + CHUNK - 1) // CHUNK
    counts = np.zeros((chunks, 2), dtype=np.int64)  # per chunk: resolved, scheduled later
    for c in prange(chunks):
        end = min(size, (c + 1) * CHUNK)
        resolved = 0
        later = 0
        for index in range(c * CHUNK, end):
            if value[index] != DRAW:
                continue
            s = schedule[index]
            if s == level + 1:
                value[index] = level + 1
                resolved += 1
            elif s > level + 1:
                later += 1
        counts[c, 0] = resolved
        counts[c, 1] = later
    resolved = 0
    later = 0
    for c in range(chunks):
        resolved += counts[c, 0]
        later += counts[c, 1]
    return resolved, later


@numba.njit(cache=True)
def _predecessor(value, schedule, counter, longest, level, mover, opponent, kings, overflow):
    """Step 2 for one predecessor (in its mover's frame); returns the new overflow flag."""
    if jumpers(mover, opponent, kings, True) != 0:
        return overflow  # a capture was there: the quiet move was not legal
    index = slice_index(mover, opponent, kings)
    if value[index] != DRAW:
        return overflow
    if level % 2 == 0:
        # The child is lost for its mover: this is a win in level + 1.
        if level + 1 > MAX_DISTANCE:
            return 1
        if schedule[index] == 0 or schedule[index] > level + 2:
            schedule[index] = level + 2
    else:
        counter[index] -= 1
        if counter[index] == 0 and schedule[index] == 0:
            at = max(level + 1, np.int64(longest[index]))
            if at > MAX_DISTANCE:
                return 1
            schedule[index] = at + 1
    return overflow


@numba.njit(cache=True)
def propagate_slice(level, mm, mk, om, ok, value, other_value, other_schedule, other_counter, other_longest):
    """Step 2 from the positions of one slice resolved at ``level`` into the other slice of
    the pair (``other_*``); returns 1 if a distance overflowed ``MAX_DISTANCE``."""
    overflow = 0
    for index in range(value.shape[0]):
        if value[index] != level + 1:
            continue
        mover, opponent, kings = slice_position(mm, mk, om, ok, index)
        # The side that just moved, moving up.
        x = half_turn(opponent)
        y = half_turn(mover)
        k = half_turn(kings)
        x_kings = x & k
        empty = ~(x | y) & FULL
        pieces = x
        while pieces:
            to = pieces & -pieces
            pieces &= pieces - 1
            for d in range(4):
                if d == 0:
                    origin = step_sw(to)  # a man or king that moved NE
                elif d == 1:
                    origin = step_se(to)  # ... that moved NW
                elif (to & x_kings) == 0:
                    break  # men never move backward
                elif d == 2:
                    origin = step_nw(to)
                else:
                    origin = step_ne(to)
                if origin == 0 or (origin & empty) == 0:
                    continue
                before = (x & ~to) | origin
                before_kings = k
                if to & x_kings:
                    before_kings = (k & ~to) | origin
                overflow = _predecessor(
                    other_value, other_schedule, other_counter, other_longest, level, before, y, before_kings, overflow
                )
    return overflow


@numba.njit(cache=True, parallel=True)
def propagate_pair(level, a, b, value_a, value_b, sched_a, sched_b, counter_a, counter_b, longest_a, longest_b):
    """Step 2 for a pair of distinct slices ``a = (mm, mk, om, ok)`` and ``b``, one thread
    each: a's resolved positions feed b's arrays and the other way round."""
    flags = np.zeros(2, dtype=np.int64)
    for side in prange(2):
        if side == 0:
            flags[0] = propagate_slice(level, a[0], a[1], a[2], a[3], value_a, value_b, sched_b, counter_b, longest_b)
        else:
            flags[1] = propagate_slice(level, b[0], b[1], b[2], b[3], value_b, value_a, sched_a, counter_a, longest_a)
    return flags[0] | flags[1]


@numba.njit(cache=True)
def value_counts(value):
    """``int64[256]`` histogram of a slice's value bytes."""
    counts = np.zeros(256, dtype=np.int64)
    for i in range(value.shape[0]):
        counts[value[i]] += 1
    return counts
