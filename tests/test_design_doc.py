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
    from checkers_agents.alphabeta import evaluator_registry
    from checkers_env import agent

    # The examples register kinds and evaluators: keep them out of the other tests.
    monkeypatch.setattr(agent, "_registry", dict(agent.agent_kinds()))
    monkeypatch.setattr(evaluator_registry, "_loaders", dict(evaluator_registry._net_loaders()))
    module = types.ModuleType("__design__")  # a real module: dataclasses look theirs up
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(code, f"docs/design.md:{line}", "exec"), module.__dict__)


PRODUCT = ("checkers_env", "agents", "training", "evaluation", "zoo")
_ROOT = DESIGN.parents[1]


def design_map() -> set[str]:
    """The module paths that the table of section 3 names.

    A cell names files by path (``agents/mcrd/net.py``) or by bare name after a path or a
    folder (``agents/mcrd/`` then ``cpu.py``), which it reads in that folder.
    """
    text = DESIGN.read_text(encoding="utf-8")
    section = text[text.index("## 3. Layers") : text.index("## 4. Kernels")]
    named, folder = set(), ""
    for row in (line for line in section.splitlines() if line.startswith("|")):
        for name in re.findall(r"`([^`]+)`", row.split("|")[2]):
            if "<" in name:  # a pattern such as training/<name>.py names no file
                continue
            if name.endswith("/"):
                folder = name
            elif name.endswith(".py"):
                if "/" in name:
                    folder = name.rsplit("/", 1)[0] + "/"
                named.add(name if "/" in name else folder + name)
    return named


def test_the_design_map_names_every_module_of_the_product():
    modules = {
        path.relative_to(_ROOT).as_posix()
        for package in PRODUCT
        for path in (_ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    }
    named = design_map()
    assert len(named) > 100  # the parse found the table
    assert sorted(modules - named) == [], "modules missing from docs/design.md section 3"
    assert sorted(named - modules) == [], "docs/design.md section 3 names modules that do not exist"
