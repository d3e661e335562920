"""Promotion into the zoo: ``--promote NAME`` writes ``zoo/NAME/weights.safetensors`` and a
fresh ``card.json`` when training ends."""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

from checkers_env.files import write_atomic, write_json_atomic

from .arguments import TrainingError, zoo_name_problem

#: The source checkout this package runs from (meaningless for an installed wheel).
REPO_ROOT = Path(__file__).resolve().parents[1]


def promote(
    name: str, kind: str, params: dict, weights: bytes, description: str, training: dict
) -> Path:
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
    card = {
        "name": name,
        "kind": kind,
        "params": params,
        "weights": "weights.safetensors",
        "description": description,
        "training": training,
        "commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
    }
    write_atomic(folder / card["weights"], weights)
    problems = validate_card(card, folder)
    if problems:
        raise ValueError(f"the card for zoo/{name} is invalid: " + "; ".join(problems))
    write_json_atomic(folder / "card.json", card)
    return folder


def git_commit() -> str:
    """The commit of this checkout, with ``-dirty`` if files changed; for an installed package
    (no checkout of this project around it) the release, ``checkers-suite==VERSION``."""
    from checkers_env import __version__

    release = f"checkers-suite=={__version__}"
    if not (REPO_ROOT / "pyproject.toml").is_file() or not (REPO_ROOT / "checkers_env").is_dir():
        return release  # site-packages: a git repository around it would be somebody else's
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
        if head.returncode != 0 or not head.stdout.strip():
            return release
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return release
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


__all__ = ["git_commit", "promote"]
