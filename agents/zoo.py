"""The zoo: trained agents under ``zoo/<name>/`` with a ``card.json`` each, loadable by name.

``make_agent("zoo:td-minimax")`` reads ``zoo/td-minimax/card.json``, builds the agent of
the card's ``kind`` with the card's ``params`` (and its ``weights`` file, if any), and
applies any parameter the spec adds (``zoo:td-minimax,depth=4``). Weights are loaded
without executing code (safetensors, or ``torch.load(weights_only=True)``).

A card::

    {
      "name": "td-minimax",
      "kind": "td-minimax",
      "params": {"depth": 2},
      "weights": "weights.safetensors",
      "description": "...",
      "training": {"command": "...", "budget": "...", "wall_time_s": 0},
      "commit": "<git sha>",
      "date": "2026-11-22",
      "league": {...},
      "measures": {...}
    }

``measures`` holds what was measured of the agent outside the league (held-out error,
calibration against the endgame database, strength at fixed depths), each with its command.

The zoo folder is ``$CHECKERS_ZOO`` when set, else the installed package ``checkers_zoo``
(the repository's ``zoo/`` folder, shipped in the wheel as package data).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import inspect

from checkers_env.agent import Agent, agent_parameters, make_agent
from checkers_env.errors import UnknownAgentError, WeightsError

REQUIRED_FIELDS = {"name": str, "kind": str, "params": dict, "description": str, "commit": str, "date": str}
OPTIONAL_FIELDS = {"weights": str, "training": dict, "league": dict, "measures": dict}


def zoo_dir() -> Path:
    """Where the zoo lives: ``$CHECKERS_ZOO``, else the folder of the package ``checkers_zoo``."""
    if os.environ.get("CHECKERS_ZOO"):
        return Path(os.environ["CHECKERS_ZOO"])
    import checkers_zoo

    return Path(checkers_zoo.__file__).resolve().parent


def zoo_names() -> list[str]:
    """Names of the zoo entries (folders with a card)."""
    root = zoo_dir()
    return sorted(p.parent.name for p in root.glob("*/card.json")) if root.exists() else []


def validate_card(card: Any, folder: Path | None = None) -> list[str]:
    """Problems with a card (empty when it is valid): fields, types, weights present."""
    if not isinstance(card, dict):
        return [f"a card must be a JSON object, got {type(card).__name__}"]
    problems = []
    for name, kind in REQUIRED_FIELDS.items():
        if name not in card:
            problems.append(f"missing field {name!r}")
        elif not isinstance(card[name], kind):
            problems.append(f"field {name!r} must be {kind.__name__}")
    for name, kind in OPTIONAL_FIELDS.items():
        if name in card and not isinstance(card[name], kind):
            problems.append(f"field {name!r} must be {kind.__name__}")
    unknown = set(card) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)
    if unknown:
        problems.append(f"unknown fields {sorted(unknown)}")
    if folder is not None and isinstance(card.get("weights"), str) and not (folder / card["weights"]).is_file():
        problems.append(f"weights file {card['weights']!r} is missing from {folder}")
    return problems


def load_card(name: str) -> tuple[dict, Path]:
    """The card of zoo entry ``name`` and its folder.

    Raises:
        UnknownAgentError: no such entry, or its card is missing, corrupt or invalid.
        WeightsError: the card names a weights file that is not in the entry's folder (a
            corrupt or mismatched one is reported by the kind's loader, also as ``WeightsError``).
    """
    folder = zoo_dir() / name
    path = folder / "card.json"
    if not path.is_file():
        known = ", ".join(zoo_names()) or "none"
        raise UnknownAgentError(f"no zoo entry {name!r} (no {path}); zoo entries: {known}")
    try:
        card = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise UnknownAgentError(f"zoo card {path} is not valid JSON: {error}") from None
    if isinstance(card, dict) and isinstance(card.get("weights"), str) and not (folder / card["weights"]).is_file():
        raise WeightsError(f"zoo entry {name!r}: weights file {str(folder / card['weights'])!r} does not exist")
    problems = validate_card(card, folder)
    if problems:
        raise UnknownAgentError(f"zoo card {path} is invalid: " + "; ".join(problems))
    return card, folder


def zoo_agent(name: str, **overrides) -> Agent:
    """Loads a trained agent from the zoo by name, with its card's parameters:
    ``zoo:NAME[,key=value...]`` (``zoo:td-minimax``, ``zoo:mcrd,time=0.5``; the zoo's
    README lists the names).

    Args:
        name: the zoo entry (a folder of ``zoo/``).
    """
    card, folder = load_card(name)
    params = dict(card["params"])
    if "weights" in card:
        params["weights"] = str(folder / card["weights"])
    params.update(overrides)
    accepted = agent_parameters(card["kind"])
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise UnknownAgentError(
            f"zoo entry {name!r} ({card['kind']}) does not take {unknown}; its parameters: {', '.join(accepted)}"
        )
    agent = make_agent(card["kind"], **params)
    suffix = "".join(f",{k}={v}" for k, v in overrides.items())
    agent.spec_override = f"zoo:{name}{suffix}"
    return agent


def _parameters_for(raw: dict[str, str]) -> dict[str, inspect.Parameter]:
    """The parameters a ``zoo:NAME`` spec may set: the name and those of the card's kind."""
    card, _ = load_card(raw.get("name", ""))
    parameters = {"name": inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    parameters.update((k, p) for k, p in agent_parameters(card["kind"]).items() if k != "weights")
    return parameters


zoo_agent.parameters_for = _parameters_for


def zoo_weights(name: str) -> Path:
    """The weights file of zoo entry ``name``: what ``weights=zoo`` means for a net of that
    kind (``alphabeta:eval=outcome-net,weights=zoo``).

    Raises:
        WeightsError: the zoo has no such entry, or its card names no weights file, or the
            file is missing (the message says how to make one).
    """
    hint = f"train one (`checkers train {name} --promote {name}`), or give weights=FILE or weights=untrained"
    try:
        card, folder = load_card(name)
    except UnknownAgentError:
        raise WeightsError(f"the zoo has no trained {name} (no entry zoo/{name}); {hint}") from None
    except WeightsError:
        raise WeightsError(f"the zoo entry {name!r} lacks its weights file; {hint}") from None
    if "weights" not in card:
        raise WeightsError(f"the zoo entry {name!r} has no weights file; {hint}")
    return folder / card["weights"]
