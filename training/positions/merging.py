"""Merging the stages of the positions database into one set of distinct quiet positions
with their counts, re-scored by the endgame database; loading it, and its labels (the
package's docstring says what each array means)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numba
import numpy as np

from checkers_agents.outcome_net.quiet import quiet_mask
from checkers_env.bitboard import popcount
from checkers_env.egdb.index import WDL_DRAW, WDL_LOSS, WDL_WIN, probe
from checkers_env.errors import ShardError
from checkers_env.files import write_atomic, write_json_atomic
from checkers_env.shards import ShardFormat, shard_path, start_folder, write_card

from .recipe import Run, Stage, stage_seed
from .stages import STAGES, stage_folder

#: Where ``egdb`` holds no value: more pieces than the database's, or no database.
NOT_PROBED = -2
#: The default weight of the search's value in :func:`labels` (the zoo's outcome-net-2 and
#: outcome-net-3 were trained with this ``--search-weight``).
SEARCH_WEIGHT = 0.5
#: Positions a shard of the merged set.
MERGED_SHARD = 1 << 20
#: Most searched positions a stage's search scale is fitted on (evenly spaced).
SCALE_SAMPLE = 200_000
#: The counts of a position, summed over its occurrences (``sources`` over stages).
COUNTS = ("wins", "draws", "losses", "search_sum", "searched", "sources")
#: The merged set's arrays: the key in the mover's frame, the counts, the database's value.
MERGED_ARRAYS = ("mover", "opponent", "kings", *COUNTS, "egdb")

#: The merged set: one row per distinct quiet position, in key order.
MERGED = ShardFormat(1, MERGED_ARRAYS, kind="positions", unit="positions", counted="mover", card=True)


def half_turn(board: np.ndarray) -> np.ndarray:
    """Bitboards turned half a circle, bit ``b`` to ``31 - b`` (``encoding.half_turn`` on arrays)."""
    x = board.astype(np.uint32)
    for step, bits in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F), (8, 0x00FF00FF)):
        shift, mask = np.uint32(step), np.uint32(bits)
        x = ((x >> shift) & mask) | ((x & mask) << shift)
    return (x >> np.uint32(16)) | (x << np.uint32(16))


def position_table(data: dict[str, np.ndarray], scale: float) -> dict[str, np.ndarray]:
    """The quiet positions of a stage's arrays, keyed in the mover's frame, one row each with
    its counts (not yet merged); search values become ``tanh(value / 2 scale)``."""
    black, white, kings = (data[name].astype(np.uint32) for name in ("black", "white", "kings"))
    quiet = quiet_mask(black, white, kings, data["black_to_move"])
    black, white, kings, to_move = black[quiet], white[quiet], kings[quiet], data["black_to_move"][quiet]
    outcome, search = data["outcome"][quiet], data["search"][quiet].astype(np.float64)
    searched = np.isfinite(search)
    return {
        "mover": np.where(to_move, black, half_turn(white)),
        "opponent": np.where(to_move, white, half_turn(black)),
        "kings": np.where(to_move, kings, half_turn(kings)),
        "wins": (outcome == 1).astype(np.int32),
        "draws": (outcome == 0).astype(np.int32),
        "losses": (outcome == -1).astype(np.int32),
        "search_sum": np.where(searched, np.tanh(np.where(searched, search, 0.0) / (2.0 * scale)), 0.0),
        "searched": searched.astype(np.int32),
        "sources": np.ones(len(outcome), dtype=np.int32),
    }


def merge_table(table: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One row per distinct ``(mover, opponent, kings)``, in that order, its counts summed
    (a stable sort, so the sums and their order depend on the input's order only)."""
    pair = (table["mover"].astype(np.uint64) << np.uint64(32)) | table["opponent"].astype(np.uint64)
    order = np.lexsort((table["kings"], pair))
    pair, kings = pair[order], table["kings"][order]
    if len(order) == 0:
        return {name: table[name][:0] for name in ("mover", "opponent", "kings", *COUNTS)}
    start = np.ones(len(order), dtype=bool)
    start[1:] = (pair[1:] != pair[:-1]) | (kings[1:] != kings[:-1])
    first = np.flatnonzero(start)
    out = {name: table[name][order][first] for name in ("mover", "opponent", "kings")}
    out.update({name: np.add.reduceat(table[name][order], first) for name in COUNTS})
    return out


def stage_table(data: dict[str, np.ndarray], scale: float) -> dict[str, np.ndarray]:
    """One stage's quiet positions merged (:func:`position_table`, :func:`merge_table`), each
    with ``sources`` 1: what the stages' tables are merged from."""
    table = merge_table(position_table(data, scale))
    table["sources"][:] = 1
    return table


def fitted_scale(data: dict[str, np.ndarray]) -> float:
    """The scale of a stage's search values (``outcome_targets.search_scale`` on its quiet
    searched positions, at most :data:`SCALE_SAMPLE` evenly spaced ones); 1 with none."""
    from checkers_training.outcome_targets import search_scale

    search = data["search"]
    quiet = quiet_mask(data["black"], data["white"], data["kings"], data["black_to_move"])
    rows = np.flatnonzero(quiet & np.isfinite(search))
    if len(rows) == 0:
        return 1.0
    rows = rows[np.linspace(0, len(rows) - 1, min(len(rows), SCALE_SAMPLE)).astype(np.int64)]
    return search_scale(search[rows], data["outcome"][rows])


@numba.njit(cache=True)
def _egdb_values(tables, offsets, pieces, mover, opponent, kings):
    """The database's value (1, 0, -1 for the mover) of each position, ``NOT_PROBED`` where it
    has more pieces than ``pieces`` or the database does not hold it."""
    out = np.full(len(mover), NOT_PROBED, dtype=np.int8)
    for i in range(len(mover)):
        if popcount(mover[i] | opponent[i]) <= pieces:
            code = probe(tables, offsets, np.int64(mover[i]), np.int64(opponent[i]), np.int64(kings[i]))
            if code == WDL_WIN:
                out[i] = 1
            elif code == WDL_DRAW:
                out[i] = 0
            elif code == WDL_LOSS:
                out[i] = -1
    return out


def egdb_values(table: dict[str, np.ndarray], pieces: int, folder: str | None = None) -> np.ndarray:
    """``int8`` per position of a merged table: the ``pieces``-piece database's value for the
    mover, ``NOT_PROBED`` outside it or when ``pieces`` is 0.

    Raises:
        EndgameDatabaseError: the database is not in the folder.
    """
    if not pieces:
        return np.full(len(table["mover"]), NOT_PROBED, dtype=np.int8)
    from checkers_env.egdb import EndgameDatabase

    database = EndgameDatabase.cached(pieces, folder)
    return _egdb_values(database.tables, database.offsets, int(database.pieces), *_keys(table))


def _keys(table: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return table["mover"], table["opponent"], table["kings"]


def merge(run: Run, stages: list[Stage], shard_size: int = MERGED_SHARD) -> dict:
    """Merge the finished stages of ``stages`` into ``OUT/merged/`` (the package docstring, step 2).

    The card is written unfinished first and finished last, so a killed merge is never read
    as done; run it again. Stages not finished are left out and listed as ``missing``.

    Args:
        run: the run's settings (its folder; its seed, for the card and to check the
            stages'; the endgame database it re-scores the positions of at most
            ``egdb_pieces`` pieces with, 0: none; the command line, for the card; and a
            progress bar over the stages).
        stages: the recipe (each stage must have been built with these parameters).
        shard_size: positions a shard.

    Returns:
        The card.

    Raises:
        ShardError: a stage built with other parameters or seed, or a corrupt shard.
        EndgameDatabaseError: ``egdb_pieces`` set and the database not in its folder.
    """
    from tqdm.auto import tqdm

    tables, per_stage, missing = [], {}, []
    for stage in tqdm(stages, desc="merge", unit="stage", disable=not run.progress, dynamic_ncols=True):
        folder = stage_folder(run.out, stage.name)
        try:
            card = STAGES.read_card(folder)
        except ShardError:
            missing.append(stage.name)
            continue
        if not card.get("complete"):
            missing.append(stage.name)
            continue
        _check_built_as(folder, card, stage.params(run.egdb_folder), stage_seed(run.seed, stage.name))
        data = STAGES.load(folder)
        scale = fitted_scale(data)
        table = stage_table(data, scale)
        tables.append(table)
        quiet = int(table["wins"].sum() + table["draws"].sum() + table["losses"].sum())
        per_stage[stage.name] = {
            "games": card["games"],
            "positions": card["positions"],
            "quiet": quiet,
            "distinct": len(table["mover"]),
            "search_scale": scale,
        }
    if not tables:  # nothing finished yet: an empty set, of the arrays' types
        empty = {name: np.zeros(0, dtype=np.int64) for name in ("black", "white", "kings", "outcome", "search")}
        tables.append(position_table({**empty, "black_to_move": np.zeros(0, dtype=bool)}, 1.0))
    merged = merge_table({name: np.concatenate([t[name] for t in tables]) for name in tables[0]})
    merged["egdb"] = egdb_values(merged, run.egdb_pieces, run.egdb_folder)
    return _write_merged(Path(run.out) / "merged", merged, per_stage, missing, stages, run, shard_size)


def _check_built_as(folder: Path, card: dict, params: dict, seed: int, what: str = "the stage") -> None:
    """Refuse a stage (or ``what``) whose card names other parameters or seed than asked now.

    Raises:
        ShardError: naming each parameter that differs, as built and as asked now.
    """
    built = card.get("params") or {}
    differ = [f"{key} {built.get(key)!r} (now {value!r})" for key, value in params.items() if built.get(key) != value]
    if card.get("seed") != seed:
        differ.append(f"seed {card.get('seed')} (now {seed}: another --seed)")
    if differ:
        raise ShardError(f"{folder}: {what} was built with {', '.join(differ)}; give the options it was built with")


def _write_merged(folder, merged, per_stage, missing, stages, run: Run, shard_size) -> dict:
    """Write the merged arrays as shards and the card (unfinished first, finished last)."""
    folder = start_folder(folder)
    n = len(merged["mover"])
    starts = list(range(0, n, shard_size)) or [0]
    card: dict[str, Any] = {
        "format_version": MERGED.version,
        "kind": MERGED.kind,
        "command": run.command,
        "seed": run.seed,
        "recipe": [dataclasses.asdict(stage) for stage in stages],
        "stages": per_stage,
        "missing": missing,
        "egdb_pieces": run.egdb_pieces,
        "egdb_positions": int((merged["egdb"] != NOT_PROBED).sum()),
        "games": sum(s["games"] for s in per_stage.values()),
        "quiet": sum(s["quiet"] for s in per_stage.values()),
        "shards": len(starts),
        "complete": False,
    }
    write_card(folder, card)
    counts = []
    for k, start in enumerate(starts):
        part = {name: merged[name][start : start + shard_size] for name in MERGED_ARRAYS}
        write_atomic(shard_path(folder, k), MERGED.encode(k, run.seed, part))
        counts.append(len(part["mover"]))
    for stale in folder.glob("shard-*.npz"):
        if stale not in [shard_path(folder, k) for k in range(len(starts))]:
            stale.unlink()
    card.update(complete=True, shard_counts=counts, positions=n)
    write_json_atomic(folder / "card.json", card)
    return card


# -- loading and labels -------------------------------------------------------------------------


def load_positions(folder: str | Path) -> dict[str, np.ndarray]:
    """The merged set of ``folder`` (``OUT/merged``, or ``OUT``), checked against its card.

    Each row is a position with its mover to move as Black (``mover`` the black pieces,
    ``opponent`` the white, ``kings``, Black to move), with :data:`MERGED_ARRAYS`' counts;
    and ``deep``, the deep step's expected result (``deep.load_deep``: NaN where it did not
    search) when ``OUT/deep`` is finished.

    Raises:
        ShardError: unfinished, missing or corrupt; or a deep step of another merged set.
    """
    from .deep import load_deep, merged_folder

    data = MERGED.load(merged_folder(folder))
    deep = load_deep(folder, data)
    if deep is not None:
        data["deep"] = deep
    return data


def labels(data: dict[str, np.ndarray], search_weight: float = SEARCH_WEIGHT) -> np.ndarray:
    """Each position's target in [-1, 1] for the mover: ``(1 - w) * result_mean + w *
    search_mean``, ``result_mean = (wins - losses) / games`` and ``search_mean`` the deep
    step's value where it searched the position (``deep``), else ``search_sum / searched``
    (the result alone where no search saw it); the endgame database's value where it has
    one. ``(label + 1) / 2`` is a probability target.

    Args:
        data: :func:`load_positions`' arrays.
        search_weight: ``w``, from 0 (results only) to 1 (searches only).

    Raises:
        ValueError: ``search_weight`` outside [0, 1].
    """
    if not 0.0 <= search_weight <= 1.0:
        raise ValueError(f"search_weight must be from 0 to 1, got {search_weight}")
    games = data["wins"] + data["draws"] + data["losses"]
    result = (data["wins"] - data["losses"]) / np.maximum(games, 1)
    searched = data["searched"] > 0
    search = np.where(searched, data["search_sum"] / np.maximum(data["searched"], 1), result)
    if "deep" in data:
        search = np.where(np.isfinite(data["deep"]), data["deep"], search)
    label = (1.0 - search_weight) * result + search_weight * search
    return np.where(data["egdb"] != NOT_PROBED, data["egdb"], label).astype(np.float32)


__all__ = [
    "COUNTS",
    "MERGED",
    "MERGED_ARRAYS",
    "NOT_PROBED",
    "SEARCH_WEIGHT",
    "egdb_values",
    "labels",
    "load_positions",
    "merge",
    "merge_table",
    "position_table",
    "stage_table",
]
