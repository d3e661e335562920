"""The mctx example trains a tiny Gumbel AlphaZero on the JAX env (tiny sizes, CPU)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("pgx")
pytest.importorskip("mctx")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "mctx_alphazero.py"


def load_example():
    spec = importlib.util.spec_from_file_location("mctx_alphazero", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_few_iterations_learn_from_their_own_games():
    history = load_example().train(iterations=3, games=16, steps=48, simulations=8, updates=4, verbose=False)
    assert len(history) == 3
    for stats in history:
        assert all(math.isfinite(value) for value in stats.values()), stats
        assert stats["loss_after"] < stats["loss_before"], stats  # the updates fit the batch they saw
    assert sum(stats["games_ended"] for stats in history) > 0
    assert sum(stats["targets"] for stats in history) > 0


def test_the_command_line_runs(capsys):
    load_example().main(["--iterations", "1", "--games", "4", "--steps", "8", "--simulations", "4", "--updates", "1"])
    out = capsys.readouterr().out
    assert "iteration   1" in out and "self-play hops" in out
