"""The value network of the slow/fast learner and its safetensors file format.

``ValueNet`` is a small MLP over the nets' 128 inputs of ``checkers_env.encoding.input_planes`` (the
position in the mover's frame). Its raw output is a logit *for the side to move*;
``white_values`` turns it into the design document's output: a sigmoid value in (0, 1) where
larger is better for White whoever is to move (``sigmoid(logit)`` when White moves, ``1 -
sigmoid(logit)`` when Black moves). Reading the board from the mover's chair makes the value
colour-symmetric by construction, so every position trains both colours.

Weights are stored with safetensors (no code runs on load); the file's metadata names the
format and the hidden layer sizes so that a file rebuilds its own network.
"""

from __future__ import annotations

import os

import numpy as np
import torch
from torch import nn

from checkers_env.encoding import NUM_INPUTS, input_planes
from checkers_env.errors import WeightsError
from checkers_env.files import write_atomic
from checkers_env.weights import read_weights

#: ``format`` metadata of a weights file of this network.
WEIGHTS_FORMAT = "checkers-slow-fast-value-net/1"
DEFAULT_HIDDEN = (256, 128)


class ValueNet(nn.Module):
    """MLP ``NUM_INPUTS -> hidden... -> 1`` with ReLU; the output is the mover's logit."""

    def __init__(self, hidden: tuple[int, ...] = DEFAULT_HIDDEN):
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        layers: list[nn.Module] = []
        width = NUM_INPUTS
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.layers = nn.Sequential(*layers)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        """Mover's logits ``[N]`` of feature planes ``[N, NUM_INPUTS]``."""
        return self.layers(planes).squeeze(-1)


@torch.no_grad()
def white_values(net: ValueNet, black, white, kings, black_to_move, chunk: int = 32768) -> np.ndarray:
    """The design document's ``f``: value in (0, 1) for White of each position (float64
    ``[N]``).

    One forward pass per ``chunk`` positions (a whole subtree level is one call).
    """
    n = len(black)
    out = np.empty(n, dtype=np.float64)
    if n == 0:
        return out
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        planes = torch.from_numpy(input_planes(black[lo:hi], white[lo:hi], kings[lo:hi], black_to_move[lo:hi]))
        mover = torch.sigmoid(net(planes).double()).numpy()
        out[lo:hi] = np.where(black_to_move[lo:hi] != 0, 1.0 - mover, mover)
    return out


def save_weights(net: ValueNet, path: str | os.PathLike, metadata: dict[str, str] | None = None) -> None:
    """Write the network as safetensors atomically (temp file, then rename)."""
    write_atomic(path, weights_bytes(net, metadata))


def weights_bytes(net: ValueNet, metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors file of the network (format and hidden sizes in its metadata)."""
    from safetensors.torch import save

    meta = {"format": WEIGHTS_FORMAT, "hidden": ",".join(map(str, net.hidden))}
    meta.update(metadata or {})
    tensors = {k: v.detach().contiguous().cpu() for k, v in net.state_dict().items()}
    return save(tensors, metadata=meta)


def load_weights(path: str | os.PathLike) -> ValueNet:
    """Rebuild a ``ValueNet`` from a safetensors file (no code is executed).

    Raises:
        WeightsError: the file is missing, corrupt, or holds another kind of network.
    """
    tensors, meta, _ = read_weights(path, "slow-fast", metadata={"format": WEIGHTS_FORMAT})
    try:
        hidden = tuple(int(h) for h in meta.get("hidden", "").split(",") if h)
        net = ValueNet(hidden)
        net.load_state_dict({name: torch.from_numpy(value) for name, value in tensors.items()})
    except (ValueError, RuntimeError) as error:
        raise WeightsError(f"slow-fast weights file {str(path)!r} does not match its network: {error}") from None
    net.eval()
    return net
