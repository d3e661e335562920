"""A plain ``pip install .`` (no extra): every command's help works, ``checkers agents`` lists
every kind and marks those that need an extra, and an agent or trainer that needs one fails
with one line naming the extra to install.

The missing packages are simulated in a fresh interpreter: a ``sitecustomize.py`` on
``PYTHONPATH`` puts a finder first on ``sys.meta_path`` that refuses them, so ``import torch``
fails as it does when torch is not installed, in that interpreter and in any it starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What the ``train`` extra adds (pyproject.toml); a plain install has none of them.
TRAIN_EXTRA = ["torch", "stable_baselines3", "sb3_contrib", "tensorboard"]

_HIDER = '''
import sys

HIDDEN = {hidden!r}


class HideModules:
    """Refuses the modules of an extra that is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, HideModules())
'''


def run_without(modules: list[str], code: str, folder: Path) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter in which ``modules`` are not installed."""
    (folder / "sitecustomize.py").write_text(_HIDER.format(hidden=set(modules)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")])))
    return subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_simulation_hides_the_extra(tmp_path):
    result = run_without(TRAIN_EXTRA, "import torch", tmp_path)
    assert result.returncode == 1 and "ModuleNotFoundError: No module named 'torch'" in result.stderr


@pytest.mark.parametrize("spec", ["zoo:slow-fast", "zoo:ppo", "slow-fast:weights=untrained"])
def test_an_agent_that_needs_torch_names_the_extra(spec, tmp_path):
    result = run_without(
        ["torch", "stable_baselines3", "sb3_contrib"],
        "from checkers_env import make_agent\n"
        "try:\n"
        f"    make_agent({spec!r})\n"
        "except Exception as error:\n"
        "    print(type(error).__name__, error)\n",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("MissingDependencyError "), result.stdout
    assert "pip install 'checkers-suite[train]'" in result.stdout


def test_the_cli_says_it_in_one_line(tmp_path):
    runs = tmp_path / "runs"
    result = run_without(
        ["torch"],
        f"from checkers_evaluation.cli import main; sys.exit(main(['train', 'slow-fast', '--out', {str(runs)!r}]))",
        tmp_path,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "torch" in lines[0] and "checkers-suite[train]" in lines[0], result.stderr
    assert not runs.exists()  # said before any folder is made
    # Its --help needs no torch.
    result = run_without(
        ["torch"],
        "from checkers_evaluation.cli import main; sys.exit(main(['train', 'slow-fast', '--help']))",
        tmp_path,
    )
    assert result.returncode == 0 and "--explore-fraction" in result.stdout, result.stderr


def test_an_agent_without_optional_needs_still_plays(tmp_path):
    result = run_without(
        ["torch", "stable_baselines3", "sb3_contrib"],
        "from checkers_env import Game, make_agent; print(make_agent('zoo:td-minimax').select_move(Game()))",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr


def test_agents_lists_every_kind_and_marks_those_that_need_an_extra(tmp_path):
    from checkers_env import agent_kinds

    result = run_without(TRAIN_EXTRA, "from checkers_evaluation.cli import main; sys.exit(main(['agents']))", tmp_path)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    listed = {line.split()[0]: line for line in result.stdout.splitlines()[2:] if line and not line.startswith(" ")}
    assert sorted(listed) == sorted(agent_kinds())
    assert listed["slow-fast"].startswith("slow-fast    (not available) needs torch")
    assert "slow-fast (not available) needs torch, which is not installed: pip install 'checkers-suite[train]'" in (
        " ".join(result.stdout.split())
    )
    assert "(not available)" not in listed["td-minimax"] + listed["alphabeta"]


# Every command and subcommand's --help, found by walking the parser (the trainers' own
# options are their scripts' business: ``checkers train --help`` is the command's).
_EVERY_HELP = """
import json
from checkers_evaluation.cli import build_parser, main

def commands(parser, path):
    yield path
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for name, sub in action.choices.items():
            yield from commands(sub, path + [name])

statuses = {" ".join(path): main(path + ["--help"]) for path in commands(build_parser(), [])}
print(json.dumps(statuses), file=sys.stderr)
"""


def test_every_help_works_without_the_train_extra(tmp_path):
    result = run_without(TRAIN_EXTRA, _EVERY_HELP, tmp_path)
    assert result.returncode == 0, result.stderr
    statuses = json.loads(result.stderr.strip().splitlines()[-1])
    assert {"", "agents", "league", "play", "egdb build", "data mcrd", "train"} <= set(statuses)
    assert statuses == dict.fromkeys(statuses, 0), statuses


@pytest.mark.parametrize("hidden", ["jax", "pgx"])
def test_the_jax_env_names_its_extra(hidden, tmp_path):
    result = run_without(
        [hidden],
        "try:\n"
        "    import checkers_env.jax\n"
        "except Exception as error:\n"
        "    print(type(error).__name__, error)\n"
        "import checkers_env; print(checkers_env.Board().fen())\n",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()
    assert first == (
        f"MissingDependencyError checkers_env.jax needs {hidden}, which is not installed: "
        "pip install 'checkers-suite[jax]'"
    )
    assert second.startswith("B:W21")  # the rest of the core does not need it
