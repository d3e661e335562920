"""What a trainer checks before it makes anything: that the modules it imports are installed.

A plain ``pip install .`` has no torch, Stable-Baselines3 or TensorBoard (the ``train``
extra): every trainer's ``--help`` still works, and a run stops with one line naming what to
install before its run folder exists.
"""

from __future__ import annotations

from collections.abc import Iterable


def check_dependencies(trainer: str, needs: Iterable[str], tensorboard: bool) -> None:
    """Raise a one-line :class:`MissingDependencyError` for the first module of ``needs``
    that is not installed, or for TensorBoard's when ``tensorboard`` (naming
    ``--no-tensorboard``, the way out)."""
    import importlib.util

    from checkers_env.errors import MissingDependencyError, missing_dependency

    def installed(module: str) -> bool:
        try:
            return importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent that cannot be imported, a module set to None
            return False

    for module in needs:
        if not installed(module):
            error = ModuleNotFoundError(f"No module named {module!r}", name=module)
            raise missing_dependency(error, f"checkers train {trainer}") or MissingDependencyError(
                f"checkers train {trainer} needs {module}, which is not installed"
            )
    if tensorboard:
        absent = [module for module in ("torch", "tensorboard") if not installed(module)]
        if absent:
            raise MissingDependencyError(
                f"checkers train {trainer} writes TensorBoard scalars, which needs {' and '.join(absent)} "
                "(not installed): pip install 'checkers-suite[train]', or give --no-tensorboard"
            )


def optional_module(name: str):
    """The module ``name``, or None when it is not installed: a trainer imports torch so, and
    its ``--help`` works without the ``train`` extra (``start_run`` names what is missing
    before a run folder is made)."""
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        return None


__all__ = ["check_dependencies", "optional_module"]
