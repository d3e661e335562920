"""The AlphaZero agent's policy-value network: torch to train, numba to search.

::

    observation [N, 5, 8, 8] -> its 32 dark cells per plane: inputs [N, 160]
    inputs -> Linear(160, H1) -> ReLU -> Linear(H1, H2) -> ReLU -> Linear(H2, 129)
    policy logits = out[:, :128]  (the 128 hop actions of ``Checkers-v0``)
    value = tanh(out[:, 128])     (the expected result for the side to move, in (-1, 1))

The inputs are the env's observation planes (own men, own kings, opponent men, opponent
kings, the piece that must go on capturing) in the mover's frame, read on the 32 dark cells
only, where every piece stands: ``32 * plane + frame bit``, the search's own input order
(``checkers_env.encoding.active_inputs`` for the first four planes), so the forward pass of
:class:`PolicyValueNet` takes ``Checkers-v0`` observations as they come.

**choice** a multilayer perceptron rather than a residual convolution tower. A position
has at most 25 inputs that are 1, so the first layer is a sum of at most 25 weight rows
(``checkers_agents.search_parts.net_layers.first_layer_sums``, the evaluator door's), the
second layer and the heads are vectorised dot products (``dense_layer``; :func:`heads`
computes the logits of the legal hops only): an evaluation costs a few microseconds on one
CPU core inside the numba search, where a convolution tower over 8 x 8 planes costs
hundreds through torch. On the 2-core machines this suite is built on,
that is the difference between a few hundred and tens of thousands of simulations in
0.5 s; checkers' 32 squares make a dense first layer cheap to learn. Default sizes
``H1 = 256``, ``H2 = 128``.

On disk: safetensors (no code runs when it loads) in torch's ``state_dict`` names
(``hidden.weight [H1, 160]``, ``hidden.bias``, ``middle.weight [H2, H1]``, ``middle.bias``,
``heads.weight [129, H2]``, ``heads.bias``), float32, metadata ``kind`` = ``alphazero``,
``format`` = ``1``, ``hidden``, ``middle``. Reading a file and searching need numpy and
numba only; training needs torch.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numba
import numpy as np

from checkers_agents.search_parts.net_layers import FAST_FLAGS, RELU, activate_all, dense_layer, first_layer_sums
from checkers_env.encoding import FRAME_CELL, NET_PLANES, NUM_PLANES, active_inputs, frame_bit
from checkers_env.env_machine import NUM_ACTIONS, S_TURN, current_square, turn_boards
from checkers_env.errors import WeightsError
from checkers_env.weights import Weights, read_weights, write_weights

KIND = "alphazero"
FORMAT_VERSION = "1"
#: Inputs: the five observation planes on the 32 dark cells.
NUM_INPUTS = 32 * NUM_PLANES
#: Input index of the continuing piece's plane.
CONTINUING_INPUT = 32 * NET_PLANES
#: Outputs: 128 hop logits and the value.
NUM_OUTPUTS = NUM_ACTIONS + 1
#: Inputs that can be 1 at once (24 pieces and the continuing piece).
MAX_ACTIVE = 25
HIDDEN = 256
MIDDLE = 128


class NetArrays(NamedTuple):
    """The net as the numba search reads it: float32, the first layer input-major."""

    w_in: np.ndarray  # [160, H1]
    b_in: np.ndarray  # [H1]
    w_mid: np.ndarray  # [H2, H1]
    b_mid: np.ndarray  # [H2]
    w_out: np.ndarray  # [129, H2]
    b_out: np.ndarray  # [129]

    @property
    def scratch_size(self) -> int:
        """Floats of one evaluation's scratch."""
        return self.w_in.shape[1] + self.w_mid.shape[0]


def expected_shapes(hidden: int, middle: int) -> dict[str, tuple[int, ...]]:
    """The tensors of a net of ``hidden`` and ``middle`` units."""
    return {
        "hidden.weight": (hidden, NUM_INPUTS),
        "hidden.bias": (hidden,),
        "middle.weight": (middle, hidden),
        "middle.bias": (middle,),
        "heads.weight": (NUM_OUTPUTS, middle),
        "heads.bias": (NUM_OUTPUTS,),
    }


def arrays_of(tensors: dict[str, np.ndarray]) -> NetArrays:
    """The search's arrays of a ``state_dict``'s tensors (numpy)."""

    def f32(name: str, transpose: bool = False) -> np.ndarray:
        value = np.asarray(tensors[name], np.float32)
        return np.ascontiguousarray(value.T if transpose else value)

    return NetArrays(
        f32("hidden.weight", True),
        f32("hidden.bias"),
        f32("middle.weight"),
        f32("middle.bias"),
        f32("heads.weight"),
        f32("heads.bias"),
    )


def read_net_file(path: str | os.PathLike) -> Weights:
    """An ``alphazero`` weights file as written: its tensors (torch's names and layout), its
    metadata and its sizes ``(hidden, middle)``.

    Raises:
        WeightsError: missing, corrupt, of another kind or format, or tensors that do not
            fit its sizes.
    """
    return read_weights(
        path,
        KIND,
        metadata={"kind": KIND, "format": FORMAT_VERSION},
        sizes=("hidden", "middle"),
        shapes=expected_shapes,
    )


def read_net(path: str | os.PathLike) -> tuple[NetArrays, dict[str, str]]:
    """The net in an ``alphazero`` weights file as the search reads it, and the file's
    metadata (errors as :func:`read_net_file`)."""
    weights = read_net_file(path)
    return arrays_of(weights.tensors), weights.metadata


def untrained_net(hidden: int = HIDDEN, middle: int = MIDDLE, seed: int = 0) -> NetArrays:
    """A net with torch's default initialisation drawn from ``seed``, without torch (tests,
    and generation 0's self-play before any training)."""
    rng = np.random.default_rng(seed)
    tensors = {}
    for name, shape in expected_shapes(hidden, middle).items():
        fan_in = (
            shape[-1] if name.endswith("weight") else expected_shapes(hidden, middle)[name.replace("bias", "weight")][1]
        )
        bound = 1.0 / np.sqrt(fan_in)
        tensors[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return arrays_of(tensors)


# -- the forward pass in the search ---------------------------------------------------------


@numba.njit(cache=True, inline="always")
def row_inputs(state, i, active):
    """The inputs that are 1 for the side to move of env row ``i`` (``env_machine``'s rows,
    mid-capture included) into ``active``; returns how many."""
    own, opponent, kings = turn_boards(state, i)
    own_is_black = state[i, S_TURN] == 0
    n = active_inputs(own, opponent, kings, own_is_black, active)
    square = current_square(state, i)
    if square >= 0:
        active[n] = CONTINUING_INPUT + frame_bit(square, own_is_black)
        n += 1
    return n


@numba.njit(cache=True, fastmath=FAST_FLAGS)
def heads(w_out, b_out, units, start, mask, logits):
    """The output layer over ``units[start : start + H2]``: the logits of the hops that
    ``mask`` (``int8[128]``) holds into ``logits`` (the others are left as they are), and
    the value's sum (returned). A position has about 8 legal hops of the 128, so this is
    an eighth of the whole layer's dot products (``fastmath`` as ``dense_layer``'s)."""
    width = w_out.shape[1]
    for a in range(NUM_ACTIONS):
        if mask[a] != 0:
            z = b_out[a]
            for j in range(width):
                z += w_out[a, j] * units[start + j]
            logits[a] = z
    z = b_out[NUM_ACTIONS]
    for j in range(width):
        z += w_out[NUM_ACTIONS, j] * units[start + j]
    return z


@numba.njit(cache=True)
def forward(net, active, n, mask, scratch, logits):
    """One position's value (returned) and the ``logits`` of its hops in ``mask``
    (``int8[128]``, nonzero at the hops wanted: the legal ones; the other entries of
    ``float32[128]`` are left as they are) from its inputs ``active[:n]``; ``scratch``:
    ``NetArrays.scratch_size`` floats."""
    width = net.w_in.shape[1]
    middle = net.w_mid.shape[0]
    first_layer_sums(active, n, net.w_in, net.b_in, scratch)
    activate_all(scratch, 0, width, RELU)
    dense_layer(net.w_mid, net.b_mid, scratch, 0, width)
    activate_all(scratch, width, middle, RELU)
    return np.tanh(heads(net.w_out, net.b_out, scratch, width, mask, logits))


@numba.njit(cache=True)
def dense_inputs(own, opponent, kings, own_is_black, continuing):
    """``float32[N, 160]`` inputs of N positions given as the side to move sees them
    (``continuing``: the bit of the piece that must go on capturing, or -1)."""
    out = np.zeros((len(own), NUM_INPUTS), np.float32)
    active = np.zeros(MAX_ACTIVE, np.int64)
    for p in range(len(own)):
        n = active_inputs(own[p], opponent[p], kings[p], own_is_black[p], active)
        for k in range(n):
            out[p, active[k]] = 1.0
        if continuing[p] >= 0:
            out[p, CONTINUING_INPUT + frame_bit(continuing[p], own_is_black[p])] = 1.0
    return out


# -- torch -------------------------------------------------------------------------------------


def policy_value_net(hidden: int = HIDDEN, middle: int = MIDDLE, seed: int = 0):
    """A fresh :class:`PolicyValueNet` (torch), initialised from ``seed``."""
    import torch

    class PolicyValueNet(torch.nn.Module):
        """``forward(x) -> (logits [N, 128], value [N])``; ``x`` is ``[N, 160]`` inputs or
        ``[N, 5, 8, 8]`` observations of ``Checkers-v0``."""

        def __init__(self):
            super().__init__()
            self.hidden = torch.nn.Linear(NUM_INPUTS, hidden)
            self.middle = torch.nn.Linear(hidden, middle)
            self.heads = torch.nn.Linear(middle, NUM_OUTPUTS)
            self.register_buffer("dark_cells", torch.as_tensor(FRAME_CELL, dtype=torch.long), persistent=False)

        def forward(self, x):
            if x.dim() == 4:
                x = x.reshape(len(x), NUM_PLANES, 64)[:, :, self.dark_cells].reshape(len(x), NUM_INPUTS)
            out = self.heads(torch.relu(self.middle(torch.relu(self.hidden(x)))))
            return out[:, :NUM_ACTIONS], torch.tanh(out[:, NUM_ACTIONS])

    generator_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        return PolicyValueNet()
    finally:
        torch.random.set_rng_state(generator_state)


def tensors_of(net) -> dict[str, np.ndarray]:
    """A torch net's tensors as numpy arrays."""
    return {name: value.detach().cpu().numpy() for name, value in net.state_dict().items()}


def save_net(path: str | os.PathLike, tensors: dict[str, np.ndarray]) -> None:
    """Write a net's tensors (``tensors_of``) as an ``alphazero`` weights file, atomically."""
    hidden, middle = tensors["hidden.weight"].shape[0], tensors["middle.weight"].shape[0]
    if {name: tuple(value.shape) for name, value in tensors.items()} != expected_shapes(hidden, middle):
        raise WeightsError(f"not an alphazero net: tensors {sorted(tensors)}")
    write_weights(path, tensors, {"kind": KIND, "format": FORMAT_VERSION, "hidden": hidden, "middle": middle})


__all__ = [
    "HIDDEN",
    "KIND",
    "MIDDLE",
    "NUM_INPUTS",
    "NetArrays",
    "arrays_of",
    "dense_inputs",
    "forward",
    "heads",
    "policy_value_net",
    "read_net",
    "read_net_file",
    "row_inputs",
    "save_net",
    "tensors_of",
    "untrained_net",
]
