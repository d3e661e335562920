"""The TD-minimax trainer: a tiny run, checkpoints, resume, atomic writes, the scaffold's rules."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from checkers_agents.td_minimax import Net, TDMinimaxAgent
from checkers_agents.td_minimax.net import read_metadata
from checkers_env import Game, WeightsError
from checkers_training import td_minimax as trainer
from checkers_training.scaffold import TrainingError


def tiny(tmp_path, **overrides) -> trainer.Args:
    options = dict(
        games=300,
        out=str(tmp_path / "td-minimax" / "tiny"),
        checkpoint_every=100,
        log_every=50,
        eval_every=150,
        eval_games=2,
        eval_opponents="greedy;random",
        random_plies=4,
        progress=False,
        tensorboard=False,
    )
    options.update(overrides)
    return trainer.Args(**options)


def test_parse_args_knows_the_given_options():
    args, given = trainer.parse_args(
        ["--games", "7", "--curriculum", "--no-progress", "--eval-opponents", "greedy;random"]
    )
    assert (args.games, args.curriculum, args.progress, args.depth) == (7, True, False, 2)
    assert given == {"games", "curriculum", "progress", "eval_opponents"}


def test_the_defaults_are_the_zoo_recipe():
    """Without random opening plies the self-play draws almost every game and learns
    nothing (the net ends rated below random): the zoo's 10 plies are the default."""
    card = json.loads((trainer.scaffold.REPO_ROOT / "zoo" / "td-minimax" / "card.json").read_text())
    recipe = card["training"]["args"]
    args = trainer.Args()
    for name in ("random_plies", "depth", "quiescence", "lr_game", "lr_end", "hidden", "games"):
        assert getattr(args, name) == recipe[name], name


def test_tiny_run_checkpoints_and_resumes(tmp_path):
    state = trainer.train(tiny(tmp_path, tensorboard=True))
    run = tmp_path / "td-minimax" / "tiny"
    assert state.games == 300 and state.run_name == "tiny"
    document = json.loads((run / "checkpoint.json").read_text())
    assert document["games"] == 300 and document["rng"] == state.rng
    assert json.loads(read_metadata(run / "checkpoint.safetensors")["training_state"]) == document
    assert sorted(p.name for p in (run / "snapshots").iterdir()) == [
        f"games_{n:08d}.safetensors"
        for n in (0, 100, 150, 200, 300)  # checkpoints and evaluations
    ]
    assert [e["games"] for e in document["evaluations"]] == [150, 300]
    assert set(document["evaluations"][0]["results"]) == {"greedy", "random"}
    assert list(run.glob("events.out.tfevents.*"))
    totals = document["totals"]
    assert totals["black_wins"] + totals["white_wins"] + totals["draws"] == 300
    assert not list(run.rglob("*.tmp"))

    agent = TDMinimaxAgent(weights=str(run / "checkpoint.safetensors"))
    assert agent.select_move(Game()) in Game().legal_moves()

    # Resume with only --resume: the saved options win (no default replaces them).
    again = trainer.train(trainer.Args(out=str(run), resume=True), {"out", "resume"})
    assert again.games == 300 and again.args["random_plies"] == 4 and again.args["eval_games"] == 2
    # Raising the budget continues the run from 300 to the new total.
    resumed = trainer.train(trainer.Args(out=str(run), resume=True, games=400), {"out", "resume", "games"})
    assert resumed.run_name == "tiny" and resumed.games == 400
    assert (run / "snapshots" / "games_00000400.safetensors").exists()
    sessions = json.loads((run / "run.json").read_text())["sessions"]
    assert [s["command"].split()[3:5] for s in sessions[1:]] == [["--out", str(run)], ["--out", str(run)]]


def test_resume_refuses_an_option_that_changes_the_run(tmp_path):
    trainer.train(tiny(tmp_path, games=20, eval_every=0, eval_games=0))
    run = tmp_path / "td-minimax" / "tiny"
    with pytest.raises(TrainingError, match=r"^--hidden 64 would change the run, which was started with --hidden 40"):
        trainer.main(["--out", str(run), "--resume", "--hidden", "64"])
    with pytest.raises(TrainingError, match="^--games 10: a resume can raise"):
        trainer.main(["--out", str(run), "--resume", "--games", "10"])
    with pytest.raises(TrainingError, match="^--overwrite: cannot go with --resume"):
        trainer.main(["--out", str(run), "--resume", "--overwrite"])
    # Options that do not change the run may differ.
    trainer.main(["--out", str(run), "--resume", "--no-progress", "--torch-threads", "2", "--no-tensorboard"])


def test_a_second_run_never_writes_into_the_first(tmp_path):
    trainer.train(tiny(tmp_path, games=20, eval_every=0, eval_games=0))
    run = tmp_path / "td-minimax" / "tiny"
    before = (run / "checkpoint.safetensors").read_bytes()
    with pytest.raises(TrainingError, match="holds another run"):
        trainer.train(tiny(tmp_path, games=30, eval_every=0, eval_games=0, seed=5))
    assert (run / "checkpoint.safetensors").read_bytes() == before
    state = trainer.train(tiny(tmp_path, games=30, eval_every=0, eval_games=0, seed=5, overwrite=True))
    assert state.games == 30 and json.loads((run / "run.json").read_text())["args"]["seed"] == 5
    assert sorted(p.name for p in (run / "snapshots").iterdir()) == [
        "games_00000000.safetensors",
        "games_00000030.safetensors",
    ]


def test_resumed_run_equals_uninterrupted_run(tmp_path):
    straight = trainer.train(tiny(tmp_path / "a", games=200, eval_every=0, eval_games=0))
    trainer.train(tiny(tmp_path / "b", games=100, eval_every=0, eval_games=0))
    resumed = trainer.train(trainer.Args(out=str(tmp_path / "b" / "td-minimax" / "tiny"), resume=True, games=200))
    a = Net.load(tmp_path / "a" / "td-minimax" / "tiny" / "checkpoint.safetensors")
    b = Net.load(tmp_path / "b" / "td-minimax" / "tiny" / "checkpoint.safetensors")
    for x, y in zip(a.arrays, b.arrays):
        np.testing.assert_array_equal(x, y)
    assert resumed.rng == straight.rng and resumed.totals == straight.totals


def test_a_failed_write_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    state = trainer.train(tiny(tmp_path, games=100, eval_every=0, eval_games=0))
    run = tmp_path / "td-minimax" / "tiny"
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
    with pytest.raises(TrainingError, match="no run there"):
        trainer.train(trainer.Args(out=str(tmp_path / "missing"), resume=True, progress=False))


def test_damaged_checkpoints_raise_weights_error(tmp_path):
    trainer.train(tiny(tmp_path, games=10, eval_every=0, eval_games=0))
    run = tmp_path / "td-minimax" / "tiny"
    path = run / "checkpoint.safetensors"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightsError, match="checkpoint.safetensors"):
        trainer.train(trainer.Args(out=str(run), resume=True))
    Net.initial(1).save(path)  # weights without a training state: not a checkpoint
    with pytest.raises(WeightsError, match="no training state"):
        trainer.load_checkpoint(run)
    path.unlink()
    with pytest.raises(WeightsError, match="does not exist"):
        trainer.load_checkpoint(run)


def test_promote_writes_a_valid_zoo_card(tmp_path, monkeypatch):
    from checkers_agents.zoo import validate_card
    from checkers_env import make_agent

    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path / "zoo"))
    state = trainer.train(tiny(tmp_path / "runs", games=50, eval_every=0, promote="td-minimax"))
    folder = tmp_path / "zoo" / "td-minimax"
    card = json.loads((folder / "card.json").read_text())
    assert validate_card(card, folder) == []
    assert card["kind"] == "td-minimax" and card["training"]["args"]["games"] == state.games == 50
    assert card["training"]["command"].startswith("checkers train td-minimax --out ")
    assert "league" not in card
    agent = make_agent("zoo:td-minimax")
    assert agent.select_move(Game()) in Game().legal_moves()
