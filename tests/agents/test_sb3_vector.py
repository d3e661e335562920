"""MaskablePPO trains on ``gym.make_vec("Checkers-v0")`` through ``Sb3VecEnv``: the adapter
gives SB3's ``VecEnv`` semantics (end's info and ``terminal_observation`` in the step of the
end, the new episode's info in ``reset_infos``) and one action mask per board."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import checkers_env  # noqa: F401  (registers Checkers-v0)

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from checkers_agents.sb3_vector import Sb3VecEnv


def same_step(num_envs, **kwargs):
    return gym.make_vec("Checkers-v0", num_envs=num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)


class IllegalEnds(BaseCallback):
    """Counts the episodes that ended on an illegal action, and all ends."""

    def __init__(self):
        super().__init__()
        self.illegal = self.ends = 0

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done:
                self.ends += 1
                self.illegal += bool(info.get("illegal_action", False))
                assert info["terminal_observation"].shape == (5, 8, 8)
        return True


def test_maskable_ppo_trains_on_make_vec():
    envs = Sb3VecEnv(same_step(8, max_plies=30))
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    counter = IllegalEnds()
    model.learn(total_timesteps=512, callback=counter)
    assert model.num_timesteps == 512
    assert counter.ends >= 8 and counter.illegal == 0  # the masks reached the policy


def test_the_adapter_speaks_sb3s_vec_env():
    n = 3
    envs = Sb3VecEnv(same_step(n, max_plies=6))
    envs.seed(4)
    obs = envs.reset()
    direct = same_step(n, max_plies=6)
    expected, _ = direct.reset(seed=4)
    np.testing.assert_array_equal(obs, expected)
    masks = np.stack(envs.env_method("action_masks"))
    assert masks.shape == (n, 128) and masks.dtype == np.bool_
    ended = 0
    for _ in range(12):
        actions = np.array([np.flatnonzero(row)[0] for row in masks])
        envs.step_async(actions)
        obs, rewards, dones, infos = envs.step_wait()
        expected, expected_rewards, terminated, truncated, expected_infos = direct.step(actions)
        np.testing.assert_array_equal(obs, expected)
        np.testing.assert_array_equal(rewards, expected_rewards.astype(np.float32))
        np.testing.assert_array_equal(dones, terminated | truncated)
        for i in range(n):
            if dones[i]:
                ended += 1
                np.testing.assert_array_equal(infos[i]["terminal_observation"], expected_infos["final_obs"][i])
                assert infos[i]["TimeLimit.truncated"] == bool(truncated[i] and not terminated[i])
                assert not infos[i]["action_mask"].any()  # the end's info
                assert envs.reset_infos[i]["action_mask"].any()  # the new episode's
            else:
                np.testing.assert_array_equal(infos[i]["action_mask"], expected_infos["action_mask"][i])
        masks = np.stack(envs.env_method("action_masks"))
    assert ended >= n
    assert envs.get_attr("num_envs") == [n] * n and envs.env_is_wrapped(gym.Wrapper) == [False] * n


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_the_adapter_needs_same_step_autoreset(mode):
    with pytest.raises(ValueError, match=r"^Sb3VecEnv needs autoreset_mode=AutoresetMode.SAME_STEP"):
        Sb3VecEnv(gym.make_vec("Checkers-v0", num_envs=2, autoreset_mode=mode))
    with pytest.raises(ValueError, match=r"^Sb3VecEnv wraps a gymnasium.vector.VectorEnv, got CheckersEnv"):
        Sb3VecEnv(gym.make("Checkers-v0").unwrapped)
