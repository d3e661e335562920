"""Self-play games of the one alpha-beta search, every position labelled with the game's result.

The suite's self-play kernel (``checkers_agents.alphabeta.play_games``,
``POLICY_SEARCH``) plays whole games: game ``g`` starts from 3-move
ballot opening ``g mod 156`` (``checkers_env.match.ballot_openings``), plays
``random_plies`` uniformly random single moves, then every move is the search's
(``checkers_agents.alphabeta.deepening.search_to_depth`` at ``depth`` plies, quiescence on,
the game's repetition and no-progress rules seen as the ``alphabeta`` agent sees them, exact
ties broken on the game's stream), all on the xorshift stream ``seed_state(seed, g)``, so a
game depends on ``(seed, g)`` and the parameters only, never on the shard or the worker it
falls in. With ``egdb_pieces`` the search probes the endgame database, and a game that
reaches a position the database holds ends there with the database's result (the league's
``--adjudicate egdb``): from there the result is exact, so the labels of every position
before it are the result of play that was perfect from that point.

Every position of a game is kept with the game's result from its side to move's view
(``outcome``: 1 won, 0 drawn, -1 lost) and the search's root value (``search``, NaN for
positions not searched: the random plies and the final position).

Shards are ``.npz`` files of ``SHARD_ARRAYS`` and ``GAME_ARRAYS``, the format ``SHARDS`` of
the one shard store (``checkers_env.shards``): :func:`generate` builds the missing shards of
a folder in this process, in ``workers`` spawned processes, or as Ray tasks (``ray``:
``True`` for a local Ray, or a cluster address): the bytes of a shard are the same whichever
way it was built (tested); :func:`read_shard` and :func:`load_shards` read them back.
"""

from __future__ import annotations

import numba
import numpy as np

from checkers_agents.alphabeta import (
    POLICY_SEARCH,
    GameBatch,
    MovePolicy,
    SearchSetup,
    empty_record,
    memory_for,
    table_for,
)
from checkers_agents.alphabeta import play_games as play_batch
from checkers_agents.search_parts.counts import check_counts
from checkers_agents.search_parts.endgame_probe import probe_of
from checkers_agents.search_parts.evaluators import Evaluator
from checkers_env import BLACK, Rules
from checkers_env.egdb import EndgameDatabase
from checkers_env.game_state import RULE_MAX_PLIES
from checkers_env.shards import ShardFormat

FORMAT_VERSION = 1
#: The search's transposition table: ``2**TT_BITS`` entries.
TT_BITS = 16
SHARD_ARRAYS = ("black", "white", "kings", "black_to_move", "game", "ply", "outcome", "search")
GAME_ARRAYS = ("game_index", "game_length", "game_result", "game_end")


def start_positions() -> np.ndarray:
    """``int64[156, 4]``: the positions after each 3-move ballot opening."""
    from checkers_env import Game
    from checkers_env.match import ballot_openings, opening_moves

    boards = [Game(moves=opening_moves(opening)).board for opening in ballot_openings()]
    return np.array([(b.black, b.white, b.kings, int(b.turn == BLACK)) for b in boards], dtype=np.int64)


def _evaluator(spec):
    """``positional``, ``material``, an outcome-net weights file, or an evaluator itself."""
    from checkers_agents.alphabeta import make_evaluator

    if isinstance(spec, Evaluator):
        return spec
    if spec in ("positional", "material"):
        return make_evaluator(spec)
    return make_evaluator("outcome-net", spec)


def play_games(
    games: int,
    seed: int = 0,
    first_game: int = 0,
    evaluator: str | Evaluator = "positional",
    depth: int = 4,
    random_plies: int = 4,
    egdb_pieces: int = 0,
    egdb_folder: str | None = None,
) -> dict[str, np.ndarray]:
    """Play self-play games and label their positions.

    Args:
        games: how many games.
        seed: game ``g`` plays on stream ``(seed, g)``.
        first_game: index of the first game.
        evaluator: ``positional``, ``material``, an outcome-net weights file, or any
            :class:`~checkers_agents.search_parts.evaluators.Evaluator` (the positions
            database's stages play with the zoo's nets).
        depth: the search's depth in plies (captures searched on beyond it).
        random_plies: uniformly random single moves after the ballot opening.
        egdb_pieces: probe, and end games at, the endgame database of this many pieces
            (0: off; it must be built: ``checkers egdb build``).
        egdb_folder: the database's folder (default ``checkers_env.egdb.default_folder()``).

    Returns:
        Per position ``SHARD_ARRAYS`` and per game ``GAME_ARRAYS``.
    """
    check_counts(games=(games, 0), depth=(depth, 1), random_plies=(random_plies, 0), egdb_pieces=(egdb_pieces, 0))
    rules = Rules().as_array()
    ev = _evaluator(evaluator)
    egdb = probe_of(EndgameDatabase.cached(egdb_pieces, egdb_folder) if egdb_pieces else None)
    record = empty_record(games, rules[RULE_MAX_PLIES])
    n, _nodes = play_batch(
        GameBatch(int(seed), int(first_game), int(games), start_positions(), rules),
        MovePolicy(POLICY_SEARCH, 1.0, int(random_plies), 1, int(depth)),
        SearchSetup(
            ev.valuation(),
            table_for(ev, TT_BITS),
            memory_for(ev),
            egdb,
            True,
        ),
        ev.net,
        record,
    )
    out = {name: getattr(record, name) for name in ("black", "white", "kings", "black_to_move", "game", "ply")}
    out["search"] = record.search_value
    table = {name: getattr(record, name) for name in GAME_ARRAYS[1:]}
    out = {name: array[:n].copy() for name, array in out.items()}
    black_result = table["game_result"][out["game"] - first_game].astype(np.int8)
    out["outcome"] = np.where(out["black_to_move"], black_result, -black_result).astype(np.int8)
    out["game_index"] = np.arange(first_game, first_game + games, dtype=np.int64)
    out.update(table)
    return {name: out[name] for name in SHARD_ARRAYS + GAME_ARRAYS}


# -- shards -------------------------------------------------------------------------------------


def build_shard(params: dict, seed: int, shard: int) -> dict[str, np.ndarray]:
    """Play shard ``shard`` (games ``shard * shard_size ...``): its arrays.

    Args:
        params: ``games``, ``shard_size``, ``evaluator``, ``depth``, ``random_plies``,
            ``egdb_pieces`` (and optionally ``egdb_folder``).
        seed: the seed; a shard depends on ``(seed, shard)`` and ``params`` only.
        shard: the shard's index.
    """
    numba.set_num_threads(1)
    size = min(params["shard_size"], params["games"] - shard * params["shard_size"])
    return play_games(
        size,
        seed,
        shard * params["shard_size"],
        params["evaluator"],
        params["depth"],
        params["random_plies"],
        params["egdb_pieces"],
        params.get("egdb_folder"),
    )


#: The shards' format (``checkers_env.shards``): :func:`build_shard`'s games; loading keeps
#: the positions (``SHARD_ARRAYS``).
SHARDS = ShardFormat(FORMAT_VERSION, SHARD_ARRAYS + GAME_ARRAYS, build_shard, loaded=SHARD_ARRAYS)
shard_bytes = SHARDS.shard_bytes
read_shard = SHARDS.read_shard
generate = SHARDS.generate
load_shards = SHARDS.load_shards


__all__ = ["SHARDS", "build_shard", "generate", "load_shards", "play_games", "read_shard"]
