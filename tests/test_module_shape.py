"""The shape the code keeps: numba kernels take their state as named bundles, and no module
of the product grows past a page a reader can hold.

- No function compiled by numba (``numba.njit``, ``numba.jit``, ``cuda.jit``, with or
  without arguments) takes more than :data:`MAX_KERNEL_PARAMETERS` parameters: structured
  state travels as named tuples (``Position``, ``SearchMemory``, ``Valuation``, ...).
- No Python module of the product packages is longer than :data:`MAX_MODULE_LINES` lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("checkers_env", "agents", "training", "evaluation", "zoo")
MAX_KERNEL_PARAMETERS = 12
MAX_MODULE_LINES = 600


def product_modules() -> list[Path]:
    return sorted(path for folder in PRODUCT for path in (ROOT / folder).rglob("*.py"))


def is_numba_decorator(node: ast.expr) -> bool:
    """``njit``, ``jit``, ``numba.njit(...)``, ``cuda.jit(...)`` and the like."""
    if isinstance(node, ast.Call):
        node = node.func
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name in {"njit", "jit"}


def kernels(path: Path) -> list[tuple[str, int]]:
    """``(name, parameter count)`` of every numba-compiled function in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.FunctionDef) and any(is_numba_decorator(d) for d in node.decorator_list):
            arguments = node.args
            count = len(arguments.posonlyargs) + len(arguments.args) + len(arguments.kwonlyargs)
            found.append((node.name, count))
    return found


def test_the_scan_finds_the_kernels_it_checks():
    names = {name for path in product_modules() for name, _ in kernels(path)}
    # a scan that found nothing would pass the next test vacuously
    assert {"search_kernel", "play_games", "generate_moves", "net_value"} <= names


def test_no_numba_kernel_takes_more_than_twelve_parameters():
    over = [
        f"{path.relative_to(ROOT)}: {name} takes {count}"
        for path in product_modules()
        for name, count in kernels(path)
        if count > MAX_KERNEL_PARAMETERS
    ]
    assert not over, "kernels over the limit (bundle their state in a named tuple):\n" + "\n".join(over)


def test_no_product_module_is_longer_than_a_page():
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in product_modules()
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert not long, "modules over the limit (split them by concern):\n" + "\n".join(long)
