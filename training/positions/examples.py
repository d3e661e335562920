"""The positions database as a trainer's examples: each distinct quiet position once, the
mover as Black and to move, its target the probability ``(label + 1) / 2`` of
:func:`~checkers_training.positions.labels` (``checkers train outcome-net --positions``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def positions_folder(folder: str) -> Path:
    """The merged set of the ``--positions`` database ``folder`` (``OUT/merged``, or ``OUT``
    itself), as :func:`checkers_training.positions.load_positions` reads it."""
    path = Path(folder)
    return path / "merged" if (path / "merged").is_dir() else path


def positions_card(folder: str) -> dict:
    """The card of the ``--positions`` database, checked to be a finished merged set.

    Raises:
        TrainingError: the folder is missing, or is not a finished merged positions
            database (the message names the path and the fault).
    """
    from checkers_env.errors import ShardError

    from ..arguments import TrainingError
    from . import MERGED

    path = positions_folder(folder)
    if not path.is_dir():
        raise TrainingError(f"--positions {folder}: no such folder")
    try:
        card = MERGED.read_card(path)
    except ShardError as error:
        raise TrainingError(f"--positions {folder}: not a merged positions database: {error}") from None
    if card.get("kind") != MERGED.kind:
        raise TrainingError(
            f"--positions {folder}: {path / 'card.json'} is a database of kind {card.get('kind')!r}, not a merged "
            f"positions database (give checkers data positions' --out, or its merged folder)"
        )
    if not card.get("complete"):
        raise TrainingError(
            f"--positions {folder}: the merge in {path} did not finish (run its checkers data positions command again)"
        )
    return card


def positions_part(folder: str, search_weight: float, deep_only: bool = False) -> tuple[np.ndarray, ...]:
    """The ``--positions`` database as training examples: ``(black, white, kings,
    black_to_move, target)``, each distinct position once, the mover as Black to move, its
    target ``(label + 1) / 2`` (the module docstring's choice).

    Args:
        folder: the database (``checkers data positions``' ``--out``, or its merged folder).
        search_weight: the label's weight of the search value (``positions.labels``).
        deep_only: only the positions its deep step searched (``--positions-deep-only``).

    Raises:
        TrainingError: the database is missing, unfinished or corrupt; or ``deep_only``
            and it has no finished deep step.
    """
    from checkers_env.errors import ShardError

    from ..arguments import TrainingError
    from . import labels, load_positions

    positions_card(folder)
    try:
        data = load_positions(positions_folder(folder))
    except ShardError as error:
        raise TrainingError(f"--positions {folder}: {error}") from None
    target = ((labels(data, search_weight) + 1.0) / 2.0).astype(np.float32)
    keep = np.ones(len(target), dtype=bool)
    if deep_only:
        if "deep" not in data:
            raise TrainingError(
                f"--positions-deep-only: {folder} has no finished deep step (run checkers data positions --deep on it)"
            )
        keep = ~np.isnan(data["deep"])
    return data["mover"][keep], data["opponent"][keep], data["kings"][keep], keep[keep], target[keep]


def positions_summary(folder: str, card: dict) -> dict:
    """What the run's summary and zoo card say of its ``--positions`` database: the folder,
    its distinct positions, and the command that built it (so the run can be reproduced)."""
    return {"folder": folder, "distinct": card.get("positions"), "command": card.get("command")}


__all__ = ["positions_card", "positions_folder", "positions_part", "positions_summary"]
