"""The TD-minimax trainer: a tiny run, checkpoints, resume, atomic writes, arguments."""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

from agents.td_minimax import Net, TDMinimaxAgent
from agents.td_minimax.net import read_metadata
from training import td_minimax as trainer


def tiny(tmp_path, **overrides) -> trainer.Args:
    options = dict(
        games=300, run_dir=str(tmp_path), checkpoint_every=100, log_every=50, eval_every=150,
        eval_games=2, eval_opponents="greedy;random", random_plies=4, progress=False, tensorboard=False,
    )
    options.update(overrides)
    return trainer.Args(**options)


def test_every_argument_has_a_docstring():
    docs = trainer.field_docs(trainer.Args)
    assert set(docs) == {f.name for f in dataclasses.fields(trainer.Args)}
    assert all(docs.values())
    args, given = trainer.parse_args(["--games", "7", "--curriculum", "--no-progress", "--eval-opponents", "greedy;random"])
    assert (args.games, args.curriculum, args.progress, args.depth) == (7, True, False, 2)
    assert given == {"games": 7, "curriculum": True, "progress": False, "eval_opponents": "greedy;random"}


def test_tiny_run_checkpoints_and_resumes(tmp_path):
    state = trainer.train(tiny(tmp_path, tensorboard=True))
    run = tmp_path / state.run_name
    assert state.games == 300
    document = json.loads((run / "checkpoint.json").read_text())
    assert document["games"] == 300 and document["rng"] == state.rng
    assert json.loads(read_metadata(run / "checkpoint.safetensors")["training_state"]) == document
    assert sorted(p.name for p in (run / "snapshots").iterdir()) == [
        f"games_{n:08d}.safetensors" for n in (0, 100, 150, 200, 300)  # checkpoints and evaluations
    ]
    assert [e["games"] for e in document["evaluations"]] == [150, 300]
    assert set(document["evaluations"][0]["results"]) == {"greedy", "random"}
    assert list(run.glob("events.out.tfevents.*"))
    totals = document["totals"]
    assert totals["black_wins"] + totals["white_wins"] + totals["draws"] == 300
    assert not list(run.rglob("*.tmp"))

    # The checkpoint plays.
    agent = TDMinimaxAgent(weights=str(run / "checkpoint.safetensors"))
    assert agent.select_move(trainer_game()) is not None

    # Resume: the counter continues from 300 to the new total.
    resumed = trainer.train(trainer.Args(resume=str(run), games=400, progress=False, tensorboard=False), {"games": 400})
    assert resumed.run_name == state.run_name and resumed.games == 400
    assert json.loads((run / "checkpoint.json").read_text())["games"] == 400
    assert (run / "snapshots" / "games_00000400.safetensors").exists()


def trainer_game():
    from checkers_env import Game

    return Game()


def test_resumed_run_equals_uninterrupted_run(tmp_path):
    straight = trainer.train(tiny(tmp_path / "a", games=200, eval_every=0))
    half = trainer.train(tiny(tmp_path / "b", games=100, eval_every=0))
    resumed = trainer.train(trainer.Args(resume=str(tmp_path / "b" / half.run_name), games=200), {"games": 200})
    a = Net.load(tmp_path / "a" / straight.run_name / "checkpoint.safetensors")
    b = Net.load(tmp_path / "b" / half.run_name / "checkpoint.safetensors")
    for x, y in zip(a.arrays, b.arrays):
        np.testing.assert_array_equal(x, y)
    assert resumed.rng == straight.rng and resumed.totals == straight.totals


def test_a_failed_write_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    state = trainer.train(tiny(tmp_path, games=100, eval_every=0))
    run = tmp_path / state.run_name
    before = (run / "checkpoint.safetensors").read_bytes()

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as if the process died between writing and renaming

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        trainer.save_checkpoint(run, Net.initial(seed=99), state)
    monkeypatch.undo()
    assert (run / "checkpoint.safetensors").read_bytes() == before
    assert not list(run.rglob("*.tmp"))
    Net.load(run / "checkpoint.safetensors")


def test_resume_from_nothing_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no checkpoint"):
        trainer.train(trainer.Args(resume=str(tmp_path / "missing"), progress=False), {})


def test_promote_writes_a_valid_zoo_card(tmp_path, monkeypatch):
    from agents.zoo import validate_card
    from checkers_env import make_agent

    state = trainer.train(tiny(tmp_path / "runs", games=50, eval_every=0, promote=str(tmp_path / "zoo" / "td-minimax")))
    folder = tmp_path / "zoo" / "td-minimax"
    card = json.loads((folder / "card.json").read_text())
    assert validate_card(card, folder) == []
    assert card["kind"] == "td-minimax" and card["training"]["games"] == state.games == 50
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path / "zoo"))
    agent = make_agent("zoo:td-minimax")
    assert agent.select_move(trainer_game()) in trainer_game().legal_moves()
