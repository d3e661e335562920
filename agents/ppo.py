"""A MaskablePPO policy (sb3-contrib) trained on ``Checkers-v0``, as an ``Agent``.

The policy acts one hop at a time in the env's encoding; ``checkers_env.env.move_from_hops``
turns its hops into a complete move, masked so that it only ever plays legal moves.

Weights: ``weights=PATH.safetensors`` holds the policy's ``state_dict`` (loaded without
executing code; the zoo uses this) and ``net_arch`` says the hidden layers. An SB3 ``.zip``
(a model you trained yourself) contains pickled Python objects, which run code when they are
loaded: it loads only when the caller says so in Python,
``make_agent("ppo:weights=model.zip", trusted=True)``; no spec string can say it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from checkers_env import env_machine as core
from checkers_env.agent import BaseAgent, FilePath, PythonOnly
from checkers_env.board import Move
from checkers_env.env import move_from_hops
from checkers_env.errors import UnknownAgentError, WeightsError
from checkers_env.game import Game
from checkers_env.weights import read_weights


def parse_net_arch(net_arch: str) -> list[int]:
    """``"256x256"`` -> ``[256, 256]``."""
    try:
        sizes = [int(x) for x in net_arch.split("x") if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise UnknownAgentError(f"ppo: net_arch must be layer sizes joined by 'x', like '256x256', got {net_arch!r}")
    return sizes


def build_policy(net_arch: str):
    """An untrained MaskablePPO actor-critic for the env's spaces."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    sizes = parse_net_arch(net_arch)
    return MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (core.NUM_PLANES, 8, 8), dtype=np.float32),
        spaces.Discrete(core.NUM_ACTIONS),
        lr_schedule=lambda _: 0.0,
        net_arch=dict(pi=sizes, vf=sizes),
    )


def load_policy(weights: str, net_arch: str, trusted: bool = False):
    """The policy stored at ``weights`` (safetensors state dict, or an SB3 zip when
    ``trusted``).

    Args:
        trusted: unpickle an SB3 ``.zip`` (it runs whatever code the file holds: only for
            files you made yourself).

    Raises:
        WeightsError: the file is missing, truncated or corrupt, holds another network than
            ``net_arch`` describes, or is a ``.zip`` without ``trusted``.
    """
    path = Path(weights)
    if path.suffix == ".zip":
        return _trusted_sb3_policy(path, trusted)
    import torch

    state = {name: torch.from_numpy(array) for name, array in read_weights(path, "ppo").tensors.items()}
    policy = build_policy(net_arch)
    try:
        policy.load_state_dict(state)
    except RuntimeError as error:
        first = str(error).strip().splitlines()
        raise WeightsError(
            f"ppo weights file {weights!r} does not match a policy with net_arch={net_arch}: "
            f"{' '.join(line.strip() for line in first[:3])}"
        ) from None
    policy.set_training_mode(False)
    return policy


def _trusted_sb3_policy(path: Path, trusted: bool):
    """The policy of an SB3 ``.zip``, which unpickles whatever the file holds: only when the
    caller said ``trusted`` (a Python keyword or ``--trust-pickles``, never a spec string)."""
    if not trusted:
        raise WeightsError(
            f"ppo weights file {str(path)!r} is an SB3 zip, which holds pickled code: load it only if you made it, "
            "with make_agent(spec, trusted=True) (on the command line: --trust-pickles), or give the run's policy.safetensors"
        )
    if not path.is_file():
        raise WeightsError(f"ppo weights file {str(path)!r} does not exist")
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, device="cpu").policy  # trusted: checked above
    except Exception as error:  # zipfile, pickle and torch all raise their own kinds
        raise WeightsError(f"ppo model file {str(path)!r} is corrupt or not a MaskablePPO model: {error}") from None


class PPOAgent(BaseAgent):
    """A MaskablePPO policy (PPO that masks out illegal actions, from sb3-contrib) trained on
    Checkers-v0 by ``checkers train ppo``; it plays one hop at a time and only legal ones.

    Args:
        weights: policy weights (``.safetensors`` state dict, or an SB3 ``.zip`` with
            ``trusted``). Required (``zoo:ppo`` is the trained agent).
        net_arch: hidden layer sizes of the policy and value nets, e.g. ``256x256`` (spec strings use commas between parameters).
        deterministic: play the most likely hop (True) or sample from the policy.
        seed: seed for sampling.
        trusted: Python only (``make_agent(spec, trusted=True)``, never in a spec string):
            load an SB3 ``.zip``, which unpickles it and so runs any code it holds.
    """

    kind = "ppo"

    def __init__(
        self,
        weights: FilePath = "",
        net_arch: str = "256x256",
        deterministic: bool = True,
        seed: int | None = None,
        *,
        trusted: PythonOnly[bool] = False,
    ):
        super().__init__(seed=seed)
        if not weights:
            raise UnknownAgentError("ppo: give weights=PATH (or use zoo:ppo)")
        self.weights = weights
        self.net_arch = net_arch
        self.deterministic = deterministic
        self.policy = load_policy(weights, net_arch, trusted=trusted)  # not kept: a spec cannot carry trust

    @classmethod
    def from_policy(cls, policy, deterministic: bool = True, seed: int | None = None) -> PPOAgent:
        """Wrap a live policy (training uses this for snapshots and evaluation)."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, seed=seed)
        agent.weights, agent.net_arch, agent.deterministic, agent.policy = "<in memory>", "", deterministic, policy
        return agent

    def choose_hop(self, observation: np.ndarray, mask: np.ndarray) -> int:
        import torch

        with torch.no_grad():
            obs = torch.as_tensor(observation[None])
            masks = torch.as_tensor(mask[None].astype(bool))
            distribution = self.policy.get_distribution(obs, action_masks=masks)
            if self.deterministic:
                return int(distribution.mode()[0])
            probs = distribution.distribution.probs[0].numpy().astype(np.float64)
            probs = np.where(mask.astype(bool), probs, 0.0)
            return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def select_move(self, game: Game) -> Move:
        return move_from_hops(game.board, self.choose_hop)
