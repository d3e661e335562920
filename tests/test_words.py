"""What users read says things in words they can follow and points only at what they have.

The user's texts (README, the zoo's README and cards, the env docstrings, ``checkers
agents`` and every ``--help``) must not cite material outside the repository (the design
documents the agents were built from, the project's internal design page and its paths), nor
carry benchmark notes meant for developers, nor show reST markup in a terminal. Developers'
texts (module docstrings, docs/) may describe the design documents, but may not point at
files a clone lacks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Pointers to what users do not have.
OUTSIDE = re.compile(r"(?i:seed[- ]?00\d|founding)|DESIGN\.md|DESIGN §|shared/")
#: Developer notes that belong in docs/developing.md.
DEVELOPER_NOTES = re.compile(r"env_ab|search_ab|over our runs")
#: A reST literal (````x````) or role (``:class:`x```); Markdown fences (```) are fine.
REST_MARKUP = re.compile(r"(?<!`)``(?!`)|:(class|func|meth|mod|attr):`")


def user_problems(text: str) -> list[str]:
    found = [m.group(0) for pattern in (OUTSIDE, DEVELOPER_NOTES, REST_MARKUP) for m in pattern.finditer(text)]
    return sorted(set(found))


def run_cli(argv: list[str], capsys) -> str:
    from checkers_evaluation.cli import main

    try:
        main(argv)
    except SystemExit:  # a trainer's --help exits from inside its own parser
        pass
    return capsys.readouterr().out


# -- files -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["README.md", "zoo/README.md"])
def test_user_markdown_speaks_plainly(name):
    assert user_problems((REPO_ROOT / name).read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("card", sorted(REPO_ROOT.glob("zoo/*/card.json")), ids=lambda p: p.parent.name)
def test_zoo_card_descriptions_speak_plainly(card):
    description = json.loads(card.read_text())["description"]
    assert user_problems(description) == []


def test_developer_texts_point_only_inside_the_repository():
    offenders = []
    for folder in ("checkers_env", "agents", "training", "evaluation", "benchmarks", "tests", "docs"):
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".md") or path.name == "test_words.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if OUTSIDE.search(line):
                    offenders.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_readme_shows_what_checkers_show_prints(capsys):
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^\$ checkers show '([^']+)'\n(.*?)^```", readme, re.MULTILINE | re.DOTALL)
    assert match, "README.md has a ```text block starting with $ checkers show '<FEN>'"
    assert run_cli(["show", match.group(1)], capsys) == match.group(2)


def test_readme_explains_mcrd_where_it_first_appears():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.index("MCRD")
    assert "Monte Carlo Random Descent" in readme[first - 200 : first + 300]
    assert "playout" in readme[first : first + 300]


# -- docstrings shown to users -------------------------------------------------------------


def test_env_docstrings_speak_plainly():
    from checkers_env import env, pettingzoo_env, vector_env

    # The Markdown docs of the Gymnasium and PettingZoo envs, as their sites show them.
    for doc in (env.__doc__, env.CheckersEnv.__doc__, pettingzoo_env.__doc__):
        assert user_problems(doc or "") == []
    # The vector env's docstring is reST for help(); it too points only at what users have.
    assert OUTSIDE.findall(vector_env.__doc__) == [] and DEVELOPER_NOTES.findall(vector_env.__doc__) == []


# -- the command line --------------------------------------------------------------------------


def test_checkers_agents_speaks_plainly(capsys):
    out = run_cli(["agents"], capsys)
    assert user_problems(out) == []
    mcrd = out[out.index("\nmcrd ") :]
    assert "Monte Carlo Random Descent" in mcrd[:300] and "playouts" in mcrd[:300]
    # every parameter of every kind comes with a word of explanation
    bare = [line for line in out.splitlines() if re.fullmatch(r"\s{2}\S+(\s\(required\))?", line)]
    assert bare == []


def test_plain_text_turns_rest_into_terminal_text():
    from checkers_evaluation.cli import plain_text

    assert plain_text("as deep as ``time``\n    allows (:class:`Game`)") == "as deep as `time` allows (`Game`)"


def _subcommands() -> list[list[str]]:
    from checkers_evaluation.cli import TRAINERS, build_parser

    parser = build_parser()
    (action,) = [a for a in parser._actions if a.dest == "command"]
    commands = [[]] + [[name] for name in action.choices]
    return commands + [["train", name] for name in sorted(TRAINERS)]


@pytest.mark.parametrize("command", _subcommands(), ids=lambda c: " ".join(c) or "checkers")
def test_help_speaks_plainly(command, capsys):
    out = run_cli([*command, "--help"], capsys)
    assert out.startswith("usage: ")
    assert user_problems(out) == []
    # argparse would break 'td-minimax' or 'self-play' at the hyphen
    assert not re.search(r"[a-z]-\n", out)
