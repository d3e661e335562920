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
