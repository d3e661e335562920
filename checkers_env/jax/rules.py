"""English draughts as pure JAX functions over ``uint32`` bitboards.

The layout is ``checkers_env.bitboard``'s: bit ``b`` on row ``b // 4`` (row 0 is Black's back
rank), Black's men start on ``0x00000FFF``; the shifts of the four directions are that
module's ``DIRECTION_SHIFTS``, and the action and observation frames are
``checkers_env.encoding``'s tables, so these functions and the numba kernels read one
definition of the board.

Every function here takes one board's scalars (``jax.vmap`` batches them) and uses no Python
branch on a traced value: the four directions are unrolled at trace time, choices are
``jnp.where``. ``jumping`` below means the hop must be a jump: the piece is in the middle of a
capture, or a capture exists (captures are compulsory, and any jump starts a legal capture).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..bitboard import BB_ROW0, BB_ROW7, DIRECTION_SHIFTS
from ..encoding import BIT_OF_ACTION_SQUARE, CELL_OF_BIT

NUM_ACTIONS = 128


def _action_bits():
    """``ACTION_BIT[color, action]``: the board bit an action's hop starts from (the action's
    square ``action >> 2`` in ``color``'s frame, ``encoding.BIT_OF_ACTION_SQUARE``)."""
    action = np.arange(NUM_ACTIONS)
    return np.stack([BIT_OF_ACTION_SQUARE[color, action >> 2] for color in (0, 1)]).astype(np.uint32)


ACTION_BIT = jnp.asarray(_action_bits())
_BITS = jnp.arange(32, dtype=jnp.uint32)


def _cell_shifts():
    """``CELL_SHIFT[seat, cell]``: the board bit on each cell of the 8 x 8 planes in that
    seat's frame (``encoding.CELL_OF_BIT``), 0 on light cells, which ``DARK_CELL`` zeroes."""
    shifts = np.zeros((2, 64), dtype=np.uint32)
    for seat in (0, 1):
        shifts[seat, CELL_OF_BIT[seat]] = np.arange(32)
    dark = np.zeros(64, dtype=np.uint32)
    dark[CELL_OF_BIT[0]] = 1
    return jnp.asarray(shifts), jnp.asarray(dark)


_CELL_SHIFT, _DARK_CELL = _cell_shifts()


def _shift(x, amount: int):
    return x << amount if amount > 0 else x >> -amount


def step(x, direction: int):
    """Every piece of ``x`` one square in board direction ``direction`` (a Python int:
    NW, NE, SW, SE = 0..3); pieces falling off vanish."""
    (even, even_shift), (odd, odd_shift) = DIRECTION_SHIFTS[direction]
    return _shift(x & jnp.uint32(even), even_shift) | _shift(x & jnp.uint32(odd), odd_shift)


def step_towards(x, direction):
    """``step`` in a traced direction (all four computed, one kept by selects: an index into
    the four would be a gather, slow under vmap on a CPU)."""
    return jnp.where(
        direction < 2,
        jnp.where(direction == 0, step(x, 0), step(x, 1)),
        jnp.where(direction == 2, step(x, 2), step(x, 3)),
    )


def hop_of(turn, action):
    """``(bit, board direction)`` of an action of the side ``turn``: the square ``k = action
    >> 2`` of the mover's frame is bit ``4 * (k // 4) + 3 - k % 4`` for Black and its half
    turn ``31 - b`` for White, whose direction ``d`` is the board's ``3 - d``."""
    k = action >> 2
    bit = 4 * (k // 4) + 3 - k % 4
    d = action & 3
    return jnp.where(turn == 0, bit, 31 - bit), jnp.where(turn == 0, d, 3 - d)


def bit_board(bit):
    """The board with only ``bit`` set (0 for a negative ``bit``)."""
    return jnp.where(bit >= 0, jnp.uint32(1) << jnp.maximum(bit, 0).astype(jnp.uint32), jnp.uint32(0))


def lowest_bit(x):
    """Index of the lowest set bit of a non-zero board."""
    return jax.lax.population_count((x & (~x + jnp.uint32(1))) - jnp.uint32(1)).astype(jnp.int32)


def sides(black, white, turn):
    """``(mover, opponent)`` for ``turn`` (0 Black, 1 White to move)."""
    black_moves = turn == 0
    return jnp.where(black_moves, black, white), jnp.where(black_moves, white, black)


def hop_sources(mover, opponent, kings, black_moves):
    """``(jumps, steps)``, each ``uint32[4]``: per board direction, the mover's pieces that
    can jump (steps: step) that way."""
    north = jnp.where(black_moves, mover, mover & kings)
    south = jnp.where(black_moves, mover & kings, mover)
    empty = ~(mover | opponent)
    jumps, steps = [], []
    for direction in range(4):
        pieces = north if direction < 2 else south
        back = 3 - direction
        before_empty = step(empty, back)
        steps.append(pieces & before_empty)
        jumps.append(pieces & step(before_empty & opponent, back))
    return jnp.stack(jumps), jnp.stack(steps)


def legal_hops(black, white, kings, turn, square):
    """``uint32[4]``: per board direction, the pieces of the side to move that may hop that
    way now (``square`` the bit of the piece continuing a capture, or -1)."""
    mover, opponent = sides(black, white, turn)
    jumps, steps = hop_sources(mover, opponent, kings, turn == 0)
    jumping = (square >= 0) | jnp.any(jumps != 0)
    sources = jnp.where(jumping, jumps, steps)
    return jnp.where(square >= 0, sources & bit_board(square), sources)


def legal_action_mask(black, white, kings, turn, square):
    """``bool[128]``: the legal actions (hops in the mover's frame, ``4 * k + d``)."""
    sources = legal_hops(black, white, kings, turn, square)
    # Action 4k + d reads direction d (Black) or 3 - d (White): the four sources tiled.
    per_action = jnp.tile(jnp.where(turn == 0, sources, sources[::-1]), NUM_ACTIONS // 4)
    bits = jnp.where(turn == 0, ACTION_BIT[0], ACTION_BIT[1])
    return ((per_action >> bits) & jnp.uint32(1)) == 1


def play_hop(black, white, kings, turn, square, action):
    """Play a legal hop. Returns ``(black, white, kings, landing bit, continues, progress)``:
    ``continues`` when the piece must jump on (the turn goes on), ``progress`` whether the
    move so far resets the no-progress count (a capture or a man's move). A man reaching
    the crowning row is crowned and its move ends, even mid-capture."""
    black_moves = turn == 0
    mover, opponent = sides(black, white, turn)
    bit, direction = hop_of(turn, action)
    start = jnp.uint32(1) << bit.astype(jnp.uint32)
    jumps, _ = hop_sources(mover, opponent, kings, black_moves)
    jumping = (square >= 0) | jnp.any(jumps != 0)
    over = step_towards(start, direction)
    land = jnp.where(jumping, step_towards(over, direction), over)
    jumped = jnp.where(jumping, over, jnp.uint32(0))
    was_king = (kings & start) != 0
    mover = (mover & ~start) | land
    opponent = opponent & ~jumped
    kings = jnp.where(was_king, (kings & ~start) | land, kings) & ~jumped
    crowned = ~was_king & ((land & jnp.where(black_moves, jnp.uint32(BB_ROW7), jnp.uint32(BB_ROW0))) != 0)
    further, _ = hop_sources(mover, opponent, kings, black_moves)
    continues = jumping & ~crowned & jnp.any((further & land) != 0)
    kings = jnp.where(crowned, kings | land, kings)
    black, white = jnp.where(black_moves, mover, opponent), jnp.where(black_moves, opponent, mover)
    return black, white, kings, lowest_bit(land), continues, jumping | ~was_king


def repetitions(history, quiet, black, white):
    """How often the position ``black, white`` (after ``quiet`` plies without progress)
    occurred: ``history[q]`` holds the position after ``q`` quiet plies; only positions an
    even number of plies back (the same side to move), at least four, can repeat it (as
    ``game_state.repetitions``)."""
    back = quiet - jnp.arange(history.shape[0])
    same = (history[:, 0] == black) & (history[:, 1] == white) & (back >= 4) & (back % 2 == 0)
    return 1 + jnp.sum(same)


def planes(black, white, kings, square, viewer):
    """The observation ``float32[5, 8, 8]`` of ``Checkers-v0`` in ``viewer``'s frame (0
    Black, 1 White): own men, own kings, opponent men, opponent kings, the piece continuing
    a capture.

    Each cell reads its own bit of the five boards: the same shift for every board of a
    batch but for the seat, an elementwise computation (a gather or an interleave of the
    32 bits measured several times slower under vmap on a CPU)."""
    own, opponent = sides(black, white, viewer)
    boards = jnp.stack([own & ~kings, own & kings, opponent & ~kings, opponent & kings, bit_board(square)])
    shifts = jnp.where(viewer == 0, _CELL_SHIFT[0], _CELL_SHIFT[1])
    cells = ((boards[:, None] >> shifts[None, :]) & jnp.uint32(1)) * _DARK_CELL
    return cells.astype(jnp.float32).reshape(5, 8, 8)


__all__ = [
    "ACTION_BIT",
    "NUM_ACTIONS",
    "bit_board",
    "hop_of",
    "hop_sources",
    "legal_action_mask",
    "legal_hops",
    "lowest_bit",
    "planes",
    "play_hop",
    "repetitions",
    "sides",
    "step",
    "step_towards",
]
