"""The vector env's torch path: ``device="torch"`` returns tensors on the very arrays the
numba kernel wrote (no copy) and takes tensors as actions; Gymnasium's ``NumpyToTorch``
works on the numpy env; TorchRL's ``GymWrapper`` wraps it (when torchrl is installed)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import checkers_env  # noqa: F401  (registers Checkers-v0)
from checkers_env import MissingDependencyError, batch_step

torch = pytest.importorskip("torch")


def make_vec(num_envs, **kwargs):
    return gym.make_vec("Checkers-v0", num_envs=num_envs, **kwargs)


def legal_actions(masks, chooser):
    """A random legal action per board (action 0 on a board without one), as a tensor."""
    masks = np.asarray(masks)
    return torch.tensor([chooser.choice(np.flatnonzero(row)) if row.any() else 0 for row in masks], dtype=torch.int64)


@pytest.fixture
def kernel_calls(monkeypatch):
    """The arguments of every batch-kernel call, as the kernel saw them."""
    calls = []
    kernel = batch_step.vector_step

    def spy(*arguments):
        calls.append(arguments)
        return kernel(*arguments)

    monkeypatch.setattr(batch_step, "vector_step", spy)
    return calls


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def test_torch_device_returns_the_kernels_own_memory(kernel_calls):
    n = 6
    envs = make_vec(n, device="torch", autoreset_mode=AutoresetMode.SAME_STEP, max_plies=10)
    obs, infos = envs.reset(seed=0)
    assert isinstance(obs, torch.Tensor) and isinstance(infos["action_mask"], torch.Tensor)
    chooser = np.random.default_rng(0)
    finished = 0
    for _ in range(30):
        actions = legal_actions(infos["action_mask"], chooser)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        (_, _, _, _, kernel_actions, _, _, planes, mask_words, kernel_rewards, ends, finals) = kernel_calls[-1]
        assert address(kernel_actions) == actions.data_ptr()  # the actions were not copied either
        assert obs.data_ptr() == address(planes) and obs.dtype == torch.float32
        assert rewards.data_ptr() == address(kernel_rewards) and rewards.dtype == torch.float64
        assert terminated.data_ptr() == address(ends[batch_step.ENDS_TERMINATED]) and terminated.dtype == torch.bool
        assert truncated.data_ptr() == address(ends[batch_step.ENDS_TRUNCATED]) and truncated.dtype == torch.bool
        assert infos["action_mask"].data_ptr() == address(mask_words) and infos["action_mask"].dtype == torch.int8
        masks = envs.unwrapped.action_masks()
        assert masks.dtype == torch.bool and masks.data_ptr() == address(mask_words)
        assert torch.equal(masks, infos["action_mask"].bool())
        for i in np.flatnonzero((terminated | truncated).numpy()):
            assert infos["final_obs"][i].data_ptr() == address(finals[i])
            finished += 1
    assert finished >= 3
    # An in-place write through the tensor is a write to the kernel's array.
    obs[0, 4, 0, 0] = 7.0
    assert planes[0, 4, 0, 0] == 7.0


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_torch_device_gives_the_numpy_envs_values(mode):
    n = 4
    kwargs = {"autoreset_mode": mode, "agent_color": "random", "max_plies": 16}
    tensors, arrays = make_vec(n, device="torch", **kwargs), make_vec(n, **kwargs)
    obs, infos = tensors.reset(seed=5)
    expected, expected_infos = arrays.reset(seed=5)
    chooser = np.random.default_rng(2)
    for _ in range(60):
        np.testing.assert_array_equal(obs.numpy(), expected)
        np.testing.assert_array_equal(infos["action_mask"].numpy(), expected_infos["action_mask"])
        if mode == AutoresetMode.DISABLED and not expected_infos["action_mask"].any(axis=1).all():
            reset_mask = ~expected_infos["action_mask"].any(axis=1)
            obs, infos = tensors.reset(options={"reset_mask": torch.from_numpy(reset_mask)})
            expected, expected_infos = arrays.reset(options={"reset_mask": reset_mask})
            continue
        actions = legal_actions(infos["action_mask"], chooser)
        obs, rewards, terminated, truncated, infos = tensors.step(actions)
        expected, *outcome, expected_infos = arrays.step(actions.numpy())
        for got, want in zip((rewards, terminated, truncated), outcome):
            np.testing.assert_array_equal(got.numpy(), want)
        for key in ("illegal_action", "_illegal_action", "winner", "_winner", "_final_obs"):
            if key in expected_infos:
                np.testing.assert_array_equal(infos[key].numpy(), expected_infos[key])
        for i, final in enumerate(expected_infos.get("final_obs", [])):
            assert (final is None) == (infos["final_obs"][i] is None)
            if final is not None:
                np.testing.assert_array_equal(infos["final_obs"][i].numpy(), final)


def test_gymnasium_numpy_to_torch_works_without_copies(kernel_calls):
    pytest.importorskip("array_api_compat", reason="Gymnasium's NumpyToTorch needs array-api-compat (the test extra)")
    from gymnasium.wrappers.vector import NumpyToTorch

    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED):
        envs = NumpyToTorch(make_vec(3, autoreset_mode=mode))
        obs, infos = envs.reset(seed=1)
        assert isinstance(obs, torch.Tensor) and isinstance(infos["action_mask"], torch.Tensor)
        obs, rewards, terminated, truncated, infos = envs.step(
            legal_actions(infos["action_mask"], np.random.default_rng(0))
        )
        planes, mask_words, kernel_rewards, ends = (kernel_calls[-1][i] for i in (7, 8, 9, 10))
        assert obs.data_ptr() == address(planes) and rewards.data_ptr() == address(kernel_rewards)
        assert terminated.data_ptr() == address(ends[batch_step.ENDS_TERMINATED])
        assert infos["action_mask"].data_ptr() == address(mask_words)


def test_bad_device_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match=r"^device must be one of \('numpy', 'torch'\), got 'cuda'"):
        make_vec(2, device="cuda")


def test_torch_device_without_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # as if torch were not installed
    with pytest.raises(
        MissingDependencyError, match=r"needs torch, which is not installed: pip install 'checkers-suite\[train\]'"
    ):
        make_vec(2, device="torch")


def test_torchrl_gym_wrapper_rolls_out_masked_actions():
    pytest.importorskip("torchrl", reason="torchrl is optional (the test extra installs it)")
    from torchrl.data import Binary
    from torchrl.envs import ActionMask, GymWrapper, TransformedEnv
    from torchrl.envs.libs.gym import default_info_dict_reader

    n = 4
    base = GymWrapper(make_vec(n, autoreset_mode=AutoresetMode.DISABLED))
    base.set_info_dict_reader(
        default_info_dict_reader(["action_mask"], spec={"action_mask": Binary(128, shape=(n, 128), dtype=torch.bool)})
    )
    env = TransformedEnv(base, ActionMask())
    env.set_seed(0)
    rollout = env.rollout(200, break_when_any_done=False)
    assert rollout.batch_size == torch.Size([n, 200])
    chosen = rollout["action"].argmax(-1, keepdim=True)
    assert bool(rollout["action_mask"].long().gather(-1, chosen).all())  # only legal actions were played
    assert int(rollout["next", "done"].sum()) >= n  # games ended and TorchRL reset them through reset_mask
