"""A PPO smoke run: trains, checkpoints, resumes, and its policy plays legal league games."""

from __future__ import annotations

import json

import numpy as np
import pytest

from checkers_env import Game, Rules, make_agent
from checkers_env.match import play_game

pytest.importorskip("sb3_contrib")

from checkers_agents.opponent_pool import OpponentPool
from checkers_agents.ppo import PPOAgent
from checkers_env import WeightsError
from checkers_training.ppo import main
from checkers_training.scaffold import TrainingError

SMOKE = [
    "--total-timesteps",
    "1024",
    "--n-envs",
    "2",
    "--n-steps",
    "256",
    "--batch-size",
    "128",
    "--n-epochs",
    "1",
    "--eval-every",
    "0",
    "--checkpoint-every",
    "512",
    "--net-arch",
    "32x32",
    "--random-until",
    "0.5",
    "--greedy-until",
    "0.75",
    "--snapshot-every",
    "256",
    "--final-eval-games",
    "2",
    "--no-progress",
]


def test_smoke_training_saves_resumes_and_plays_legal_games(tmp_path, monkeypatch):
    # Where SB3 would make its default log folder: a run without TensorBoard makes none.
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3-default-log"))
    assert main([*SMOKE, "--out", str(tmp_path / "ppo" / "s3"), "--seed", "3"]) == 0
    assert not (tmp_path / "sb3-default-log").exists()
    run = tmp_path / "ppo" / "s3"
    for name in ("checkpoint.pt", "policy.safetensors", "run.json", "state.json"):
        assert (run / name).is_file(), name
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] >= 1024
    assert state["snapshots"] >= 1  # the self-play pool was entered
    assert set(state["final_eval"]) == {"random", "greedy"}

    # Resume with only --resume (the run was killed, say): it continues the run as started,
    # 1,024 steps with its own options, not the parser's default of 2,000,000.
    assert main(["--out", str(run), "--resume", "--no-progress"]) == 0
    assert json.loads((run / "run.json").read_text())["args"]["total_timesteps"] == 1024
    assert json.loads((run / "state.json").read_text())["timesteps"] == state["timesteps"]
    # A flag that changes the run is refused, naming it; the budget may be raised.
    with pytest.raises(TrainingError, match="^--net-arch 64x64 would change the run"):
        main(["--out", str(run), "--resume", "--net-arch", "64x64"])
    assert main(["--out", str(run), "--resume", "--total-timesteps", "1536", "--no-progress"]) == 0
    assert json.loads((run / "state.json").read_text())["timesteps"] >= 1536

    agent = make_agent(f"ppo:weights={run / 'policy.safetensors'},net_arch=32x32")
    assert isinstance(agent, PPOAgent)
    for seed in range(2):
        record = play_game(agent, make_agent("random"), "9-13 22-17 13x22", Rules(), np.random.default_rng(seed))
        game = Game()
        for move in record.moves:  # every move the policy chose replays legally
            game.play(move)
        assert record.result in ("1-0", "0-1", "1/2-1/2")

    # A second run with the same name never takes the first one's snapshots into its pool.
    with pytest.raises(TrainingError, match="holds another run"):
        main([*SMOKE, "--out", str(tmp_path / "ppo" / "s3"), "--seed", "4"])

    # A damaged checkpoint is a WeightsError naming the file.
    (run / "checkpoint.pt").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(WeightsError, match="checkpoint.pt"):
        main(["--out", str(run), "--resume", "--total-timesteps", "2048"])


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
    with pytest.raises(WeightsError, match="does not exist"):
        make_agent(f"ppo:weights={tmp_path / 'nope.safetensors'}")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a safetensors file")
    with pytest.raises(WeightsError, match="corrupt"):
        make_agent(f"ppo:weights={bad}")


class _Payload:
    """Unpickling this creates a file: proof that a loader executed code."""

    def __init__(self, target):
        self.target = str(target)

    def __reduce__(self):
        return (open, (self.target, "w"))


def test_resume_never_unpickles_a_checkpoint(tmp_path):
    import base64
    import pickle
    import zipfile

    import torch

    assert (
        main(
            [
                *SMOKE,
                "--total-timesteps",
                "256",
                "--final-eval-games",
                "0",
                "--out",
                str(tmp_path / "ppo" / "r"),
                "--no-tensorboard",
            ]
        )
        == 0
    )
    run = tmp_path / "ppo" / "r"
    assert not (run / "model.zip").exists()  # no pickle is written either
    proof = tmp_path / "code-ran"
    # checkpoint.pt is read with weights_only: an object in it is refused, not built.
    torch.save({"policy": _Payload(proof)}, run / "checkpoint.pt")
    with pytest.raises(WeightsError, match="checkpoint.pt"):
        main(["--out", str(run), "--resume", "--total-timesteps", "512", "--no-progress"])
    assert not proof.exists()
    # A run in SB3's zip format (pickles inside) is refused without opening the zip.
    (run / "checkpoint.pt").unlink()
    data = {"policy_class": {":serialized:": base64.b64encode(pickle.dumps(_Payload(proof))).decode()}}
    with zipfile.ZipFile(run / "model.zip", "w") as archive:
        archive.writestr("data", json.dumps(data))
    with pytest.raises(TrainingError, match="model.zip .* never loaded"):
        main(["--out", str(run), "--resume", "--total-timesteps", "512", "--no-progress"])
    assert not proof.exists()
