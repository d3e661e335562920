"""Imports flow one way: ``checkers_env`` <- ``agents`` <- ``training``, ``evaluation``.

The core never imports an agent, a trainer, the evaluation tools or the zoo (kinds and
evaluators reach it through entry points), nor torch when it is imported (an optional
adapter such as ``PositionDataset.to_torch`` imports torch when called); ``agents`` imports
neither ``training`` nor ``evaluation``; ``evaluation`` does not import ``training`` (the CLI
reaches the trainers by module name, when a trainer is run), and ``training`` imports of
``evaluation`` only the league as a library, ``checkers_evaluation.league``, which imports no
command line, no server and no trainer.

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
#: What a folder may import of a package FORBIDDEN names for it (the module and those below it).
ALLOWED = {"training": ("checkers_evaluation.league",)}
#: All that the league library reaches of ``evaluation`` beyond itself: the agents' warm-up.
LEAGUE_NEEDS = {"checkers_evaluation", "checkers_evaluation.agent_workers"}
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


def absolute_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, module)`` of every absolute import in ``tree``, a module imported from its
    package by name included: ``from checkers_evaluation import league`` yields
    ``checkers_evaluation`` and ``checkers_evaluation.league``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == package or module.startswith(package + ".") for package in packages)


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def wrong_imports(tree: ast.AST, forbidden: set[str], allowed: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """``(line, module)`` of each import in ``tree`` of a package of ``forbidden`` that is not
    within ``allowed`` (``from checkers_evaluation import league`` is judged by its module)."""
    found = absolute_imports(tree)
    named = {line for line, module in found if within(module, allowed)}
    return [
        (line, module)
        for line, module in found
        if module.split(".")[0] in forbidden and not within(module, allowed)
        if not (line in named and "." not in module)
    ]


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_import_points_up(folder):
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in modules(folder)
        for line, module in wrong_imports(
            ast.parse(path.read_text(encoding="utf-8")), FORBIDDEN[folder], ALLOWED.get(folder, ())
        )
    ]
    assert not wrong, "\n".join(wrong)


def test_training_imports_of_evaluation_only_the_league():
    tree = ast.parse(
        "from checkers_evaluation.league import gauntlet\nfrom checkers_evaluation import league\n"
        "import checkers_evaluation.league.runner\nfrom checkers_evaluation.league_command import add\n"
        "from checkers_evaluation import serve\nimport checkers_evaluation\n"
    )
    wrong = wrong_imports(tree, FORBIDDEN["training"], ALLOWED["training"])
    assert sorted({line for line, _ in wrong}) == [4, 5, 6]


def test_the_league_library_reaches_no_command_line_server_or_trainer():
    """Everything that importing ``checkers_evaluation.league`` can import of ``evaluation``
    (its imports inside functions included, followed from module to module) is the library
    itself, the package's ``__init__`` and ``LEAGUE_NEEDS``: no ``cli``, no ``*_command``, no
    ``serve``, and (by the rule for ``evaluation``) no trainer."""
    folder = ROOT / "evaluation"
    library = "checkers_evaluation.league"
    found = {module for module in _evaluation_modules(folder) if within(module, (library,))}
    todo = sorted(found)
    while todo:
        module = todo.pop()
        for _, imported in imported_modules(_module_file(folder, module), folder, "checkers_evaluation"):
            # Importing a module runs its packages' ``__init__`` first.
            for package in [imported.rsplit(".", n)[0] for n in range(imported.count("."), -1, -1)]:
                if package not in found and _module_file(folder, package).exists():
                    found.add(package)
                    todo.append(package)
    assert len([m for m in found if within(m, (library,))]) >= 7  # the library's modules were walked
    assert sorted(m for m in found if not within(m, (library,))) == sorted(LEAGUE_NEEDS)


def _evaluation_modules(folder: Path) -> list[str]:
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        names.append(".".join(["checkers_evaluation", *(parts[:-1] if parts[-1] == "__init__" else parts)]))
    return names


def _module_file(folder: Path, module: str) -> Path:
    """The file of ``module`` (``checkers_evaluation.X.Y``) under ``folder``: ``X/Y.py`` or
    ``X/Y/__init__.py`` (the latter, when neither exists)."""
    path = folder.joinpath(*module.split(".")[1:])
    return path.with_suffix(".py") if path.with_suffix(".py").exists() else path / "__init__.py"


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


def imported_modules(path: Path, agents: Path = ROOT / "agents", top: str = "checkers_agents") -> list[tuple[int, str]]:
    """``(line, module)`` of every module of the package ``top`` (the folder ``agents``) that the file
    at ``path`` in it imports, relative imports resolved: ``from checkers_agents.x import y``
    yields ``checkers_agents.x`` and, where ``y`` is a module of it, ``checkers_agents.x.y``."""
    parts = [top, *path.relative_to(agents).with_suffix("").parts]
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
    return [(line, module) for line, module in found if module.split(".")[0] == top]


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
