"""The mover's frame, once: how the envs and every learned evaluator see a position.

The *mover's frame* is the board seen from the chair of one side (normally the side to
move, docs/design.md §2): for Black the board as ``bitboard`` draws it, for White the same
board after the half turn ``s -> 33 - s``, which on bit indices is the reversal
``b -> 31 - b``. In that frame the viewer's men always move toward higher bits, so one
network plays both colours and one observation layout serves both seats. Every encoding
below starts from ``frame_boards``; they differ only in how they lay the four boards out:

- ``write_planes``: the envs' observation, float32 ``[5, 8, 8]`` indexed ``[plane, row,
  column]``: planes own men, own kings, opponent men, opponent kings, the piece that must
  continue a capture; row 0 is the viewer's back rank, column 0 the viewer's left, so a
  frame bit ``b`` sits on ``FRAME_CELL[b] = 8 * row + column`` (the action table of the env
  uses the same frame).
- ``active_inputs``: the sparse 0/1 inputs of the nets, ``32 * plane + frame bit`` for the
  first four planes (128 inputs, at most 24 of them 1), listed into a caller's buffer.
- ``input_planes``: the same 128 inputs dense, float32 ``[N, 128]`` for a batch (torch).
- ``pattern_inputs``: the optional pattern inputs of the nets, one per block of four dark
  squares (``BLOCK_SQUARES``: two neighbouring squares of a row and the two of the next
  row at the same places, 21 blocks), read as one of ``5**4`` states (each square empty,
  own man, own king, opponent man or opponent king): input ``NUM_INPUTS + 625 * block +
  state``, exactly 21 of them 1. They see what no sum over single squares can (a man
  backed up or left hanging, a bridge, a trade on offer), and a move changes only the
  blocks of the squares it touches, so a net's first layer stays a sum of rows updated
  move by move. ``block_inputs`` gives them for a batch, ``int64[N, 21]`` of
  ``625 * block + state`` (an embedding's indices).
- ``board_planes``: the MCRD document's "3 x 8 x 8 tensor of floats with values of ones and
  zeros" for a batch, float32 ``[N, 3, 8, 8]``: the side to move's pieces, the opponent's
  pieces, the kings of both, on the cells of ``write_planes``. Every cell is a sum of the
  128 inputs above (own men + own kings, ...), so a net over these planes is a function of
  the sparse inputs too.

The envs' actions name squares in the same frame by the index ``k = s - 1`` (Black) or
``k = 32 - s`` (White) of docs/design.md §2; ``ACTION_SQUARE_OF_BIT`` and
``BIT_OF_ACTION_SQUARE`` translate between a board bit and that index.

All are numba kernels over plain integers; the frame is computed, never stored.
"""

from __future__ import annotations

import numba
import numpy as np

from .bitboard import FULL, lowest_bit_index

#: Planes of the nets' inputs (own men, own kings, opponent men, opponent kings), 32 each.
NET_PLANES = 4
NUM_INPUTS = 32 * NET_PLANES
#: Blocks of the pattern inputs: ``BLOCK_SQUARES[b, k]`` is the frame bit of square ``k``
#: of block ``b`` (worth ``5**k`` in its state): frame bits ``4 r + c`` and ``4 r + c + 1``
#: of row ``r`` and the two of row ``r + 1`` at the same places, ``r`` 0-6, ``c`` 0-2.
BLOCK_SQUARES = np.array(
    [[4 * r + c, 4 * r + c + 1, 4 * r + 4 + c, 4 * r + 5 + c] for r in range(7) for c in range(3)], dtype=np.int64
)
BLOCKS = len(BLOCK_SQUARES)
#: States of a block: five per square (empty, own man, own king, opponent man, opponent king).
BLOCK_STATES = 5**4
#: Pattern inputs, after the ``NUM_INPUTS`` square inputs.
PATTERN_INPUTS = BLOCKS * BLOCK_STATES
#: ``BLOCK_SHIFTS[b]``: block ``b``'s lowest frame bit; its squares are the bits 0, 1, 4, 5
#: above it (``BLOCK_MASKS[b]``, in the viewer's frame).
BLOCK_SHIFTS = BLOCK_SQUARES[:, 0].copy()
BLOCK_MASKS = np.array([0b110011 << int(s) for s in BLOCK_SHIFTS], dtype=np.int64)


def _block_state_table() -> np.ndarray:
    """``table[own << 8 | opponent << 4 | kings]``: the state of a block whose squares
    ``k = 0..3`` hold the bits ``k`` of the three nibbles."""
    table = np.zeros(16**3, dtype=np.int64)
    for own in range(16):
        for opponent in range(16):
            for kings in range(16):
                state = 0
                for k in range(4):
                    if own >> k & 1:
                        state += 5**k * (2 if kings >> k & 1 else 1)
                    elif opponent >> k & 1:
                        state += 5**k * (4 if kings >> k & 1 else 3)
                table[own << 8 | opponent << 4 | kings] = state
    return table


BLOCK_STATE_TABLE = _block_state_table()
#: Planes of ``board_planes`` (the MCRD document's 3 x 8 x 8): own pieces, opponent pieces, kings.
BOARD_PLANES = 3
#: Planes of the envs' observations: the four above and the piece continuing a capture.
NUM_PLANES = 5
PLANE_OWN_MEN, PLANE_OWN_KINGS, PLANE_OPPONENT_MEN, PLANE_OPPONENT_KINGS, PLANE_CONTINUING = range(NUM_PLANES)


def _frame_cells() -> np.ndarray:
    """``FRAME_CELL[b]``: ``8 * row + column`` of frame bit ``b`` on the 8x8 planes (a
    frame bit lies on row ``b // 4``; the dark square of odd rows is shifted right)."""
    cells = np.zeros(32, dtype=np.int64)
    for bit in range(32):
        row = bit // 4
        cells[bit] = 8 * row + 2 * (bit % 4) + row % 2
    return cells


FRAME_CELL = _frame_cells()
#: ``CELL_OF_BIT[seat, b]``: the cell of board bit ``b`` in the frame of Black (seat 0) or
#: White (seat 1), so the planes need no half turn of the boards.
CELL_OF_BIT = np.stack([FRAME_CELL, FRAME_CELL[::-1]])


def _action_square_tables() -> tuple[np.ndarray, np.ndarray]:
    """``ACTION_SQUARE_OF_BIT[color, bit]``, the action frame's square index ``k`` of a board
    bit seen by ``color``, and its inverse. Unsigned, so numba indexes with them without the
    code for negative indices."""
    square_of_bit = np.zeros((2, 32), dtype=np.uint8)
    bit_of_square = np.zeros((2, 32), dtype=np.uint8)
    for bit in range(32):
        square = 4 * (bit // 4) + 4 - bit % 4
        for color, k in ((0, square - 1), (1, 32 - square)):
            square_of_bit[color, bit] = k
            bit_of_square[color, k] = bit
    return square_of_bit, bit_of_square


ACTION_SQUARE_OF_BIT, BIT_OF_ACTION_SQUARE = _action_square_tables()


@numba.njit(cache=True, inline="always")
def half_turn(board):
    """The board turned half a circle: bit ``b`` to bit ``31 - b`` (a 32-bit reversal)."""
    x = board & FULL
    x = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1)
    x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2)
    x = ((x >> 4) & 0x0F0F0F0F) | ((x & 0x0F0F0F0F) << 4)
    x = ((x >> 8) & 0x00FF00FF) | ((x & 0x00FF00FF) << 8)
    return ((x >> 16) | (x << 16)) & FULL


@numba.njit(cache=True, inline="always")
def frame_bit(bit, own_is_black):
    """Where bit ``bit`` of the board lies in the frame of the viewer."""
    return bit if own_is_black else 31 - bit


@numba.njit(cache=True, inline="always")
def frame_boards(own, opponent, kings, own_is_black):
    """``(own men, own kings, opponent men, opponent kings)`` in the viewer's frame, the
    viewer being the owner of ``own`` (Black when ``own_is_black``)."""
    if not own_is_black:
        own, opponent, kings = half_turn(own), half_turn(opponent), half_turn(kings)
    return own & ~kings & FULL, own & kings, opponent & ~kings & FULL, opponent & kings


@numba.njit(cache=True, inline="always")
def plane_pieces(plane, own, opponent, kings):
    """The pieces of one of the four piece planes (own men, own kings, opponent men,
    opponent kings), on the board as it stands (not turned)."""
    if plane == 0:
        return own & ~kings & FULL
    if plane == 1:
        return own & kings
    if plane == 2:
        return opponent & ~kings & FULL
    return opponent & kings


@numba.njit(cache=True, inline="always")
def active_inputs(own, opponent, kings, own_is_black, active):
    """Write the indices of the net inputs that are 1 into ``active``; return how many.

    Index ``32 * plane + frame bit`` for the planes own men, own kings, opponent men,
    opponent kings, in that order; within a plane, in the order of the board's bits (so a
    net sums its input rows in the same order whichever side it plays: its sums, and the
    ties between them, do not depend on the order of the list otherwise).
    """
    n = 0
    for plane in range(NET_PLANES):
        pieces = plane_pieces(plane, own, opponent, kings)
        while pieces:
            active[n] = 32 * plane + frame_bit(lowest_bit_index(pieces), own_is_black)
            pieces &= pieces - 1
            n += 1
    return n


@numba.njit(cache=True, inline="always")
def _block_nibble(board, shift):
    """The four squares of the block at ``shift`` of a frame board, as bits 0-3."""
    return ((board >> shift) & 3) | ((board >> (shift + 2)) & 12)


@numba.njit(cache=True, inline="always")
def frame_block_state(own, opponent, kings, block):
    """The state of block ``block`` (``0 <= state < BLOCK_STATES``) of boards already in
    the viewer's frame: the sum over its squares of ``5**k`` times 0 empty, 1 own man, 2
    own king, 3 opponent man, 4 opponent king (a table lookup, no branch)."""
    shift = BLOCK_SHIFTS[block]
    return BLOCK_STATE_TABLE[
        (_block_nibble(own, shift) << 8) | (_block_nibble(opponent, shift) << 4) | _block_nibble(kings, shift)
    ]


@numba.njit(cache=True, inline="always")
def mover_frame(black, white, kings, black_to_move):
    """``(mover, opponent, kings)`` of a board in the mover's frame."""
    if black_to_move:
        return black, white, kings
    return half_turn(white), half_turn(black), half_turn(kings)


@numba.njit(cache=True, inline="always")
def pattern_inputs(own, opponent, kings, own_is_black, active, n):
    """Write the indices of the 21 pattern inputs that are 1 into ``active[n:]`` (one per
    block, in block order); return ``n + 21``."""
    if not own_is_black:
        own, opponent, kings = half_turn(own), half_turn(opponent), half_turn(kings)
    for block in range(BLOCKS):
        active[n] = NUM_INPUTS + BLOCK_STATES * block + frame_block_state(own, opponent, kings, block)
        n += 1
    return n


@numba.njit(cache=True)
def block_inputs(black, white, kings, black_to_move):
    """The pattern inputs of a batch: ``int64[N, BLOCKS]``, ``BLOCK_STATES * block + state``
    of each block, each position seen from its side to move."""
    n = black.shape[0]
    out = np.empty((n, BLOCKS), dtype=np.int64)
    for i in range(n):
        black_moves = black_to_move[i] != 0
        own, opponent, king = mover_frame(black[i], white[i], kings[i], black_moves)
        for block in range(BLOCKS):
            out[i, block] = BLOCK_STATES * block + frame_block_state(own, opponent, king, block)
    return out


@numba.njit(cache=True)
def input_planes(black, white, kings, black_to_move):
    """The nets' inputs of a batch, dense: ``float32[N, NUM_INPUTS]``, each position seen
    from its side to move (``black_to_move[i]`` non-zero when Black moves)."""
    n = black.shape[0]
    out = np.zeros((n, NUM_INPUTS), dtype=np.float32)
    for i in range(n):
        black_moves = black_to_move[i] != 0
        own, opponent = (black[i], white[i]) if black_moves else (white[i], black[i])
        boards = frame_boards(own, opponent, kings[i], black_moves)
        for plane in range(NET_PLANES):
            pieces = boards[plane]
            while pieces:
                out[i, 32 * plane + lowest_bit_index(pieces)] = 1.0
                pieces &= pieces - 1
    return out


@numba.njit(cache=True)
def board_planes(black, white, kings, black_to_move):
    """The MCRD document's planes of a batch, ``float32[N, 3, 8, 8]``, 1.0 where a piece is.

    The document gives only "an expanded 3 x 8 x 8 tensor of floats with values of ones and
    zeros" made from its ``BitBoard`` (three ``uint32``: red, black, kings, and the turn).
    Here the three planes are those three bitboards with the colours made relative:

    - plane 0: the side to move's pieces, men and kings;
    - plane 1: the opponent's pieces, men and kings;
    - plane 2: the kings of both sides (so a king is 1 on plane 2 and on its side's plane);

    in the side to move's frame: the board as seen from the mover's chair, row 0 its back
    rank and column 0 its left (for White the half turn of the board: bit ``b`` is read as
    ``31 - b``), so the mover's men always move toward higher rows and one net values the
    positions of both colours. Frame bit ``b`` lies on cell ``FRAME_CELL[b] = 8 * (b // 4)
    + 2 * (b % 4) + (b // 4) % 2`` (row ``b // 4``); the 32 light cells are always 0. The
    turn is not a plane: the frame implies it.

    Args:
        black, white, kings: int64 bitboards, one per position.
        black_to_move: non-zero where Black is to move.
    """
    n = black.shape[0]
    out = np.zeros((n, BOARD_PLANES, 8, 8), dtype=np.float32)
    for i in range(n):
        seat = 0 if black_to_move[i] != 0 else 1
        own, opponent = (black[i], white[i]) if seat == 0 else (white[i], black[i])
        for plane in range(BOARD_PLANES):
            pieces = own if plane == 0 else opponent if plane == 1 else kings[i] & (own | opponent)
            while pieces:
                cell = CELL_OF_BIT[seat, lowest_bit_index(pieces)]
                pieces &= pieces - 1
                out[i, plane, cell >> 3, cell & 7] = 1.0
    return out


@numba.njit(cache=True, inline="always")
def write_planes(own, opponent, kings, own_is_black, continuing, out):
    """The envs' observation planes ``out[5, 8, 8]`` in the viewer's frame; ``continuing``
    is the bit of the piece that must go on capturing, or -1."""
    out[:] = 0.0
    seat = 0 if own_is_black else 1
    for plane in range(NET_PLANES):
        pieces = plane_pieces(plane, own, opponent, kings)
        while pieces:
            cell = CELL_OF_BIT[seat, lowest_bit_index(pieces)]
            pieces &= pieces - 1
            out[plane, cell >> 3, cell & 7] = 1.0
    if continuing >= 0:
        cell = CELL_OF_BIT[seat, continuing]
        out[PLANE_CONTINUING, cell >> 3, cell & 7] = 1.0


__all__ = [
    "ACTION_SQUARE_OF_BIT",
    "BLOCKS",
    "BLOCK_MASKS",
    "BLOCK_SHIFTS",
    "BLOCK_SQUARES",
    "BLOCK_STATES",
    "BLOCK_STATE_TABLE",
    "BOARD_PLANES",
    "BIT_OF_ACTION_SQUARE",
    "CELL_OF_BIT",
    "FRAME_CELL",
    "NET_PLANES",
    "NUM_INPUTS",
    "NUM_PLANES",
    "PATTERN_INPUTS",
    "PLANE_CONTINUING",
    "PLANE_OPPONENT_KINGS",
    "PLANE_OPPONENT_MEN",
    "PLANE_OWN_KINGS",
    "PLANE_OWN_MEN",
    "active_inputs",
    "block_inputs",
    "board_planes",
    "frame_bit",
    "frame_block_state",
    "frame_boards",
    "half_turn",
    "mover_frame",
    "input_planes",
    "pattern_inputs",
    "plane_pieces",
    "write_planes",
]
