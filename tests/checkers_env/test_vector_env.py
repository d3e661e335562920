"""The vector env: board ``i`` behaves exactly like ``Checkers-v0`` reset with seed
``seed + i`` and stepped with the same actions, across autoresets; self-play observations
are in the frame of the side to move (checked against the PettingZoo env)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from masked_actions import choose_actions

import checkers_env
from checkers_env import IllegalMoveError
from checkers_env.pettingzoo_env import raw_env


def make_vec(num_envs, **kwargs):
    return gym.make_vec("Checkers-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def test_make_vec_gives_our_vector_env():
    envs = make_vec(3)
    assert isinstance(envs, VectorEnv) and type(envs).__name__ == "CheckersVectorEnv"
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.observation_space.shape == (3, 5, 8, 8) and envs.single_action_space.n == 128
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (3, 5, 8, 8) and obs.dtype == np.float32
    assert infos["action_mask"].shape == (3, 128) and infos["action_mask"].dtype == np.int8
    assert envs.observation_space.contains(obs)


@pytest.mark.parametrize(
    ("opponent", "max_plies", "steps"),
    [("random", None, 700), ("greedy", None, 700), ("random", 24, 150)],
)
def test_vector_env_matches_single_envs(opponent, max_plies, steps):
    n, seed = 6, 40
    kwargs = {"opponent": opponent, "agent_color": "random", "reward": "material", "max_plies": max_plies}
    envs = make_vec(n, **kwargs)
    singles = [gym.make("Checkers-v0", **kwargs) for _ in range(n)]
    obs, infos = envs.reset(seed=seed)
    done = [False] * n
    for i, env in enumerate(singles):
        single_obs, single_info = env.reset(seed=seed + i)
        np.testing.assert_array_equal(obs[i], single_obs)
        np.testing.assert_array_equal(infos["action_mask"][i], single_info["action_mask"])
    chooser = np.random.default_rng(7)
    ends = {"terminated": 0, "truncated": 0, "illegal": 0}
    for _ in range(steps):
        actions = choose_actions(chooser, infos["action_mask"], illegal_rate=0.003)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        for i, env in enumerate(singles):
            if done[i]:  # NEXT_STEP autoreset: the vector env resets, the action is ignored
                single_obs, single_info = env.reset()
                single = (single_obs, 0.0, False, False, single_info)
            else:
                single = env.step(int(actions[i]))
            single_obs, single_reward, single_terminated, single_truncated, single_info = single
            np.testing.assert_array_equal(obs[i], single_obs)
            np.testing.assert_array_equal(infos["action_mask"][i], single_info["action_mask"])
            assert rewards[i] == pytest.approx(single_reward, abs=1e-12)
            assert (terminated[i], truncated[i]) == (single_terminated, single_truncated)
            if not done[i]:
                assert infos["illegal_action"][i] == bool(single_info.get("illegal_action", False))
            done[i] = single_terminated or single_truncated
            ends["terminated"] += single_terminated
            ends["truncated"] += single_truncated
            ends["illegal"] += bool(single_info.get("illegal_action", False))
    # several autoresets of every kind were compared
    if max_plies is None:
        assert ends["terminated"] - ends["illegal"] >= 3 and ends["illegal"] >= 2
    else:
        assert ends["truncated"] >= 3 * n


def test_vector_env_seeds_make_runs_reproducible():
    def run(seed):
        envs = make_vec(4, agent_color="random", opponent="greedy")
        obs, infos = envs.reset(seed=seed)
        chooser = np.random.default_rng(0)
        frames = [obs]
        for _ in range(60):
            obs, *_, infos = envs.step(choose_actions(chooser, infos["action_mask"]))
            frames.append(obs)
        return np.stack(frames)

    np.testing.assert_array_equal(run(3), run(3))
    assert not np.array_equal(run(3), run(4))


def test_vector_reset_with_a_list_of_seeds_and_a_fen():
    envs = make_vec(2)
    obs, _ = envs.reset(seed=[5, 9])
    single = gym.make("Checkers-v0")
    np.testing.assert_array_equal(obs[1], single.reset(seed=9)[0])
    obs, infos = envs.reset(seed=0, options={"fen": "B:W14:B9"})
    assert infos["action_mask"].sum(axis=1).tolist() == [1, 1]
    with pytest.raises(ValueError):
        envs.reset(seed=[1, 2, 3])


def test_vector_env_self_play_matches_pettingzoo():
    n = 4
    envs = make_vec(n, self_play=True, reward="material", max_plies=60)
    games = [raw_env(reward="material", max_plies=60) for _ in range(n)]
    for game in games:
        game.reset()
    obs, infos = envs.reset(seed=1)
    chooser = np.random.default_rng(3)
    done = [False] * n
    white_frames = finished = 0
    for _ in range(400):
        for i, game in enumerate(games):
            agent = game.possible_agents[int(game.board.turn)]  # the side to move
            assert done[i] or agent == game.agent_selection
            observed = game.observe(agent)
            np.testing.assert_array_equal(obs[i], observed["observation"])  # the mover's frame
            np.testing.assert_array_equal(infos["action_mask"][i], observed["action_mask"])
            white_frames += agent == "player_1"
        actions = choose_actions(chooser, infos["action_mask"])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        for i, game in enumerate(games):
            if done[i]:
                game.reset()
                assert rewards[i] == 0.0 and not terminated[i] and not truncated[i]
                done[i] = False
                continue
            mover = game.agent_selection
            game.step(int(actions[i]))
            assert rewards[i] == pytest.approx(game.rewards[mover], abs=1e-12)
            assert terminated[i] == game.terminations[mover] and truncated[i] == game.truncations[mover]
            done[i] = terminated[i] or truncated[i]
            finished += done[i]
    assert white_frames > 100 and finished >= n


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"opponent": "greedy"}, "opponent='greedy'"),
        ({"opponent": "random"}, "opponent='random'"),
        ({"agent_color": "white"}, "agent_color='white'"),
    ],
)
def test_self_play_refuses_an_opponent_or_colour_it_would_ignore(kwargs, named):
    with pytest.raises(ValueError, match=rf"^self_play=True plays one policy against itself .*: drop {named}, or drop"):
        make_vec(2, self_play=True, **kwargs)
    make_vec(2, **kwargs).reset(seed=0)  # without self_play each one is used


def test_self_play_observation_flips_with_the_side_to_move():
    envs = make_vec(1, self_play=True)
    obs, _ = envs.reset(seed=0)
    start = obs[0].copy()
    obs, *_ = envs.step(np.array([32]))  # Black 9-14; now White to move, in White's frame
    # White's men occupy the first three rows of its own frame, just as Black's did.
    np.testing.assert_array_equal(obs[0, 0], start[0])
    assert obs[0, 2].sum() == 12 and obs[0, 2, 4, 2] == 1.0  # Black's man now on 14: (3, 5) -> (4, 2)


def test_vector_env_rejects_bad_actions():
    envs = make_vec(2, illegal_action="raise")
    with pytest.raises(RuntimeError):
        envs.step(np.array([32, 32]))
    envs.reset(seed=0)
    for bad in (np.array([32]), np.array([32, 128]), np.array([32, -1]), np.array([32.0, 33.0])):
        with pytest.raises(ValueError):
            envs.step(bad)
    with pytest.raises(IllegalMoveError, match="illegal action 0 on board 1"):
        envs.step(np.array([32, 0]))
    with pytest.raises(ValueError):
        make_vec(2, opponent=checkers_env.BaseAgent())


def test_vector_env_renders_board_zero():
    envs = make_vec(2, render_mode="ansi")
    envs.reset(seed=0)
    assert "black to move" in envs.render()
    envs = make_vec(2, render_mode="rgb_array")
    envs.reset(seed=0)
    assert envs.render().shape == (384, 384, 3)


def test_vector_render_before_reset_needs_reset():
    from gymnasium.error import ResetNeeded

    envs = make_vec(2, render_mode="ansi")
    with pytest.raises(ResetNeeded, match=r"^call reset\(\) before render\(\)"):
        envs.render()
    envs.reset(seed=0)
    assert "black to move" in envs.render()


def test_parallel_kernel_matches_the_serial_one():
    n = 40
    serial = make_vec(n, agent_color="random", opponent="greedy", reward="material", parallel=False)
    parallel = make_vec(n, agent_color="random", opponent="greedy", reward="material", parallel=True)
    a, infos = serial.reset(seed=2)
    b, _ = parallel.reset(seed=2)
    chooser = np.random.default_rng(5)
    ended = 0
    for _ in range(150):
        actions = choose_actions(chooser, infos["action_mask"], illegal_rate=0.002)
        a = serial.step(actions)
        b = parallel.step(actions)
        for x, y in zip(a[:4], b[:4]):
            np.testing.assert_array_equal(x, y)
        for key in ("action_mask", "illegal_action", "winner"):
            np.testing.assert_array_equal(a[4][key], b[4][key])
        infos = a[4]
        ended += int(a[2].sum() + a[3].sum())
    assert ended >= 3


@pytest.mark.parametrize("parallel", [False, True])
def test_threads_of_a_step(parallel, monkeypatch):
    """Without ``parallel`` the batch kernel runs on the calling thread alone; the
    caller's numba thread count is restored after the step."""
    import numba

    from checkers_env import batch_step as core

    seen = []
    kernel = core.vector_step

    def spy(*arguments):
        seen.append(numba.get_num_threads())
        return kernel(*arguments)

    envs = make_vec(8, parallel=parallel)
    envs.reset(seed=0)
    before = numba.get_num_threads()
    monkeypatch.setattr(core, "vector_step", spy)
    envs.step(np.argmax(envs.action_masks(), axis=1))
    assert seen == [before if parallel else 1]
    assert numba.get_num_threads() == before
