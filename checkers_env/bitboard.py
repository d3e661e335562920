"""Bitboard layout, masks and the scalar primitives every kernel is built from.

A position is three 32-bit bitboards (``black``, ``white``, ``kings``) plus the side to
move, as in seed 001. Bit ``b`` sits on row ``b // 4`` (row 0 is Black's back rank) and is
the ``b % 4``-th dark square of that row counted from Black's left, so one hex digit of a
bitboard is one row and Black's men start on the low bits (``0x00000FFF``), White's on the
high bits (``0xFFF00000``)::

     White's side (seen from Black)                bit numbers
         32      31      30      29                 1C  1D  1E  1F     row 7
     28      27      26      25                 18  19  1A  1B         row 6
         24      23      22      21                 14  15  16  17     row 5
     20      19      18      17                 10  11  12  13         row 4
         16      15      14      13                 0C  0D  0E  0F     row 3
     12      11      10       9                 08  09  0A  0B         row 2
          8       7       6       5                 04  05  06  07     row 1
      4       3       2       1                 00  01  02  03         row 0
     Black's side

so ``square = 4 * (bit // 4) + 4 - bit % 4`` and the half turn ``s -> 33 - s`` is the bit
reversal ``b -> 31 - b``.

Moving one square diagonally changes the bit number by 3, 4 or 5 depending on the row's
parity (seed 001's ``LEFT3_MASK``/``LEFT5_MASK`` and friends). The four board directions,
named as Black sees the board::

    NW (+3 even rows, +4 odd rows)    NE (+4 even rows, +5 odd rows)
    SW (-5 even rows, -4 odd rows)    SE (-4 even rows, -3 odd rows)

Black's men move NW/NE, White's men SW/SE, kings all four. ``opposite(d) == 3 - d``.

Every function here takes and returns plain integers (int64 holding a uint32), so the same
code compiles for the CPU (``numba.njit``) and as CUDA device functions.
"""

from __future__ import annotations

import numba
import numpy as np

Bitboard = int
Square = int

FULL = 0xFFFFFFFF


def row_mask(row: int) -> int:
    """Bits of one row (row 0 is Black's back rank)."""
    return 0xF << (4 * row)


def col_mask(col: int) -> int:
    """Bits in one column of the 4-wide bit grid (0 is Black's leftmost dark square)."""
    return 0x11111111 << col


BB_EVEN_ROWS = row_mask(0) | row_mask(2) | row_mask(4) | row_mask(6)
BB_ODD_ROWS = row_mask(1) | row_mask(3) | row_mask(5) | row_mask(7)
BB_ROW0 = row_mask(0)
BB_ROW7 = row_mask(7)
BB_BLACK_START = 0x00000FFF
BB_WHITE_START = 0xFFF00000

# Directions, named as Black sees the board.
NW, NE, SW, SE = 0, 1, 2, 3
DIRECTION_NAMES = ("NW", "NE", "SW", "SE")

# Each direction is two (mask, shift) components, one per row parity; the mask keeps the
# squares from which that shift stays on the board (seed 001's shift masks).
_NW_EVEN = BB_EVEN_ROWS & ~col_mask(0) & FULL
_NW_ODD = BB_ODD_ROWS & ~BB_ROW7 & FULL
_NE_EVEN = BB_EVEN_ROWS
_NE_ODD = BB_ODD_ROWS & ~col_mask(3) & ~BB_ROW7 & FULL
_SW_EVEN = BB_EVEN_ROWS & ~col_mask(0) & ~BB_ROW0 & FULL
_SW_ODD = BB_ODD_ROWS
_SE_EVEN = BB_EVEN_ROWS & ~BB_ROW0 & FULL
_SE_ODD = BB_ODD_ROWS & ~col_mask(3) & FULL

#: ``DIRECTION_COMPONENTS[d] = ((mask, shift), (mask, shift))``; a negative shift is a right shift.
DIRECTION_COMPONENTS = (
    ((_NW_EVEN, 3), (_NW_ODD, 4)),
    ((_NE_EVEN, 4), (_NE_ODD, 5)),
    ((_SW_EVEN, -5), (_SW_ODD, -4)),
    ((_SE_EVEN, -4), (_SE_ODD, -3)),
)


def bit_to_square(bit: int) -> Square:
    """Standard square number (1-32) of a bit index (0-31)."""
    return 4 * (bit // 4) + 4 - bit % 4


def square_to_bit(square: Square) -> int:
    """Bit index (0-31) of a standard square number (1-32)."""
    s = square - 1
    return 4 * (s // 4) + 3 - s % 4


BB_SQUARES = tuple(1 << square_to_bit(s) for s in range(1, 33))  # index square - 1


def squares_of(bb: Bitboard) -> list[Square]:
    """Square numbers of the set bits, ascending."""
    return sorted(bit_to_square(b) for b in range(32) if bb >> b & 1)


def bitboard_of(squares) -> Bitboard:
    """Bitboard with the given square numbers set."""
    bb = 0
    for s in squares:
        bb |= 1 << square_to_bit(s)
    return bb


# ---------------------------------------------------------------------------------------
# Scalar kernels (numba). Plain int64 in, int64 out; no arrays, no exceptions, so that a
# CUDA kernel can call them as device functions.
# ---------------------------------------------------------------------------------------

_jit = numba.njit(cache=True, inline="always")  # small helpers
_kernel = numba.njit(cache=True)  # larger scalar kernels, called not inlined


@_jit
def popcount(x):
    """Number of set bits of a 32-bit board."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@_jit
def lowest_bit_index(x):
    """Index of the lowest set bit of a non-zero board."""
    return popcount((x & -x) - 1)


@_jit
def step(x, d):
    """Move every piece of ``x`` one square in direction ``d`` (pieces falling off vanish)."""
    if d == 0:
        return ((x & _NW_EVEN) << 3) | ((x & _NW_ODD) << 4)
    if d == 1:
        return ((x & _NE_EVEN) << 4) | ((x & _NE_ODD) << 5)
    if d == 2:
        return ((x & _SW_EVEN) >> 5) | ((x & _SW_ODD) >> 4)
    return ((x & _SE_EVEN) >> 4) | ((x & _SE_ODD) >> 3)


@_jit
def men_directions(black_to_move):
    """First and last direction a man of the side to move may go (NW..NE or SW..SE)."""
    if black_to_move:
        return 0, 1
    return 2, 3


@_jit
def crowning_row(black_to_move):
    """The row where the mover's men are crowned."""
    if black_to_move:
        return BB_ROW7
    return BB_ROW0


@_jit
def jumpers(mover, opponent, kings, black_to_move):
    """Mover's pieces that have at least one capture."""
    empty = ~(mover | opponent) & FULL
    men = mover & ~kings
    own_kings = mover & kings
    lo, hi = men_directions(black_to_move)
    result = 0
    for d in range(4):
        back = 3 - d
        can = step(step(empty, back) & opponent, back)
        if lo <= d <= hi:
            result |= can & mover
        else:
            result |= can & own_kings
    return result & FULL


@_jit
def movers(mover, opponent, kings, black_to_move):
    """Mover's pieces that have at least one non-capturing step."""
    empty = ~(mover | opponent) & FULL
    lo, hi = men_directions(black_to_move)
    result = 0
    for d in range(4):
        can = step(empty, 3 - d)
        if lo <= d <= hi:
            result |= can & mover
        else:
            result |= can & mover & kings
    return result


@_jit
def count_steps(mover, opponent, kings, black_to_move):
    """Number of non-capturing moves (valid only when no capture exists)."""
    empty = ~(mover | opponent) & FULL
    lo, hi = men_directions(black_to_move)
    n = 0
    for d in range(4):
        if lo <= d <= hi:
            n += popcount(step(mover, d) & empty)
        else:
            n += popcount(step(mover & kings, d) & empty)
    return n


@_jit
def _unpack(path, i):
    """Bit index of landing ``i`` (1-based) stored 5 bits each in ``path``."""
    return (path >> (5 * (i - 1))) & 31


@_kernel
def capture_search(mover, opponent, kings, black_to_move, origin, want):
    """Depth-first walk over the complete capture sequences of the piece on bit ``origin``.

    The piece is lifted from its square first (it may come back to it in a loop), captured
    pieces stay on the board until the move ends (they can be neither jumped twice nor
    landed on), and a man that reaches the crowning row stops there. The walk keeps its
    stack in three integers (landing squares 5 bits each, next direction 3 bits each, and
    a has-continued flag per level), so it runs without memory on CPU and GPU alike.

    Args:
        want: index of the sequence to return, or -1 to only count.

    Returns:
        ``(count, to_bit, captured, path, hops)``: how many sequences the piece has, and
        for sequence ``want`` (if ``0 <= want < count``) its last landing, the captured
        bitboard, the packed landings and their number.
    """
    origin_bb = 1 << origin
    is_king = (kings & origin_bb) != 0
    empty = ~((mover & ~origin_bb) | opponent) & FULL
    if is_king:
        dlo, dhi = 0, 3
    else:
        dlo, dhi = men_directions(black_to_move)
    crown = crowning_row(black_to_move)

    count = 0
    out_to = -1
    out_captured = 0
    out_path = 0
    out_hops = 0

    level = 0
    cur = origin
    path = 0  # landings, 5 bits each
    nexts = dlo  # next direction to try, 3 bits per level
    continued = 0  # bit per level: this level jumped on at least once
    captured = 0
    while level >= 0:
        d = (nexts >> (3 * level)) & 7
        if d > dhi:
            # Level exhausted: a leaf if it never continued, then pop.
            if level > 0 and not (continued >> level) & 1:
                if count == want:
                    out_to, out_captured, out_path, out_hops = cur, captured, path, level
                count += 1
            nexts &= ~(7 << (3 * level))
            continued &= ~(1 << level)
            level -= 1
            if level >= 0:
                prev = origin if level == 0 else _unpack(path, level)
                used = ((nexts >> (3 * level)) & 7) - 1
                captured &= ~step(1 << prev, used)
                path &= ~(31 << (5 * level))
                cur = prev
            continue
        nexts += 1 << (3 * level)
        over = step(1 << cur, d) & opponent & ~captured
        if over == 0:
            continue
        land = step(over, d) & empty
        if land == 0:
            continue
        land_bit = lowest_bit_index(land)
        continued |= 1 << level
        if not is_king and (land & crown) != 0:
            # Crowned: the move ends here.
            if count == want:
                out_to = land_bit
                out_captured = captured | over
                out_path = path | (land_bit << (5 * level))
                out_hops = level + 1
            count += 1
            continue
        captured |= over
        path |= land_bit << (5 * level)
        level += 1
        nexts |= dlo << (3 * level)
        cur = land_bit
    return count, out_to, out_captured, out_path, out_hops


@_kernel
def count_moves(mover, opponent, kings, black_to_move):
    """Number of legal complete moves (capture paths counted separately)."""
    jumping = jumpers(mover, opponent, kings, black_to_move)
    if jumping == 0:
        return count_steps(mover, opponent, kings, black_to_move)
    n = 0
    while jumping:
        b = lowest_bit_index(jumping)
        jumping &= jumping - 1
        n += capture_search(mover, opponent, kings, black_to_move, b, -1)[0]
    return n


@_kernel
def nth_move(mover, opponent, kings, black_to_move, k):
    """The ``k``-th legal move (same order as ``generate_moves``) without any buffer.

    Returns:
        ``(from_bit, to_bit, captured, path, hops)``; ``from_bit == -1`` if ``k`` is out of range.
    """
    jumping = jumpers(mover, opponent, kings, black_to_move)
    if jumping:
        while jumping:
            b = lowest_bit_index(jumping)
            jumping &= jumping - 1
            n, to, captured, path, hops = capture_search(
                mover, opponent, kings, black_to_move, b, k
            )
            if k < n:
                return b, to, captured, path, hops
            k -= n
        return -1, -1, 0, 0, 0
    empty = ~(mover | opponent) & FULL
    lo, hi = men_directions(black_to_move)
    for d in range(4):
        pieces = mover if lo <= d <= hi else mover & kings
        targets = step(pieces, d) & empty
        n = popcount(targets)
        if k < n:
            for _ in range(k):
                targets &= targets - 1
            to = lowest_bit_index(targets)
            frm = lowest_bit_index(step(1 << to, 3 - d))
            return frm, to, 0, to, 1
        k -= n
    return -1, -1, 0, 0, 0


@_kernel
def apply_move(mover, opponent, kings, black_to_move, frm, to, captured):
    """Play a move given by its endpoints and captured pieces.

    Returns:
        ``(mover, opponent, kings)`` after the move (the side to move is then the opponent).
    """
    from_bb = 1 << frm
    to_bb = 1 << to
    was_king = (kings & from_bb) != 0
    mover = (mover & ~from_bb) | to_bb
    opponent = opponent & ~captured
    kings = kings & ~captured & ~from_bb
    if was_king or (to_bb & crowning_row(black_to_move)) != 0:
        kings |= to_bb
    return mover, opponent, kings
