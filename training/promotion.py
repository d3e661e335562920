"""Promotion into the zoo: ``--promote NAME`` writes ``zoo/NAME/weights.safetensors`` and a
fresh ``card.json`` when training ends."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from checkers_env.files import write_atomic, write_json_atomic
from checkers_env.provenance import REPO_ROOT, git_commit

from .arguments import TrainingError, zoo_name_problem


def promote(name: str, kind: str, params: dict, weights: bytes, description: str, training: dict) -> Path:
    """Write zoo entry ``name``: ``weights.safetensors`` and a fresh ``card.json`` (a card
    already there is replaced whole: its league results belonged to the old weights).

    Args:
        name: the zoo name (``zoo/NAME``; ``$CHECKERS_ZOO`` moves the zoo).
        kind: the agent kind that plays the weights.
        params: the agent's parameters (besides ``weights``).
        weights: the safetensors file's bytes.
        description: what the agent is, in a sentence or two.
        training: ``command`` (the ``checkers train`` command(s) that reproduce it),
            ``budget``, ``wall_time_s`` and what else the trainer records.

    Raises:
        TrainingError: ``name`` is not a plain zoo name.
    """
    from checkers_agents.zoo import validate_card, zoo_dir

    problem = zoo_name_problem(name)
    if problem:
        raise TrainingError(f"--promote: {problem}")
    folder = zoo_dir() / name
    card: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "params": params,
        "weights": "weights.safetensors",
        "description": description,
        "training": training,
        "commit": git_commit(),
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
    }
    write_atomic(folder / card["weights"], weights)
    problems = validate_card(card, folder)
    if problems:
        raise ValueError(f"the card for zoo/{name} is invalid: " + "; ".join(problems))
    write_json_atomic(folder / "card.json", card)
    return folder


__all__ = ["REPO_ROOT", "git_commit", "promote"]
