"""The names the alpha-beta's ``eval=`` takes: the hand-written evaluations, and the learned
nets that packages register through the entry-point group ``checkers_agents.evaluators``
(``pyproject.toml``) or in a session with :func:`register_evaluator`.

    >>> from checkers_agents.alphabeta import evaluator_names
    >>> evaluator_names()[:2]
    ['material', 'positional']
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from checkers_agents.search_parts.evaluators import MATERIAL, POSITIONAL, Evaluator
from checkers_env.errors import UnknownAgentError

#: The entry-point group where learned evaluators register (``pyproject.toml``), as agent
#: kinds do: ``name = "package.module:load_evaluator"``, a function of ``weights`` (``zoo``,
#: ``untrained`` or a file) and ``seed`` (for ``untrained``) that returns an ``Evaluator``.
EVALUATOR_GROUP = "checkers_agents.evaluators"

#: The hand-written evaluations, by name.
HAND_WRITTEN: dict[str, Evaluator] = {"material": MATERIAL, "positional": POSITIONAL}


_loaders: dict[str, EntryPoint | Callable[..., Evaluator]] | None = None


def _net_loaders() -> dict[str, EntryPoint | Callable[..., Evaluator]]:
    """The registered nets' loaders by name, read from the entry points on first use."""
    global _loaders
    if _loaders is None:
        _loaders = {entry.name: entry for entry in entry_points(group=EVALUATOR_GROUP)}
    return _loaders


def register_evaluator(name: str, loader: Callable[..., Evaluator]) -> None:
    """Add a learned evaluator at run time: ``loader(weights, seed)`` returns an
    ``Evaluator`` (packages should prefer the entry-point group ``EVALUATOR_GROUP``).

    Raises:
        ValueError: ``name`` is a hand-written evaluation's.
    """
    if name in HAND_WRITTEN:
        raise ValueError(f"{name!r} is a hand-written evaluation's name")
    _net_loaders()[name] = loader


def evaluator_names() -> list[str]:
    """Every ``eval=`` name: the hand-written evaluations, then the registered nets."""
    return [*HAND_WRITTEN, *sorted(set(_net_loaders()) - set(HAND_WRITTEN))]


def make_evaluator(eval: str, weights: str | None = None, seed: int | None = None) -> Evaluator:
    """The evaluator named ``eval`` (see :func:`evaluator_names`), with ``weights`` for a net.

    Raises:
        UnknownAgentError: an unknown evaluator, or weights for a hand-written one.
    """
    if eval in HAND_WRITTEN:
        if weights is not None:
            raise UnknownAgentError(f"alphabeta: eval={eval} takes no weights (got weights={weights})")
        return HAND_WRITTEN[eval]
    entry = _net_loaders().get(eval)
    if entry is None:
        raise UnknownAgentError(f"alphabeta: eval must be one of {', '.join(evaluator_names())}, got {eval!r}")
    loader = entry.load() if isinstance(entry, EntryPoint) else entry
    return loader("zoo" if weights is None else weights, seed)


__all__ = ["EVALUATOR_GROUP", "HAND_WRITTEN", "evaluator_names", "make_evaluator", "register_evaluator"]
