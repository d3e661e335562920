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

A parameter that names a file (``book_file``, declared ``FilePath``) names a file of the
entry's folder, as ``weights`` does: ``"params": {"book_file": "book.json"}`` plays the
book shipped beside the card.

``measures`` holds what was measured of the agent outside the league (held-out error,
calibration against the endgame database, strength at fixed depths), each with its command.

The zoo folder is ``$CHECKERS_ZOO`` when set, else the installed package ``checkers_zoo``
(the repository's ``zoo/`` folder, shipped in the wheel as package data). Python code may
offer more folders of entries laid out the same way (``zoo_agent(..., agents_dirs=[DIR])``,
``checkers serve --agents-dir DIR``): ``zoo:NAME`` then looks in the zoo first and then in
each folder in turn. An entry's name is a plain folder name (letters, digits, ``.``, ``_``,
``-``; no ``/``, no ``..``), whoever wrote the spec.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from checkers_env.agent import Agent, PythonOnly, agent_parameters, make_agent, names_a_file
from checkers_env.errors import UnknownAgentError, WeightsError

REQUIRED_FIELDS = {"name": str, "kind": str, "params": dict, "description": str, "commit": str, "date": str}
OPTIONAL_FIELDS = {"weights": str, "training": dict, "league": dict, "measures": dict}


def zoo_dir() -> Path:
    """Where the zoo lives: ``$CHECKERS_ZOO``, else the folder of the package ``checkers_zoo``."""
    if os.environ.get("CHECKERS_ZOO"):
        return Path(os.environ["CHECKERS_ZOO"])
    import checkers_zoo

    return Path(checkers_zoo.__file__).resolve().parent


def zoo_names(agents_dirs: Iterable[str | Path] = ()) -> list[str]:
    """Names of the zoo entries (folders with a card), and of those in ``agents_dirs``."""
    names = set()
    for root in (zoo_dir(), *map(Path, agents_dirs)):
        if root.is_dir():
            names.update(p.parent.name for p in root.glob("*/card.json") if ENTRY_NAME.match(p.parent.name))
    return sorted(names)


#: A zoo entry's name: a plain folder name, so that ``zoo:NAME`` never leaves its folder.
ENTRY_NAME = re.compile(r"(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]*\Z")


def check_entry_name(name: Any) -> str:
    """``name`` when it is a plain entry name.

    Raises:
        UnknownAgentError: anything else (a path, ``..``, an empty name); the message does
            not repeat it.
    """
    if not isinstance(name, str) or not ENTRY_NAME.match(name):
        raise UnknownAgentError(
            "a zoo entry is named by a plain name (letters, digits, '.', '_' and '-'; no '/' or '..'), "
            "like 'zoo:td-minimax'"
        )
    return name


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
    if folder is not None and isinstance(card.get("weights"), str) and not _file_inside(folder, card["weights"]):
        problems.append(f"weights file {card['weights']!r} is missing from the entry's folder")
    if folder is not None and not problems:
        try:
            files = _card_files(card)
        except UnknownAgentError as error:
            return [str(error)]
        problems.extend(
            f"params {key}={value!r} names a file that is missing from the entry's folder"
            for key, value in files.items()
            if not _file_inside(folder, value)
        )
    return problems


def _file_inside(folder: Path, name: str) -> bool:
    """Whether ``name`` is a file inside the entry's folder."""
    path = (folder / name).resolve()
    return path.is_file() and path.is_relative_to(folder.resolve())


def _card_files(card: dict) -> dict[str, str]:
    """The card's parameters that name files (``book_file``): files of the entry's folder.

    Raises:
        UnknownAgentError: the card's kind is not a registered agent kind.
    """
    accepted = agent_parameters(card["kind"])
    return {key: str(value) for key, value in card["params"].items() if names_a_file(accepted.get(key), value)}


def load_card(name: str, agents_dirs: Iterable[str | Path] = ()) -> tuple[dict, Path]:
    """The card of zoo entry ``name`` and its folder: the zoo's, else the first of
    ``agents_dirs`` that has it. Messages name the entry, not the folder's path.

    Raises:
        UnknownAgentError: a name that is not a plain name, no such entry, or its card is
            corrupt or invalid.
        WeightsError: the card names a weights file that is not in the entry's folder (a
            corrupt or mismatched one is reported by the kind's loader, also as ``WeightsError``).
    """
    check_entry_name(name)
    agents_dirs = list(agents_dirs)
    folder = next(
        (root / name for root in (zoo_dir(), *map(Path, agents_dirs)) if (root / name / "card.json").is_file()), None
    )
    if folder is None:
        known = ", ".join(zoo_names(agents_dirs)) or "none"
        raise UnknownAgentError(f"no zoo entry {name!r}; zoo entries: {known}")
    try:
        card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UnknownAgentError(f"zoo entry {name!r}: its card.json is not valid JSON: {error}") from None
    if isinstance(card, dict) and isinstance(card.get("weights"), str) and not _file_inside(folder, card["weights"]):
        raise WeightsError(f"zoo entry {name!r}: weights file {card['weights']!r} does not exist in the entry's folder")
    problems = validate_card(card, folder)
    if problems:
        raise UnknownAgentError(f"zoo entry {name!r}: its card.json is invalid: " + "; ".join(problems))
    return card, folder


def zoo_agent(entry: str, **overrides) -> Agent:
    """Loads a trained agent from the zoo by name, with its card's parameters:
    ``zoo:NAME[,key=value...]`` (``zoo:td-minimax``, ``zoo:mcrd,time=0.5``; the zoo's
    README lists the names).

    Args:
        entry: the zoo entry's name (a folder of ``zoo/``), the spec's first item.
        overrides: parameters of the card's kind that replace the card's; and, from
            Python only, ``agents_dirs``: more folders of entries, searched after the zoo.
    """
    agents_dirs = overrides.pop("agents_dirs", ())
    card, folder = load_card(entry, agents_dirs)
    params = dict(card["params"])
    params.update((key, str(folder / value)) for key, value in _card_files(card).items())
    if "weights" in card:
        params["weights"] = str(folder / card["weights"])
    params.update(overrides)
    accepted = agent_parameters(card["kind"])
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise UnknownAgentError(
            f"zoo entry {entry!r} ({card['kind']}) does not take {unknown}; its parameters: {', '.join(accepted)}"
        )
    agent = make_agent(card["kind"], **params)
    suffix = "".join(f",{k}={v}" for k, v in overrides.items())
    agent.spec_override = f"zoo:{entry}{suffix}"
    return agent


def _parameters_for(raw: dict[str, str], overrides: dict[str, Any]) -> dict[str, inspect.Parameter]:
    """The parameters a ``zoo:NAME`` spec may set: the entry and those of the card's kind
    (``agents_dirs``, Python's only, says where else to look)."""
    card, _ = load_card(raw.get("entry", ""), overrides.get("agents_dirs", ()))
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = {
        "entry": inspect.Parameter("entry", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str),
        "agents_dirs": inspect.Parameter("agents_dirs", keyword, default=(), annotation=PythonOnly[tuple]),
    }
    parameters.update((k, p) for k, p in agent_parameters(card["kind"]).items() if k not in ("weights", *parameters))
    return parameters


zoo_agent.parameters_for = _parameters_for
zoo_agent.positional = "entry"  # zoo:NAME, not zoo:entry=NAME


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
