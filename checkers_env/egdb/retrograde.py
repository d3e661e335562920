"""The endgame databases' build in numba: retrograde analysis, slice pair by slice pair
(the index and the probe are ``index``).

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
   open (a win if ``L`` is odd, a loss if even); then, for each position resolved at ``L``
   (the level's *frontier*),
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

No pass scans a slice for its level: the init pass's schedule is sorted into lists by
level once (:func:`bucket_by_level`), and each propagation returns the positions it
scheduled (:data:`Events`), so a level touches only its candidates and its frontier. A
pair has up to 255 levels; scanning both slices at each one cost as much as the moves.
The updates a frontier sends into a large slice are gathered first and applied in memory
order (:data:`BUCKET_BITS`): one at a random place of a slice far larger than the caches
is a trip to memory each.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba import prange

from ..bitboard import FULL, crowning_row, jumpers, step_ne, step_nw, step_se, step_sw
from ..encoding import half_turn
from ..movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves
from .index import DRAW, MAX_DISTANCE, child_frame, slice_index, slice_position, value_byte

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
        v = value_byte(values, offsets, c_mover, c_opponent, c_kings)
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


#: A slice's work while its pair is solved: ``uint8[positions, WORK_FIELDS]``, a position's
#: four bytes in one row, so that an update from a predecessor touches one cache line: its
#: value as it is being solved (copied into the database when the pair is done), and the
#: init pass's schedule, counter and exit longest win (see ``_init_position``).
WORK_FIELDS = 4
VALUE, SCHEDULE, COUNTER, LONGEST = range(WORK_FIELDS)


@numba.njit(cache=True, parallel=True)
def init_slice(values, offsets, mm, mk, om, ok, work):
    """Step 1 for one slice: fills the ``SCHEDULE``, ``COUNTER`` and ``LONGEST`` columns of
    ``work``."""
    size = work.shape[0]
    chunks = (size + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
        end = min(size, (c + 1) * CHUNK)
        for index in range(c * CHUNK, end):
            mover, opponent, kings = slice_position(mm, mk, om, ok, index)
            s, n, w = _init_position(values, offsets, mover, opponent, kings, moves)
            work[index, SCHEDULE] = s
            work[index, COUNTER] = n
            work[index, LONGEST] = w


#: Positions a level's propagation scheduled: ``index`` (int32) and ``level`` (uint8, the
#: level each is resolved at); the kernel returns how many it wrote.
Events = namedtuple("Events", "index level")


@numba.njit(cache=True)
def bucket_by_level(work):
    """The positions the init pass scheduled, by level: ``(order, starts)``, the positions
    resolved at level ``L`` being ``order[starts[L]:starts[L + 1]]`` (int32, ascending)."""
    starts = np.zeros(MAX_DISTANCE + 3, dtype=np.int64)
    for i in range(work.shape[0]):
        if work[i, SCHEDULE]:
            starts[work[i, SCHEDULE]] += 1  # level schedule - 1, counted one slot up
    for level in range(1, starts.shape[0]):
        starts[level] += starts[level - 1]
    order = np.empty(starts[-1], dtype=np.int32)
    fill = starts.copy()
    for i in range(work.shape[0]):
        s = work[i, SCHEDULE]
        if s:
            order[fill[s - 1]] = i
            fill[s - 1] += 1
    return order, starts


@numba.njit(cache=True)
def resolve_candidates(level, work, candidates, frontier, count):
    """Resolve the candidates that are still open and scheduled at ``level`` (a win if
    ``level`` is odd, a loss if even), appending them to ``frontier`` from ``count``;
    returns the new count. A candidate resolved before, or moved to an earlier level, is
    skipped: the lists are never pruned."""
    for c in range(candidates.shape[0]):
        index = candidates[c]
        if work[index, VALUE] == DRAW and work[index, SCHEDULE] == level + 1:
            work[index, VALUE] = level + 1
            frontier[count] = index
            count += 1
    return count


#: A level's updates go into a slice in memory order, bucket by bucket of
#: ``2**BUCKET_BITS`` positions (256 KiB of work rows, within a core's L2 cache), when the
#: slice has more than ``BUCKET_FROM`` positions; a smaller slice's work stays in the
#: caches anyway. Updates within a level commute, so the order changes no byte.
BUCKET_BITS = 16
BUCKET_FROM = 1 << 20
#: Frontier positions whose predecessors are gathered at a time (bounds the buffers).
FRONTIER_CHUNK = 1 << 20


@numba.njit(cache=True)
def _schedule(into, level, index, events, n):
    """Step 2 for one predecessor, ``into[index]``: schedules it and records that in
    ``events`` at ``n``. Returns the new ``n``, or -1 when a distance would pass
    ``MAX_DISTANCE``."""
    if into[index, VALUE] != DRAW:
        return n
    schedule = into[index, SCHEDULE]
    if level % 2 == 0:
        # The child is lost for its mover: this is a win in level + 1.
        if level + 1 > MAX_DISTANCE:
            return -1
        if schedule == 0 or schedule > level + 2:
            into[index, SCHEDULE] = level + 2
            events.index[n] = index
            events.level[n] = level + 1
            n += 1
    else:
        into[index, COUNTER] -= 1
        if into[index, COUNTER] == 0 and schedule == 0:
            at = max(level + 1, np.int64(into[index, LONGEST]))
            if at > MAX_DISTANCE:
                return -1
            into[index, SCHEDULE] = at + 1
            events.index[n] = index
            events.level[n] = at
            n += 1
    return n


@numba.njit(cache=True)
def _gather_predecessors(pieces, frontier, start, end, targets):
    """The indices of the predecessors of ``frontier[start:end]`` (positions of the slice
    ``pieces``) into ``targets``, in the other slice of the pair; returns how many. A
    predecessor is the position before a quiet move of the side that just moved, with
    no capture there (or the quiet move was not legal)."""
    n = 0
    for f in range(start, end):
        mover, opponent, kings = slice_position(pieces[0], pieces[1], pieces[2], pieces[3], frontier[f])
        # The side that just moved, moving up.
        x = half_turn(opponent)
        y = half_turn(mover)
        k = half_turn(kings)
        x_kings = x & k
        empty = ~(x | y) & FULL
        rest = x
        while rest:
            to = rest & -rest
            rest &= rest - 1
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
                if jumpers(before, y, before_kings, True) == 0:
                    targets[n] = slice_index(before, y, before_kings)
                    n += 1
    return n


@numba.njit(cache=True)
def propagate_frontier(level, pieces, frontier, count, into, events, bucket_from, chunk):
    """Step 2 from the ``count`` positions of ``frontier``, resolved at ``level`` in the
    slice ``pieces = (mm, mk, om, ok)``, into the other slice of the pair (``into``, its
    work array), ``chunk`` frontier positions at a time (:data:`FRONTIER_CHUNK`); the
    updates go in bucket order when ``into`` has more than ``bucket_from`` positions
    (:data:`BUCKET_FROM`). Returns how many positions it
    scheduled (written to ``events``), or -1 when a distance would pass
    ``MAX_DISTANCE``."""
    if count == 0:
        return 0
    size = into.shape[0]
    chunk = min(count, chunk)
    # Each piece of the side that moved came from one of at most four squares.
    targets = np.empty(chunk * 4 * (pieces[2] + pieces[3]), dtype=np.int32)
    bucketed = size > bucket_from
    buckets = (size >> BUCKET_BITS) + 1
    in_order = np.empty(targets.shape[0] if bucketed else 0, dtype=np.int32)
    starts = np.empty(buckets + 1, dtype=np.int64)
    n = 0
    for start in range(0, count, chunk):
        m = _gather_predecessors(pieces, frontier, start, min(count, start + chunk), targets)
        updates = targets
        if bucketed:
            # A counting sort by bucket: the updates then walk the slice in order.
            starts[:] = 0
            for t in range(m):
                starts[(targets[t] >> BUCKET_BITS) + 1] += 1
            for b in range(buckets):
                starts[b + 1] += starts[b]
            for t in range(m):
                b = targets[t] >> BUCKET_BITS
                in_order[starts[b]] = targets[t]
                starts[b] += 1
            updates = in_order
        for t in range(m):
            n = _schedule(into, level, updates[t], events, n)
            if n < 0:
                return -1
    return n


@numba.njit(cache=True, parallel=True)
def propagate_pair(level, pieces, frontiers, counts, works, events, bucket_from, chunk):
    """Step 2 for a pair of distinct slices, one thread each: slice 0's frontier feeds
    slice 1's work and the other way round (``pieces``: ``int64[2, 4]``; the rest pairs of
    arrays and of :data:`Events`). Returns the events written into each (-1: a distance
    overflowed)."""
    written = np.zeros(2, dtype=np.int64)
    # A parallel loop takes arrays, not tuples of them: unpacked here, packed in its body.
    frontier0, frontier1 = frontiers
    work0, work1 = works
    index0, at0 = events[0]
    index1, at1 = events[1]
    for side in prange(2):
        if side == 0:
            written[0] = propagate_frontier(
                level, pieces[0], frontier0, counts[0], work1, Events(index1, at1), bucket_from, chunk
            )
        else:
            written[1] = propagate_frontier(
                level, pieces[1], frontier1, counts[1], work0, Events(index0, at0), bucket_from, chunk
            )
    return written


@numba.njit(cache=True)
def value_counts(value):
    """``int64[256]`` histogram of a slice's value bytes."""
    counts = np.zeros(256, dtype=np.int64)
    for i in range(value.shape[0]):
        counts[value[i]] += 1
    return counts
