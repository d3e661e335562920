"""The deep-search step of the positions database: after the merge, each position (or a
seeded sample of them) is searched by one fixed alpha-beta searcher at one fixed depth, and
that value becomes the search part of its label (the package docstring, step 3).

``OUT/deep/`` is a shard folder of the one shard store (``checkers_env.shards``): each
shard holds the rows of the merged set it searched (``row``), their keys (checked against
the merged set when loaded) and the raw root values (``value``, in the evaluator's units,
for the mover). The search is the exact one (no pruning switch), so a value is a pure
function of the position, the evaluator, the depth and the endgame database: a killed run
resumes, and a rebuilt shard holds the same bytes. The card names the searcher, the
depth, the sample, the seed and the merged set's identity (its positions and the SHA-256
of its shards); a run with other parameters on the same folder is refused, naming them.
"""

from __future__ import annotations

import functools
import hashlib
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from checkers_env.errors import ShardError
from checkers_env.shards import CARD, ShardFormat, build_shards, shard_path, start_folder, write_card

from .merging import MERGED, _check_built_as
from .recipe import Run, evaluator_weights, stage_seed

#: Positions a shard of the deep step.
DEEP_SHARD = 1000
#: The default depth of the deep search.
DEEP_DEPTH = 8
#: Most searched positions the deep values' scale is fitted on (evenly spaced).
SCALE_SAMPLE = 200_000
#: A shard's arrays: the merged set's row, its key, and the search's root value.
DEEP_ARRAYS = ("row", "mover", "opponent", "kings", "value")

#: The deep step's shards (built by :func:`deep_shard_bytes`; the card is written here).
DEEP = ShardFormat(1, DEEP_ARRAYS, kind="positions-deep", unit="positions", counted="row", card=True)


def deep_folder(folder: str | Path) -> Path:
    """The deep step's folder of a database given as ``OUT`` or ``OUT/merged``: ``OUT/deep``."""
    return merged_folder(folder).parent / "deep"


def merged_folder(folder: str | Path) -> Path:
    """The merged set of a database given as ``OUT`` or ``OUT/merged``."""
    path = Path(folder)
    return path / "merged" if (path / "merged").is_dir() else path


def merged_identity(folder: str | Path) -> dict[str, Any]:
    """What names a finished merged set: its positions and the SHA-256 of its shards' bytes
    in order (the same stages merge to the same bytes, so a rerun merge keeps it).

    Raises:
        ShardError: the merge is missing or did not finish.
    """
    path = merged_folder(folder)
    card = MERGED.read_card(path)
    if card.get("kind") != MERGED.kind or not card.get("complete"):
        raise ShardError(f"{path / CARD}: not a finished merged positions database (merge it first)")
    digest = hashlib.sha256()
    for k in range(card["shards"]):
        digest.update(shard_path(path, k).read_bytes())
    return {"merged_positions": int(card["positions"]), "merged_sha256": digest.hexdigest()}


def sample_rows(size: int, positions: int | None, seed: int) -> np.ndarray:
    """The merged set's rows the deep step searches, in order: all ``size`` of them when
    ``positions`` is None or not less, else a uniform sample of ``positions`` drawn with
    ``seed``."""
    if positions is None or positions >= size:
        return np.arange(size, dtype=np.int64)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(size, positions, replace=False)).astype(np.int64)


def deep_params(
    run: Run, evaluator: str, depth: int = DEEP_DEPTH, positions: int | None = None, shard_size: int = DEEP_SHARD
) -> dict[str, Any]:
    """The deep step's parameters (its card states them): the searcher's evaluator spec and
    depth, the positions searched, the endgame database and the merged set's identity
    (:func:`deep_search` says what each argument is).

    Raises:
        RecipeError: an evaluator spec ``evaluator_weights`` does not take.
        ShardError: the merge is missing or did not finish.
        ValueError: a depth or sample size below 1.
    """
    if depth < 1 or (positions is not None and positions < 1) or shard_size < 1:
        raise ValueError(f"depth, positions and shard_size must be at least 1, got {depth}, {positions}, {shard_size}")
    evaluator_weights(evaluator)  # refuse a bad spec before anything is written
    identity = merged_identity(run.out)
    searched = identity["merged_positions"] if positions is None else min(positions, identity["merged_positions"])
    return {
        "evaluator": evaluator,
        "depth": int(depth),
        "positions": int(searched),
        "sampled": searched < identity["merged_positions"],
        "egdb_pieces": int(run.egdb_pieces),
        "egdb_folder": run.egdb_folder,
        "shard_size": int(shard_size),
        **identity,
    }


@functools.lru_cache(maxsize=2)
def _searcher(evaluator: str, egdb_pieces: int, egdb_folder: str | None):
    """The one exact alpha-beta searcher of a spec, made once a process."""
    from checkers_agents.alphabeta import Searcher, make_evaluator
    from checkers_env.egdb import EndgameDatabase

    database = EndgameDatabase.cached(egdb_pieces, egdb_folder) if egdb_pieces else None
    return Searcher(make_evaluator(*evaluator_weights(evaluator)), egdb=database)


@functools.lru_cache(maxsize=1)
def _sample(folder: str, sha256: str, positions: int, seed: int) -> dict[str, np.ndarray]:
    """The keys of the sampled rows of a merged set, read once a process."""
    data = MERGED.load(folder)
    rows = sample_rows(len(data["mover"]), positions, seed)
    return {"row": rows, **{name: data[name][rows] for name in ("mover", "opponent", "kings")}}


def search_positions(
    mover: np.ndarray,
    opponent: np.ndarray,
    kings: np.ndarray,
    evaluator: str,
    depth: int,
    egdb_pieces: int = 0,
    egdb_folder: str | None = None,
) -> np.ndarray:
    """The exact search's root value of each position, the mover to move as Black
    (``Searcher.search(board, depth)``, in the evaluator's units; NaN without a legal move).

    Raises:
        RecipeError: an evaluator spec ``evaluator_weights`` does not take.
    """
    from checkers_env import BLACK, Board

    searcher = _searcher(evaluator, egdb_pieces, egdb_folder)
    searcher.clear()
    values = np.full(len(mover), np.nan, dtype=np.float64)
    for i in range(len(mover)):
        board = Board(int(mover[i]), int(opponent[i]), int(kings[i]), BLACK)
        if board.legal_moves():
            values[i] = searcher.search(board, depth, None, None).value
    return values


def deep_shard_bytes(folder: str, params: dict, seed: int, shard: int) -> bytes:
    """The ``.npz`` bytes of shard ``shard`` of the deep step of the merged set ``folder``."""
    numba.set_num_threads(1)
    sample = _sample(folder, params["merged_sha256"], params["positions"], seed)
    part = slice(shard * params["shard_size"], (shard + 1) * params["shard_size"])
    keys = {name: sample[name][part] for name in ("row", "mover", "opponent", "kings")}
    value = search_positions(
        keys["mover"],
        keys["opponent"],
        keys["kings"],
        params["evaluator"],
        params["depth"],
        params["egdb_pieces"],
        params["egdb_folder"],
    )
    return DEEP.encode(shard, seed, {**keys, "value": value})


def deep_search(
    run: Run, evaluator: str, depth: int = DEEP_DEPTH, positions: int | None = None, shard_size: int = DEEP_SHARD
) -> dict:
    """Search the positions of ``OUT/merged/`` into ``OUT/deep/`` (the module docstring).

    The shards missing or unreadable are built (a killed run resumes); the card is written
    unfinished first and finished last, with the scale ``s`` of the deep values fitted to
    the positions' results (``outcome_targets.search_scale``, as the merge fits each
    stage's), by which :func:`load_deep` turns them into ``tanh(value / 2s)``.

    Args:
        run: the run's settings: its folder (``OUT``, or its ``merged`` folder); its seed,
            from which the sample's is derived (``stage_seed(seed, "deep")``); the endgame
            database of ``egdb_pieces`` pieces the search probes (0: none); workers over the
            shards; the command line, for the card; and a progress bar over positions.
        evaluator: the searcher's evaluator spec (``zoo:outcome-net-3``, ``positional``,
            ``NET:WEIGHTS``: what a stage's ``evaluator`` takes).
        depth: the search's depth.
        positions: search a uniform sample of this many positions (None, or at least the
            merged set's size: all).
        shard_size: positions a shard.

    Returns:
        The card.

    Raises:
        ShardError: the merge is missing or unfinished, or ``OUT/deep`` was built with other
            parameters (each named, as built and as asked now).
        RecipeError: an evaluator spec it does not take.
        EndgameDatabaseError: ``egdb_pieces`` set and the database not in its folder.
    """
    from tqdm.auto import tqdm

    started = time.perf_counter()
    params = deep_params(run, evaluator, depth, positions, shard_size)
    if run.egdb_pieces:  # checked here, before any worker fails on it
        from checkers_env.egdb import EndgameDatabase

        EndgameDatabase.cached(run.egdb_pieces, run.egdb_folder)
    folder, sample_seed = deep_folder(run.out), stage_seed(run.seed, "deep")
    if (folder / CARD).exists():
        _check_built_as(folder, DEEP.read_card(folder), params, sample_seed, "the deep step")
    from checkers_env.provenance import git_commit

    card: dict[str, Any] = {"format_version": DEEP.version, "kind": DEEP.kind, "params": params, "seed": sample_seed}
    card.update(command=run.command, commit=git_commit(), complete=False)
    start_folder(folder)
    sizes = DEEP.sizes(params)
    card["shards"] = len(sizes)
    write_card(folder, card)
    todo = DEEP.missing(folder, sizes, sample_seed)
    bar = tqdm(
        total=sum(sizes),
        initial=sum(sizes) - sum(sizes[k] for k in todo),
        unit="positions",
        desc="deep search",
        disable=not run.progress,
        dynamic_ncols=True,
    )
    build = functools.partial(deep_shard_bytes, str(merged_folder(run.out)), params, sample_seed)
    try:
        build_shards(folder, build, todo, lambda k: bar.update(sizes[k]), run.workers, what="the deep search")
    finally:
        bar.close()
    parts = [DEEP.read(shard_path(folder, k), k) for k in range(len(sizes))]
    values = {name: np.concatenate([part[name] for part in parts]) for name in DEEP_ARRAYS}
    card.update(
        complete=True,
        shard_counts=[len(part["row"]) for part in parts],
        built_now=len(todo),
        positions=len(values["row"]),
        search_scale=deep_scale(MERGED.load(merged_folder(run.out)), values),
        wall_s=round(time.perf_counter() - started, 3),
    )
    write_card(folder, card)
    return card


def deep_scale(merged: dict[str, np.ndarray], deep: dict[str, np.ndarray]) -> float:
    """The scale of the deep values (``outcome_targets.search_scale`` against each game's
    result of the searched positions, at most :data:`SCALE_SAMPLE` evenly spaced
    positions); 1 with none."""
    from checkers_training.outcome_targets import search_scale

    found = np.flatnonzero(np.isfinite(deep["value"]))
    if len(found) == 0:
        return 1.0
    found = found[np.linspace(0, len(found) - 1, min(len(found), SCALE_SAMPLE)).astype(np.int64)]
    rows, value = deep["row"][found], deep["value"][found]
    counts = [merged[name][rows] for name in ("wins", "draws", "losses")]
    results = np.concatenate([np.full(int(c.sum()), r, dtype=np.int8) for c, r in zip(counts, (1, 0, -1))])
    values = np.concatenate([np.repeat(value, c) for c in counts])
    return search_scale(values, results) if len(values) else 1.0


def load_deep(folder: str | Path, merged: dict[str, np.ndarray]) -> np.ndarray | None:
    """The deep value of each row of ``merged`` as an expected result for the mover,
    ``tanh(value / 2s)`` with the card's scale (NaN where not searched); None when the
    database has no finished deep step.

    Raises:
        ShardError: the deep step searched another merged set (the merge was rebuilt
            since: run the deep step again in a fresh folder), or a corrupt shard.
    """
    path = deep_folder(folder)
    try:
        card = DEEP.read_card(path)
    except ShardError:
        return None
    if card.get("kind") != DEEP.kind or not card.get("complete"):
        return None
    identity = merged_identity(folder)
    built = {key: card["params"].get(key) for key in identity}
    if built != identity:
        raise ShardError(
            f"{path}: the deep step searched another merged set ({built}, now {identity}); "
            f"remove {path} and run the deep step again"
        )
    data = DEEP.load(path)
    rows = data["row"]
    if any(not np.array_equal(data[name], merged[name][rows]) for name in ("mover", "opponent", "kings")):
        raise ShardError(f"{path}: its positions are not the merged set's rows it names")
    deep = np.full(len(merged["mover"]), np.nan, dtype=np.float64)
    deep[rows] = np.tanh(data["value"] / (2.0 * card["search_scale"]))
    return deep


__all__ = [
    "DEEP",
    "DEEP_ARRAYS",
    "DEEP_DEPTH",
    "DEEP_SHARD",
    "deep_folder",
    "deep_params",
    "deep_search",
    "deep_shard_bytes",
    "load_deep",
    "merged_folder",
    "merged_identity",
    "sample_rows",
    "search_positions",
]
