"""Bitboard layout, masks and the scalar primitives every kernel is built from.

A position is three 32-bit bitboards (``black``, ``white``, ``kings``) plus the side to
move, as in the GPU engine that MCRD was built from (``docs/design.md`` §5). Bit ``b`` sits
on row ``b // 4`` (row 0 is Black's back rank) and is the ``b % 4``-th dark square of that
row counted from Black's left, so one hex digit of a bitboard is one row and Black's men
start on the low bits (``0x00000FFF``), White's on the high bits (``0xFFF00000``)::

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
parity (that engine's ``LEFT3_MASK``/``LEFT5_MASK`` and friends). The four board directions,
named as Black sees the board::

    NW (+3 even rows, +4 odd rows)    NE (+4 even rows, +5 odd rows)
    SW (-5 even rows, -4 odd rows)    SE (-4 even rows, -3 odd rows)

Black's men move NW/NE, White's men SW/SE, kings all four. ``opposite(d) == 3 - d``.

Every function here takes and returns plain integers (int64 holding a uint32), so the same
code compiles for the CPU (``numba.njit``) and as CUDA device functions.

That engine's write-up calls its sides red and black, Black on the low bits as here: its red
is our White (the WCDF rules' name); Black moves first. It masks by the turn instead of
branching (``FORWD(turn, pos)`` shifts for both colours; never timed against a branch); here
:func:`north_south` and :func:`crowning_row` are one branch on ``black_to_move``, then colour-free shifts.
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

# Each direction is two (mask, shift) components, even rows first; the mask keeps the squares
# from which that shift stays on the board (that engine's shift masks); a positive shift goes left.
DIRECTION_SHIFTS = (
    ((BB_EVEN_ROWS & ~col_mask(0) & FULL, 3), (BB_ODD_ROWS & ~BB_ROW7 & FULL, 4)),  # NW
    ((BB_EVEN_ROWS, 4), (BB_ODD_ROWS & ~col_mask(3) & ~BB_ROW7 & FULL, 5)),  # NE
    ((BB_EVEN_ROWS & ~col_mask(0) & ~BB_ROW0 & FULL, -5), (BB_ODD_ROWS, -4)),  # SW
    ((BB_EVEN_ROWS & ~BB_ROW0 & FULL, -4), (BB_ODD_ROWS & ~col_mask(3) & FULL, -3)),  # SE
)
_NW_EVEN, _NW_ODD, _NE_EVEN, _NE_ODD, _SW_EVEN, _SW_ODD, _SE_EVEN, _SE_ODD = (
    mask for direction in DIRECTION_SHIFTS for mask, _ in direction
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
#
# Compile time decides how they call each other. numba inlines an ``inline="always"``
# function by re-typing its body at every call site (with everything inlined the first
# compile took minutes), so most functions here are compiled once and called, and LLVM
# inlines them where it pays; only the few small ones on the hottest paths (``_inline``)
# are inlined by numba. numba also compiles a called function again for every constant
# argument, typed as a literal, even a constant that starts a loop variable or comes back
# in a tuple. So they call each other only with computed values: no direction constants
# (hence ``step_nw`` and co.), walk states built with ``np.int64``.
# ---------------------------------------------------------------------------------------

_kernel = numba.njit(cache=True)
_inline = numba.njit(cache=True, inline="always")


@_kernel
def popcount(x):
    """Number of set bits of a board (any non-negative int64)."""
    # Compiled on its own, LLVM recognises this bit trick as one popcnt instruction and
    # inlines that; inlined by numba into a caller, the known-zero high bits of a 32-bit
    # board would hide the pattern.
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@_kernel
def lowest_bit_index(x):
    """Index of the lowest set bit of a non-zero board (LLVM makes it one bsf/tzcnt)."""
    return popcount((x & -x) - 1)


@_kernel
def step_nw(x):
    """Every piece of ``x`` one square NW (pieces falling off vanish)."""
    return ((x & _NW_EVEN) << 3) | ((x & _NW_ODD) << 4)


@_kernel
def step_ne(x):
    """Every piece of ``x`` one square NE."""
    return ((x & _NE_EVEN) << 4) | ((x & _NE_ODD) << 5)


@_kernel
def step_sw(x):
    """Every piece of ``x`` one square SW."""
    return ((x & _SW_EVEN) >> 5) | ((x & _SW_ODD) >> 4)


@_kernel
def step_se(x):
    """Every piece of ``x`` one square SE."""
    return ((x & _SE_EVEN) >> 4) | ((x & _SE_ODD) >> 3)


@_kernel
def step(x, d):
    """Move every piece of ``x`` one square in direction ``d`` (pieces falling off vanish)."""
    if d == NW:
        return step_nw(x)
    if d == NE:
        return step_ne(x)
    if d == SW:
        return step_sw(x)
    return step_se(x)


@_kernel
def step_origin(to, d):
    """Bit index of the square one step before bit ``to`` in direction ``d``."""
    # A step changes the bit index by 3, 4 or 5 with the row parity (see the module doc);
    # counted back from the arrival square it is (-4, -5, +4, +3)[d], plus one on odd rows.
    parity = (to >> 2) & 1
    if d == NW:
        return to - 4 + parity
    if d == NE:
        return to - 5 + parity
    if d == SW:
        return to + 4 + parity
    return to + 3 + parity


@_kernel
def jumped_bit(frm, to):
    """Bit index of the square jumped over by a jump from bit ``frm`` to bit ``to``."""
    # A jump changes the bit index by 7 or 9; the square in between is the mean rounded
    # down, plus one when the jump starts on an odd row.
    return ((frm + to) >> 1) + ((frm >> 2) & 1)


@_kernel
def crowning_row(black_to_move):
    """The row where the mover's men are crowned."""
    if black_to_move:
        return BB_ROW7
    return BB_ROW0


@_kernel
def north_south(mover, kings, black_to_move):
    """The mover's pieces that may go north (NW, NE) and those that may go south."""
    if black_to_move:
        return mover, mover & kings
    return mover & kings, mover


@_kernel
def jump_sources(mover, opponent):
    """Squares from which a piece could jump NW, NE, SW and SE on this board (four boards)."""
    empty = ~(mover | opponent) & FULL
    # Walk the empty squares back over an opponent.
    return (
        step_se(step_se(empty) & opponent),
        step_sw(step_sw(empty) & opponent),
        step_ne(step_ne(empty) & opponent),
        step_nw(step_nw(empty) & opponent),
    )


@_kernel
def jumpers(mover, opponent, kings, black_to_move):
    """Mover's pieces that have at least one capture."""
    to_nw, to_ne, to_sw, to_se = jump_sources(mover, opponent)
    north, south = north_south(mover, kings, black_to_move)
    return (north & (to_nw | to_ne)) | (south & (to_sw | to_se))


@_kernel
def movers(mover, opponent, kings, black_to_move):
    """Mover's pieces that have at least one non-capturing step."""
    empty = ~(mover | opponent) & FULL
    north, south = north_south(mover, kings, black_to_move)
    return (north & (step_se(empty) | step_sw(empty))) | (south & (step_ne(empty) | step_nw(empty)))


@_kernel
def has_moves(mover, opponent, kings, black_to_move):
    """Whether the side to move has a legal move (a capture or a step): the one test that
    the game state and the search use."""
    return jumpers(mover, opponent, kings, black_to_move) != 0 or movers(mover, opponent, kings, black_to_move) != 0


@_kernel
def step_targets(mover, empty, kings, black_to_move, d):
    """Squares the mover's pieces can step to in direction ``d`` (men forward, kings both)."""
    north, south = north_south(mover, kings, black_to_move)
    return step(north if d < SW else south, d) & empty


@_kernel
def count_steps(mover, opponent, kings, black_to_move):
    """Number of non-capturing moves (valid only when no capture exists)."""
    empty = ~(mover | opponent) & FULL
    north, south = north_south(mover, kings, black_to_move)
    return (
        popcount(step_nw(north) & empty)
        + popcount(step_ne(north) & empty)
        + popcount(step_sw(south) & empty)
        + popcount(step_se(south) & empty)
    )


# -- single hops ------------------------------------------------------------------------
# The environments' actions are hops (one step, or one jump of a capture): these say which
# hops exist, on the board as the previous hops of a capture left it.


@_kernel
def piece_directions(kings, bit, black_to_move):
    """Directions (bit d) the piece on ``bit`` may go: all four for a king, else forward."""
    if (kings >> bit) & 1:
        return 15
    return 3 if black_to_move else 12


@_kernel
def jump_hops(mover, opponent, kings, black_to_move, bit):
    """Directions (bit d) in which the piece on ``bit`` can jump now."""
    empty = ~(mover | opponent) & FULL
    return jump_directions(np.int64(1) << bit, opponent, empty, piece_directions(kings, bit, black_to_move))


@_kernel
def hop_sources(mover, opponent, kings, black_to_move, d, jumping):
    """The mover's pieces that can hop in direction ``d``: jump (when ``jumping``, that is
    when a capture exists: then only jumps are legal, and any jump starts a capture) or
    step."""
    north, south = north_south(mover, kings, black_to_move)
    pieces = north if d < SW else south
    empty = ~(mover | opponent) & FULL
    if jumping:
        return pieces & step(step(empty, 3 - d) & opponent, 3 - d)
    return pieces & step(empty, 3 - d)


# -- capture walk ----------------------------------------------------------------------
# A walk lists the complete capture sequences of one piece depth first, trying NW, NE,
# SW, SE at every square. Its whole stack is five integers, so it needs no memory on CPU
# or GPU:
#   level     hops made on the current branch
#   cur       bit index where the piece stands now
#   path      landing squares of those hops, 5 bits each, first hop lowest
#   todo      per level, 4 bits: the directions still to try from that level's square
#   captured  the pieces jumped on the current branch
# plus what stays fixed: the origin, the empty squares (the piece is lifted from its
# origin: a king may come back to it), the directions the piece may take (``allowed``, a
# set of bits) and the row that stops it (``crown``, none for a king). Captured pieces stay
# on the board until the move ends: they can be neither jumped twice nor landed on.


@_kernel
def jump_directions(square, targets, empty, allowed):
    """Set of directions (bit d) in ``allowed`` in which the piece on board ``square`` can
    jump one of ``targets`` onto an empty square."""
    result = 0
    if allowed & 1 and step_nw(step_nw(square) & targets) & empty:
        result |= 1
    if allowed & 2 and step_ne(step_ne(square) & targets) & empty:
        result |= 2
    if allowed & 4 and step_sw(step_sw(square) & targets) & empty:
        result |= 4
    if allowed & 8 and step_se(step_se(square) & targets) & empty:
        result |= 8
    return result


@_kernel
def capture_walk_start(mover, opponent, kings, black_to_move, origin):
    """The walk of the piece on bit ``origin``, before its first hop.

    Returns:
        ``(empty, allowed, crown, level, cur, path, todo, captured)``.
    """
    origin_bb = 1 << origin
    empty = ~((mover & ~origin_bb) | opponent) & FULL
    if kings & origin_bb:
        allowed, crown = 15, 0
    elif black_to_move:
        allowed, crown = 3, BB_ROW7
    else:
        allowed, crown = 12, BB_ROW0
    todo = jump_directions(origin_bb, opponent, empty, allowed)
    zero = np.int64(0)  # not a literal 0: see the note on compile time above
    return empty, allowed, crown, zero, origin, zero, todo, zero


@_kernel
def capture_walk_after_hop(mover, opponent, kings, black_to_move, origin, land):
    """The walk of the piece on bit ``origin`` that only follows its jump to bit ``land``.

    Returns:
        ``(empty, allowed, crown, level, cur, path, todo, captured)``.
    """
    empty, allowed, crown, _, _, _, _, _ = capture_walk_start(mover, opponent, kings, black_to_move, origin)
    over = 1 << jumped_bit(origin, land)
    todo = jump_directions(1 << land, opponent & ~over, empty, allowed) << 4
    return empty, allowed, crown, np.int64(1), land, land, todo, over


@_inline
def capture_walk_next(origin, opponent, empty, allowed, crown, level, cur, path, todo, captured):
    """Advance a walk to its next complete sequence.

    Returns:
        ``(level, cur, path, todo, captured, hops, to, seq_captured, seq_path)``: the walk's
        new state, then the sequence found: its number of hops (0 once the walk is over),
        last landing, captured pieces and packed landings.
    """
    while True:
        directions = (todo >> (4 * level)) & 15
        if directions == 0:
            if level == 0:
                return level, cur, path, todo, captured, 0, -1, 0, 0
            # Every direction from here is done: take back the last hop.
            level -= 1
            prev = origin if level == 0 else (path >> (5 * (level - 1))) & 31
            captured ^= 1 << jumped_bit(prev, cur)
            path &= ~(31 << (5 * level))
            cur = prev
            continue
        low = directions & -directions
        todo ^= low << (4 * level)
        d = lowest_bit_index(low)
        over = step(1 << cur, d)
        land_bb = step(over, d)
        land = lowest_bit_index(land_bb)
        seq_captured = captured | over
        seq_path = path | (land << (5 * level))
        if (land_bb & crown) == 0:
            more = jump_directions(land_bb, opponent & ~seq_captured, empty, allowed)
            if more:
                level += 1
                todo |= more << (4 * level)
                cur = land
                path = seq_path
                captured = seq_captured
                continue
        # No further jump (or just crowned): a complete sequence.
        return level, cur, path, todo, captured, level + 1, land, seq_captured, seq_path


@_kernel
def capture_search(mover, opponent, kings, black_to_move, origin, want):
    """Walk the complete capture sequences of the piece on bit ``origin`` (see above).

    Args:
        want: index of the sequence to return, or -1 to only count.

    Returns:
        ``(count, to_bit, captured, path, hops)``: how many sequences the piece has, and
        for sequence ``want`` (if ``0 <= want < count``) its last landing, the captured
        bitboard, the packed landings and their number.
    """
    empty, allowed, crown, level, cur, path, todo, captured = capture_walk_start(
        mover, opponent, kings, black_to_move, origin
    )
    count = 0
    out_to, out_captured, out_path, out_hops = -1, 0, 0, 0
    while True:
        level, cur, path, todo, captured, hops, to, seq_captured, seq_path = capture_walk_next(
            origin, opponent, empty, allowed, crown, level, cur, path, todo, captured
        )
        if hops == 0:
            return count, out_to, out_captured, out_path, out_hops
        if count == want:
            out_to, out_captured, out_path, out_hops = to, seq_captured, seq_path, hops
        count += 1


@_kernel
def count_after_hop(mover, opponent, kings, black_to_move, origin, land):
    """Number of complete capture sequences that begin with the jump from bit ``origin``
    to bit ``land``."""
    empty, allowed, crown, level, cur, path, todo, captured = capture_walk_after_hop(
        mover, opponent, kings, black_to_move, origin, land
    )
    count = 0
    while True:
        level, cur, path, todo, captured, hops, _, _, _ = capture_walk_next(
            origin, opponent, empty, allowed, crown, level, cur, path, todo, captured
        )
        if hops == 0:
            return count
        count += 1


@_kernel
def count_hops(mover, opponent, kings, black_to_move, jumping, landings, goes_on):
    """Number of capture sequences that begin with a jump of a piece in ``jumping`` to its
    square in ``landings`` (all in one direction); ``goes_on``: landings that jump again."""
    count = popcount(landings & ~goes_on)
    if landings & goes_on:
        # Jumps in one direction keep the order of squares: walk both sets in step.
        while jumping:
            origin = lowest_bit_index(jumping)
            land = lowest_bit_index(landings)
            jumping &= jumping - 1
            landings &= landings - 1
            if (goes_on >> land) & 1:
                count += count_after_hop(mover, opponent, kings, black_to_move, origin, land)
    return count


@_kernel
def count_captures(mover, opponent, kings, black_to_move):
    """Number of capture sequences of the side to move (0 when it has none).

    Counted by first hop, all pieces at once per direction: a landing square from which no
    second jump exists is one sequence (a popcount); only the others run the walk. Whether
    a second jump exists can be read off the jump sources of the position before the
    first: the squares that changed (the vacated origin, the piece just taken) lie behind
    the piece, and jumping back over the piece just taken is not allowed.
    """
    to_nw, to_ne, to_sw, to_se = jump_sources(mover, opponent)
    north, south = north_south(mover, kings, black_to_move)
    # A man jumps on forward unless it was just crowned; a king in any direction but back.
    if black_to_move:
        man_goes_on = (to_nw | to_ne) & ~BB_ROW7
    else:
        man_goes_on = (to_sw | to_se) & ~BB_ROW0
    jumping = north & to_nw
    king_landings = step_nw(step_nw(jumping & kings))
    goes_on = (man_goes_on & ~king_landings) | (king_landings & (to_nw | to_ne | to_sw))
    count = count_hops(mover, opponent, kings, black_to_move, jumping, step_nw(step_nw(jumping)), goes_on)
    jumping = north & to_ne
    king_landings = step_ne(step_ne(jumping & kings))
    goes_on = (man_goes_on & ~king_landings) | (king_landings & (to_nw | to_ne | to_se))
    count += count_hops(mover, opponent, kings, black_to_move, jumping, step_ne(step_ne(jumping)), goes_on)
    jumping = south & to_sw
    king_landings = step_sw(step_sw(jumping & kings))
    goes_on = (man_goes_on & ~king_landings) | (king_landings & (to_nw | to_sw | to_se))
    count += count_hops(mover, opponent, kings, black_to_move, jumping, step_sw(step_sw(jumping)), goes_on)
    jumping = south & to_se
    king_landings = step_se(step_se(jumping & kings))
    goes_on = (man_goes_on & ~king_landings) | (king_landings & (to_ne | to_sw | to_se))
    count += count_hops(mover, opponent, kings, black_to_move, jumping, step_se(step_se(jumping)), goes_on)
    return count


@_inline
def count_moves_inline(mover, opponent, kings, black_to_move):
    """``count_moves``, inlined into the kernels that count at every leaf."""
    if jumpers(mover, opponent, kings, black_to_move):
        return count_captures(mover, opponent, kings, black_to_move)
    return count_steps(mover, opponent, kings, black_to_move)


@_kernel
def count_moves(mover, opponent, kings, black_to_move):
    """Number of legal complete moves (capture paths counted separately)."""
    return count_moves_inline(mover, opponent, kings, black_to_move)


@_kernel
def nth_capture(mover, opponent, kings, black_to_move, jumping, k):
    """The ``k``-th capture sequence of the pieces in ``jumping``, as ``nth_move`` gives it."""
    while jumping:
        origin = lowest_bit_index(jumping)
        jumping &= jumping - 1
        n, to, captured, path, hops = capture_search(mover, opponent, kings, black_to_move, origin, k)
        if k < n:
            return origin, to, captured, path, hops
        k -= n
    return -1, -1, 0, 0, 0


@_inline
def nth_step(mover, opponent, kings, black_to_move, k):
    """The ``k``-th non-capturing move as boards ``(from, to)``; ``(0, 0)`` if out of range."""
    empty = ~(mover | opponent) & FULL
    for d in range(4):
        targets = step_targets(mover, empty, kings, black_to_move, d)
        n = popcount(targets)
        if k < n:
            for _ in range(k):
                targets &= targets - 1
            to_bb = targets & -targets
            return step(to_bb, 3 - d), to_bb
        k -= n
    return 0, 0


@_kernel
def nth_move(mover, opponent, kings, black_to_move, k):
    """The ``k``-th legal move (same order as ``generate_moves``) without any buffer.

    Returns:
        ``(from_bit, to_bit, captured, path, hops)``; ``from_bit == -1`` if ``k`` is out of range.
    """
    jumping = jumpers(mover, opponent, kings, black_to_move)
    if jumping:
        return nth_capture(mover, opponent, kings, black_to_move, jumping, k)
    from_bb, to_bb = nth_step(mover, opponent, kings, black_to_move, k)
    if from_bb == 0:
        return -1, -1, 0, 0, 0
    to = lowest_bit_index(to_bb)
    return lowest_bit_index(from_bb), to, 0, to, 1


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
