"""The worked examples of docs/design.md (adding an agent kind, an evaluator, a trainer) run as they are."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DESIGN = Path(__file__).resolve().parents[1] / "docs" / "design.md"
_FENCE_RE = re.compile(r"^```python\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
BLOCKS = [
    (DESIGN.read_text(encoding="utf-8").count("\n", 0, match.start()) + 1, match.group(1))
    for match in _FENCE_RE.finditer(DESIGN.read_text(encoding="utf-8"))
]


def test_the_design_page_has_its_worked_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"design.md:{n}" for n, _ in BLOCKS])
def test_python_block_runs(line, code, monkeypatch):
    from checkers_agents import alphabeta
    from checkers_env import agent

    # The examples register kinds and evaluators: keep them out of the other tests.
    monkeypatch.setattr(agent, "_registry", dict(agent.agent_kinds()))
    monkeypatch.setattr(alphabeta, "_loaders", dict(alphabeta._net_loaders()))
    module = types.ModuleType("__design__")  # a real module: dataclasses look theirs up
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(code, f"docs/design.md:{line}", "exec"), module.__dict__)
