"""A PPO smoke run: trains, checkpoints, resumes, and its policy plays legal league games."""

from __future__ import annotations

import json

import numpy as np
import pytest

from checkers_env import Game, Rules, make_agent
from checkers_env.match import play_game

pytest.importorskip("sb3_contrib")

from agents.ppo import PPOAgent  # noqa: E402
from training.ppo import OpponentPool, main  # noqa: E402

SMOKE = [
    "--total-timesteps", "1024", "--n-envs", "2", "--n-steps", "256", "--batch-size", "128",
    "--n-epochs", "1", "--eval-every", "0", "--checkpoint-every", "512", "--net-arch", "32x32",
    "--random-until", "0.5", "--greedy-until", "0.75", "--snapshot-every", "256",
    "--final-eval-games", "2",
]


def test_smoke_training_saves_resumes_and_plays_legal_games(tmp_path):
    assert main([*SMOKE, "--out", str(tmp_path), "--seed", "3"]) == 0
    run = tmp_path / "ppo-s3"
    for name in ("model.zip", "policy.safetensors", "args.json", "state.json"):
        assert (run / name).is_file(), name
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] >= 1024
    assert state["snapshots"] >= 1  # the self-play pool was entered
    assert set(state["final_eval"]) == {"random", "greedy"}

    # Resume with a larger budget: training continues from the saved step count.
    assert main(["--resume", str(run), "--total-timesteps", "1536"]) == 0
    assert json.loads((run / "state.json").read_text())["timesteps"] >= 1536

    agent = make_agent(f"ppo:weights={run / 'policy.safetensors'},net_arch=32x32")
    assert isinstance(agent, PPOAgent)
    for seed in range(2):
        record = play_game(agent, make_agent("random"), "9-13 22-17 13x22", Rules(), np.random.default_rng(seed))
        game = Game()
        for move in record.moves:  # every move the policy chose replays legally
            game.play(move)
        assert record.result in ("1-0", "0-1", "1/2-1/2")


def test_pool_draws_its_opponent_per_episode_by_weight():
    pool = OpponentPool(seed=0)
    random_agent, greedy_agent = make_agent("random"), make_agent("greedy")
    pool.set_choices([(random_agent, 0.25), (greedy_agent, 0.75)])
    picks = []
    for episode in range(400):
        pool.reset(seed=episode)
        picks.append(pool.current is greedy_agent)
    assert 0.65 < np.mean(picks) < 0.85


def test_missing_or_corrupt_weights_are_clear_errors(tmp_path):
    from checkers_env import UnknownAgentError

    with pytest.raises(UnknownAgentError, match="does not exist"):
        make_agent(f"ppo:weights={tmp_path / 'nope.safetensors'}")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a safetensors file")
    with pytest.raises(UnknownAgentError, match="cannot load weights"):
        make_agent(f"ppo:weights={bad}")
