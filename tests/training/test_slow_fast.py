"""The slow/fast trainer: slow_net fixed within a set and equal to fast_net after it, a tiny
run that completes, checkpoints atomically, resumes, and promotes to the zoo."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from checkers_agents.slow_fast import load_weights
from checkers_agents.slow_fast.episodes import KIND_ENDGAME
from checkers_agents.zoo import validate_card
from checkers_env import WeightsError, make_agent
from checkers_training.scaffold import TrainingError, field_docs
from checkers_training.slow_fast import CHECKPOINT, WEIGHTS, Args, SlowFastLearner, main, parse_args

TINY = [
    "--episodes-per-set",
    "2",
    "--tactical-games",
    "6",
    "--endgame-trees",
    "6",
    "--endgame-max-batches",
    "2",
    "--max-game-plies",
    "80",
    "--no-progress-plies",
    "30",
    "--subtree-depth",
    "2",
    "--buffer-capacity",
    "300",
    "--replace-fraction",
    "0.3",
    "--hidden",
    "16",
    "--eval-games",
    "2",
    "--eval-every-sets",
    "1",
    "--batch-size",
    "32",
    "--no-progress",
]


def tiny_args(tmp_path, *extra: str) -> Args:
    return parse_args([*TINY, "--out", str(tmp_path / "slow-fast" / "run"), *extra])[0]


def params(net) -> list[torch.Tensor]:
    return [p.detach().clone() for p in net.parameters()]


def same(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b))


def test_every_argument_has_a_docstring():
    docs = field_docs(Args)
    import dataclasses

    assert {f.name for f in dataclasses.fields(Args)} == set(docs)
    with pytest.raises(TrainingError, match="^--explore-fraction: must be 1e-09 to 1.0, got '0'"):
        parse_args(["--explore-fraction", "0"])
    with pytest.raises(TrainingError, match="^--hidden: must be layer sizes"):
        parse_args(["--hidden", "wide"])


def test_slow_net_is_fixed_within_a_set_and_takes_fast_net_after_it(tmp_path):
    learner = SlowFastLearner(tiny_args(tmp_path))
    slow_at_start = params(learner.slow_net)
    learner.buffer.add(learner.endgame_examples(), learner.rng, pinned=True)
    for _ in range(2):  # two episodes
        learner.buffer.add(learner.tactical_examples(), learner.rng)
        learner.train_fast(learner.buffer.sample(0.5, learner.rng))
        assert same(params(learner.slow_net), slow_at_start)  # slow_net only generates
    assert not same(params(learner.fast_net), slow_at_start)  # fast_net alone learns
    assert len(learner.buffer) > 0
    learner.end_set()
    assert same(params(learner.slow_net), params(learner.fast_net))
    assert len(learner.buffer) == 0


def test_exploration_reaches_the_games_and_the_subtrees(tmp_path):
    with pytest.raises(TrainingError, match="^--exploration: invalid choice: .reward."):
        parse_args(["--exploration", "reward"])
    data = {}
    for exploration in ("value", "expected-reward"):
        learner = SlowFastLearner(tiny_args(tmp_path, "--exploration", exploration))
        assert learner.game_settings.explore_by == learner.subtree_settings.explore_by == exploration
        data[exploration] = learner.tactical_examples()
    # Same seed, same nets: only what the exploration evaluates differs, and so do the data.
    assert not np.array_equal(data["value"].positions.black, data["expected-reward"].positions.black)


def test_tiny_run_checkpoints_resumes_and_promotes(tmp_path, monkeypatch):
    run = tmp_path / "slow-fast" / "run"
    # Stop after the first episode (a time budget already spent): mid-set checkpoint.
    main([*TINY, "--out", str(tmp_path / "slow-fast" / "run"), "--sets", "2", "--time-budget-s", "1e-9"])
    state = torch.load(run / CHECKPOINT, weights_only=True)
    assert state["counters"]["set"] == 0 and state["counters"]["episode"] == 1
    start = SlowFastLearner(tiny_args(tmp_path))  # same seed: the initial networks
    assert same([state["slow_net"][k] for k in start.slow_net.state_dict()], params(start.slow_net))
    assert not same([state["fast_net"][k] for k in start.fast_net.state_dict()], params(start.fast_net))
    buffer_kinds = state["buffer"]["kind"].numpy()
    pinned = state["buffer"]["pinned"].numpy()
    assert (buffer_kinds[pinned] == KIND_ENDGAME).all() and (buffer_kinds[~pinned] != KIND_ENDGAME).all()
    assert not (run / WEIGHTS).exists()
    assert not list(run.glob("*.tmp"))  # atomic writes leave no temp file

    # Resume: the run finishes both sets, slow_net == fast_net at the end.
    zoo = tmp_path / "zoo"
    monkeypatch.setenv("CHECKERS_ZOO", str(zoo))
    with pytest.raises(TrainingError, match="^--learning-rate 0.1 would change the run"):
        main(["--out", str(run), "--resume", "--learning-rate", "0.1"])
    # The time budget does not change the run: it may be lifted on resume.
    main(["--out", str(run), "--resume", "--time-budget-s", "0", "--promote", "tiny-sf"])
    state = torch.load(run / CHECKPOINT, weights_only=True)
    assert state["counters"]["set"] == 2 and state["counters"]["episode"] == 0
    assert all(torch.equal(state["slow_net"][k], state["fast_net"][k]) for k in state["slow_net"])
    assert state["buffer"]["size"] == 0  # emptied at the end of the set
    net = load_weights(run / WEIGHTS)
    assert all(torch.equal(v, state["slow_net"][k]) for k, v in net.state_dict().items())
    events = list(run.glob("events.out.tfevents.*"))
    assert len(events) == 2  # one TensorBoard log per session

    card = json.loads((zoo / "tiny-sf" / "card.json").read_text())
    assert validate_card(card, zoo / "tiny-sf") == []
    assert card["kind"] == "slow-fast" and "--resume" in card["training"]["command"]
    assert card["training"]["command"].startswith("checkers train slow-fast ")
    agent = make_agent("zoo:tiny-sf")
    assert str(agent) == "zoo:tiny-sf"
    from checkers_env import Game

    assert agent.select_move(Game()) in Game().legal_moves()

    # Resuming a finished run does nothing more.
    main(["--out", str(run), "--resume"])
    assert torch.load(run / CHECKPOINT, weights_only=True)["counters"]["set"] == 2

    # A damaged checkpoint is a WeightsError naming it.
    data = (run / CHECKPOINT).read_bytes()
    (run / CHECKPOINT).write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightsError, match="checkpoint.pt"):
        main(["--out", str(run), "--resume"])


def test_cli_dispatches_to_the_trainer(capsys):
    from checkers_evaluation.cli import main as checkers

    with pytest.raises(SystemExit) as exit_info:
        checkers(["train", "slow-fast", "--help"])
    assert exit_info.value.code == 0
    assert "--explore-fraction" in capsys.readouterr().out
