"""The outcome net: a small MLP over the 128 mover-frame inputs, one value in (-1, 1).

::

    inputs [N, 128] -> Linear(128, H) -> ReLU [-> Linear(H, M) -> ReLU] -> Linear(., 1) -> z
    value = 2 sigmoid(z) - 1      (the expected result for the side to move: 1 won, -1 lost)

The inputs are the search's own (:func:`checkers_env.encoding.active_inputs`, dense in
:func:`checkers_env.encoding.input_planes`): own men, own kings, opponent men, opponent
kings x 32 squares in the side to move's frame. So the net goes through the alpha-beta
search's evaluator interface (``checkers_agents.alphabeta.evaluators.mlp``) as it is: ``w_in`` is the
first layer transposed, ReLU, the optional middle layer, and the evaluator interface's "one sigmoid
output -> ``2 out - 1``". It is trained by binary cross-entropy of ``sigmoid(z)`` against
``(result + 1) / 2`` (a draw is 1/2), so ``2 sigmoid(z) - 1`` estimates the expected result.

**choice** sizes: ``H = 32`` and no middle layer by default. The evaluation is a sum of
<= 24 rows of ``w_in`` (updated move by move in the search) and ``H`` multiply-adds, so its
cost grows with ``H``; with 32 the search visits about 0.6 times as many nodes per second as
with the positional points (``python -m benchmarks net_door``, ``docs/experiments.md``).

**choice** forced results in the search: a side with no legal move ``ply`` plies down
scores ``-(2 - 0.001 ply)``, beyond the net's range (sooner wins first), and ``win_bound``
1.5 lets the driver stop deepening on a forced result; an endgame database win scores the
same way (``negamax.code_value``).

On disk: safetensors (no code runs when it loads), torch's ``state_dict`` names
(``hidden.weight [H, 128]``, ``hidden.bias``, optional ``middle.weight [M, H]``,
``middle.bias``, ``output.weight [1, .]``, ``output.bias``) in float32, metadata ``kind`` =
``outcome-net``, ``format`` = ``1``, ``hidden``, ``middle``. Reading and folding a file
needs numpy only; training needs torch.
"""

from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from checkers_agents.alphabeta.evaluators import NUM_INPUTS, RELU, SIGMOID, Evaluator, mlp
from checkers_env.errors import WeightsError
from checkers_env.weights import read_weights, write_weights

KIND = "outcome-net"
FORMAT_VERSION = "1"
HIDDEN = 32
MIDDLE = 0
UNTRAINED = "untrained"
LOSS = 2.0
LOSS_PER_PLY = 0.001
WIN_BOUND = 1.5


def expected_shapes(hidden: int, middle: int) -> dict[str, tuple[int, ...]]:
    """The tensors of a net of ``hidden`` (and ``middle``, 0: none) units."""
    shapes = {"hidden.weight": (hidden, NUM_INPUTS), "hidden.bias": (hidden,)}
    if middle:
        shapes.update({"middle.weight": (middle, hidden), "middle.bias": (middle,)})
    shapes.update({"output.weight": (1, middle or hidden), "output.bias": (1,)})
    return shapes


def _torch():
    try:
        import torch
    except ModuleNotFoundError as error:
        from checkers_env.errors import missing_dependency

        raise (missing_dependency(error, "the outcome net's training") or error) from None
    return torch


def value_net(hidden: int = HIDDEN, middle: int = MIDDLE, seed: int | None = None):
    """A torch ``nn.Sequential`` of the outcome net (initial weights seeded by ``seed``):
    its output is the logit ``z`` of shape ``[N, 1]``."""
    torch = _torch()
    nn = torch.nn
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0 if seed is None else int(seed))
        layers: dict[str, nn.Module] = {"hidden": nn.Linear(NUM_INPUTS, hidden), "hidden_relu": nn.ReLU()}
        if middle:
            layers.update(middle=nn.Linear(hidden, middle), middle_relu=nn.ReLU())
        layers["output"] = nn.Linear(middle or hidden, 1)
        return nn.Sequential(OrderedDict(layers))


def tensors_of(net) -> dict[str, np.ndarray]:
    """The net's weights as float32 numpy arrays (``state_dict`` names)."""
    return {name: value.detach().cpu().numpy().astype(np.float32) for name, value in net.state_dict().items()}


def sizes_of(tensors: dict[str, np.ndarray]) -> tuple[int, int]:
    """``(hidden, middle)`` of a net's tensors."""
    return tensors["hidden.weight"].shape[0], (tensors["middle.weight"].shape[0] if "middle.weight" in tensors else 0)


def fold(tensors: dict[str, np.ndarray]) -> Evaluator:
    """The net as the search's evaluator (float32 copies of its weights, ``mlp``'s)."""
    middle = "middle.weight" in tensors
    return mlp(
        np.asarray(tensors["hidden.weight"]).T,
        tensors["hidden.bias"],
        tensors["output.weight"],
        tensors["output.bias"],
        w_mid=tensors["middle.weight"] if middle else None,
        b_mid=tensors["middle.bias"] if middle else None,
        dtype=np.float32,
        hidden_activation=RELU,
        output_activation=SIGMOID,
        loss=LOSS,
        loss_per_ply=LOSS_PER_PLY,
        win_bound=WIN_BOUND,
    )


def save_tensors(path: str | os.PathLike, tensors: dict[str, np.ndarray]) -> None:
    """Write a net's tensors with the ``outcome-net`` metadata (atomically)."""
    hidden, middle = sizes_of(tensors)
    metadata = {"kind": KIND, "format": FORMAT_VERSION, "hidden": str(hidden), "middle": str(middle)}
    write_weights(path, {k: tensors[k] for k in expected_shapes(hidden, middle)}, metadata)


def read(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The tensors of an ``outcome-net`` file.

    Raises:
        WeightsError: one line naming the file: missing, corrupt, not an outcome-net, of
            another format, tensors that do not fit the sizes it declares, non-finite values.
    """
    metadata = {"kind": KIND, "format": FORMAT_VERSION}
    return read_weights(path, KIND, metadata=metadata, sizes=("hidden", "middle"), shapes=expected_shapes).tensors


def load_evaluator(weights: str, seed: int | None = None) -> Evaluator:
    """``alphabeta:eval=outcome-net``: ``weights`` is ``zoo``, ``untrained`` (seeded
    initial weights, needs torch) or a file.

    Raises:
        WeightsError: the file is missing, corrupt or not an outcome-net.
    """
    if weights == UNTRAINED:
        return fold(tensors_of(value_net(seed=seed)))
    if weights == "zoo":
        from checkers_agents.zoo import zoo_weights

        weights = zoo_weights(KIND)
    return fold(read(weights))


__all__ = ["KIND", "expected_shapes", "fold", "load_evaluator", "read", "save_tensors", "tensors_of", "value_net"]
