"""A policy cloned from game records (``checkers train bc``), as an ``Agent``.

The policy is a small fully connected net from the env's observation planes (``5 x 8 x 8``)
to the 128 hop actions; it plays the most likely legal hop, one hop at a time, through
``checkers_env.env.move_from_hops``, so it only ever plays legal moves. Its weights are a
safetensors file (``layer0.weight``, ``layer0.bias``, ...; loaded without executing code)
and play in NumPy: torch is needed to train, not to play.
"""

from __future__ import annotations

import numpy as np

from checkers_env.agent import BaseAgent, FilePath
from checkers_env.board import Move
from checkers_env.env import move_from_hops
from checkers_env.errors import UnknownAgentError, WeightsError
from checkers_env.game import Game
from checkers_env.weights import read_weights


class MlpPolicy:
    """The cloned policy's net in NumPy: ``layer0 ... layerN`` (weight ``[out, in]``, bias
    ``[out]``), ReLU between layers, 128 logits at the end."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]]):
        self.layers = [(w.astype(np.float32), b.astype(np.float32)) for w, b in layers]

    @classmethod
    def load(cls, path: str) -> MlpPolicy:
        """The policy in the safetensors file ``path``.

        Raises:
            WeightsError: the file is missing, corrupt, or not such a policy.
        """
        tensors = read_weights(path, "bc").tensors
        layers, index = [], 0
        while f"layer{index}.weight" in tensors:
            layers.append((tensors[f"layer{index}.weight"], tensors.get(f"layer{index}.bias")))
            index += 1
        shapes_fit = layers and all(b is not None and w.ndim == 2 and b.shape == (w.shape[0],) for w, b in layers)
        chained = shapes_fit and all(a[0].shape[0] == b[0].shape[1] for a, b in zip(layers, layers[1:]))
        if not chained or layers[0][0].shape[1] != 320 or layers[-1][0].shape[0] != 128:
            raise WeightsError(f"bc weights file {path!r} does not hold a policy from 320 inputs to 128 hop logits")
        return cls(layers)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """``float32[N, 128]`` hop logits of ``observations`` ``[N, 5, 8, 8]``."""
        x = observations.reshape(len(observations), -1).astype(np.float32)
        for index, (weight, bias) in enumerate(self.layers):
            x = x @ weight.T + bias
            if index < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return x


class BehaviourCloningAgent(BaseAgent):
    """Plays the most likely legal hop of a policy cloned from game records.

    Args:
        weights: the policy's safetensors file (``checkers train bc`` writes one). Required.
        seed: unused (the agent is deterministic); accepted like every agent's.
    """

    kind = "bc"

    def __init__(self, weights: FilePath = "", seed: int | None = None):
        super().__init__(seed=seed)
        if not weights:
            raise UnknownAgentError("bc: give weights=PATH (a file written by `checkers train bc`)")
        self.weights = weights
        self.policy = MlpPolicy.load(weights)

    def choose_hop(self, observation: np.ndarray, mask: np.ndarray) -> int:
        logits = self.policy.logits(observation[None])[0]
        return int(np.argmax(np.where(mask != 0, logits, -np.inf)))

    def select_move(self, game: Game) -> Move:
        return move_from_hops(game.board, self.choose_hop)
