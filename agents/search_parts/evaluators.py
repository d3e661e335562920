"""The searches' leaf evaluators: one interface for hand-written evaluations and learned nets.

A search kernel (the alpha-beta's ``negamax.search_kernel``, MCRD's guided descents) never
knows which agent it serves: it receives an evaluator as plain numbers and arrays
(:class:`Evaluator`), the OpenSpiel habit of one search and many evaluators. Every value is a float64 from the view of the side to move.

An evaluator is

- ``kind``: ``EVAL_MATERIAL`` and ``EVAL_POSITIONAL`` (integer points, a man is 100: see
  the tables below), or ``EVAL_NET``: a multilayer perceptron over the 128 binary inputs of
  the mover's frame (:func:`checkers_env.encoding.active_inputs`), and optionally the
  pattern inputs of 21 blocks of four squares after them
  (:func:`checkers_env.encoding.pattern_inputs`);
- the net's arrays (empty for the hand-written kinds): ``w_in [128, H1]`` (input-major, so
  the <= 24 active inputs add up contiguous rows), ``b_in [H1]``, an optional second hidden
  layer ``w_mid [H2, H1]`` (torch's layout: a dot product per unit), ``b_mid [H2]``
  (``[0, 0]`` / ``[0]`` when absent), an optional third ``w_mid2 [H3, H2]``, ``b_mid2
  [H3]`` (after a second only), ``w_out [O, H]``, ``b_out [O]`` (torch's ``nn.Linear``
  layout), and the optional pattern inputs' rows ``w_blocks [21 * 625, K]``, which feed the
  first ``K <= H1`` units of the first layer (``[0, 0]`` when absent), and the optional
  phase table ``phase_of [25]`` (``int64``, ``[0]`` when absent): a net with ``P > 1``
  phases stacks ``P`` sets of later layers, one output each, and a position's piece count
  picks one (``net_layers``, "Phases"); the float weights are all float64
  (a trainer's weights, updated in place) or all float32 (an agent's, with exact first-layer
  sums: ``checkers_agents.search_parts.net_layers``), with ``net_functions`` =
  ``(hidden activation, output activation, move reward)``. The value of the net is
  ``out[0] - out[1]`` for two outputs (td-minimax: how well the mover does minus how well
  the opponent does), ``2 out[0] - 1`` for one sigmoid output (a win probability) and
  ``out[0]`` for one linear output;
- the scores of a side with no legal move, ``-(loss - loss_per_ply * ply)`` (times
  ``blockade_value`` when it still has pieces, the td-minimax curriculum), and
  ``win_bound``: values beyond it are forced results, which the table stores relative to
  the node and the driver stops deepening on;
- an optional reward per move (``REWARD_MATERIAL_LOG``: the slow/fast learner's
  ``0.1 ln(m_B / m_A)`` of the material ratio, zero into a finished position): a move is
  then worth its reward minus the value of the position it leads to, the slow/fast
  learner's ``R + V``.

A new net goes through the same interface: build an :class:`Evaluator` with :func:`mlp`
(weights in torch's layouts), no kernel changes; any widths (``512 x 32``, ``256 x 128``)
run through the same kernels (``net_layers``), with up to three hidden layers (the MCRD
document's CNN: a convolution, a locally connected layer, a fully connected one).

``material``: man 100, king 140.

``positional`` (weights in the ``W_*`` constants), each term own minus the opponent's:

======================  =====  ===========================================================
term                    points
======================  =====  ===========================================================
man / king              100 /  material
                        140
back rank guard         8      per man on its own back rank, while the opponent has men
                               (guards the crowning squares)
centre control          4 / 8  per man / king on the 8 central squares (10, 11, 14, 15,
                               18, 19, 22, 23: ranks 3-6, the middle two columns)
mobility                2      per non-capturing move available
tempo / advancement     3      per row a man has advanced from its back rank
trading down            2      x (24 - pieces on the board) for the side ahead in material
                               (exchanges help the stronger side)
======================  =====  ===========================================================
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field

import numba
import numpy as np

from checkers_env.baselines import material
from checkers_env.bitboard import BB_ROW0, BB_ROW7, count_steps, popcount
from checkers_env.encoding import PATTERN_INPUTS, active_inputs

# The activation codes belong to the evaluator interface: learners name them from here.
from .net_layers import IDENTITY as IDENTITY
from .net_layers import RELU as RELU
from .net_layers import (
    SIGMOID,
    block_sums,
    exact_first_layer,
    first_layer_sums,
    phase_table,
    sigmoid_pair_forward,
    value_of_sums,
)

EVAL_MATERIAL = 0
EVAL_POSITIONAL = 1
EVAL_NET = 2

#: Move rewards (``net_functions[2]``).
REWARD_NONE = 0
REWARD_MATERIAL_LOG = 1
#: Coefficient of the slow/fast learner's material reward
#: ``MATERIAL_REWARD_SCALE * ln(m_B / m_A)``.
MATERIAL_REWARD_SCALE = 0.1

#: Inputs of the mover-frame nets: own men, own kings, opponent men, opponent kings x 32.
NUM_INPUTS = 128
#: Most square inputs that can be 1 at once (24 pieces), with room to spare.
MAX_ACTIVE = 32

#: Score of a won position at the root for the hand-written evaluations; a win in ``n``
#: plies scores ``WIN - n``.
WIN = 1_000_000.0

# -- positional weights (points; a man is 100) --------------------------------------------

W_MAN = 100
W_KING = 140
W_BACK_RANK = 8
W_CENTRE_MAN = 4
W_CENTRE_KING = 8
W_MOBILITY = 2
W_ADVANCE = 3
W_TRADE = 2

# Rows are 4 bits each (bitboard.py): the bits of a row index, as masks.
_ROW_BIT0 = 0xF0F0F0F0  # odd rows
_ROW_BIT1 = 0xFF00FF00  # rows 2, 3, 6, 7
_ROW_BIT2 = 0xFFFF0000  # rows 4-7
#: The middle two columns (bits 1, 2 of each row) of rows 2-5 (squares 10, 11, 14, 15, 18,
#: 19, 22, 23): symmetric under the half turn, so it is the same centre for both sides.
BB_CENTRE = 0x00666600


#: How the search values positions, as its kernel takes it (a named tuple): the evaluator's
#: ``kind`` and ``net_functions``; a side without a legal move scores
#: ``-(loss - loss_per_ply * ply)``, times ``blockade_value`` when it still has pieces; values beyond ``win_bound``
#: are forced results; root moves within ``tie_margin`` of the best are searched exactly;
#: ``quiescence``: capture positions at the horizon are searched on until they are quiet.
Valuation = namedtuple(
    "Valuation", "kind net_functions loss loss_per_ply blockade_value win_bound tie_margin quiescence"
)


@dataclass(frozen=True, eq=False)
class Evaluator:
    """A leaf evaluator as the kernel takes it (see the module docstring)."""

    kind: int
    loss: float = WIN
    loss_per_ply: float = 1.0
    win_bound: float = WIN - 1000.0
    #: Root moves within this of the best are searched exactly (ties): 1 point for the
    #: integer evaluations, a hair for nets.
    tie_margin: float = 1.0
    w_in: np.ndarray = field(default_factory=lambda: np.zeros((NUM_INPUTS, 0)))
    b_in: np.ndarray = field(default_factory=lambda: np.zeros(0))
    w_mid: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    b_mid: np.ndarray = field(default_factory=lambda: np.zeros(0))
    w_out: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    b_out: np.ndarray = field(default_factory=lambda: np.zeros(0))
    hidden_activation: int = SIGMOID
    output_activation: int = SIGMOID
    move_reward: int = REWARD_NONE
    w_blocks: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    w_mid2: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    b_mid2: np.ndarray = field(default_factory=lambda: np.zeros(0))
    phase_of: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def net(self) -> tuple[np.ndarray, ...] | None:
        """The ten arrays as the kernel takes them (None for a hand-written kind):
        ``w_in, b_in, w_mid, b_mid, w_out, b_out, w_blocks, w_mid2, b_mid2, phase_of``."""
        if self.kind != EVAL_NET:
            return None
        return (
            self.w_in,
            self.b_in,
            self.w_mid,
            self.b_mid,
            self.w_out,
            self.b_out,
            self.w_blocks,
            self.w_mid2,
            self.b_mid2,
            self.phase_of,
        )

    @property
    def net_functions(self) -> np.ndarray:
        """``(hidden_activation, output_activation, move_reward)`` as the kernel takes them."""
        return np.array([self.hidden_activation, self.output_activation, self.move_reward], dtype=np.int64)

    def valuation(
        self, quiescence: bool = True, blockade_value: float = 1.0, tie_margin: float | None = None
    ) -> Valuation:
        """The :data:`Valuation` of a search with this evaluator (``tie_margin``: the
        evaluator's unless given)."""
        margin = self.tie_margin if tie_margin is None else tie_margin
        return Valuation(
            int(self.kind),
            self.net_functions,
            float(self.loss),
            float(self.loss_per_ply),
            float(blockade_value),
            float(self.win_bound),
            float(margin),
            bool(quiescence),
        )

    @property
    def width(self) -> int:
        """Widest layer (the kernel's net scratch holds two of it), or half the three hidden
        layers of a net that has three (each layer's units follow the last's in the scratch)."""
        layers = (self.w_in.shape[1], self.w_mid.shape[0], self.w_mid2.shape[0])
        third = (sum(layers) + 1) // 2 if layers[2] > 0 else 0
        return max(1, *layers, self.w_out.shape[0], third)

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the net's weights (float64 for the hand-written kinds)."""
        return self.w_in.dtype


MATERIAL = Evaluator(EVAL_MATERIAL)
POSITIONAL = Evaluator(EVAL_POSITIONAL)


def mlp(
    w_in: np.ndarray,
    b_in: np.ndarray,
    w_out: np.ndarray,
    b_out: np.ndarray,
    w_mid: np.ndarray | None = None,
    b_mid: np.ndarray | None = None,
    hidden_activation: int = SIGMOID,
    output_activation: int = SIGMOID,
    move_reward: int = REWARD_NONE,
    loss: float = 1.0,
    loss_per_ply: float = 0.0,
    win_bound: float = math.inf,
    dtype: type = np.float64,
    w_blocks: np.ndarray | None = None,
    w_mid2: np.ndarray | None = None,
    b_mid2: np.ndarray | None = None,
    phases: int = 1,
) -> Evaluator:
    """A mover-frame MLP evaluator (see the module docstring).

    Args:
        w_in: ``[128, H1]`` first-layer weights, input-major.
        b_in: ``[H1]``.
        w_out: ``[O, H]`` output weights (torch's layout), ``O`` 1 or 2, ``H`` the last
            hidden layer's width.
        b_out: ``[O]``.
        w_mid: ``[H2, H1]`` second hidden layer (torch's layout), or None for one hidden
            layer.
        b_mid: ``[H2]``.
        hidden_activation, output_activation, move_reward: ``IDENTITY``, ``SIGMOID``,
            ``RELU``; ``REWARD_NONE`` or ``REWARD_MATERIAL_LOG``.
        loss, loss_per_ply, win_bound: the scores of forced results (module docstring).
        dtype: ``np.float64``: ``w_in``, ``b_in``, ``w_out``, ``b_out`` must be C-contiguous
            float64 and are used as they are, not copied (a trainer that updates them in
            place searches with its current weights); ``np.float32``: float32 copies, the
            first layer rounded onto the grid of ``net_layers.exact_first_layer``, so that
            its sums are exact and a search may update them move by move (the agents'
            weights).
        w_blocks: ``[PATTERN_INPUTS, K]``, ``K <= H1``: the rows of the pattern inputs
            (:mod:`checkers_env.encoding`), each added to the first ``K`` units of the first
            layer; None for a net without them. float32 only.
        w_mid2: ``[H3, H2]`` third hidden layer (torch's layout), after a second one, or
            None.
        b_mid2: ``[H3]``.
        phases: sets of later layers (``net_layers.phase_table``), stacked: ``w_mid [P *
            H2, H1]``, ``b_mid [P * H2]``, ``w_out [P, H]``, ``b_out [P]``, one output each;
            no third hidden layer.

    Raises:
        ValueError: an array of the wrong dtype or shape, or another ``dtype``.
    """
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"an mlp's dtype is np.float64 or np.float32, got {dtype!r}")
    if dtype == np.float64:
        for name, array in (("w_in", w_in), ("b_in", b_in), ("w_out", w_out), ("b_out", b_out)):
            if array.dtype != np.float64 or not array.flags.c_contiguous:
                raise ValueError(f"{name} must be a C-contiguous float64 array")
    if w_in.ndim != 2 or w_in.shape[0] != NUM_INPUTS:
        raise ValueError(f"w_in must have {NUM_INPUTS} rows (the mover-frame inputs), got {w_in.shape}")
    first = w_in.shape[1]
    if b_in.shape != (first,):
        raise ValueError(f"b_in must have shape ({first},) to match w_in {w_in.shape}, got {b_in.shape}")
    if w_blocks is not None:
        if dtype != np.float32:
            raise ValueError("pattern inputs (w_blocks) need dtype np.float32")
        if w_blocks.ndim != 2 or w_blocks.shape[0] != PATTERN_INPUTS or not 0 < w_blocks.shape[1] <= first:
            raise ValueError(f"w_blocks must be [{PATTERN_INPUTS}, K] with 0 < K <= {first}, got {w_blocks.shape}")
    if (w_mid is None) != (b_mid is None):
        raise ValueError("give both w_mid and b_mid for a second hidden layer, or neither")
    phase_of = phase_table(phases)
    if phases > 1 and w_mid2 is not None:
        raise ValueError("a net with phases has no third hidden layer (w_mid2)")
    last = first
    if w_mid is not None:
        if w_mid.ndim != 2 or w_mid.shape[1] != first or b_mid.shape != (w_mid.shape[0],):
            raise ValueError(
                f"w_mid must be [H2, {first}] and b_mid [H2] after w_in {w_in.shape}, got {w_mid.shape} and {b_mid.shape}"
            )
        if w_mid.shape[0] % phases:
            raise ValueError(f"w_mid's {w_mid.shape[0]} rows are not {phases} phases' equal sets")
        last = w_mid.shape[0] // phases
    if (w_mid2 is None) != (b_mid2 is None):
        raise ValueError("give both w_mid2 and b_mid2 for a third hidden layer, or neither")
    if w_mid2 is not None:
        if w_mid is None:
            raise ValueError("a third hidden layer (w_mid2) needs a second (w_mid)")
        if w_mid2.ndim != 2 or w_mid2.shape[1] != last or b_mid2.shape != (w_mid2.shape[0],):
            raise ValueError(f"w_mid2 must be [H3, {last}] and b_mid2 [H3], got {w_mid2.shape} and {b_mid2.shape}")
        last = w_mid2.shape[0]
    if phases > 1 and (w_out.ndim != 2 or w_out.shape[0] != phases):
        raise ValueError(f"a net of {phases} phases has one output each, w_out [{phases}, H], got {w_out.shape}")
    if w_out.ndim != 2 or (phases == 1 and w_out.shape[0] not in (1, 2)):
        raise ValueError(f"a net's value comes from 1 or 2 outputs, got w_out {w_out.shape}")
    if w_out.shape[1] != last or b_out.shape != (w_out.shape[0],):
        raise ValueError(
            f"w_out must be [{w_out.shape[0]}, {last}] and b_out [{w_out.shape[0]}], got {w_out.shape} and {b_out.shape}"
        )
    blocks = np.zeros((0, 0), dtype=dtype)
    if dtype == np.float32:
        w_in, b_in, blocks = exact_first_layer(w_in, b_in, w_blocks)
        w_out, b_out = (np.ascontiguousarray(a, dtype=np.float32) for a in (w_out, b_out))
    if w_mid is None:
        w_mid, b_mid = np.zeros((0, 0), dtype=dtype), np.zeros(0, dtype=dtype)
    else:
        w_mid, b_mid = np.ascontiguousarray(w_mid, dtype=dtype), np.ascontiguousarray(b_mid, dtype=dtype)
    if w_mid2 is None:
        w_mid2, b_mid2 = np.zeros((0, 0), dtype=dtype), np.zeros(0, dtype=dtype)
    else:
        w_mid2, b_mid2 = np.ascontiguousarray(w_mid2, dtype=dtype), np.ascontiguousarray(b_mid2, dtype=dtype)
    return Evaluator(
        EVAL_NET,
        loss,
        loss_per_ply,
        win_bound,
        1e-9,
        w_in,
        b_in,
        w_mid,
        b_mid,
        w_out,
        b_out,
        hidden_activation,
        output_activation,
        move_reward,
        blocks,
        w_mid2,
        b_mid2,
        phase_of,
    )


# -- kernels ---------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def net_value(mover, opponent, kings, black_to_move, net, net_functions, active, scratch):
    """The MLP's value of a position for its side to move, its first layer summed fresh
    (``active``: ``int64[MAX_ACTIVE]``; ``scratch``: ``2 * width`` long, of the weights'
    dtype for speed: float32 sums of float32 weights vectorise twice as wide).

    td-minimax's 128-H-2 sigmoid net takes ``net_layers.sigmoid_pair_from_sums``, inlined,
    every other net ``net_layers.later_layers``, a call away."""
    n = active_inputs(mover, opponent, kings, black_to_move, active)
    first_layer_sums(active, n, net[0], net[1], scratch)
    block_sums(scratch, net[6], mover, opponent, kings, black_to_move)
    return value_of_sums(net, net_functions, scratch, popcount(mover | opponent))


@numba.njit(cache=True, inline="always")
def _side_terms(own, opponent, kings, black):
    """Positional points of one side (material, back rank, centre, advancement)."""
    men = own & ~kings
    own_kings = own & kings
    n_men = popcount(men)
    score = W_MAN * n_men + W_KING * popcount(own_kings)
    rows = popcount(men & _ROW_BIT0) + 2 * popcount(men & _ROW_BIT1) + 4 * popcount(men & _ROW_BIT2)
    if black:
        back = BB_ROW0
    else:
        rows = 7 * n_men - rows
        back = BB_ROW7
    score += W_ADVANCE * rows
    if opponent & ~kings:
        score += W_BACK_RANK * popcount(men & back)
    score += W_CENTRE_MAN * popcount(men & BB_CENTRE) + W_CENTRE_KING * popcount(own_kings & BB_CENTRE)
    return score


@numba.njit(cache=True, inline="always")
def material_points(mover, opponent, kings):
    """``material``: man 100, king 140, own minus the opponent's."""
    return (
        W_MAN * popcount(mover & ~kings)
        + W_KING * popcount(mover & kings)
        - W_MAN * popcount(opponent & ~kings)
        - W_KING * popcount(opponent & kings)
    )


@numba.njit(cache=True, inline="always")
def positional_points(mover, opponent, kings, black_to_move):
    """``positional`` (see the module docstring)."""
    score = _side_terms(mover, opponent, kings, black_to_move) - _side_terms(opponent, mover, kings, not black_to_move)
    score += W_MOBILITY * (
        count_steps(mover, opponent, kings, black_to_move) - count_steps(opponent, mover, kings, not black_to_move)
    )
    balance = material_points(mover, opponent, kings)
    fewer = 24 - popcount(mover | opponent)
    if balance > 0:
        score += W_TRADE * fewer
    elif balance < 0:
        score -= W_TRADE * fewer
    return score


@numba.njit(cache=True, inline="always")
def hand_value(mover, opponent, kings, black_to_move, kind):
    """Static value of a quiet position for its side to move, ``material`` or ``positional``."""
    if kind == EVAL_MATERIAL:
        return float(material_points(mover, opponent, kings))
    return float(positional_points(mover, opponent, kings, black_to_move))


@numba.njit(cache=True, inline="always")
def material_log_reward(parent_mover, parent_opponent, parent_kings, mover, opponent, kings, black_to_move):
    """The slow/fast learner's reward of the move that led to ``(mover, opponent, kings)``
    (``mover`` Black if ``black_to_move``) from its parent, for the parent's side to
    move."""
    if black_to_move:  # White made the move
        black_a, white_a, black_b, white_b = parent_opponent, parent_mover, mover, opponent
    else:
        black_a, white_a, black_b, white_b = parent_mover, parent_opponent, opponent, mover
    ratio_a = material(white_a, parent_kings) / material(black_a, parent_kings)
    ratio_b = material(white_b, kings) / material(black_b, kings)
    white_reward = MATERIAL_REWARD_SCALE * math.log(ratio_b / ratio_a)
    return white_reward if black_to_move else -white_reward


@numba.njit(cache=True)
def evaluate_kernel(mover, opponent, kings, black_to_move, kind, net, net_functions, width):
    """Python entry point: the evaluator's static value of a quiet position."""
    if net is None:
        return hand_value(mover, opponent, kings, black_to_move, kind)
    active = np.empty(MAX_ACTIVE, dtype=np.int64)
    scratch = np.empty(2 * width, dtype=net[1].dtype)
    return net_value(mover, opponent, kings, black_to_move, net, net_functions, active, scratch)


def evaluate(evaluator: Evaluator, mover: int, opponent: int, kings: int, black_to_move: bool) -> float:
    """``evaluator``'s static value of a quiet position for its side to move."""
    return float(
        evaluate_kernel(
            mover,
            opponent,
            kings,
            black_to_move,
            evaluator.kind,
            evaluator.net,
            evaluator.net_functions,
            evaluator.width,
        )
    )


__all__ = [
    "EVAL_MATERIAL",
    "EVAL_NET",
    "EVAL_POSITIONAL",
    "Evaluator",
    "MATERIAL",
    "Valuation",
    "POSITIONAL",
    "evaluate",
    "hand_value",
    "mlp",
    "net_value",
    "sigmoid_pair_forward",
]
