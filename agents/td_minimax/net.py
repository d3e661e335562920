"""The td-minimax value net: 128 inputs -> 40 sigmoid units -> 2 sigmoid outputs.

Everything the search and the trainer run per position is a numba kernel over plain
float64 arrays; the weights live in a :class:`Net` (four arrays) and on disk as safetensors.

Inputs (``NUM_INPUTS = 128``), all 0/1, in the *mover's frame* (the board seen from the
chair of the side to move: bit ``b`` for Black, ``31 - b`` for White, so the mover's men
always move towards higher bits)::

    index = 32 * plane + b'      plane 0 own men, 1 own kings, 2 opponent men, 3 opponent kings

At most 24 inputs are 1, so the hidden layer is the bias plus a sum of at most 24 weight
rows (``W1`` is stored inputs-major, ``[128, 40]``, to make each row contiguous).

Outputs: ``out[0]`` how well the mover is doing, ``out[1]`` how well the opponent is doing,
both in (0, 1). The search scores a leaf ``out[0] - out[1]`` (in (-1, 1)).

Learning: one plain SGD step on the squared error ``0.5 * sum((out - target) ** 2)``,
backpropagated through both sigmoid layers (TD-Gammon's rule).

On disk the tensors follow torch's ``nn.Linear`` convention (``hidden.weight [40, 128]``,
``hidden.bias``, ``output.weight [2, 40]``, ``output.bias``) so a torch model can load the
file as it is; metadata says the format and the input layout.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numba
import numpy as np

from checkers_agents.search_parts.evaluators import MAX_ACTIVE, SIGMOID, Evaluator, mlp, sigmoid_pair_forward
from checkers_env.encoding import active_inputs
from checkers_env.errors import WeightsError
from checkers_env.files import write_atomic
from checkers_env.weights import read_weights

NUM_INPUTS = 128
NUM_HIDDEN = 40
NUM_OUTPUTS = 2

#: A side with no legal move ``ply`` plies below the root is worth ``-(LOSS - LOSS_PER_PLY
#: * ply)`` to itself: beyond the net's (-1, 1) at any ply the search reaches.
LOSS = 2.0
LOSS_PER_PLY = 0.01

FORMAT = "td-minimax-v1"
INPUT_LAYOUT = (
    "128 binary inputs in the mover's frame (bit b for Black to move, 31-b for White): "
    "32*plane + bit, planes own men, own kings, opponent men, opponent kings"
)


# -- kernels -------------------------------------------------------------------------------


#: Outputs ``(out0, out1)`` for the inputs listed in ``active[:n]``, ``hidden`` (length
#: ``NUM_HIDDEN``) receiving the hidden activations: the search's own forward pass of this
#: net (one forward pass for the search, the agent and the trainer).
forward = sigmoid_pair_forward


@numba.njit(cache=True, inline="always")
def evaluate_position(own, opponent, kings, own_is_black, w1, b1, w2, b2, active, hidden):
    """Net outputs for a position seen from ``own`` (normally the side to move)."""
    n = active_inputs(own, opponent, kings, own_is_black, active)
    return forward(active, n, w1, b1, w2, b2, hidden)


@numba.njit(cache=True, inline="always")
def sgd_step(active, n, target0, target1, lr, w1, b1, w2, b2, hidden):
    """One backpropagation step towards ``(target0, target1)``; returns the squared error
    ``0.5 * sum((out - target) ** 2)`` measured before the step."""
    o0, o1 = forward(active, n, w1, b1, w2, b2, hidden)
    e0 = o0 - target0
    e1 = o1 - target1
    d0 = e0 * o0 * (1.0 - o0)  # dLoss/dz at the output pre-activations
    d1 = e1 * o1 * (1.0 - o1)
    h = hidden.shape[0]
    for j in range(h):
        s = hidden[j]
        delta = (w2[0, j] * d0 + w2[1, j] * d1) * s * (1.0 - s)  # uses w2 before its update
        w2[0, j] -= lr * d0 * s
        w2[1, j] -= lr * d1 * s
        b1[j] -= lr * delta
        hidden[j] = delta
    b2[0] -= lr * d0
    b2[1] -= lr * d1
    for a in range(n):
        row = active[a]
        for j in range(h):
            w1[row, j] -= lr * hidden[j]  # the input is 1
    return 0.5 * (e0 * e0 + e1 * e1)


@numba.njit(cache=True)
def evaluate_kernel(own, opponent, kings, own_is_black, w1, b1, w2, b2):
    """Non-inlined entry point for Python callers."""
    active = np.empty(MAX_ACTIVE, dtype=np.int64)
    hidden = np.empty(w1.shape[1], dtype=np.float64)
    return evaluate_position(own, opponent, kings, own_is_black, w1, b1, w2, b2, active, hidden)


# -- the weights -------------------------------------------------------------------------


@dataclass
class Net:
    """The four weight arrays (float64, C-contiguous, as the kernels use them).

    Attributes:
        w1: ``[NUM_INPUTS, hidden]`` input-to-hidden weights (inputs-major).
        b1: ``[hidden]`` hidden biases.
        w2: ``[NUM_OUTPUTS, hidden]`` hidden-to-output weights.
        b2: ``[NUM_OUTPUTS]`` output biases.
    """

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @classmethod
    def initial(cls, seed: int, hidden: int = NUM_HIDDEN, scale: float = 0.1) -> Net:
        """Small uniform random weights in ``[-scale, scale]``, zero biases (seeded)."""
        rng = np.random.default_rng(seed)
        return cls(
            rng.uniform(-scale, scale, (NUM_INPUTS, hidden)),
            np.zeros(hidden),
            rng.uniform(-scale, scale, (NUM_OUTPUTS, hidden)),
            np.zeros(NUM_OUTPUTS),
        )

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.w1, self.b1, self.w2, self.b2

    @property
    def hidden(self) -> int:
        return self.w1.shape[1]

    def evaluator(self, dtype=np.float64) -> Evaluator:
        """The net as the search's leaf evaluator: ``out[0] - out[1]``; a side with no move
        at ``ply`` plies scores ``-(LOSS - LOSS_PER_PLY * ply)``, outside the net's (-1, 1).
        ``np.float64`` shares these arrays (the trainer's net, updated in place);
        ``np.float32`` copies them (``evaluators.mlp``)."""
        return mlp(
            self.w1,
            self.b1,
            self.w2,
            self.b2,
            hidden_activation=SIGMOID,
            output_activation=SIGMOID,
            loss=LOSS,
            loss_per_ply=LOSS_PER_PLY,
            win_bound=1.0,
            dtype=dtype,
        )

    def copy(self) -> Net:
        return Net(*(a.copy() for a in self.arrays))

    def evaluate(self, own: int, opponent: int, kings: int, own_is_black: bool) -> tuple[float, float]:
        """``(how well own is doing, how well the opponent is doing)``."""
        o0, o1 = evaluate_kernel(own, opponent, kings, own_is_black, *self.arrays)
        return float(o0), float(o1)

    # -- files ---------------------------------------------------------------------------

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights under torch ``nn.Linear`` names and shapes."""
        return {
            "hidden.weight": np.ascontiguousarray(self.w1.T),
            "hidden.bias": self.b1.copy(),
            "output.weight": self.w2.copy(),
            "output.bias": self.b2.copy(),
        }

    def save(self, path: str | os.PathLike, metadata: dict[str, str] | None = None) -> None:
        """Write a safetensors file atomically (a temporary file in the same folder, then a
        rename), so a kill never leaves a half-written file under ``path``."""
        write_atomic(path, self.file_bytes(metadata))

    def file_bytes(self, metadata: dict[str, str] | None = None) -> bytes:
        """The safetensors file of the net (format and input layout in its metadata)."""
        from safetensors.numpy import save

        meta = {"format": FORMAT, "inputs": INPUT_LAYOUT, "hidden_activation": "sigmoid"}
        meta.update(metadata or {})
        return save(self.tensors(), metadata=meta)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Net:
        """Read weights written by :meth:`save`.

        Raises:
            WeightsError: the file is missing, not safetensors, or not a td-minimax net.
        """
        return cls._from_tensors(read_weights(path, "td-minimax").tensors, str(path))

    @classmethod
    def _from_tensors(cls, tensors: dict[str, np.ndarray], path: str) -> Net:
        expected = {"hidden.weight", "hidden.bias", "output.weight", "output.bias"}
        if set(tensors) != expected:
            raise WeightsError(
                f"{path!r} is not a td-minimax net: tensors {sorted(tensors)}, expected {sorted(expected)}"
            )
        w1 = np.ascontiguousarray(tensors["hidden.weight"].T, dtype=np.float64)
        b1 = np.ascontiguousarray(tensors["hidden.bias"], dtype=np.float64)
        w2 = np.ascontiguousarray(tensors["output.weight"], dtype=np.float64)
        b2 = np.ascontiguousarray(tensors["output.bias"], dtype=np.float64)
        hidden = w1.shape[1] if w1.ndim == 2 else -1
        shapes_ok = (
            w1.shape == (NUM_INPUTS, hidden)
            and b1.shape == (hidden,)
            and w2.shape == (NUM_OUTPUTS, hidden)
            and b2.shape == (NUM_OUTPUTS,)
        )
        if not shapes_ok:
            raise WeightsError(
                f"{path!r} has the wrong shapes for a td-minimax net: "
                + ", ".join(f"{k} {list(v.shape)}" for k, v in sorted(tensors.items()))
                + f" (expected hidden.weight [H, {NUM_INPUTS}], output.weight [{NUM_OUTPUTS}, H])"
            )
        return cls(w1, b1, w2, b2)


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The string metadata of a safetensors file (``{}`` if none)."""
    return read_weights(path, "td-minimax").metadata


__all__ = [
    "MAX_ACTIVE",
    "NUM_HIDDEN",
    "NUM_INPUTS",
    "NUM_OUTPUTS",
    "Net",
    "WeightsError",
    "evaluate_kernel",
    "evaluate_position",
    "forward",
    "read_metadata",
    "sgd_step",
]
