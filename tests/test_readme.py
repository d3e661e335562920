"""Every ```python block of README.md runs as is, and every `checkers ...` line of its
```bash blocks succeeds. Blocks that are not meant to run use another fence (```text).

The README is the front door: short, its zoo table the league's files say, its links alive.
The pages of docs/ have their own runner, tests/test_docs.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"

_FENCE_RE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def _blocks(language: str) -> list[tuple[int, str]]:
    """(line number, code) of each fenced block of ``language`` in README.md."""
    text = README.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(2))
        for match in _FENCE_RE.finditer(text)
        if match.group(1) == language
    ]


PYTHON_BLOCKS = _blocks("python")
CLI_LINES = [
    (line_number + offset + 1, line.split("#")[0].strip())
    for line_number, code in _blocks("bash")
    for offset, line in enumerate(code.splitlines())
    if line.startswith("checkers ")
]


def test_readme_has_examples():
    assert len(PYTHON_BLOCKS) >= 5
    assert CLI_LINES


@pytest.mark.parametrize(("line", "code"), PYTHON_BLOCKS, ids=[f"README.md:{n}" for n, _ in PYTHON_BLOCKS])
def test_python_block_runs(line, code, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    namespace = {"__name__": "__readme__"}  # a fresh namespace for each block
    exec(compile(code, f"README.md:{line}", "exec"), namespace)


@pytest.mark.parametrize(("line", "command"), CLI_LINES, ids=[f"README.md:{n}" for n, _ in CLI_LINES])
def test_cli_line_runs(line, command, monkeypatch, capsys):
    from checkers_evaluation.cli import main

    monkeypatch.chdir(REPO_ROOT)
    assert main(shlex.split(command)[1:]) == 0, capsys.readouterr().err


def _prose() -> str:
    """README.md with its lines joined, so that a phrase may break across lines."""
    return " ".join(README.read_text(encoding="utf-8").split())


def test_readme_says_what_make_demo_plays_and_builds():
    from checkers_env import egdb
    from checkers_evaluation import demo

    agents = demo.demo_agents()
    pieces = demo.database_pieces(agents)
    text = _prose()
    assert (
        f"on its first run it builds the {pieces}-piece endgame database ({egdb.size_text(pieces)} in the "
        f"platform's cache folder, {egdb.BUILD_TIME[pieces]}:"
    ) in text
    assert (
        f"then it plays {demo.demo_games(agents)} games between {len(agents)} agents (the {len(demo.BASELINES)} "
        f"baselines and the {len(agents) - len(demo.BASELINES)} agents of the zoo, {demo.GAMES_PER_PAIR} games a pair)"
    ) in text


def _generated():
    """docs/hooks/generated.py, which makes the site's generated parts (and the zoo table)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_generated", REPO_ROOT / "docs" / "hooks" / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_is_a_front_door():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_readme_zoo_table_is_what_the_league_files_say():
    """The table is zoo/league/ratings.csv as docs/hooks/generated.py writes it; after a new
    league, paste the table this test prints."""
    expected = _generated().zoo_table("docs/")
    assert expected in README.read_text(encoding="utf-8"), f"README.md's zoo table should read:\n{expected}"


def test_readme_names_every_zoo_agent():
    text = _prose()
    for name in _generated().zoo_names():
        assert f"`zoo:{name}`" in text


def test_readme_links_point_at_files_of_the_repository():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link]
    assert local
    assert [link for link in local if not (REPO_ROOT / link).exists()] == []
