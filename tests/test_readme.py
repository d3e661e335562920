"""Every ```python block of README.md runs as is, and every `checkers ...` line of its
```bash blocks succeeds. Blocks that are not meant to run use another fence (```text)."""

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


def test_readme_endgame_figures_are_the_ones_the_help_gives():
    import re

    from checkers_env import egdb

    text = _prose()
    assert f"({egdb.build_figures()}, on 2 cores)" in text  # as `checkers egdb build --help` says
    sizes = {egdb.size_text(n) for n in range(2, egdb.MAX_BUILD_PIECES + 1)}
    assert set(re.findall(r"\d+(?:\.\d+)? MB", text)) <= sizes
    for line in README.read_text(encoding="utf-8").splitlines():
        if "egdb build --pieces 5" in line and "#" in line and "MB" in line:
            assert f"{egdb.BUILD_TIME[5]}, {egdb.size_text(5)}" in line, line


def test_readme_figures_of_greedy_against_random_are_what_the_league_plays(tmp_path):
    """The games the README quotes to say why the demo cannot order greedy and random
    (the same as its `checkers league random greedy --games-per-pair 300 --seed 1` and 2)."""
    import math

    from checkers_env import Rules
    from checkers_evaluation.league import League

    wins = draws = losses = 0
    for seed in (1, 2):
        ratings = League(["random", "greedy"], out=tmp_path / str(seed), games_per_pair=300, seed=seed,
                         rules=Rules(max_plies=400), bootstrap=0, progress=False).run()
        wins, draws, losses = wins + ratings["greedy"].wins, draws + ratings["greedy"].draws, losses + ratings["greedy"].losses
    games = wins + draws + losses
    score = (wins + draws / 2) / games
    elo = 400 * math.log10(score / (1 - score))
    text = _prose()
    assert (f"scores about {round(100 * score)} % against random ({wins} wins, {draws} draws and {losses} losses "
            f"in {games} games, `checkers league random greedy --games-per-pair 300 --seed 1`, then `--seed 2`), "
            f"about {round(elo, -1):.0f} Elo") in text
