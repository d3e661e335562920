"""The stages of the positions database: each a shard folder ``OUT/stages/NAME/`` of the
self-play store's arrays (``checkers_agents.outcome_net.selfplay``), built resumably by the
one shard store (``checkers_env.shards``) from self-play games or game records."""

from __future__ import annotations

import dataclasses
from itertools import islice
from pathlib import Path

import numba
import numpy as np

from checkers_agents.outcome_net import selfplay

from .recipe import RecipeError, Run, Stage, evaluator_weights, stage_seed


def play_stage_games(
    games: int,
    seed: int,
    first_game: int,
    evaluator: str,
    depth: int,
    random_plies: int,
    egdb_pieces: int = 0,
    egdb_folder: str | None = None,
) -> dict[str, np.ndarray]:
    """``selfplay.play_games`` (the one alpha-beta self-play kernel, its streams and records)
    with any evaluator a stage may name.

    Args:
        games, seed, first_game, depth, random_plies, egdb_pieces, egdb_folder: as
            ``selfplay.play_games``.
        evaluator: a spec :func:`evaluator_weights` takes (``zoo:td-minimax``, ``positional``).

    Returns:
        The self-play store's arrays (``selfplay.SHARD_ARRAYS`` and ``GAME_ARRAYS``).

    Raises:
        RecipeError: an evaluator spec it does not take.
        WeightsError: a weights file that is not the net's.
    """
    from checkers_agents.alphabeta import make_evaluator

    net = make_evaluator(*evaluator_weights(evaluator))
    return selfplay.play_games(games, seed, first_game, net, depth, random_plies, egdb_pieces, egdb_folder)


def read_record_games(pdn: str | None, first_game: int, games: int) -> dict[str, np.ndarray]:
    """The positions of some games of a PDN file, labelled by their recorded results.

    Args:
        pdn: the file (None: the ACF archive).
        first_game: the index in the file of the first game read.
        games: how many games.

    Returns:
        The self-play store's arrays: every position of each game, before each move and the
        last, with the stated result from its side to move's view (a game without one gives
        no position); ``search`` NaN, ``game_end`` 0 (the record ends where the players
        stopped, not by the rules).

    Raises:
        RecipeError: the file holds fewer games.
    """
    from checkers_env import BLACK
    from checkers_env.datasets import ACF_GAMES
    from checkers_env.pdn import iter_pdn

    source = ACF_GAMES if pdn is None else pdn
    values = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}
    rows: list[tuple[int, int, int, bool, int, int, int]] = []
    table = np.zeros((games, 3), dtype=np.int64)
    read = list(islice(iter_pdn(source), first_game, first_game + games))
    if len(read) < games:
        raise RecipeError(f"{source} holds {first_game + len(read)} games, fewer than {first_game + games}")
    for k, game in enumerate(read):
        result = values.get(game.result)
        table[k] = (game.ply, 0 if result is None else result, 0)
        if result is None:
            continue
        for ply, board in enumerate(game.boards):
            black = board.turn == BLACK
            rows.append(
                (board.black, board.white, board.kings, black, first_game + k, ply, result if black else -result)
            )
    columns = list(zip(*rows)) if rows else [()] * 7
    out: dict[str, np.ndarray] = {
        name: np.array(col, dtype=dtype) for name, col, dtype in zip(selfplay.SHARD_ARRAYS, columns, _RECORD_DTYPES)
    }
    out["search"] = np.full(len(rows), np.nan, dtype=np.float32)
    out["game_index"] = np.arange(first_game, first_game + games, dtype=np.int64)
    out["game_length"] = table[:, 0].astype(np.int32)
    out["game_result"], out["game_end"] = table[:, 1].astype(np.int8), table[:, 2].astype(np.int8)
    return {name: out[name] for name in selfplay.SHARD_ARRAYS + selfplay.GAME_ARRAYS}


_RECORD_DTYPES = (np.int64, np.int64, np.int64, np.bool_, np.int64, np.int32, np.int8)


def build_stage_shard(params: dict, seed: int, shard: int) -> dict[str, np.ndarray]:
    """Shard ``shard`` of a stage (``Stage.params``): games ``shard * shard_size ...``."""
    numba.set_num_threads(1)
    first = shard * params["shard_size"]
    size = min(params["shard_size"], params["games"] - first)
    if params["kind"] == "records":
        return read_record_games(params["pdn"], first, size)
    return play_stage_games(
        size,
        seed,
        first,
        params["evaluator"],
        params["depth"],
        params["random_plies"],
        params["egdb_pieces"],
        params["egdb_folder"],
    )


#: A stage's shards: the self-play store's arrays and version, with a card stating the stage.
STAGES = dataclasses.replace(selfplay.SHARDS, build=build_stage_shard, kind="positions-stage", card=True)
#: The merged set: one row per distinct quiet position, in key order.


def stage_folder(out: str | Path, name: str) -> Path:
    """The shard folder of stage ``name`` in the database folder ``out``."""
    return Path(out) / "stages" / name


def build_stages(run: Run, stages: list[Stage]) -> list[dict]:
    """Build the missing shards of each stage in turn (a killed run resumes).

    Args:
        run: the run's settings (its folder, seed, endgame database's folder, workers over
            a stage's shards, and progress bars: a bar per stage).
        stages: the stages to build (a recipe, or some of its stages).

    Returns:
        Each stage's card.

    Raises:
        ShardError: a stage folder built with other parameters or seed.
        EndgameDatabaseError: a stage's endgame database is not in the folder (checked
            before any game is played, so that no worker fails on it).
    """
    from checkers_env.egdb import EndgameDatabase

    for pieces in sorted({stage.egdb_pieces for stage in stages if stage.kind == "selfplay" and stage.egdb_pieces}):
        EndgameDatabase.cached(pieces, run.egdb_folder)
    cards = []
    for stage in stages:
        folder = stage_folder(run.out, stage.name)
        params, seed = stage.params(run.egdb_folder), stage_seed(run.seed, stage.name)
        STAGES.generate(folder, params, seed, run.workers, progress=run.progress)
        cards.append(STAGES.read_card(folder))
    return cards


__all__ = ["STAGES", "build_stages", "play_stage_games", "read_record_games", "stage_folder"]
