"""Imports flow one way: ``checkers_env`` <- ``agents`` <- ``training``, ``evaluation``.

The core never imports an agent, a trainer, the evaluation tools or the zoo (kinds and
evaluators reach it through entry points), nor torch when it is imported (an optional
adapter such as ``PositionDataset.to_torch`` imports torch when called); ``agents`` imports
neither ``training`` nor ``evaluation``; ``training`` and ``evaluation`` do not import each
other (the CLI reaches the trainers by module name, when a trainer is run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UPPER = {"checkers_agents", "checkers_training", "checkers_evaluation", "checkers_zoo"}
FORBIDDEN = {
    "checkers_env": UPPER,
    "agents": {"checkers_training", "checkers_evaluation"},
    "training": {"checkers_evaluation"},
    "evaluation": {"checkers_training"},
}
#: Packages the core must not import when it is imported (an optional method may).
HEAVY = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard", "ray", "starlette", "uvicorn"}


def imports(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, top-level package)`` of every absolute import in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_import_points_up(folder):
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {package}"
        for path in modules(folder)
        for line, package in imports(ast.parse(path.read_text(encoding="utf-8")))
        if package in FORBIDDEN[folder]
    ]
    assert not wrong, "\n".join(wrong)


def test_the_core_imports_no_heavy_package_when_imported():
    wrong = []
    for path in modules("checkers_env"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = ast.Module(
            body=[n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))], type_ignores=[]
        )
        wrong += [
            f"{path.relative_to(ROOT)}:{line} imports {package}"
            for line, package in imports(top_level)
            if package in HEAVY
        ]
    assert not wrong, "\n".join(wrong)


def test_the_core_names_no_upper_package_even_in_strings():
    """Not even as a module string for importlib (kinds and evaluators register instead)."""
    wrong = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in modules("checkers_env")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(f'"{name}' in line or f"'{name}" in line for name in UPPER)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_imports_inside_functions():
    tree = ast.parse(
        "import checkers_env\n\n"
        "def card():\n    from checkers_training.scaffold import git_commit\n    return git_commit()\n\n"
        "def serve():\n    import checkers_evaluation.serve\n"
    )
    assert imports(tree) == [(1, "checkers_env"), (4, "checkers_training"), (8, "checkers_evaluation")]
