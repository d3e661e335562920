"""Training data for the MCRD networks: pseudo-random games with interpolated
labels, and a database of positions labelled by MCRD searches.

    >>> from checkers_agents.mcrd.data import play_pseudo_random_games
    >>> games = play_pseudo_random_games(2, seed=1)
    >>> bool(abs(games["value"]).max() <= 1.0)
    True

A database is a folder of ``card.json`` and shards ``shard-00000.npz`` ..., one of the two
formats ``SHARDS`` of the one shard store (``checkers_env.shards``); shard ``k`` depends on
``(seed, k)`` and the parameters alone, so a killed run resumes with identical shards. The documentation's MCRD page gives the document's words for each part and the
choices made where it is silent.
"""

from __future__ import annotations

import os

import numpy as np

from checkers_agents.alphabeta import (
    MOVE_NONE,
    MOVE_RANDOM,
    POLICY_MIXED,
    GameBatch,
    MovePolicy,
    SearchSetup,
    empty_record,
    flat_memory,
    new_table,
    play_games,
)
from checkers_agents.alphabeta import MOVE_SEARCH as MOVE_MINIMAX
from checkers_agents.search_parts.endgame_probe import no_egdb
from checkers_agents.search_parts.evaluators import MATERIAL
from checkers_env import BLACK, WHITE, Board, Game, Rules
from checkers_env.errors import ShardError
from checkers_env.game_state import RULE_MAX_PLIES
from checkers_env.shards import CARD, ShardFormat, shard_path

#: Version of the shard and card layout; a database of another version is refused.
FORMAT_VERSION = 1
KINDS = ("interpolated", "mcrd")
#: Children stored per position (a position with more legal moves is skipped).
MAX_CHILDREN = 64
#: Squares of a stored move path: the start and up to 12 landings (12 captures at most).
MAX_PATH = 13
#: Transposition table of the games' shallow searches: ``2**TT_BITS`` entries.
TT_BITS = 12
SOURCE_PSEUDO_RANDOM, SOURCE_SELFPLAY = 0, 1

#: Defaults: the document's values where it gives one.
DEFAULT_MINIMAX_RATE = 0.5
DEFAULT_MINIMAX_DEPTH = 3
DEFAULT_GAMES_PER_SHARD = 100
DEFAULT_POSITIONS_PER_SHARD = 256
DEFAULT_SELFPLAY_FRACTION = 0.5
DEFAULT_SELFPLAY_PLAYOUTS = 200
DEFAULT_PER_GAME = 8

#: Arrays of each kind's shards (besides ``format_version``, ``kind``, ``shard``, ``seed``).
GAME_ARRAYS = (
    "black",
    "white",
    "kings",
    "black_to_move",
    "value",
    "game",
    "ply",
    "length",
    "result",
    "move_kind",
)
GAME_TABLE_ARRAYS = ("game_index", "game_length", "game_result", "game_end")
MCRD_ARRAYS = (
    "black",
    "white",
    "kings",
    "black_to_move",
    "value",
    "budget",
    "source",
    "source_ply",
    "n_children",
    "move_path",
    "wins",
    "draws",
    "losses",
    "playouts",
    "chosen",
)


# -- the pseudo-random games ------------------------------------------------------------------


def interpolated_values(ply, length, result, black_to_move) -> np.ndarray:
    """The document's labels from the side to move's view: Black's ``result * ply /
    length``, negated where White moves (float32; arrays of one length)."""
    ply = np.asarray(ply, np.float64)
    length = np.maximum(np.asarray(length, np.float64), 1.0)
    black_value = np.asarray(result, np.float64) * ply / length
    return np.where(np.asarray(black_to_move) != 0, black_value, -black_value).astype(np.float32)


def _rules(rules: Rules | None) -> np.ndarray:
    rules = Rules() if rules is None else rules
    if rules.max_plies is None:
        raise ValueError("pseudo-random games need a move cap (Rules.max_plies): it bounds their buffers")
    return rules.as_array()


def _start_row(start: Board) -> np.ndarray:
    """``int64[1, 4]``: the self-play kernel's start row of ``start``."""
    return np.array([[start.black, start.white, start.kings, int(start.turn == BLACK)]], dtype=np.int64)


def play_pseudo_random_games(
    games: int,
    seed: int = 0,
    minimax_rate: float = DEFAULT_MINIMAX_RATE,
    minimax_depth: int = DEFAULT_MINIMAX_DEPTH,
    rules: Rules | None = None,
    first_game: int = 0,
    start: Board | None = None,
) -> dict[str, np.ndarray]:
    """Play the document's pseudo-random games and label their positions.

    Args:
        games: how many games.
        seed: the seed; game ``g`` plays on stream ``(seed, g)``.
        minimax_rate: probability that a move is the material minimax choice.
        minimax_depth: its depth in plies.
        rules: the draw rules (default ``Rules()``; a move cap is required).
        first_game: index of the first game.
        start: the start position (default the game's).

    Returns:
        Per position ``GAME_ARRAYS`` (bitboards ``int64``, ``black_to_move`` bool,
        ``value`` float32 from the mover's view, ``game``, ``ply``, ``length``, ``result``,
        ``move_kind``), and per game ``GAME_TABLE_ARRAYS``.
    """
    _check_int("games", games, 0)
    _check_int("seed", seed, 0, 2**62)
    _check_int("minimax_depth", minimax_depth, 1, 64)
    if not 0.0 <= minimax_rate <= 1.0:
        raise ValueError(f"minimax_rate must be in [0, 1], got {minimax_rate!r}")
    rules_array = _rules(rules)
    start = Board() if start is None else start
    record = empty_record(games, rules_array[RULE_MAX_PLIES])
    n, _nodes = play_games(
        GameBatch(int(seed), int(first_game), int(games), _start_row(start), rules_array),
        MovePolicy(POLICY_MIXED, float(minimax_rate), 0, int(minimax_depth), int(minimax_depth)),
        SearchSetup(
            MATERIAL.valuation(),
            new_table(1 << TT_BITS),
            flat_memory(),
            no_egdb(),
            False,
        ),
        None,
        record,
    )
    out = {name: getattr(record, name) for name in ("black", "white", "kings", "black_to_move", "game", "ply")}
    out["move_kind"] = record.move_kind
    table_ = {name: getattr(record, name) for name in GAME_TABLE_ARRAYS[1:]}
    out = {name: array[:n].copy() for name, array in out.items()}
    local = out["game"] - first_game
    out["length"] = table_["game_length"][local]
    out["result"] = table_["game_result"][local]
    out["value"] = interpolated_values(out["ply"], out["length"], out["result"], out["black_to_move"])
    out["game_index"] = np.arange(first_game, first_game + games, dtype=np.int64)
    out.update(table_)
    return {name: out[name] for name in GAME_ARRAYS + GAME_TABLE_ARRAYS}


# -- the MCRD database ---------------------------------------------------------------------------


def _substream(seed: int, *path: int) -> int:
    """A seed in ``[0, 2**62)`` for the stream ``(seed, *path)`` (numpy's SeedSequence)."""
    return int(np.random.SeedSequence([seed, *path]).generate_state(1, np.uint64)[0] >> np.uint64(2))


def _selfplay_positions(params: dict, seed: int) -> tuple[list[Board], list[int]]:
    """One MCRD self-play game: its undecided positions and their plies."""
    from .agent import MCRDAgent

    agent = MCRDAgent(playouts=params["selfplay_playouts"], backend=params["backend"], seed=seed)
    game = Game()
    while not game.is_over():
        game.play(agent.select_move(game))
    boards = game.boards[:-1]
    return boards, list(range(len(boards)))


def _pseudo_random_positions(params: dict, seed: int) -> tuple[list[Board], list[int]]:
    """One pseudo-random game: its undecided positions and their plies."""
    data = play_pseudo_random_games(1, seed, params["minimax_rate"], params["minimax_depth"])
    keep = data["move_kind"] != MOVE_NONE
    boards = [
        Board(int(b), int(w), int(k), BLACK if t else WHITE)
        for b, w, k, t in zip(
            data["black"][keep], data["white"][keep], data["kings"][keep], data["black_to_move"][keep]
        )
    ]
    return boards, data["ply"][keep].tolist()


def build_mcrd_shard(params: dict, seed: int, shard: int) -> dict[str, np.ndarray]:
    """The arrays of shard ``shard`` of an MCRD database (``MCRD_ARRAYS``)."""
    from .agent import MCRDAgent

    size = SHARDS["mcrd"].sizes(params)[shard]
    rng = np.random.default_rng([seed, shard, 0])
    n_self = int(round(size * params["selfplay_fraction"]))
    picked: list[tuple[Board, int, int]] = []
    for source, quota in ((SOURCE_PSEUDO_RANDOM, size - n_self), (SOURCE_SELFPLAY, n_self)):
        got = 0
        game = 0
        while got < quota:
            game_seed = _substream(seed, shard, 1 + source, game)
            game += 1
            play = _selfplay_positions if source == SOURCE_SELFPLAY else _pseudo_random_positions
            boards, plies = play(params, game_seed)
            if game > 1000 and not picked:
                raise RuntimeError(f"shard {shard}: 1000 games gave no position to label")
            take = min(params["per_game"], quota - got, len(boards))
            for i in sorted(rng.choice(len(boards), size=take, replace=False).tolist()):
                if len(boards[i].legal_moves()) <= MAX_CHILDREN:
                    picked.append((boards[i], source, plies[i]))
                    got += 1
    n = len(picked)
    out = {
        "black": np.zeros(n, np.int64),
        "white": np.zeros(n, np.int64),
        "kings": np.zeros(n, np.int64),
        "black_to_move": np.zeros(n, np.bool_),
        "value": np.zeros(n, np.float32),
        "budget": np.full(n, params["playouts"], np.int64),
        "source": np.zeros(n, np.int8),
        "source_ply": np.zeros(n, np.int32),
        "n_children": np.zeros(n, np.int8),
        "move_path": np.zeros((n, MAX_CHILDREN, MAX_PATH), np.int8),
        "wins": np.zeros((n, MAX_CHILDREN), np.int64),
        "draws": np.zeros((n, MAX_CHILDREN), np.int64),
        "losses": np.zeros((n, MAX_CHILDREN), np.int64),
        "playouts": np.zeros((n, MAX_CHILDREN), np.int64),
        "chosen": np.zeros(n, np.int8),
    }
    labeller = MCRDAgent(playouts=params["playouts"], backend=params["backend"], seed=_substream(seed, shard, 0))
    for i, (board, source, ply) in enumerate(picked):
        result = labeller.search(board)
        c = len(result.moves)
        wins, draws, playouts = result.wins, result.draws, result.playouts
        won = (wins - draws) // 2
        out["black"][i], out["white"][i], out["kings"][i] = board.black, board.white, board.kings
        out["black_to_move"][i] = board.turn == BLACK
        out["source"][i], out["source_ply"][i], out["n_children"][i] = source, ply, c
        for j, move in enumerate(result.moves):
            out["move_path"][i, j, : len(move.path)] = move.path
        out["wins"][i, :c], out["draws"][i, :c], out["playouts"][i, :c] = wins, draws, playouts
        out["losses"][i, :c] = playouts - won - draws
        out["chosen"][i] = result.chosen
        rate = wins[result.chosen] / max(2 * playouts[result.chosen], 1)
        out["value"][i] = 2.0 * rate - 1.0
    return out


def build_games_shard(params: dict, seed: int, shard: int) -> dict[str, np.ndarray]:
    """The arrays of shard ``shard`` of a pseudo-random games database."""
    size = SHARDS["interpolated"].sizes(params)[shard]
    return play_pseudo_random_games(
        size, seed, params["minimax_rate"], params["minimax_depth"], first_game=shard * params["shard_size"]
    )


#: The two kinds' shard and card formats (``checkers_env.shards``): games (counted by game,
#: ``game_index``) and labelled positions (counted by ``value``).
SHARDS = {
    "interpolated": ShardFormat(
        FORMAT_VERSION, GAME_ARRAYS + GAME_TABLE_ARRAYS, build_games_shard, "interpolated", card=True
    ),
    "mcrd": ShardFormat(
        FORMAT_VERSION, MCRD_ARRAYS, build_mcrd_shard, "mcrd", unit="positions", counted="value", card=True
    ),
}


def shard_bytes(kind: str, params: dict, seed: int, shard: int) -> bytes:
    """Build shard ``shard`` and return its ``.npz`` file's bytes (what a worker sends back)."""
    return SHARDS[kind].shard_bytes(params, seed, shard)


def read_shard(path: str | os.PathLike, kind: str, shard: int | None = None) -> dict[str, np.ndarray]:
    """Every array of one shard of kind ``kind``, checked (version, kind, index, complete arrays).

    Raises:
        ShardError: missing, corrupt, truncated, of another format version or kind, or not
            the shard expected.
    """
    return SHARDS[kind].read_shard(path, shard)


def read_card(folder: str | os.PathLike) -> dict:
    """The card of a database folder, checked for its format version and kind.

    Raises:
        ShardError: missing, unreadable, of another format version or an unknown kind.
    """
    card = SHARDS["mcrd"].read_card(folder)
    if card.get("kind") not in KINDS:
        raise ShardError(f"{os.path.join(folder, CARD)}: unknown kind {card.get('kind')!r}")
    return card


def generate(
    folder: str | os.PathLike,
    kind: str,
    params: dict,
    seed: int = 0,
    workers: int = 1,
    ray: bool | str = False,
    progress: bool = True,
) -> dict:
    """Build (or finish) a database in ``folder``; returns its card.

    Args:
        folder: the database folder (created).
        kind: ``interpolated`` or ``mcrd``.
        params: the kind's parameters (see :func:`games_params`, :func:`mcrd_params`).
        seed: the seed; shard ``k`` depends on ``(seed, k)`` and ``params`` only.
        workers: processes over shards (1: in this process).
        ray: ``True`` (a local or already initialised Ray) or a cluster address: one Ray
            task per shard.
        progress: show a progress bar.

    Raises:
        ShardError: the folder holds a database of another kind, version or parameters.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    _check_int("seed", seed, 0, 2**62)
    _check_int("workers", workers, 1)
    SHARDS[kind].generate(folder, params, seed, workers, ray, progress)
    return read_card(folder)


def games_params(
    games: int,
    minimax_rate: float = DEFAULT_MINIMAX_RATE,
    minimax_depth: int = DEFAULT_MINIMAX_DEPTH,
    shard_size: int = DEFAULT_GAMES_PER_SHARD,
) -> dict:
    """The checked parameters of a pseudo-random games database."""
    _check_int("games", games, 1)
    _check_int("minimax_depth", minimax_depth, 1, 64)
    _check_int("shard_size", shard_size, 1)
    if not 0.0 <= minimax_rate <= 1.0:
        raise ValueError(f"minimax_rate must be in [0, 1], got {minimax_rate!r}")
    return {
        "games": games,
        "minimax_rate": float(minimax_rate),
        "minimax_depth": minimax_depth,
        "shard_size": shard_size,
        "rules": "Rules()",
    }


def mcrd_params(
    positions: int,
    playouts: int,
    shard_size: int = DEFAULT_POSITIONS_PER_SHARD,
    backend: str = "auto",
    selfplay_fraction: float = DEFAULT_SELFPLAY_FRACTION,
    selfplay_playouts: int = DEFAULT_SELFPLAY_PLAYOUTS,
    per_game: int = DEFAULT_PER_GAME,
    minimax_rate: float = DEFAULT_MINIMAX_RATE,
    minimax_depth: int = DEFAULT_MINIMAX_DEPTH,
) -> dict:
    """The checked parameters of an MCRD database; ``backend=auto`` is resolved here (the
    two backends give different data, so the card names the one used)."""
    from .agent import BACKENDS, resolve_backend

    _check_int("positions", positions, 1)
    _check_int("playouts", playouts, 1)
    _check_int("shard_size", shard_size, 1)
    _check_int("selfplay_playouts", selfplay_playouts, 1)
    _check_int("per_game", per_game, 1)
    _check_int("minimax_depth", minimax_depth, 1, 64)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if not 0.0 <= selfplay_fraction <= 1.0:
        raise ValueError(f"selfplay_fraction must be in [0, 1], got {selfplay_fraction!r}")
    if not 0.0 <= minimax_rate <= 1.0:
        raise ValueError(f"minimax_rate must be in [0, 1], got {minimax_rate!r}")
    return {
        "positions": positions,
        "playouts": playouts,
        "shard_size": shard_size,
        "backend": resolve_backend(backend),
        "selfplay_fraction": float(selfplay_fraction),
        "selfplay_playouts": selfplay_playouts,
        "per_game": per_game,
        "minimax_rate": float(minimax_rate),
        "minimax_depth": minimax_depth,
        "max_children": MAX_CHILDREN,
        "rules": "Rules()",
    }


def command(card: dict, folder: str | os.PathLike) -> str:
    """The ``checkers data`` command that builds the database of ``card`` into ``folder``
    (the same data: shards depend on the parameters and the seed only)."""
    params = card["params"]
    if card["kind"] == "interpolated":
        words = ["games", "--games", params["games"]]
    else:
        words = ["mcrd", "--positions", params["positions"], "--playouts", params["playouts"]]
        words += ["--selfplay-playouts", params["selfplay_playouts"], "--backend", params["backend"]]
    words += ["--shard-size", params["shard_size"], "--minimax-rate", params["minimax_rate"]]
    words += ["--minimax-depth", params["minimax_depth"], "--seed", card["seed"], "--out", os.fspath(folder)]
    return " ".join(str(word) for word in ["checkers", "data", *words])


# -- loading -------------------------------------------------------------------------------------


def load_mcrd_data(folder: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every array of a database, concatenated over its shards in order, checked against
    its card (format version, kind, shard count, per-shard counts).

    Raises:
        ShardError: missing card, unfinished generation, a missing, corrupt, truncated
            or other-version shard, or counts that differ from the card's.
    """
    return SHARDS[read_card(folder)["kind"]].load(folder)


def torch_dataset(folder: str | os.PathLike):
    """A ``torch.utils.data.TensorDataset(planes, value)`` of a database: planes float32
    ``[N, 3, 8, 8]`` (``checkers_env.encoding.board_planes``, the mover's frame) and the
    value float32 ``[N]`` from the mover's view."""
    import torch

    from checkers_env.encoding import board_planes

    data = load_mcrd_data(folder)
    planes = board_planes(data["black"], data["white"], data["kings"], data["black_to_move"].astype(np.int64))
    return torch.utils.data.TensorDataset(torch.from_numpy(planes), torch.from_numpy(data["value"].astype(np.float32)))


def _check_int(name: str, value, minimum: int, maximum: int | None = None) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        bound = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")


__all__ = [
    "FORMAT_VERSION",
    "MAX_CHILDREN",
    "MOVE_MINIMAX",
    "MOVE_NONE",
    "MOVE_RANDOM",
    "SHARDS",
    "build_games_shard",
    "build_mcrd_shard",
    "games_params",
    "generate",
    "interpolated_values",
    "load_mcrd_data",
    "mcrd_params",
    "play_pseudo_random_games",
    "read_card",
    "read_shard",
    "shard_bytes",
    "shard_path",
    "torch_dataset",
]
