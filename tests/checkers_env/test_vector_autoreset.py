"""The vector env in each of Gymnasium's autoreset modes equals Gymnasium's own
``SyncVectorEnv`` over ``Checkers-v0`` envs on the same seeds and actions: observations,
rewards, terminations, truncations and the infos both produce (with their ``_key`` masks),
final observations and infos in ``SAME_STEP``, ``reset_mask`` resets, and what happens when
a finished board is stepped with autoreset disabled."""

from __future__ import annotations

from types import MappingProxyType

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_returned_data_not_reused
from gymnasium.utils.env_match import check_environments_match
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from masked_actions import choose_actions

import checkers_env  # noqa: F401  (registers Checkers-v0)
from checkers_env.vector_env import FinishedBoardError

#: Info keys only one side has: the single env's text infos, the vector env's ``winner``.
SINGLE_ONLY = {"result", "termination", "last_moves", "agent_color"}
VECTOR_ONLY = {"winner"}


def make_pair(num_envs, mode, **kwargs):
    """The numba vector env and Gymnasium's loop over single envs, alike."""
    ours = gym.make_vec("Checkers-v0", num_envs=num_envs, autoreset_mode=mode, **kwargs)
    theirs = SyncVectorEnv([lambda: gym.make("Checkers-v0", **kwargs) for _ in range(num_envs)], autoreset_mode=mode)
    return ours, theirs


def assert_same_infos(ours, theirs, where):
    """Every key both have agrees on its ``_key`` mask and on the values under it; a key
    only ours has marks no board, and a key only theirs has is one of the single env's
    text infos."""
    for key in theirs:
        if not key.startswith("_"):
            assert key in ours or key in SINGLE_ONLY, f"{where}: {key!r} missing"
    for key in ours:
        if key.startswith("_"):
            continue
        present = ours[f"_{key}"]
        assert present.dtype == np.bool_ and present.shape == (len(present),)
        if key not in theirs:
            assert key in VECTOR_ONLY or not present.any(), f"{where}: {key!r} marks boards {np.flatnonzero(present)}"
            continue
        np.testing.assert_array_equal(present, theirs[f"_{key}"], err_msg=f"{where}: _{key}")
        if key == "final_info":
            assert_same_infos(ours[key], theirs[key], f"{where} final_info")
        elif key == "final_obs":
            for i in np.flatnonzero(present):
                np.testing.assert_array_equal(ours[key][i], theirs[key][i], err_msg=f"{where}: final_obs {i}")
            assert all(ours[key][i] is None for i in np.flatnonzero(~present))
        else:
            assert ours[key].dtype == theirs[key].dtype, f"{where}: {key} dtype"
            np.testing.assert_array_equal(ours[key][present], theirs[key][present], err_msg=f"{where}: {key}")


def assert_same_reset(ours, theirs, where):
    np.testing.assert_array_equal(ours[0], theirs[0], err_msg=f"{where}: observations")
    assert_same_infos(ours[1], theirs[1], where)


def assert_same_step(ours, theirs, where):
    for name, a, b in zip(("observations", "rewards", "terminated", "truncated"), ours[:4], theirs[:4]):
        assert a.dtype == b.dtype, f"{where}: {name} dtype"
        np.testing.assert_array_equal(a, b, err_msg=f"{where}: {name}")
    assert_same_infos(ours[4], theirs[4], where)


@pytest.mark.parametrize(
    ("mode", "opponent", "max_plies", "steps"),
    [
        (AutoresetMode.NEXT_STEP, "random", None, 1500),
        (AutoresetMode.SAME_STEP, "greedy", None, 1500),
        (AutoresetMode.SAME_STEP, "random", 24, 400),
        (AutoresetMode.DISABLED, "random", None, 1500),
    ],
)
def test_each_autoreset_mode_matches_gymnasium_sync_vector_env(mode, opponent, max_plies, steps):
    n, seed = 6, 11
    kwargs = {"opponent": opponent, "agent_color": "random", "reward": "material", "max_plies": max_plies}
    ours, theirs = make_pair(n, mode, **kwargs)
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    assert_same_reset(ours.reset(seed=seed), theirs.reset(seed=seed), "reset")
    chooser = np.random.default_rng(1)
    infos = None
    counts = {"terminated": 0, "truncated": 0, "illegal": 0, "partial resets": 0}
    masks = ours.unwrapped.action_masks()
    for t in range(steps):
        actions = choose_actions(chooser, masks, illegal_rate=0.004)
        a = ours.step(actions)
        b = theirs.step(actions)
        assert_same_step(a, b, f"step {t}")
        infos = a[4]
        masks = infos["action_mask"]
        np.testing.assert_array_equal(ours.unwrapped.action_masks(), masks.astype(bool))
        finished = a[2] | a[3]
        counts["terminated"] += int(a[2].sum())
        counts["truncated"] += int(a[3].sum())
        counts["illegal"] += int(infos.get("final_info", infos).get("illegal_action", np.zeros(n, bool)).sum())
        if mode == AutoresetMode.DISABLED and finished.any():
            # The finished boards, and now and then a board under way, reset by a mask;
            # every other time with seeds (the masked boards take theirs).
            reset_mask = finished | (chooser.random(n) < 0.05)
            reseed = {"seed": 1000 + t} if t % 2 else {}
            assert_same_reset(
                ours.reset(options={"reset_mask": reset_mask.copy()}, **reseed),
                theirs.reset(options={"reset_mask": reset_mask.copy()}, **reseed),
                f"reset_mask after step {t}",
            )
            masks = ours.unwrapped.action_masks()
            counts["partial resets"] += 1
        elif mode == AutoresetMode.NEXT_STEP and t % 97 == 50:
            # reset_mask in NEXT_STEP: a reset board no longer waits for its autoreset
            reset_mask = np.zeros(n, dtype=bool)
            reset_mask[[t % n, (t + 1) % n]] = True
            assert_same_reset(
                ours.reset(options={"reset_mask": reset_mask}),
                theirs.reset(options={"reset_mask": reset_mask.copy()}),
                f"reset_mask after step {t}",
            )
            masks = ours.unwrapped.action_masks()
            counts["partial resets"] += 1
    # several ends of every kind were compared
    if max_plies is None:
        assert counts["terminated"] - counts["illegal"] >= 3 and counts["illegal"] >= 1, counts
    else:
        assert counts["truncated"] >= 3 * n, counts
    if mode in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED):
        assert counts["partial resets"] >= 3, counts


@pytest.mark.parametrize("options", [dict, MappingProxyType])  # any mapping, as Gymnasium's options
def test_reset_mask_resets_only_those_boards(options):
    envs = gym.make_vec("Checkers-v0", num_envs=4, autoreset_mode=AutoresetMode.DISABLED)
    start, _ = envs.reset(seed=0)
    opening = np.full(4, 32)  # 9-14 on every board
    played, *_ = envs.step(opening)
    boards = [envs.unwrapped.board(i) for i in range(4)]
    mask = np.array([False, True, False, True])
    obs, infos = envs.reset(options=options({"reset_mask": mask}))
    np.testing.assert_array_equal(obs[mask], start[mask])
    np.testing.assert_array_equal(obs[~mask], played[~mask])
    assert [envs.unwrapped.board(i) for i in (0, 2)] == [boards[0], boards[2]]
    assert infos["_action_mask"].tolist() == mask.tolist()
    assert infos["_action_mask"] is not mask  # the infos are the env's own
    np.testing.assert_array_equal(infos["action_mask"], envs.unwrapped.action_masks())


def test_disabled_autoreset_refuses_to_step_a_finished_board_as_sync_vector_env_does():
    ours, theirs = make_pair(3, AutoresetMode.DISABLED)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    illegal = np.array([32, 0, 32])  # board 1 plays an illegal action: its episode ends
    a, b = ours.step(illegal), theirs.step(illegal)
    assert a[2].tolist() == b[2].tolist() == [False, True, False]
    with pytest.raises(AssertionError):
        theirs.step(np.array([33, 32, 33]))
    before = [ours.unwrapped.board(i) for i in range(3)]
    with pytest.raises(FinishedBoardError, match=r"^boards \[1\] have finished and autoreset_mode is DISABLED"):
        ours.step(np.array([33, 32, 33]))
    with pytest.raises(AssertionError):  # what SyncVectorEnv raises, for code written against it
        ours.step(np.array([33, 32, 33]))
    with pytest.raises(gym.error.ResetNeeded):  # what the single env raises
        ours.step(np.array([33, 32, 33]))
    assert [ours.unwrapped.board(i) for i in range(3)] == before  # no board moved
    ours.reset(options={"reset_mask": np.array([False, True, False])})
    ours.step(np.array([33, 32, 33]))


@pytest.mark.parametrize(
    ("reset_mask", "message"),
    [
        ([True, False], r"^reset_mask must be a numpy bool array of shape \(2,\), got list \[True, False\]"),
        (np.array([1, 0]), r"^reset_mask must be a numpy bool array of shape \(2,\), got dtype int64"),
        (np.array([True, False, True]), r"^reset_mask must be a numpy bool array of shape \(2,\), got shape \(3,\)"),
        (np.array([[True, False]]), r"^reset_mask must be a numpy bool array of shape \(2,\), got shape \(1, 2\)"),
        (np.array(True), r"^reset_mask must be a numpy bool array of shape \(2,\), got shape \(\)"),
        (np.array([False, False]), r"^reset_mask resets no board: it needs at least one True"),
        ("all", r"^reset_mask must be a numpy bool array of shape \(2,\), got str 'all'"),
    ],
)
def test_bad_reset_mask_is_a_value_error_naming_it(reset_mask, message):
    envs = gym.make_vec("Checkers-v0", num_envs=2, autoreset_mode=AutoresetMode.DISABLED)
    envs.reset(seed=0)
    before = [envs.unwrapped.board(i) for i in range(2)]
    envs.step(np.array([32, 32]))
    after = [envs.unwrapped.board(i) for i in range(2)]
    with pytest.raises(ValueError, match=message):
        envs.reset(options={"reset_mask": reset_mask})
    assert [envs.unwrapped.board(i) for i in range(2)] == after != before  # nothing was reset


def test_reset_mask_needs_a_batch_under_way():
    envs = gym.make_vec("Checkers-v0", num_envs=2)
    with pytest.raises(ValueError, match=r"^reset_mask resets some boards of a batch under way: the first reset"):
        envs.reset(options={"reset_mask": np.array([True, False])})


@pytest.mark.parametrize("bad", ["same_step", 2, None, AutoresetMode])
def test_bad_autoreset_mode_is_a_value_error_naming_the_modes(bad):
    with pytest.raises(ValueError, match=r"^autoreset_mode must be one of AutoresetMode.NEXT_STEP \('NextStep'\), "):
        gym.make_vec("Checkers-v0", num_envs=2, autoreset_mode=bad)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_the_mode_is_chosen_by_keyword_and_its_value_and_reported_in_metadata(mode):
    for given in (mode, mode.value):
        envs = gym.make_vec("Checkers-v0", num_envs=2, autoreset_mode=given)
        assert type(envs).__name__ == "CheckersVectorEnv"
        assert envs.metadata["autoreset_mode"] is mode and envs.autoreset_mode is mode
    assert gym.make_vec("Checkers-v0", num_envs=2).metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert type(envs).metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # the class's is untouched


def test_gymnasium_refuses_vector_kwargs_for_a_vector_entry_point():
    """Gymnasium 1.x hands a vector entry point its options as keywords only (the
    README says so); ``vector_kwargs`` is for its own ``sync`` and ``async`` loops."""
    with pytest.raises(gym.error.Error, match="vector_kwargs"):
        gym.make_vec("Checkers-v0", num_envs=2, vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})
    sync = gym.make_vec(
        "Checkers-v0", num_envs=2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}
    )
    assert isinstance(sync, SyncVectorEnv) and sync.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


def test_unknown_reset_option_names_the_accepted_ones():
    envs = gym.make_vec("Checkers-v0", num_envs=2)
    with pytest.raises(ValueError, match=r"^reset options: unknown key 'mask'; accepted keys: 'fen' .*; 'reset_mask'"):
        envs.reset(seed=0, options={"mask": np.array([True, False])})


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_gymnasium_checks_pass(mode):
    """Gymnasium's checks that take a vector env (written for one env, so on one board):
    it returns new data on every call, and it matches ``SyncVectorEnv`` under
    ``check_environments_match`` (unmasked random actions, so many illegal ends; not with
    autoreset disabled, where the check would step a finished board)."""
    ours, theirs = make_pair(1, mode)
    check_returned_data_not_reused(ours)
    if mode != AutoresetMode.DISABLED:
        check_environments_match(ours, theirs, num_steps=200, seed=3, skip_render=True, info_comparison="skip")


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_action_masks_agree_with_the_info_mask_in_each_mode(mode):
    envs = gym.make_vec("Checkers-v0", num_envs=5, autoreset_mode=mode, max_plies=12)
    _, infos = envs.reset(seed=4)
    chooser = np.random.default_rng(0)
    ends = 0
    for _ in range(40):
        masks = envs.unwrapped.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (5, 128)
        np.testing.assert_array_equal(masks, infos["action_mask"].astype(bool))
        live = masks.any(axis=1)
        if mode == AutoresetMode.DISABLED and not live.all():
            _, infos = envs.reset(options={"reset_mask": ~live})
            continue
        _, _, terminated, truncated, infos = envs.step(choose_actions(chooser, infos["action_mask"]))
        ends += int((terminated | truncated).sum())
        if mode == AutoresetMode.SAME_STEP:
            assert infos["action_mask"].any(axis=1).all()  # every board is in a game
        if "final_info" in infos:
            assert not infos["final_info"]["action_mask"].any()  # a finished game has no legal action
    assert ends >= 5
