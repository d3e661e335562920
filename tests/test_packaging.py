"""The suite installs like a library: a wheel built from the repository, installed into a
fresh venv, loads the zoo and plays from any folder, and brings no top-level names but its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from checkers_env import __version__

REPO_ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
#: The installed import name of each repository folder.
FOLDERS = {
    "checkers_env": "checkers_env",
    "agents": "checkers_agents",
    "training": "checkers_training",
    "evaluation": "checkers_evaluation",
    "zoo": "checkers_zoo",
}


def test_every_package_folder_is_listed_under_its_installed_name():
    found = set()
    for folder, name in FOLDERS.items():
        for init in (REPO_ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO_ROOT / folder).parts
            found.add(".".join((name, *parts)))
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert sorted(setuptools["packages"]) == sorted(found)
    mapped = {name: folder for name, folder in setuptools["package-dir"].items()}
    assert mapped == {name: folder for folder, name in FOLDERS.items() if folder != name}


def test_entry_points_name_installed_modules():
    targets = [
        PYPROJECT["project"]["scripts"]["checkers"],
        *PYPROJECT["project"]["entry-points"]["checkers_env.agents"].values(),
    ]
    for target in targets:
        assert target.split(".")[0] in FOLDERS.values(), target


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The release's wheel and sdist as `python -m build` makes them (without isolation: the
    test venv already holds the build backend)."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(out), str(REPO_ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def wheel(dist) -> Path:
    (path,) = dist.glob(f"checkers_suite-{__version__}-*.whl")
    return path


def test_the_release_files_pass_twine_check(dist):
    files = sorted(dist.glob("checkers_suite-*"))
    assert [f.name for f in files] == [
        f"checkers_suite-{__version__}-py3-none-any.whl",
        f"checkers_suite-{__version__}.tar.gz",
    ]
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2, checked.stdout


def _first_readme_example() -> str:
    """The README's first ```python block: the example a newcomer runs first."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_wheel_holds_only_this_projects_names_and_the_zoo(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == set(FOLDERS.values())
    for entry in ("td-minimax", "slow-fast", "ppo", "mcrd"):
        assert f"checkers_zoo/{entry}/card.json" in names
        card = json.loads((REPO_ROOT / "zoo" / entry / "card.json").read_text())
        if "weights" in card:
            assert f"checkers_zoo/{entry}/{card['weights']}" in names
    for data in ("acf_games.pdn.xz", "ballots_3move.txt", "README.md"):
        assert f"checkers_env/data/{data}" in names
    assert "checkers_agents/data/book.json" in names  # the opening book
    for package in FOLDERS.values():
        if package != "checkers_zoo":
            assert f"{package}/py.typed" in names


def test_the_wheel_installed_in_a_fresh_venv_loads_the_zoo_and_plays_from_another_folder(wheel, tmp_path):
    """The zoo's agent loads its weights from the installed wheel; the game is played by the
    baselines, whose kernels compile in seconds (a search's take most of a minute in a fresh
    cache: the slow test below plays the zoo's agent from a full install)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # The dependencies come from the test venv as a plain path entry: its .pth files (the
    # editable install of this checkout among them) are not processed from there.
    fresh_site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (fresh_site / "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CHECKERS_ZOO")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    script = """
import json, checkers_env, checkers_agents, checkers_zoo
from checkers_env import Board, Game, make_agent
from checkers_env.datasets import ACF_GAMES
from checkers_agents.zoo import zoo_names
game = Game()
zoo = make_agent("zoo:td-minimax")
agents = [make_agent("greedy"), make_agent("random")]
while not game.is_over() and len(game.moves) < 20:
    game.play(agents[len(game.moves) % 2].select_move(game))
print(json.dumps({"files": [m.__file__ for m in (checkers_env, checkers_agents, checkers_zoo)], "agent": str(zoo),
                  "weights": zoo.weights,
                  "zoo": zoo_names(), "plies": len(game.moves), "acf": ACF_GAMES.stat().st_size}))
"""
    done = subprocess.run(
        [str(python), "-c", script], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for file in [*result["files"], result["weights"]]:
        assert Path(file).is_relative_to(fresh_site), file
    assert result["zoo"] == sorted(p.parent.name for p in (REPO_ROOT / "zoo").glob("*/card.json"))
    assert result["plies"] == 20 and result["agent"] == "zoo:td-minimax"
    assert result["acf"] == (REPO_ROOT / "checkers_env" / "data" / "acf_games.pdn.xz").stat().st_size
    version = subprocess.run(
        [str(venv / "bin" / "checkers"), "--version"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert version.returncode == 0 and version.stdout.split()[-1] == __version__, version.stderr
    # The repository's short names are not importable from there.
    probe = subprocess.run(
        [str(python), "-c", "import agents"], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=60
    )
    assert "No module named 'agents'" in probe.stderr
    # The README's first example, run from the installed wheel in another folder.
    example = subprocess.run(
        [str(python), "-c", _first_readme_example()],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert example.returncode == 0, example.stderr


@pytest.mark.slow
def test_the_wheel_with_its_declared_dependencies_alone_plays_the_zoo(wheel, tmp_path):
    """The whole install a user makes, dependencies resolved from the package index: no torch,
    so the zoo's td-minimax net plays without the training extra."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True, timeout=900)
    script = (
        "import importlib.util; from checkers_env import Game, make_agent; g = Game(); "
        "g.play(make_agent('zoo:td-minimax').select_move(g)); "
        "print(importlib.util.find_spec('torch') is None, len(g.moves))"
    )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "1"]
