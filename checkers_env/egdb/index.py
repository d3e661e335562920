"""The endgame databases' index and probe, in numba: where a position is stored and its value
read (the build is ``retrograde``).

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
The files keep a 2-bit code a position (``WDL_*``), which is what a search probes
(``probe``), and the distances apart (``checkers_env.egdb.files``); the build works on value
bytes (``value_byte``).
"""

from __future__ import annotations

import numba
import numpy as np

from ..bitboard import (
    apply_move,
    lowest_bit_index,
    popcount,
)
from ..encoding import half_turn, mover_frame

#: Most pieces a side can have; the slice table is indexed by counts 0..MAX_SIDE.
MAX_SIDE = 12
#: Value byte of a draw, and the largest distance that fits (byte 255).
DRAW = 0
MAX_DISTANCE = 254
#: Value byte meaning "not in the database" (probe results are int64).
OUTSIDE = -1
#: Codes of the probe tables (2 bits a position): the value for the side to move.
WDL_DRAW, WDL_LOSS, WDL_WIN = 0, 1, 2
#: Positions a block of compressed distances covers (``checkers_env.egdb.files``).
BLOCK = 1 << 16

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


def slice_label(s: tuple[int, int, int, int]) -> str:
    """``2m1k-1m0k``: mover men and kings, then the opponent's."""
    return f"{s[0]}m{s[1]}k-{s[2]}m{s[3]}k"


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
def _slice_of(mover, opponent, kings):
    """``(mm, mk, om, ok)`` of a position in the mover's frame, ``mm = -1`` when no slice
    holds it (no opponent piece, or more than ``MAX_SIDE`` of a kind)."""
    mover_kings = popcount(mover & kings)
    opponent_kings = popcount(opponent & kings)
    mm = popcount(mover) - mover_kings
    om = popcount(opponent) - opponent_kings
    if opponent == 0 or mm > MAX_SIDE or om > MAX_SIDE or mover_kings > MAX_SIDE or opponent_kings > MAX_SIDE:
        return -1, 0, 0, 0
    return mm, mover_kings, om, opponent_kings


@numba.njit(cache=True)
def value_byte(values, offsets, mover, opponent, kings):
    """Value byte of a position in the mover's frame, or ``OUTSIDE`` (-1), from tables of
    value bytes (the build's layout, ``checkers_env.egdb.load_values``).

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
    mm, mk, om, ok = _slice_of(mover, opponent, kings)
    if mm < 0 or offsets[mm, mk, om, ok] < 0:
        return OUTSIDE
    return np.int64(values[offsets[mm, mk, om, ok] + slice_index(mover, opponent, kings)])


@numba.njit(cache=True, inline="always")
def probe(tables, offsets, mover, opponent, kings):
    """Win/draw/loss code (``WDL_*``) of a position in the mover's frame, or ``OUTSIDE``
    (-1): what a search probes, through the memory maps of the database files.

    Inlined into its caller; taking an array out of ``tables`` costs a reference count
    where numba keeps them (three times the probe), nothing in a kernel compiled without
    them (``_nrt=False``, as the search's is).

    Args:
        tables: one ``uint8`` array a piece count, 2 to 6 pieces (``EndgameDatabase.tables``:
            the maps of the files ``egdb-N.egdb``; a one-byte array where none is open).
        offsets: ``int64[13, 13, 13, 13]``: where slice ``(mm, mk, om, ok)``'s codes start in
            its piece count's array, -1 for a slice that is not open.
        mover, opponent, kings: the position, the side to move moving up.

    Returns:
        ``WDL_DRAW``, ``WDL_LOSS`` (a side to move without pieces too) or ``WDL_WIN``, or
        ``OUTSIDE`` (no opponent piece, or a slice not open).
    """
    if mover == 0:
        return WDL_LOSS
    mm, mk, om, ok = _slice_of(mover, opponent, kings)
    if mm < 0 or offsets[mm, mk, om, ok] < 0:
        return OUTSIDE
    index = slice_index(mover, opponent, kings)
    table = tables[mm + mk + om + ok - 2]
    return np.int64((table[offsets[mm, mk, om, ok] + (index >> 2)] >> ((index & 3) << 1)) & 3)


@numba.njit(cache=True, inline="always")
def probe_board(tables, offsets, black, white, kings, black_to_move):
    """``probe`` of a board given by colour (``Board`` fields)."""
    mover, opponent, king_bits = mover_frame(black, white, kings, black_to_move)
    return probe(tables, offsets, mover, opponent, king_bits)


@numba.njit(cache=True)
def locate(black, white, kings, black_to_move):
    """``(mm, mk, om, ok, index)`` of a board given by colour: its slice and its index there;
    ``mm = -1`` when no slice holds it."""
    mover, opponent, king_bits = mover_frame(black, white, kings, black_to_move)
    mm, mk, om, ok = _slice_of(mover, opponent, king_bits)
    if mm < 0 or mover == 0:
        return -1, 0, 0, 0, 0
    return mm, mk, om, ok, slice_index(mover, opponent, king_bits)


# ---------------------------------------------------------------------------------------
# Codes and distances (the files, ``checkers_env.egdb.files``)
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def code_of(byte):
    """The ``WDL_*`` code of a value byte."""
    if byte == DRAW:
        return WDL_DRAW
    return WDL_WIN if (byte - 1) % 2 == 1 else WDL_LOSS


@numba.njit(cache=True)
def pack_codes(values, codes):
    """Pack value bytes into codes, 4 a byte (position ``i`` in bits ``2 (i % 4)`` of byte
    ``i // 4``)."""
    codes[:] = 0
    for i in range(values.shape[0]):
        codes[i >> 2] |= np.uint8(code_of(values[i]) << ((i & 3) << 1))


@numba.njit(cache=True)
def block_moves(values, start, stop, moves):
    """The distances in moves (``d // 2``) of the positions ``start .. stop - 1`` that are
    not drawn, in order, into ``moves``; returns how many."""
    kept = 0
    for i in range(start, stop):
        if values[i] != DRAW:
            moves[kept] = (values[i] - 1) >> 1
            kept += 1
    return kept


@numba.njit(cache=True)
def expand_block(codes, first, moves, values):
    """The value bytes of positions ``first ..`` of a slice, ``values.size`` of them, from the
    slice's packed codes and the distances in moves of those not drawn (``block_moves``);
    returns how many distances it read (``moves.size`` for a sound block)."""
    used = 0
    for i in range(values.shape[0]):
        position = first + i
        code = (codes[position >> 2] >> ((position & 3) << 1)) & 3
        if code == WDL_DRAW:
            values[i] = DRAW
        else:
            if used == moves.shape[0]:
                return used + 1
            values[i] = 2 * moves[used] + (2 if code == WDL_WIN else 1)
            used += 1
    return used


@numba.njit(cache=True)
def child_frame(mover, opponent, kings, frm, to, captured):
    """The position after a move of the mover, in the frame of the new mover."""
    after_mover, after_opponent, after_kings = apply_move(mover, opponent, kings, True, frm, to, captured)
    return half_turn(after_opponent), half_turn(after_mover), half_turn(after_kings)
