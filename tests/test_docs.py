"""The documentation site's pages (docs/, built by `make docs`) say what is true.

Every ```python block of a page runs as is, and every `checkers ...` line of its ```bash
blocks succeeds; blocks that are not meant to run use another fence (```text, ```console).
docs/design.md's blocks run in tests/test_design_doc.py (they register kinds, which that
file undoes), docs/results/ is the laboratory's records, not pages. The generated parts
(zoo cards, league table, benchmark tables) render from their files, every page is in the
site's navigation, and the paths the pages cite exist.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = REPO_ROOT / "docs"
#: Pages whose blocks another test file runs.
RUN_ELSEWHERE = {"design.md": "tests/test_design_doc.py"}

_FENCE_RE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def _pages() -> list[Path]:
    return sorted(path for path in DOCS.rglob("*.md") if path.relative_to(DOCS).parts[0] not in ("results", "hooks"))


PAGES = _pages()


def _name(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


def _blocks(language: str) -> list[tuple[str, int, str]]:
    """(page, line number, code) of each fenced block of ``language`` in the pages."""
    found = []
    for page in PAGES:
        if _name(page) in RUN_ELSEWHERE:
            continue
        text = page.read_text(encoding="utf-8")
        found += [
            (_name(page), text.count("\n", 0, match.start()) + 1, match.group(2))
            for match in _FENCE_RE.finditer(text)
            if match.group(1) == language
        ]
    return found


PYTHON_BLOCKS = _blocks("python")
CLI_LINES = [
    (page, line + offset + 1, text.split("#")[0].strip())
    for page, line, code in _blocks("bash")
    for offset, text in enumerate(code.splitlines())
    if text.startswith("checkers ")
]


def _generated():
    spec = importlib.util.spec_from_file_location("docs_generated", DOCS / "hooks" / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prose(page: str) -> str:
    return " ".join((DOCS / page).read_text(encoding="utf-8").split())


# -- the blocks run ----------------------------------------------------------------------------


def test_the_pages_have_examples():
    assert len(PYTHON_BLOCKS) >= 30 and CLI_LINES


@pytest.mark.parametrize(("page", "line", "code"), PYTHON_BLOCKS, ids=[f"{p}:{n}" for p, n, _ in PYTHON_BLOCKS])
def test_python_block_runs(page, line, code, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    namespace = {"__name__": "__docs__"}  # a fresh namespace for each block
    exec(compile(code, f"docs/{page}:{line}", "exec"), namespace)


@pytest.mark.parametrize(("page", "line", "command"), CLI_LINES, ids=[f"{p}:{n}" for p, n, _ in CLI_LINES])
def test_cli_line_runs(page, line, command, monkeypatch, capsys):
    from checkers_evaluation.cli import main

    monkeypatch.chdir(REPO_ROOT)
    assert main(shlex.split(command)[1:]) == 0, capsys.readouterr().err


# -- the site's shape ---------------------------------------------------------------------------


def _nav_pages() -> list[str]:
    text = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:") :]
    return re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)\s*$", nav, re.MULTILINE)


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page():
    nav = _nav_pages()
    assert sorted(nav) == sorted(_name(page) for page in PAGES)


def test_every_zoo_entry_has_its_card_on_its_agent_page():
    generated = _generated()
    assert sorted(generated.AGENT_PAGES) == generated.zoo_names()
    for name, page in generated.AGENT_PAGES.items():
        assert f"<!-- zoo-card {name} -->" in (DOCS / page).read_text(encoding="utf-8"), page
        card = generated.card_markdown(name, page.count("/"))
        command = (generated.card(name).get("training") or {}).get("command")
        if command:  # the commands that remake it, as the card has them
            assert all(f"$ {part}" in card for part in generated._commands(command))


def test_every_drift_measure_shows_its_counts_on_its_agent_page():
    """A drift-set measure's row gives its positions and every run's count, lists included."""
    generated = _generated()
    shown = 0
    for name in generated.zoo_names():
        rows = generated.card_markdown(name, 1).splitlines()
        for key, measure in (generated.card(name).get("measures") or {}).items():
            if not (isinstance(measure, dict) and {"positions", "right"} <= measure.keys()):
                continue
            (row,) = [line for line in rows if line.startswith(f"| {key.replace('_', ' ')} |")]
            counts = measure["right"] if isinstance(measure["right"], list) else [measure["right"]]
            shown_counts = re.findall(r"(?<![\w.-])[\d-]+(?![\w.-]| s\b)", row.split(" of ")[0])  # not the seconds
            assert f"of {measure['positions']}" in row and [str(count) for count in counts] == shown_counts, row
            shown += 1
    assert shown


def test_the_generated_tables_render_every_file():
    generated = _generated()
    benchmarks = generated.benchmarks_markdown()
    for path in sorted((REPO_ROOT / "benchmarks" / "results").glob("*.json")):
        assert f"### {path.name} " in benchmarks
    league = generated.zoo_table("")
    ratings = generated.league_ratings()
    unrated = set(generated.zoo_names()) - {generated._zoo_name_of(row["player"]) for row in ratings}
    assert len(league.splitlines()) == 2 + len(ratings) + len(unrated)
    for name in unrated:  # an entry newer than the league still gets its row and its page
        assert f"| - | `zoo:{name}` | unrated |" in league


def test_the_results_the_pages_cite_are_in_the_repository():
    """A record that now lives only in git history is named with its commit, not as a path."""
    missing = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"docs/results/[\w./-]*[\w/]", text):
            after = text[match.end() : match.end() + 40]
            if re.match(r"\S*\s+(at|in the repository's history at) commit", after) or text[match.start() - 1] == ":":
                continue  # named with the commit that holds it (or as `git show REV:path`)
            if not (REPO_ROOT / match.group(0)).exists():
                missing.append(f"{_name(page)}: {match.group(0)}")
    assert missing == []


# -- figures the pages quote ------------------------------------------------------------------


def test_endgame_figures_are_the_ones_the_help_gives():
    from checkers_env import egdb

    assert f"({egdb.build_figures()}, on 2 cores)" in _prose("egdb.md")  # as `checkers egdb build --help` says
    for line in (DOCS / "egdb.md").read_text(encoding="utf-8").splitlines():
        if "egdb build --pieces 5" in line and "#" in line and "MB" in line:
            assert f"{egdb.BUILD_TIME[5]}, {egdb.size_text(5)}" in line, line


def test_figures_of_greedy_against_random_are_what_the_league_plays(tmp_path):
    """The games the baselines' page quotes to say why `make demo` cannot order greedy and random
    (its `checkers league random greedy --games-per-pair 300 --seed 1` and 2)."""
    import math

    from checkers_env import Rules
    from checkers_evaluation.league import League

    wins = draws = losses = 0
    for seed in (1, 2):
        ratings = League(
            ["random", "greedy"],
            out=tmp_path / str(seed),
            games_per_pair=300,
            seed=seed,
            rules=Rules(max_plies=400),
            bootstrap=0,
            progress=False,
        ).run()
        wins, draws, losses = (
            wins + ratings["greedy"].wins,
            draws + ratings["greedy"].draws,
            losses + ratings["greedy"].losses,
        )
    games = wins + draws + losses
    score = (wins + draws / 2) / games
    elo = 400 * math.log10(score / (1 - score))
    assert (
        f"scores about {round(100 * score)} % against random ({wins} wins, {draws} draws and {losses} losses "
        f"in {games} games, `checkers league random greedy --games-per-pair 300 --seed 1`, then `--seed 2`), "
        f"about {round(elo, -1):.0f} Elo"
    ) in _prose("experiments/baselines.md")


def test_the_site_builds_without_a_warning(tmp_path):
    """`make docs`' build, where the docs extra is installed (mkdocs --strict stops at any warning)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    import subprocess
    import sys

    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-3000:]
