"""Numba kernels of the endgame databases: the index of a slice, the probe, and the build.

**Positions in the mover's frame.** A position is stored as the side to move sees it: the
board turned so that the mover's men move up (for White to move, every bit ``b`` becomes
``31 - b``, ``encoding.half_turn``) and the mover called "mover" whatever its colour. So a
position with White to move and its colour-swapped twin with Black to move share one
entry, and every table is the table of "the side to move" (its values are the mover's).

**Slices.** A slice holds every position with given numbers of mover men, mover kings,
opponent men and opponent kings ``(mm, mk, om, ok)``, each side with at least one piece.
Mover men never stand on row 7 (they would be kings) and opponent men never on row 0.

**Index** (a bijection between a slice's positions and ``0 .. size - 1``; combinatorial
ranking, no holes). With ``j`` mover men on row 0 (bits 0-3), the index is, from the most
significant part to the least::

    offset(j)                                       positions with fewer men on row 0
    + ((rank(row-0 men)   * C(24, mm - j)           which j of the 4 squares of row 0
        + rank(other men))                          which of the 24 squares of rows 1-6
       * C(28 - (mm - j), om) + rank(opponent men)) among rows 1-7 less the mover's men
      * C(32 - mm - om, mk) * C(32 - mm - om - mk, ok)
    + rank(mover kings) * C(32 - mm - om - mk, ok)  among the squares without men
    + rank(opponent kings)                          among the squares left

where ``rank`` of pieces on the free squares numbered ``p0 < p1 < ...`` (counted from bit 0,
skipping the squares that are taken) is the colex rank ``C(p0, 1) + C(p1, 2) + ...``.
Summed over every slice with ``n`` pieces (empty sides included) the sizes give the
published counts 120, 6 972, 261 224, 7 092 774, 148 688 232 for 1-5 pieces
(``tests/checkers_env/test_egdb.py``).

**Values.** One byte per position: ``0`` is a draw, ``d + 1`` is "the game ends in ``d``
plies under best play": a win for the mover when ``d`` is odd (the mover makes the last
move), a loss when ``d`` is even (``d = 0``: no legal move). So distances up to 254 fit.

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

from .bitboard import (
    FULL,
    apply_move,
    crowning_row,
    jumpers,
    lowest_bit_index,
    popcount,
    step_ne,
    step_nw,
    step_se,
    step_sw,
)
from .encoding import half_turn
from .movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves

#: Most pieces a side can have; the slice table is indexed by counts 0..MAX_SIDE.
MAX_SIDE = 12
#: Value byte of a draw, and the largest distance that fits (byte 255).
DRAW = 0
MAX_DISTANCE = 254
#: Value byte meaning "not in the database" (probe results are int64).
OUTSIDE = -1

ROW0 = 0x0000000F
ROWS_1_TO_7 = 0xFFFFFFF0


def _binomials() -> np.ndarray:
    table = np.zeros((33, 33), dtype=np.int64)
    for n in range(33):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


#: ``BINOMIAL[n, k]`` = C(n, k) for n, k <= 32 (zero when k > n).
BINOMIAL = _binomials()


# ---------------------------------------------------------------------------------------
# Index
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True)
def king_combinations(mm, mk, om, ok):
    """Ways to place the kings once the men stand."""
    free = 32 - mm - om
    return BINOMIAL[free, mk] * BINOMIAL[free - mk, ok]


@numba.njit(cache=True)
def part_size(mm, mk, om, ok, j):
    """Positions of a slice with exactly ``j`` mover men on row 0."""
    if j > mm or mm - j > 24:
        return 0
    return BINOMIAL[4, j] * BINOMIAL[24, mm - j] * BINOMIAL[28 - (mm - j), om] * king_combinations(mm, mk, om, ok)


@numba.njit(cache=True)
def slice_size(mm, mk, om, ok):
    """Number of positions in slice ``(mm, mk, om, ok)`` (empty sides allowed)."""
    if mm > 28 or om > 28 or mm + mk + om + ok > 32:
        return 0
    total = 0
    for j in range(5):
        total += part_size(mm, mk, om, ok, j)
    return total


@numba.njit(cache=True, inline="always")
def _rank(pieces, taken):
    """Colex rank of ``pieces`` on the squares not in ``taken``, numbered from bit 0."""
    rank = 0
    i = 1
    while pieces:
        bit = lowest_bit_index(pieces)
        pieces &= pieces - 1
        below = (1 << bit) - 1
        rank += BINOMIAL[bit - popcount(taken & below), i]
        i += 1
    return rank


@numba.njit(cache=True)
def slice_index(mover, opponent, kings):
    """Index of a position (mover's frame) inside its slice."""
    mover_men = mover & ~kings
    opponent_men = opponent & ~kings
    mover_kings = mover & kings
    opponent_kings = opponent & kings
    mm = popcount(mover_men)
    om = popcount(opponent_men)
    mk = popcount(mover_kings)
    ok = popcount(opponent_kings)
    j = popcount(mover_men & ROW0)
    offset = 0
    for i in range(j):
        offset += part_size(mm, mk, om, ok, i)
    middle = mover_men & ROWS_1_TO_7
    rank_row0 = _rank(mover_men & ROW0, 0)
    # Rows 1-6 numbered from 0: taking bits 0-3 as "taken" shifts the numbering by 4.
    rank_middle = _rank(middle, ROW0)
    rank_opponent = _rank(opponent_men, ROW0 | middle)
    men = mover_men | opponent_men
    rank_mover_kings = _rank(mover_kings, men)
    rank_opponent_kings = _rank(opponent_kings, men | mover_kings)
    free = 32 - mm - om
    men_part = (rank_row0 * BINOMIAL[24, mm - j] + rank_middle) * BINOMIAL[28 - (mm - j), om] + rank_opponent
    king_part = rank_mover_kings * BINOMIAL[free - mk, ok] + rank_opponent_kings
    return offset + men_part * king_combinations(mm, mk, om, ok) + king_part


@numba.njit(cache=True, inline="always")
def _unrank(rank, count, taken, first_bit, last_bit):
    """The ``count`` pieces of colex rank ``rank`` on the squares ``first_bit..last_bit``
    not in ``taken`` (the inverse of ``_rank``); a bitboard."""
    # Free squares in order; the highest piece is found first.
    pieces = 0
    for i in range(count, 0, -1):
        # Largest p with C(p, i) <= rank.
        p = i - 1
        while BINOMIAL[p + 1, i] <= rank:
            p += 1
        rank -= BINOMIAL[p, i]
        # The p-th free square.
        seen = 0
        for bit in range(first_bit, last_bit + 1):
            if (taken >> bit) & 1:
                continue
            if seen == p:
                pieces |= 1 << bit
                break
            seen += 1
    return pieces


@numba.njit(cache=True)
def slice_position(mm, mk, om, ok, index):
    """The position at ``index`` of slice ``(mm, mk, om, ok)``: ``(mover, opponent, kings)``."""
    j = 0
    while True:
        size = part_size(mm, mk, om, ok, j)
        if index < size:
            break
        index -= size
        j += 1
    kings_count = king_combinations(mm, mk, om, ok)
    king_part = index % kings_count
    men_part = index // kings_count
    opponent_count = BINOMIAL[28 - (mm - j), om]
    rank_opponent = men_part % opponent_count
    men_part //= opponent_count
    middle_count = BINOMIAL[24, mm - j]
    rank_middle = men_part % middle_count
    rank_row0 = men_part // middle_count
    row0 = _unrank(rank_row0, j, 0, 0, 3)
    middle = _unrank(rank_middle, mm - j, 0, 4, 27)
    mover_men = row0 | middle
    opponent_men = _unrank(rank_opponent, om, middle, 4, 31)
    men = mover_men | opponent_men
    free = 32 - mm - om
    opponent_king_count = BINOMIAL[free - mk, ok]
    mover_kings = _unrank(king_part // opponent_king_count, mk, men, 0, 31)
    opponent_kings = _unrank(king_part % opponent_king_count, ok, men | mover_kings, 0, 31)
    return mover_men | mover_kings, opponent_men | opponent_kings, mover_kings | opponent_kings


# ---------------------------------------------------------------------------------------
# Probe
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def mover_frame(black, white, kings, black_to_move):
    """``(mover, opponent, kings)`` of a board in the mover's frame."""
    if black_to_move:
        return black, white, kings
    return half_turn(white), half_turn(black), half_turn(kings)


@numba.njit(cache=True)
def probe(values, offsets, mover, opponent, kings):
    """Value byte of a position in the mover's frame, or ``OUTSIDE`` (-1).

    Args:
        values: ``uint8[total]``, every loaded slice one after the other.
        offsets: ``int64[13, 13, 13, 13]``: where slice ``(mm, mk, om, ok)`` starts in
            ``values``, -1 for a slice that is not loaded.
        mover, opponent, kings: the position, the side to move moving up.

    Returns:
        ``0`` draw, ``d + 1`` end in ``d`` plies (odd ``d``: the mover wins), ``-1`` outside.
        A side to move without pieces has lost (``1``); the position with no opponent
        piece cannot arise (the opponent would have lost before) and is outside.
    """
    if mover == 0:
        return 1
    if opponent == 0:
        return OUTSIDE
    mover_kings = popcount(mover & kings)
    opponent_kings = popcount(opponent & kings)
    mm = popcount(mover) - mover_kings
    om = popcount(opponent) - opponent_kings
    if mm > MAX_SIDE or om > MAX_SIDE or mover_kings > MAX_SIDE or opponent_kings > MAX_SIDE:
        return OUTSIDE
    start = offsets[mm, mover_kings, om, opponent_kings]
    if start < 0:
        return OUTSIDE
    return np.int64(values[start + slice_index(mover, opponent, kings)])


@numba.njit(cache=True)
def probe_board(values, offsets, black, white, kings, black_to_move):
    """``probe`` of a board given by colour (``Board`` fields)."""
    mover, opponent, king_bits = mover_frame(black, white, kings, black_to_move)
    return probe(values, offsets, mover, opponent, king_bits)


@numba.njit(cache=True)
def child_frame(mover, opponent, kings, frm, to, captured):
    """The position after a move of the mover, in the frame of the new mover."""
    after_mover, after_opponent, after_kings = apply_move(mover, opponent, kings, True, frm, to, captured)
    return half_turn(after_opponent), half_turn(after_mover), half_turn(after_kings)


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
