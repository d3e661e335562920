"""Imports flow one way: ``checkers_env`` <- ``agents`` <- ``training``, ``evaluation``.

The core never imports an agent, a trainer, the evaluation tools or the zoo (kinds and
evaluators reach it through entry points), nor torch when it is imported (an optional
adapter such as ``PositionDataset.to_torch`` imports torch when called); ``agents`` imports
neither ``training`` nor ``evaluation``; ``training`` and ``evaluation`` do not import each
other (the CLI reaches the trainers by module name, when a trainer is run).

Within ``agents``, an agent package (a folder such as ``agents/alphabeta/``) imports no other
agent package's modules: what several searches share lives in ``agents/search_parts/``, which
imports no agent package, and another agent package is used only by the names of its
``__init__`` (``from checkers_agents.alphabeta import play_games``).
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


#: The agents' shared parts: every agent package may import them; they import no agent package.
SHARED = "search_parts"


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


def agent_packages() -> list[str]:
    return sorted(path.parent.name for path in (ROOT / "agents").glob("*/__init__.py"))


def imported_modules(path: Path, agents: Path = ROOT / "agents") -> list[tuple[int, str]]:
    """``(line, module)`` of every ``checkers_agents`` module that the file at ``path`` (in the
    folder ``agents``) imports, relative imports resolved: ``from checkers_agents.x import y``
    yields ``checkers_agents.x`` and, where ``y`` is a module of it, ``checkers_agents.x.y``."""
    parts = ["checkers_agents", *path.relative_to(agents).with_suffix("").parts]
    package = parts[:-1]  # the package a relative import starts from (a module's or an __init__'s)

    def is_module(module: str, name: str) -> bool:
        folder = agents.joinpath(*module.split(".")[1:], name)
        return folder.with_suffix(".py").exists() or (folder / "__init__.py").exists()

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names if is_module(module, alias.name)]
    return [(line, module) for line, module in found if module.split(".")[0] == "checkers_agents"]


def test_agent_packages_import_each_other_only_by_their_public_names():
    packages = agent_packages()
    assert {SHARED, "alphabeta", "alphazero", "mcrd"} <= set(packages)
    wrong = []
    for package in packages:
        for path in sorted((ROOT / "agents" / package).rglob("*.py")):
            for line, module in imported_modules(path):
                parts = module.split(".")
                if len(parts) < 2 or parts[1] not in packages or parts[1] == package:
                    continue  # the agents' top-level modules (book, zoo), or its own package
                where = f"{path.relative_to(ROOT)}:{line} imports {module}"
                if package == SHARED:
                    wrong.append(f"{where}: the shared parts import no agent package")
                elif parts[1] != SHARED and len(parts) > 2:
                    wrong.append(f"{where}: use the names of {'.'.join(parts[:2])}")
    assert not wrong, "\n".join(wrong)


def test_the_agent_check_resolves_relative_imports_and_imported_modules(tmp_path):
    agents = tmp_path / "agents"
    for folder in ("mcrd", "alphabeta"):
        (agents / folder).mkdir(parents=True)
        (agents / folder / "__init__.py").write_text("")
    (agents / "alphabeta" / "selfplay.py").write_text("")
    (agents / "mcrd" / "net.py").write_text("")
    path = agents / "mcrd" / "data.py"
    path.write_text(
        "from ..alphabeta import selfplay\nfrom .net import CNN\nfrom checkers_agents.alphabeta import Table\n"
        "import numpy\n"
    )
    assert imported_modules(path, agents) == [
        (1, "checkers_agents.alphabeta"),
        (1, "checkers_agents.alphabeta.selfplay"),
        (2, "checkers_agents.mcrd.net"),
        (3, "checkers_agents.alphabeta"),
    ]
    init = agents / "mcrd" / "__init__.py"
    init.write_text("from .net import CNN\n")
    assert imported_modules(init, agents) == [(1, "checkers_agents.mcrd.net")]
