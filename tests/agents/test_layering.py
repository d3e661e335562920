"""Imports flow one way: ``checkers_env`` <- ``agents`` <- ``training``, ``evaluation``."""

from __future__ import annotations

import ast
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
#: The packages an agent must never import (at module level or inside a function).
UPPER = ("checkers_training", "checkers_evaluation")


def upward_imports(folder: Path) -> list[str]:
    """``file:line module`` of every import of an upper package in the modules under ``folder``."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found += [f"{path.relative_to(folder)}:{node.lineno} {n}" for n in names if n.split(".")[0] in UPPER]
    return found


def test_agents_import_neither_training_nor_evaluation():
    assert upward_imports(REPO_ROOT / "agents") == []


def test_the_check_sees_imports_inside_functions(tmp_path):
    (tmp_path / "agent.py").write_text(
        "import checkers_env\n\n"
        "def card():\n    from checkers_training.scaffold import git_commit\n    return git_commit()\n\n"
        "def serve():\n    import checkers_evaluation.serve\n"
    )
    assert upward_imports(tmp_path) == ["agent.py:4 checkers_training.scaffold", "agent.py:8 checkers_evaluation.serve"]
