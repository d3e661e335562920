"""Without an optional extra, an agent or trainer that needs it fails with one line naming the
extra to install. The missing module is simulated in a fresh interpreter (``sys.modules[name]
= None`` makes ``import name`` fail as it does when the package is not installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_without(modules: list[str], code: str) -> subprocess.CompletedProcess:
    hide = "; ".join(f"sys.modules[{m!r}] = None" for m in modules)
    return subprocess.run(
        [sys.executable, "-c", f"import sys; {hide}; {code}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.parametrize("spec", ["zoo:slow-fast", "zoo:ppo", "slow-fast:weights=untrained"])
def test_an_agent_that_needs_torch_names_the_extra(spec):
    result = run_without(
        ["torch", "stable_baselines3", "sb3_contrib"],
        "from checkers_env import make_agent\n"
        "try:\n"
        f"    make_agent({spec!r})\n"
        "except Exception as error:\n"
        "    print(type(error).__name__, error)\n",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("MissingDependencyError "), result.stdout
    assert "pip install 'checkers-suite[train]'" in result.stdout


def test_the_cli_says_it_in_one_line(tmp_path):
    runs = tmp_path / "runs"
    result = run_without(
        ["torch"],
        f"from checkers_evaluation.cli import main; sys.exit(main(['train', 'slow-fast', '--runs', {str(runs)!r}]))",
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "torch" in lines[0] and "checkers-suite[train]" in lines[0], result.stderr
    assert not runs.exists()  # said before any folder is made
    # Its --help needs no torch.
    result = run_without(["torch"], "from checkers_evaluation.cli import main; sys.exit(main(['train', 'slow-fast', '--help']))")
    assert result.returncode == 0 and "--explore-fraction" in result.stdout, result.stderr


def test_an_agent_without_optional_needs_still_plays():
    result = run_without(
        ["torch", "stable_baselines3", "sb3_contrib"],
        "from checkers_env import Game, make_agent; print(make_agent('zoo:td-minimax').select_move(Game()))",
    )
    assert result.returncode == 0, result.stderr
