"""The endgame databases' index and probe, in numba: where a position is stored and its value
read (the build is ``egdb_retrograde``).

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
"""

from __future__ import annotations

import numba
import numpy as np

from .bitboard import (
    apply_move,
    lowest_bit_index,
    popcount,
)
from .encoding import half_turn

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
