"""A Gymnasium vector env as a Stable-Baselines3 ``VecEnv``, so that SB3 and sb3-contrib's
``MaskablePPO`` train on ``gym.make_vec("Checkers-v0", ...)``'s numba batch.

SB3 takes only its own ``VecEnv`` (its documented interface, which external batched
simulators meet through an adapter like this one), not a ``gymnasium.vector.VectorEnv``.
SB3's ``VecEnv`` resets a finished env in the step of its end and keeps the end's
observation in ``infos[i]["terminal_observation"]``, which is Gymnasium's ``SAME_STEP``
autoreset, so the vector env must run in that mode:

    >>> import gymnasium as gym, checkers_env
    >>> from gymnasium.vector import AutoresetMode
    >>> from checkers_agents.sb3_vector import Sb3VecEnv
    >>> envs = Sb3VecEnv(gym.make_vec("Checkers-v0", num_envs=8, autoreset_mode=AutoresetMode.SAME_STEP))
    >>> envs.reset().shape
    (8, 5, 8, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import DictInfoToList
from stable_baselines3.common.vec_env import VecEnv


class Sb3VecEnv(VecEnv):
    """SB3's ``VecEnv`` over a Gymnasium vector env in ``SAME_STEP`` autoreset mode.

    Per-board methods and attributes reach the vector env as a whole: ``action_masks``
    (what MaskablePPO calls) gives one mask per board; any other attribute is the vector
    env's own, the same for every board.

    Args:
        envs: the vector env, made with ``autoreset_mode=AutoresetMode.SAME_STEP``.

    Raises:
        ValueError: ``envs`` is not a Gymnasium vector env in ``SAME_STEP`` mode.
    """

    def __init__(self, envs: VectorEnv):
        if not isinstance(envs, VectorEnv):
            raise ValueError(f"Sb3VecEnv wraps a gymnasium.vector.VectorEnv, got {type(envs).__name__}")
        mode = envs.metadata.get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise ValueError(
                f"Sb3VecEnv needs autoreset_mode=AutoresetMode.SAME_STEP (SB3 resets in the step of an "
                f"end), got {mode!r}"
            )
        self.envs = envs
        self._listed = DictInfoToList(envs)  # Gymnasium's own: batched infos as one dict per board
        self._actions: np.ndarray | None = None
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)

    def reset(self):
        seed = self._seeds if any(s is not None for s in self._seeds) else None
        options = self._options[0] if self._options[0] else None  # one batch, one set of options
        observations, self.reset_infos = self._listed.reset(seed=seed, options=options)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        observations, rewards, terminated, truncated, infos = self._listed.step(self._actions)
        dones = terminated | truncated
        for i in np.flatnonzero(dones):
            # SB3's step info of a finished env is its end's, the new episode's goes to reset_infos
            self.reset_infos[i] = infos[i]
            infos[i] = infos[i].pop("final_info")
            infos[i]["terminal_observation"] = self.reset_infos[i].pop("final_obs")
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observations, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.envs.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.envs, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.envs, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        result = getattr(self.envs, method_name)(*method_args, **method_kwargs)
        boards = list(self._get_indices(indices))
        if method_name == "action_masks":  # one row per board
            return [result[i] for i in boards]
        return [result] * len(boards)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))
