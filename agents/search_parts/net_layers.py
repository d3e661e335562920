"""The nets' layers as the searches run them: first-layer sums (fresh or updated by a move),
the later layers, and the float32 weights whose first-layer sums are exact.

A net of ``checkers_agents.search_parts.evaluators.mlp`` is ``w_in [128, H1]`` (input-major:
an input that is 1 adds a contiguous row), ``b_in [H1]``, an optional second hidden layer
``w_mid [H2, H1]`` (torch's layout: each unit of the second layer a contiguous dot product
over the first; absent: no rows), ``b_mid [H2]``, an optional third ``w_mid2 [H3, H2]``,
``b_mid2 [H3]``, ``w_out [O, H]``, ``b_out [O]``,
the rows of its pattern inputs ``w_blocks [PATTERN_INPUTS, K]`` (absent: ``[0, 0]``), which
feed the first ``K <= H1`` units of the first layer, and an optional phase table
``phase_of [25]`` (absent: ``[0]``, one phase). Every kernel here takes the
arrays in either float64 or float32 and numba compiles one version per dtype: the
td-minimax trainer searches with the float64 weights its learning steps update in place,
the agents with float32 copies (:func:`exact_first_layer`).

**First layer.** Its sums are the bias plus the rows of the inputs that are 1 (at most 24
pieces): :func:`first_layer_sums` adds them fresh; :func:`move_sums` gets a child's sums
from its parent's, the rows of the inputs a move changes (the moving piece off its square
and on its landing square, crowned or not, the captured pieces off) added and taken away.
The search keeps the sums of both colours' frames for every ply it has made (the net reads
the side to move's frame, which alternates), the way efficiently updatable networks work in
draughts and chess engines. A net with pattern inputs (``w_blocks``, :mod:`checkers_env.encoding`) adds one row per
block of four squares as well. The search keeps only the squares' sums move by move and a
leaf adds its 21 block rows (:func:`block_sums`): a move changes the states of several
blocks (a square lies in up to four) in each of the two frames, so moving their rows at
every node costs more than adding all 21 once at a leaf. The block rows may be narrower
than the first layer (``K < H1``): a leaf's additions, and the rows it reads, then shrink
with them, which is most of what a pattern net's leaf costs beyond a squares net's.
Float sums are exact when every weight lies on a grid fine enough and
coarse enough that no sum of at most 26 of them (and 21 block rows) leaves
float32's 24 bits: then the order of the additions does not matter, and sums updated move
by move equal fresh ones to the last bit (so do the search's values and its ties).
:func:`exact_first_layer` rounds float32 weights onto such a grid, one per hidden unit (a
step of ``2**-k`` with ``|b| +`` the 26 largest ``|w|`` of the unit (and its 21 largest
block rows' ``|w|``) below
``2**(23 - k)``: for weights below 1 a step of about ``2e-6``, far below what training
resolves).

**Phases.** A net with a phase table has ``P`` sets of later layers, one for each phase of
the game, stacked along their first axis (``w_mid [P * H2, H1]``, ``b_mid [P * H2]``,
``w_out [P, H2]``, ``b_out [P]``: one output each), and a position's piece count picks its
set (``phase_of[pieces]``, :func:`phase_table`). The first layer is shared, so the sums the
search keeps move by move are the same; only the few thousand multiply-adds after them
change with the phase, the way draughts engines split their nets by the game's phase.

**Later layers.** :func:`later_layers`, inlined into its caller, applies the hidden
activation (one loop per kind), the second (and third) hidden layer and the outputs. A
later layer (:func:`dense_layer`, one dot product per unit over the whole first layer: 16,000
multiply-adds for the MCRD CNN's 512 x 32) is a call compiled with ``fastmath`` flags
``reassoc`` (a dot product may be summed in any order, so that it vectorises), ``contract``
(a multiply and an add may fuse) and ``nsz`` (the sign of a zero may be ignored), no others:
no assumption that values are finite or not NaN, no approximate functions. The outputs' dot
products (:func:`output_dot`) run in strict arithmetic, in eight interleaved partial sums.
The values change in the last bits only, and the same position always gets the same value.
Measured on the outcome net (``docs/experiments.md``): a call for the whole of the later
layers cost more than the work in it. td-minimax's 128-H-2 sigmoid net takes
:func:`sigmoid_pair_from_sums` instead, strict in its old order, the sums its trainer's
backpropagation repeats to the last bit.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from checkers_env.bitboard import lowest_bit_index
from checkers_env.encoding import (
    BLOCK_STATES,
    BLOCKS,
    active_inputs,
    frame_block_state,
    half_turn,
)

#: Activations (``net_functions[0]`` hidden, ``net_functions[1]`` output).
IDENTITY = 0
SIGMOID = 1
RELU = 2
#: ``fastmath`` flags of the later layers (see the module docstring).
FAST_FLAGS = {"reassoc", "contract", "nsz"}
#: Views of the search's first-layer sums: Black's frame and White's frame.
BLACK_VIEW, WHITE_VIEW = 0, 1
#: Rows a move changes in one view: the moving piece off and on, and up to 12 captures,
#: with room to spare.
MAX_CHANGED = 16
#: Most square rows one first-layer sum holds at any step (24 pieces, and two more while a
#: move is applied), for :func:`exact_first_layer`'s grid; a net with pattern inputs holds
#: one row per block as well (``BLOCKS``), added at a leaf.
MAX_TERMS = 26
#: Piece counts a phase table covers (0 to 24).
PIECE_COUNTS = 25
#: The phases' rule counts the pieces gone from 24, in steps of ``PHASE_SPAN / P``.
PHASE_SPAN = 19


def phase_table(phases: int) -> np.ndarray:
    """The phase of each piece count (``int64[25]``) for a net of ``phases`` phases: the
    pieces gone from the full board, ``(24 - pieces) * phases // 19``, capped at the last
    phase (for 4 phases: 20-24 pieces, 15-19, 10-14, 9 and fewer). A span of 19 rather than
    24 because positions of 5 pieces or fewer are mostly the endgame database's; 1 phase:
    no table (``[0]``).

    Raises:
        ValueError: fewer than 1 phase, or more than the 19 steps the rule has.
    """
    if not 1 <= phases <= PHASE_SPAN:
        raise ValueError(f"a net has 1 to {PHASE_SPAN} phases, got {phases}")
    if phases == 1:
        return np.zeros(0, np.int64)
    gone = 24 - np.arange(PIECE_COUNTS)
    return np.minimum(gone * phases // PHASE_SPAN, phases - 1).astype(np.int64)


@numba.njit(cache=True, inline="always")
def activate(x, activation):
    if activation == SIGMOID:
        return 1.0 / (1.0 + math.exp(-x))
    if activation == RELU:
        return x if x > 0.0 else 0.0
    return x


@numba.njit(cache=True, inline="always")
def activate_all(units, start, count, activation):
    """``units[start : start + count]`` through the activation, one loop per kind (so that
    the ReLU's vectorises)."""
    if activation == RELU:
        for j in range(start, start + count):
            x = units[j]
            units[j] = x if x > 0.0 else 0.0
    elif activation == SIGMOID:
        for j in range(start, start + count):
            units[j] = 1.0 / (1.0 + math.exp(-units[j]))


@numba.njit(cache=True, inline="always")
def first_layer_sums(active, n, w_in, b_in, units):
    """The first layer's sums for the inputs listed in ``active[:n]`` (each a one) into
    ``units[:H1]``: the bias plus the weight rows of the active inputs, in that order."""
    width = b_in.shape[0]
    for j in range(width):
        units[j] = b_in[j]
    for a in range(n):
        row = active[a]
        for j in range(width):
            units[j] += w_in[row, j]


@numba.njit(cache=True, inline="always")
def input_row(view_black, piece_black, king, bit):
    """The net input (``encoding.active_inputs``'s index) of a piece on board bit ``bit``
    in Black's frame (``view_black``) or White's: own or opponent plane, man or king."""
    plane = (0 if piece_black == view_black else 2) + king
    return 32 * plane + (bit if view_black else 31 - bit)


@numba.njit(cache=True, inline="always")
def move_sums(source, destination, w_in, view_black, black_moved, frm, to, captured, parent_kings, child_kings):
    """One view's first-layer sums after a move, from the sums before it:
    ``destination[:H1] = source[:H1]`` minus the row of the moving piece on ``frm``, plus
    its row on ``to`` (a king if ``child_kings`` has one there: crowning included), minus
    the rows of the ``captured`` pieces (their kinds in ``parent_kings``). ``source`` and
    ``destination`` may be the same array. The moving piece's row is taken away before its
    new one is added, so that no partial sum holds more terms than the position before the
    move."""
    width = source.shape[0]
    off = input_row(view_black, black_moved, (parent_kings >> frm) & 1, frm)
    on = input_row(view_black, black_moved, (child_kings >> to) & 1, to)
    for j in range(width):
        destination[j] = source[j] - w_in[off, j] + w_in[on, j]
    rest = captured
    while rest:
        bit = lowest_bit_index(rest)
        rest &= rest - 1
        row = input_row(view_black, not black_moved, (parent_kings >> bit) & 1, bit)
        for j in range(width):
            destination[j] -= w_in[row, j]


@numba.njit(cache=True, inline="always")
def has_patterns(w_blocks):
    """Whether the net has pattern inputs (block rows)."""
    return w_blocks.shape[0] > 0


@numba.njit(cache=True, inline="always")
def block_sums(sums, w_blocks, own, opponent, kings, own_is_black):
    """Add the rows of the 21 pattern inputs of a position to first-layer sums that hold
    its squares' (``sums[:H1]``, in the frame of the owner of ``own``, Black when
    ``own_is_black``), in place: each row to the first ``K`` sums (``w_blocks [21 * 625,
    K]``); a net without pattern inputs is left as it is."""
    if not has_patterns(w_blocks):
        return
    if not own_is_black:
        own, opponent, kings = half_turn(own), half_turn(opponent), half_turn(kings)
    width = w_blocks.shape[1]
    for block in range(BLOCKS):
        row = BLOCK_STATES * block + frame_block_state(own, opponent, kings, block)
        for j in range(width):
            sums[j] += w_blocks[row, j]


@numba.njit(cache=True, inline="always")
def root_sums(accumulators, black, white, kings, w_in, b_in, active):
    """Both views' first-layer sums of a position's squares (not its blocks: see
    :func:`block_sums`), fresh, into ``accumulators[0]`` (``[2, H1]`` per ply: Black's
    frame, White's frame)."""
    n = active_inputs(black, white, kings, True, active)
    first_layer_sums(active, n, w_in, b_in, accumulators[0, BLACK_VIEW])
    n = active_inputs(white, black, kings, False, active)
    first_layer_sums(active, n, w_in, b_in, accumulators[0, WHITE_VIEW])


@numba.njit(cache=True, inline="always")
def child_sums(accumulators, ply, w_in, black_moved, frm, to, captured, parent_kings, child_kings):
    """Both views' first-layer sums at ``ply`` from those at ``ply - 1`` and the move
    between them (:func:`move_sums`)."""
    for view in range(2):
        move_sums(
            accumulators[ply - 1, view],
            accumulators[ply, view],
            w_in,
            view == BLACK_VIEW,
            black_moved,
            frm,
            to,
            captured,
            parent_kings,
            child_kings,
        )


@numba.njit(cache=True, inline="always")
def sigmoid_pair_from_sums(hidden, width, w_out, b_out):
    """Outputs ``(out0, out1)`` of a 128-H-2 net with sigmoid units and outputs (td-minimax's)
    from its first-layer sums in ``hidden[:width]``, which receives the hidden activations
    (the trainer's backpropagation reads them). Strict in order: the trainer's values to
    the last bit."""
    z0 = b_out[0]
    z1 = b_out[1]
    for j in range(width):
        h = 1.0 / (1.0 + math.exp(-hidden[j]))
        hidden[j] = h
        z0 += w_out[0, j] * h
        z1 += w_out[1, j] * h
    return 1.0 / (1.0 + math.exp(-z0)), 1.0 / (1.0 + math.exp(-z1))


@numba.njit(cache=True, inline="always")
def sigmoid_pair_forward(active, n, w_in, b_in, w_out, b_out, hidden):
    """Outputs ``(out0, out1)`` of a 128-H-2 net with sigmoid units and outputs (td-minimax's)
    for the inputs listed in ``active[:n]``; ``hidden`` (length H) receives the hidden
    activations (the trainer's backpropagation reads them; longer is fine)."""
    first_layer_sums(active, n, w_in, b_in, hidden)
    return sigmoid_pair_from_sums(hidden, b_in.shape[0], w_out, b_out)


@numba.njit(cache=True, fastmath=FAST_FLAGS)
def dense_layer(w, b, scratch, source, target):
    """A hidden layer's sums ``scratch[target : target + O]`` from the units before it,
    ``scratch[source : source + I]`` (``w [O, I]``): a dot product per unit, vectorised
    (``fastmath``). Each layer's units follow the last's."""
    for o in range(w.shape[0]):
        z = b[o]
        for j in range(w.shape[1]):
            z += w[o, j] * scratch[source + j]
        scratch[target + o] = z


@numba.njit(cache=True, inline="always")
def output_dot(w_out, o, scratch, current, width):
    """``sum_j w_out[o, j] * scratch[current + j]`` in eight interleaved partial sums (lane
    ``j mod 8``) added pairwise at the end: a fixed order, whose eight chains run side by
    side (LLVM packs them into one vector) where one chain would wait on every add."""
    if width % 8 != 0:
        z = w_out[o, 0] * scratch[current]
        for j in range(1, width):
            z += w_out[o, j] * scratch[current + j]
        return z
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = w_out[o, 0] - w_out[o, 0]
    for j in range(0, width, 8):
        a0 += w_out[o, j] * scratch[current + j]
        a1 += w_out[o, j + 1] * scratch[current + j + 1]
        a2 += w_out[o, j + 2] * scratch[current + j + 2]
        a3 += w_out[o, j + 3] * scratch[current + j + 3]
        a4 += w_out[o, j + 4] * scratch[current + j + 4]
        a5 += w_out[o, j + 5] * scratch[current + j + 5]
        a6 += w_out[o, j + 6] * scratch[current + j + 6]
        a7 += w_out[o, j + 7] * scratch[current + j + 7]
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


@numba.njit(cache=True, inline="always")
def later_layers(w_mid, b_mid, w_out, b_out, net_functions, scratch, w_mid2, b_mid2):
    """The value of an MLP whose first-layer sums are in ``scratch[:H1]`` (``scratch``:
    ``2 * Evaluator.width`` long): hidden activation, the optional second and third hidden
    layers, the outputs: ``out0 - out1`` for two outputs, ``2 out0 - 1`` for one sigmoid
    output, ``out0`` for one other."""
    hidden_activation = net_functions[0]
    width = w_mid.shape[1] if w_mid.shape[0] > 0 else w_out.shape[1]
    activate_all(scratch, 0, width, hidden_activation)
    current = 0
    if w_mid.shape[0] > 0:
        dense_layer(w_mid, b_mid, scratch, 0, width)
        activate_all(scratch, width, w_mid.shape[0], hidden_activation)
        current = width
        width = w_mid.shape[0]
        if w_mid2.shape[0] > 0:
            # Read through a view that starts at the second layer's units: an offset of 0,
            # known at compile time, is what lets the dot products vectorise.
            dense_layer(w_mid2, b_mid2, scratch[current:], 0, width)
            current += width
            width = w_mid2.shape[0]
            activate_all(scratch, current, width, hidden_activation)
    output_activation = net_functions[1]
    out0 = activate(np.float64(b_out[0] + output_dot(w_out, 0, scratch, current, width)), output_activation)
    if w_out.shape[0] == 2:
        z1 = b_out[1] + output_dot(w_out, 1, scratch, current, width)
        return out0 - activate(np.float64(z1), output_activation)
    if output_activation == SIGMOID:
        return 2.0 * out0 - 1.0
    return out0


@numba.njit(cache=True, inline="always")
def is_sigmoid_pair(net, net_functions):
    """Whether the net is td-minimax's shape: one sigmoid hidden layer, two sigmoid outputs."""
    w_mid = net[2]
    return (
        w_mid.shape[0] == 0
        and net[4].shape[0] == 2
        and net[9].shape[0] == 0
        and net_functions[0] == SIGMOID
        and net_functions[1] == SIGMOID
    )


@numba.njit(cache=True, inline="always")
def value_of_sums(net, net_functions, scratch, pieces):
    """The value for the side to move of a net whose first-layer sums (of the side to
    move's frame) are in ``scratch[:H1]`` (``scratch``: ``2 * Evaluator.width`` long), for
    a position of ``pieces`` pieces (which pick the later layers of a net with phases)."""
    if is_sigmoid_pair(net, net_functions):
        out0, out1 = sigmoid_pair_from_sums(scratch, net[1].shape[0], net[4], net[5])
        return out0 - out1
    phase_of = net[9]
    if phase_of.shape[0] == 0:
        return later_layers(net[2], net[3], net[4], net[5], net_functions, scratch, net[7], net[8])
    phase = phase_of[pieces]
    rows = net[2].shape[0] // net[5].shape[0]  # each phase's second-layer units
    return later_layers(
        net[2][phase * rows : (phase + 1) * rows],
        net[3][phase * rows : (phase + 1) * rows],
        net[4][phase : phase + 1],
        net[5][phase : phase + 1],
        net_functions,
        scratch,
        net[7],
        net[8],
    )


def exact_first_layer(
    w_in: np.ndarray, b_in: np.ndarray, w_blocks: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float32 copies of a first layer, each hidden unit's weights and bias rounded to a grid
    on which every sum the search forms is exact in float32 (see the module docstring).

    Args:
        w_in: ``[128, H1]`` input-major weights (any float dtype).
        b_in: ``[H1]`` biases.
        w_blocks: ``[PATTERN_INPUTS, K]`` block rows feeding the first ``K`` units, or None.

    Returns:
        ``(w_in, b_in, w_blocks)``, C-contiguous float32 (``w_blocks`` ``[0, 0]`` when None).
    """
    w = np.asarray(w_in, np.float64)
    b = np.asarray(b_in, np.float64)
    largest = -np.sort(-np.abs(w), axis=0)[: min(MAX_TERMS, w.shape[0])].sum(axis=0) + np.abs(b)
    blocks = np.zeros((0, 0)) if w_blocks is None else np.asarray(w_blocks, np.float64)
    if blocks.shape[0]:
        width = blocks.shape[1]
        largest[:width] += -np.sort(-np.abs(blocks), axis=0)[:BLOCKS].sum(axis=0)
    exponents = np.zeros(b.shape[0])
    nonzero = largest > 0
    exponents[nonzero] = 23 - np.ceil(np.log2(largest[nonzero]))
    step = np.exp2(-np.minimum(exponents, 60.0))

    def rounded(array, steps):
        return np.ascontiguousarray(np.round(array / steps) * steps, dtype=np.float32)

    return rounded(w, step), rounded(b, step), rounded(blocks, step[: blocks.shape[1]])


__all__ = [
    "BLACK_VIEW",
    "FAST_FLAGS",
    "IDENTITY",
    "RELU",
    "SIGMOID",
    "WHITE_VIEW",
    "activate",
    "activate_all",
    "block_sums",
    "child_sums",
    "exact_first_layer",
    "first_layer_sums",
    "has_patterns",
    "input_row",
    "is_sigmoid_pair",
    "dense_layer",
    "later_layers",
    "move_sums",
    "output_dot",
    "phase_table",
    "root_sums",
    "sigmoid_pair_forward",
    "sigmoid_pair_from_sums",
    "value_of_sums",
]
