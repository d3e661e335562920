"""Bad trainer options from issue 16, typed as a user types them: each gives one line naming the
option and exit status 2, before any work starts (no run folder is written)."""

from __future__ import annotations

import pytest

from checkers_evaluation.cli import main

CASES = [
    (["ppo", "--total-timesteps", "0"], "--total-timesteps: must be at least 1, got 0"),
    (["ppo", "--n-envs", "0"], "--n-envs: must be at least 1, got 0"),
    (["ppo", "--reward", "foo"], "--reward: invalid choice: 'foo' (choose from 'win_loss', 'material')"),
    (["slow-fast", "--hidden", "abc"], "--hidden: must be layer sizes separated by commas, like 256,128, got 'abc'"),
    (["slow-fast", "--learning-rate", "-1"], "--learning-rate: must be at least 0.0, got -1.0"),
    # nan passed every bound check and trained on nan; inf is no learning rate either.
    (["slow-fast", "--learning-rate", "nan"], "--learning-rate: must be a finite number, got nan"),
    (["ppo", "--learning-rate", "inf"], "--learning-rate: must be a finite number, got inf"),
    (["td-minimax", "--lr-game", "nan"], "--lr-game: must be a finite number, got nan"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_bad_trainer_option_is_one_line_and_exit_status_2(argv, message, tmp_path, capsys):
    if argv[0] == "ppo":
        pytest.importorskip("sb3_contrib")
    runs = tmp_path / "runs"
    status = main(["train", *argv, "--runs", str(runs)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err == f"checkers: error: {message}\n"
    assert captured.out == ""
    assert not runs.exists()  # nothing started
