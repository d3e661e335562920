"""Bad trainer options from issue 16, typed as a user types them: each gives one line naming the
option and exit status 2, before any work starts (no run folder is written)."""

from __future__ import annotations

import pytest

from checkers_evaluation.cli import main

CASES = [
    (["ppo", "--total-timesteps", "0"], "--total-timesteps: must be >= 1, got '0'"),
    (["ppo", "--n-envs", "0"], "--n-envs: must be 1 to 256, got '0'"),
    (["ppo", "--reward", "foo"], "--reward: invalid choice: 'foo' (choose from 'win_loss', 'material')"),
    (["slow-fast", "--hidden", "abc"], "--hidden: must be layer sizes separated by commas, like 256,128, got 'abc'"),
    (["slow-fast", "--learning-rate", "-1"], "--learning-rate: must be >= 0.0, got '-1'"),
    # nan passed every bound check and trained on nan; inf is no learning rate either.
    (["slow-fast", "--learning-rate", "nan"], "--learning-rate: must be a finite number, got 'nan'"),
    (["ppo", "--learning-rate", "inf"], "--learning-rate: must be a finite number, got 'inf'"),
    (["td-minimax", "--lr-game", "nan"], "--lr-game: must be a finite number, got 'nan'"),
    # Seeds: a negative one, one in exponent notation, one past what the generators take.
    (["td-minimax", "--seed", "-1"], "--seed: must be 0 to 4294967295, got '-1'"),
    (["bc", "--seed", "1e23"], "--seed: expected a whole number, got '1e23'"),
    (["bc", "--seed", "99999999999999999999999"], "--seed: must be 0 to 4294967295, got '99999999999999999999999'"),
    # Sizes that would ask for terabytes before the first step.
    (["bc", "--hidden", "100000000"], "--hidden: must be 1 to 4096, got '100000000'"),
    (["td-minimax", "--hidden", "100000000"], "--hidden: must be 1 to 4096, got '100000000'"),
    (["mcrd-net", "--channels", "100000"], "--channels: must be 0 to 512, got '100000'"),
    (["mcrd-net", "--hidden", "-1"], "--hidden: must be 0 to 4096, got '-1'"),
    (
        ["mcrd-net", "--architecture", "conv-deep"],
        "--architecture: invalid choice: 'conv-deep' (choose from 'conv-dense', 'conv-local', 'conv-local-dense')",
    ),
    (["outcome-net", "--middle", "100000000"], "--middle: must be 0 to 4096, got '100000000'"),
    (["bc", "--batch-size", "100000000"], "--batch-size: must be 1 to 65536, got '100000000'"),
    (["outcome-net", "--workers", "100000"], "--workers: must be 1 to 256, got '100000'"),
    (["slow-fast", "--hidden", "256,100000000"], "--hidden: layers may have at most 4096 units, got '256,100000000'"),
    (["slow-fast", "--buffer-capacity", "10000000000"], "--buffer-capacity: must be 1 to 10000000, got '10000000000'"),
    (["ppo", "--net-arch", "64x100000000"], "--net-arch: layers may have at most 4096 units, got '64x100000000'"),
    (
        ["ppo", "--n-envs", "256", "--n-steps", "16384"],
        "--n-steps: --n-envs x --n-steps is the rollout, at most 1048576 steps, got 4194304",
    ),
    (["ppo", "--torch-threads", "100000"], "--torch-threads: must be 1 to 256, got '100000'"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_bad_trainer_option_is_one_line_and_exit_status_2(argv, message, tmp_path, capsys):
    if argv[0] == "ppo":
        pytest.importorskip("sb3_contrib")
    runs = tmp_path / "runs"
    status = main(["train", *argv, "--out", str(runs)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err == f"checkers: error: {message}\n"
    assert captured.out == ""
    assert not runs.exists()  # nothing started


def _one_line_status_2(argv: list[str], capsys) -> str:
    status = main(["train", *argv])
    captured = capsys.readouterr()
    assert status == 2, captured.err
    assert captured.err.count("\n") == 1 and captured.err.startswith("checkers: error: ")
    return captured.err


@pytest.mark.parametrize("trainer", ["bc", "td-minimax", "slow-fast", "ppo", "mcrd-net", "outcome-net", "alphazero"])
def test_out_naming_a_file_is_refused(trainer, tmp_path, capsys):
    if trainer == "ppo":
        pytest.importorskip("sb3_contrib")
    runs = tmp_path / "runs"
    runs.write_text("a file")
    err = _one_line_status_2(
        [trainer, "--out", str(runs), "--data", str(tmp_path)]
        if trainer == "mcrd-net"
        else [trainer, "--out", str(runs)],
        capsys,
    )
    assert f"--out: {str(runs)!r} is a file, not a run folder" in err
    assert runs.read_text() == "a file"


def test_a_trainer_folder_that_is_a_file_is_refused(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "td-minimax").write_text("a file")
    err = _one_line_status_2(
        ["td-minimax", "--out", str(runs / "td-minimax" / "r"), "--games", "1", "--no-tensorboard"], capsys
    )
    assert "cannot make the run folder" in err and "td-minimax" in err


def test_resume_naming_a_file_is_refused(tmp_path, capsys):
    record = tmp_path / "run.json"
    record.write_text("{}")
    err = _one_line_status_2(["td-minimax", "--out", str(record), "--resume"], capsys)
    assert f"--out: {str(record)!r} is a file, not a run folder" in err


@pytest.mark.parametrize(
    "record, problem",
    [
        ({"trainer": "td-minimax", "run_name": "r", "sessions": []}, "has no 'args' dict"),
        ({"trainer": "td-minimax", "run_name": "r", "args": [], "sessions": []}, "has no 'args' dict"),
        ({"trainer": "td-minimax", "run_name": "r", "args": {}}, "has no 'sessions' list"),
        (["td-minimax"], "is not a run record"),
    ],
)
def test_a_run_record_without_args_is_a_clear_error(record, problem, tmp_path, capsys):
    import json

    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps(record))
    err = _one_line_status_2(["td-minimax", "--out", str(run), "--resume", "--no-tensorboard"], capsys)
    assert problem in err and "run.json" in err


# -- without the `train` extra ------------------------------------------------------------------

#: ``checkers`` in a child where the named modules cannot be imported (as after a plain
#: ``pip install .``): ``sys.modules[name] = None`` makes ``import name`` fail.
WITHOUT = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
from checkers_evaluation.cli import main
sys.exit(main(sys.argv[2:]))
"""

TRAINERS = ["bc", "td-minimax", "slow-fast", "ppo", "mcrd-net", "outcome-net", "alphazero"]


def _without(modules: str, *argv: str, cwd=None):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-c", WITHOUT, modules, *argv], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_every_trainer_help_works_without_torch():
    for trainer in TRAINERS:
        done = _without("torch,tensorboard,stable_baselines3,sb3_contrib", "train", trainer, "--help")
        assert done.returncode == 0, (trainer, done.stderr)
        assert f"usage: checkers train {trainer}" in done.stdout and "--seed" in done.stdout


def test_every_trainer_names_what_is_missing_before_making_a_folder(tmp_path):
    runs = tmp_path / "runs"
    for trainer in TRAINERS:
        if trainer == "td-minimax":  # it needs torch only for TensorBoard (the next test)
            continue
        extra = ["--data", str(tmp_path)] if trainer == "mcrd-net" else []
        done = _without("torch", "train", trainer, "--out", str(runs), *extra, "--no-tensorboard")
        assert done.returncode == 2, (trainer, done.stderr)
        assert done.stderr.count("\n") == 1 and "needs torch" in done.stderr, (trainer, done.stderr)
        assert "pip install 'checkers-suite[train]'" in done.stderr
        assert not runs.exists(), trainer


def test_tensorboard_missing_names_no_tensorboard_before_making_a_folder(tmp_path):
    runs = tmp_path / "runs"
    done = _without("tensorboard", "train", "td-minimax", "--out", str(runs), "--games", "1")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "needs tensorboard" in done.stderr and "--no-tensorboard" in done.stderr
    assert not runs.exists()


def test_bc_data_that_is_not_text_names_the_file_and_line(tmp_path, capsys):
    pytest.importorskip("torch")
    data = tmp_path / "games.pdn"
    data.write_bytes(b'[Event "a"]\n1. 11-15 \xff\xfe *\n')
    err = _one_line_status_2(["bc", "--data", str(data), "--out", str(tmp_path / "runs"), "--no-tensorboard"], capsys)
    assert f"{data}: line 2: not UTF-8 text: byte 0xff at column 10" in err
    assert not (tmp_path / "runs").exists()
