"""Recipes of the positions database: the stages (players and game counts) it is built from,
the built-in ``diverse`` recipe, recipe files, and each stage's seed (the package's docstring
has the file format)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from checkers_env.errors import CheckersError
from checkers_env.files import input_file

#: Games of the shipped ACF archive (``checkers_env.datasets.ACF_GAMES``).
ACF_GAME_COUNT = 4000
#: A stage's kinds: games of the self-play kernel, or game records.
KINDS = ("selfplay", "records")
#: A stage's name: a plain folder name, so that its folder stays under ``OUT/stages/``.
NAME = re.compile(r"(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]*\Z")


class RecipeError(CheckersError):
    """A recipe that cannot be built; the message names the recipe, the stage and the fault."""


# -- recipes ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Stage:
    """One player of a recipe and how many of its games (the package docstring's keys).

    Attributes:
        name: the stage's folder under ``OUT/stages/``.
        games: games played, or read for a records stage.
        kind: ``selfplay`` or ``records``.
        evaluator: the search's evaluator (self-play).
        depth: the search's depth in plies (self-play).
        random_plies: random single moves after the ballot opening (self-play).
        egdb_pieces: the endgame database the search probes and ends games at (0: off).
        shard_size: games a shard.
        pdn: a records stage's PDN file (None: the ACF archive).
    """

    name: str
    games: int
    kind: str = "selfplay"
    evaluator: str = "positional"
    depth: int = 4
    random_plies: int = 4
    egdb_pieces: int = 0
    shard_size: int = 100
    pdn: str | None = None

    def params(self, egdb_folder: str | None = None) -> dict[str, Any]:
        """The shard store's parameters of the stage (its card states them)."""
        if self.kind == "records":
            return {"kind": "records", "games": self.games, "shard_size": self.shard_size, "pdn": self.pdn}
        return {
            "kind": "selfplay",
            "games": self.games,
            "shard_size": self.shard_size,
            "evaluator": self.evaluator,
            "depth": self.depth,
            "random_plies": self.random_plies,
            "egdb_pieces": self.egdb_pieces,
            "egdb_folder": egdb_folder if self.egdb_pieces else None,
        }


#: The ``diverse`` recipe: (name, evaluator, depth, random plies, weight); its games are the
#: total split by weight. Hand-written evaluations at several depths, each zoo net at a
#: couple, different random plies so that the players meet different middlegames.
DIVERSE = (
    ("material-d2", "material", 2, 8, 1.0),
    ("material-d4", "material", 4, 4, 1.0),
    ("material-d6", "material", 6, 2, 1.0),
    ("positional-d2", "positional", 2, 8, 1.0),
    ("positional-d4", "positional", 4, 4, 2.0),
    ("positional-d6", "positional", 6, 6, 2.0),
    ("positional-d8", "positional", 8, 2, 1.0),
    ("outcome-net-d4", "zoo:outcome-net", 4, 4, 1.0),
    ("outcome-net-2-d4", "zoo:outcome-net-2", 4, 6, 1.0),
    ("outcome-net-3-d4", "zoo:outcome-net-3", 4, 4, 2.0),
    ("outcome-net-3-d6", "zoo:outcome-net-3", 6, 8, 1.0),
    ("td-minimax-d2", "zoo:td-minimax", 2, 8, 1.0),
    ("td-minimax-d4", "zoo:td-minimax", 4, 4, 1.0),
    ("slow-fast-d2", "zoo:slow-fast", 2, 6, 1.0),
    ("mcrd-net-d2", "zoo:mcrd-net", 2, 8, 1.0),
    ("mcrd-net-d4", "zoo:mcrd-net", 4, 4, 1.0),
    ("mcrd-net-interpolated-d4", "zoo:mcrd-net-interpolated", 4, 6, 1.0),
)
#: The ACF records' weight in ``diverse`` (capped at the archive's games).
RECORDS_WEIGHT = 1.0


def diverse_recipe(games: int, egdb_pieces: int = 0) -> list[Stage]:
    """The built-in recipe: the ACF records' share of ``games`` by weight (at most the
    archive's 4,000 games), the rest split over :data:`DIVERSE`'s players by weight.

    Args:
        games: the games of all stages together.
        egdb_pieces: the endgame database every self-play stage probes and ends games at.

    Raises:
        RecipeError: a total too small to give every stage a game.
    """
    weights = np.array([w for *_, w in DIVERSE])
    least = int(np.ceil((weights.sum() + RECORDS_WEIGHT) / min(weights.min(), RECORDS_WEIGHT)))
    if games < least:
        raise RecipeError(
            f"recipe diverse: {games} games are too few for its {len(DIVERSE) + 1} stages (at least {least})"
        )
    records = min(ACF_GAME_COUNT, int(games * RECORDS_WEIGHT / (weights.sum() + RECORDS_WEIGHT)))
    share = (games - records) * weights / weights.sum()
    counts = np.floor(share).astype(np.int64)
    counts[np.argsort(counts - share, kind="stable")[: games - records - int(counts.sum())]] += 1  # largest remainders
    stages = [
        Stage(name, int(n), evaluator=evaluator, depth=depth, random_plies=plies, egdb_pieces=egdb_pieces)
        for (name, evaluator, depth, plies, _), n in zip(DIVERSE, counts)
    ]
    stages.append(Stage("acf-records", records, kind="records", shard_size=500))
    return check_recipe(stages, "diverse")


def read_recipe(path: str | Path, egdb_pieces: int = 0) -> list[Stage]:
    """The recipe of a JSON file (the package docstring's format), checked.

    Args:
        path: the file.
        egdb_pieces: a self-play stage's ``egdb_pieces`` when it states none.

    Raises:
        RecipeError: unreadable JSON, or a stage with an unknown key or a bad value.
        FileNotFoundError: no such file.
    """
    path = input_file(path, "recipe file", RecipeError)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as error:
        raise RecipeError(f"recipe {path}: not readable JSON ({error})") from None
    stages = document.get("stages") if isinstance(document, dict) else document
    if isinstance(document, dict) and set(document) != {"stages"}:
        raise RecipeError(f"recipe {path}: keys {sorted(document)}, expected only 'stages'")
    if not isinstance(stages, list) or not stages:
        raise RecipeError(f'recipe {path}: expected {{"stages": [...]}} with at least one stage')
    return check_recipe([_stage_of(entry, k, str(path), egdb_pieces) for k, entry in enumerate(stages)], str(path))


def _stage_of(entry: Any, k: int, where: str, egdb_pieces: int) -> Stage:
    """Stage ``k`` of a recipe file, from its JSON object."""
    fields = {f.name for f in dataclasses.fields(Stage)}
    if not isinstance(entry, dict):
        raise RecipeError(f"recipe {where}: stage {k + 1} is not an object")
    unknown = sorted(set(entry) - fields)
    if unknown:
        raise RecipeError(f"recipe {where}: stage {k + 1}: unknown keys {unknown} (keys: {', '.join(sorted(fields))})")
    for key in ("name", "games"):
        if key not in entry:
            raise RecipeError(f"recipe {where}: stage {k + 1} has no {key!r}")
    if entry.get("kind") == "records":
        entry = {"shard_size": 500, **entry}
    return Stage(**{"egdb_pieces": egdb_pieces, **entry})


def check_recipe(stages: list[Stage], where: str = "recipe") -> list[Stage]:
    """``stages`` when every stage can be built; the error names the first fault.

    Raises:
        RecipeError: a repeated or bad name, an unknown kind or evaluator, a count out of
            range, a missing PDN file, more ACF games than the archive holds.
    """
    from checkers_agents.alphabeta import MAX_DEPTH
    from checkers_env.egdb.database import MAX_BUILD_PIECES

    seen: set[str] = set()
    for stage in stages:
        fault = _fault(stage, MAX_DEPTH, MAX_BUILD_PIECES)
        if fault is None and stage.name in seen:
            fault = "a second stage of that name"
        if fault is not None:
            raise RecipeError(f"recipe {where}: stage {stage.name!r}: {fault}")
        seen.add(stage.name)
    return stages


def _fault(stage: Stage, max_depth: int, max_pieces: int) -> str | None:
    """What is wrong with one stage, or None."""
    if not isinstance(stage.name, str) or not NAME.match(stage.name):
        return "a name must be a plain folder name (letters, digits, '.', '_', '-')"
    if stage.kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)}, got {stage.kind!r}"
    bounds = {"games": (1, 10**9), "shard_size": (1, 10**6), "depth": (1, max_depth), "random_plies": (0, 200)}
    bounds["egdb_pieces"] = (0, max_pieces)
    for key, (low, high) in bounds.items():
        value = getattr(stage, key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"{key} must be a whole number from {low} to {high}, got {value!r}"
    if stage.kind == "records":
        if stage.pdn is None:
            return None if stage.games <= ACF_GAME_COUNT else f"the ACF archive holds {ACF_GAME_COUNT} games"
        try:
            input_file(stage.pdn, "PDN file", RecipeError)
        except (FileNotFoundError, RecipeError) as error:
            return str(error)
        return None
    try:
        evaluator_weights(stage.evaluator)
    except CheckersError as error:
        return str(error)
    return None


def evaluator_weights(spec: str) -> tuple[str, str | None]:
    """``(evaluator name, weights file or None)`` of a stage's evaluator spec, checked without
    loading the weights.

    Raises:
        RecipeError: not ``material``, ``positional``, ``zoo:ENTRY`` or ``NET:WEIGHTS``; a
            zoo entry without an alpha-beta evaluator; an unknown net or missing file.
    """
    from checkers_agents.alphabeta import HAND_WRITTEN, evaluator_names

    if not isinstance(spec, str):
        raise RecipeError(f"evaluator must be a string, got {spec!r}")
    if spec in HAND_WRITTEN:
        return spec, None
    kind, _, weights = spec.partition(":")
    if kind == "zoo":
        from checkers_agents.zoo import load_card

        card, folder = load_card(weights)
        name = card["params"].get("eval") if card["kind"] == "alphabeta" else card["kind"]
        if name not in evaluator_names() or name in HAND_WRITTEN or "weights" not in card:
            raise RecipeError(f"zoo entry {weights!r} is no net evaluator of the alpha-beta")
        return name, str(folder / card["weights"])
    if kind not in evaluator_names() or not weights:
        known = ", ".join(n for n in evaluator_names() if n not in HAND_WRITTEN)
        raise RecipeError(
            f"evaluator {spec!r} is not material, positional, zoo:ENTRY or NET:WEIGHTS with NET one of {known}"
        )
    if weights != "zoo":
        input_file(weights, f"{kind} weights file", RecipeError)
    return kind, weights


@dataclasses.dataclass(frozen=True)
class Run:
    """The settings one run of the database's steps shares (``checkers data positions``
    builds it once and passes it to :func:`build_stages`, :func:`merge` and
    :func:`deep_search`); each step uses those it needs.

    Attributes:
        out: the database folder (``OUT``; the deep step also takes ``OUT/merged``).
        seed: the run's seed; each stage's is derived from it (:func:`stage_seed`), as is the
            deep step's sample's (``stage_seed(seed, "deep")``), and the merge checks the
            stages' against it.
        egdb_pieces: the endgame database the merge re-scores positions with and the deep
            search probes, of at most this many pieces (0: none; a stage states its own).
        egdb_folder: the endgame database's folder (None: the default).
        workers: processes over a step's shards (the stages' and the deep step's).
        command: the command line, for the merge's and the deep step's cards.
        progress: show the steps' progress bars.
    """

    out: str | Path
    seed: int = 0
    egdb_pieces: int = 0
    egdb_folder: str | None = None
    workers: int = 1
    command: str | None = None
    progress: bool = True


def stage_seed(seed: int, name: str) -> int:
    """The seed of stage ``name`` in a run of ``seed``: the same on every machine and run."""
    digest = hashlib.sha256(f"{int(seed)}/{name}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


__all__ = [
    "ACF_GAME_COUNT",
    "DIVERSE",
    "RecipeError",
    "Run",
    "Stage",
    "check_recipe",
    "diverse_recipe",
    "evaluator_weights",
    "read_recipe",
    "stage_seed",
]
