"""checkers train bc on a tiny budget: it trains, reports its accuracy, and its weights play."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")


def test_tiny_run_trains_reports_and_plays(tmp_path):
    from checkers_env import Game, make_agent
    from checkers_training.behaviour_cloning import Args, train

    args = Args(
        max_games=12,
        steps=3,
        batch_size=32,
        hidden=8,
        eval_games=2,
        out=str(tmp_path / "bc" / "r"),
        progress=False,
        tensorboard=False,
    )
    summary = train(args, {"max_games", "steps", "batch_size", "hidden", "eval_games", "out"})
    assert summary["games"] == 12 and summary["steps"] == 3
    assert 0 <= summary["validation_move_accuracy"] <= 1
    assert set(summary["evaluations"]) == {"random", "greedy"}
    agent = make_agent(f"bc:weights={summary['weights']}")
    assert agent.select_move(Game()) in Game().legal_moves()


def test_bad_weights_are_a_clear_error(tmp_path):
    from checkers_env import WeightsError, make_agent

    with pytest.raises(WeightsError, match="does not exist"):
        make_agent(f"bc:weights={tmp_path / 'missing.safetensors'}")


def test_no_validation_games_writes_null_not_nan(tmp_path, capsys):
    import json

    import numpy as np

    from checkers_training.behaviour_cloning import main

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    from checkers_env import Rules, make_agent
    from checkers_env.match import play_game

    games = [
        play_game(
            make_agent("greedy"), make_agent("random", seed=seed), "", Rules(max_plies=40), np.random.default_rng(seed)
        )
        .to_game()
        .to_pdn()
        for seed in range(3)
    ]
    (tmp_path / "games.pdn").write_text("\n\n".join(games) + "\n")
    assert (
        main(
            [
                "--data",
                str(tmp_path / "games.pdn"),
                "--steps",
                "2",
                "--batch-size",
                "16",
                "--hidden",
                "8",
                "--validation",
                "0",
                "--eval-games",
                "0",
                "--out",
                str(tmp_path / "bc" / "r2"),
                "--no-progress",
                "--no-tensorboard",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1], parse_constant=refuse)
    assert summary["validation_move_accuracy"] is None and summary["validation_hop_accuracy"] is None


def test_json_files_never_hold_nan(tmp_path):
    import json

    from checkers_env.files import json_text, write_json_atomic

    write_json_atomic(tmp_path / "a.json", {"accuracy": float("nan"), "curve": [1.0, float("inf"), -float("inf")]})
    assert json.loads((tmp_path / "a.json").read_text()) == {"accuracy": None, "curve": [1.0, None, None]}
    assert json_text({"loss": float("nan")}) == '{"loss": null}'
