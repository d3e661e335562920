"""Self-play games of the search with its own net, every decision kept as a training target.

:func:`play_games` plays ``games`` games in ``slots`` slots at once: each slot's tree
searches its game's current hop, every tree's leaves go through the net as one batch
(``search.run_simulations``), and a slot whose game ends starts the next game. Game ``g``
starts from the initial position with ``random_plies`` uniformly random moves (a random
legal hop at a time) and draws everything (those moves, the root's Gumbel noise) from its
own xorshift stream ``seed_state(seed, g)``, so a game depends on ``(seed, g)``, the net and
the settings only, never on its slot or the shard it falls in (tested).

A decision is a hop with more than one legal choice: a forced hop is played without a search
and is not kept. With ``egdb_pieces`` a game ends at its first position between moves that
the endgame database holds, with the database's result (``END_EGDB``, as the outcome net's
self-play ends its games): the results of these games are exact from there, and their
endgames cost nothing. The search itself never probes the database, so the policy targets
are the search's own. Each kept decision stores the position as its side to move sees it (the
hops of a capture in progress played), the search's improved policy over the 128 hops
(``tree.root_policy``), the legal hops, and the search's root value; each game its result,
end and length. **choice** the search plays the hop it concludes (Gumbel: the sequential
halving's winner under the drawn noise, which is the exploration; PUCT: the most visited,
or a hop drawn by the visit counts for the first ``explore_plies`` plies).

Shards are ``.npz`` files of ``SHARD_ARRAYS``, ``outcome`` and ``GAME_ARRAYS``, the format
``SHARDS`` of the one shard store (``checkers_env.shards``): :func:`generate` builds the
missing shards of a folder in this process, in worker processes or as Ray tasks, the same
bytes whichever way; :func:`read_shard` and :func:`load_shards` read them back.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from checkers_agents.search_parts.bundles import zeroed
from checkers_agents.search_parts.counts import check_counts
from checkers_agents.search_parts.endgame_probe import END_EGDB, EndgameProbe, probe_of
from checkers_env import Board, Rules
from checkers_env.egdb import EndgameDatabase
from checkers_env.env_machine import (
    HOP_COMPLETES,
    NUM_ACTIONS,
    S_END,
    S_PLY,
    S_TURN,
    S_WINNER,
    current_square,
    hop,
    reset_board,
    turn_boards,
)
from checkers_env.game_state import END_NONE, RULE_MAX_PLIES
from checkers_env.movegen import random_below, seed_state, xorshift64
from checkers_env.shards import ShardFormat

from .net import NetArrays, read_net, untrained_net
from .search import (
    KNOWN_DRAW,
    KNOWN_WIN,
    conclude,
    known_end,
    legal_hops,
    new_leaves,
    new_rows,
    root_value,
    run_simulations,
    start_searches,
)
from .tree import PUCT, SearchConstants, make_settings, new_tree

FORMAT_VERSION = 1
SHARD_ARRAYS = ("own", "opponent", "kings", "own_is_black", "continuing", "policy", "legal", "search", "game", "mover")
GAME_ARRAYS = ("game_index", "game_result", "game_end", "game_length")
NODES_PER_SIMULATION = 16


class Plan(NamedTuple):
    """Which games, from where, and how they explore."""

    seed: int
    first_game: int
    games: int
    random_plies: int
    explore_plies: int  # PUCT: plies whose hop is drawn by the visit counts
    start: np.ndarray  # int64[4]: black, white, kings, turn
    egdb: EndgameProbe  # a game that reaches a position it holds ends there (no database: never)


class Record(NamedTuple):
    """Per decision (``own ... mover``) and per game (``game_*``), filled by the kernel."""

    own: np.ndarray
    opponent: np.ndarray
    kings: np.ndarray
    own_is_black: np.ndarray
    continuing: np.ndarray
    policy: np.ndarray  # float32[R, 128]
    legal: np.ndarray  # int8[R, 128]
    search: np.ndarray  # float32[R]
    game: np.ndarray
    mover: np.ndarray
    game_result: np.ndarray  # int8[G]: Black's result, 1 / 0 / -1
    game_end: np.ndarray
    game_length: np.ndarray


def new_record(decisions: int, games: int) -> Record:
    """A :data:`Record` for at most ``decisions`` decisions of ``games`` games."""
    return zeroed(
        Record,
        (decisions, "i8 i8 i8 ? i1"),
        ((decisions, NUM_ACTIONS), "f4 i1"),
        (decisions, "f4 i8 i1"),
        (games, "i1 i1 i4"),
    )


# -- the kernel ------------------------------------------------------------------------------


@numba.njit(cache=True)
def _start_game(plan, rows, leaves, t, game, rng):
    """Game ``game`` in slot ``t``: the start, then its random moves. Returns the stream."""
    rng[t] = seed_state(plan.seed, game)
    start = plan.start
    reset_board(
        rows.root_state, rows.root_positions, rows.last, t, start[0], start[1], start[2], start[3], -1, 0, rows.rules
    )
    moves = 0
    while moves < plan.random_plies and rows.root_state[t, S_END] == END_NONE:
        n, _only = legal_hops(rows.root_state, leaves, t)
        state, k = random_below(rng[t], n)
        rng[t] = state
        for a in range(NUM_ACTIONS):
            if leaves.mask[t, a] != 0:
                if k == 0:
                    if hop(rows.root_state, rows.root_positions, rows.last, t, a, rows.rules) == HOP_COMPLETES:
                        moves += 1
                    break
                k -= 1


@numba.njit(cache=True)
def _uniform(rng, t):
    rng[t] = xorshift64(rng[t])
    return (((rng[t] >> 11) & 0x1FFFFFFFFFFFFF) + 0.5) / 9007199254740992.0


@numba.njit(cache=True)
def play_games(plan, tree, rows, settings, leaves, net, record):
    """Play the plan's games (see the module docstring); returns the decisions kept."""
    slots = len(rows.root_state)
    game_of = np.full(slots, -1, np.int64)
    rng = np.zeros(slots, np.int64)
    live = np.zeros(slots, np.bool_)
    policy = np.zeros(NUM_ACTIONS, np.float32)
    next_game = 0
    kept = 0
    capacity = len(record.own)
    while True:
        # Fill the slots, play forced hops, finish the games that ended.
        for t in range(slots):
            while True:
                if game_of[t] < 0:
                    if next_game >= plan.games or kept >= capacity:
                        break
                    game_of[t] = next_game
                    _start_game(plan, rows, leaves, t, plan.first_game + next_game, rng)
                    next_game += 1
                end = rows.root_state[t, S_END]
                known = known_end(rows.root_state, t, plan.egdb) if end == END_NONE else END_NONE
                if end != END_NONE or known != END_NONE:
                    g = game_of[t]
                    winner = rows.root_state[t, S_WINNER]
                    if known != END_NONE:
                        # The database's verdict for the side to move, as Black's result.
                        winner = (
                            -1
                            if known == KNOWN_DRAW
                            else (rows.root_state[t, S_TURN] if known == KNOWN_WIN else 1 - rows.root_state[t, S_TURN])
                        )
                        end = END_EGDB
                    record.game_result[g] = 0 if winner < 0 else (1 if winner == 0 else -1)
                    record.game_end[g] = end
                    record.game_length[g] = rows.root_state[t, S_PLY]
                    game_of[t] = -1
                    continue
                n, only = legal_hops(rows.root_state, leaves, t)
                if n > 1:
                    break
                hop(rows.root_state, rows.root_positions, rows.last, t, only, rows.rules)
            live[t] = game_of[t] >= 0 and kept + t < capacity
        if not live.any():
            return kept
        # One decision of every live slot.
        for t in range(slots):
            if live[t]:
                for a in range(NUM_ACTIONS):
                    leaves.gumbel[t, a] = -math.log(-math.log(_uniform(rng, t))) if settings.method != PUCT else 0.0
        start_searches(tree, rows, leaves, net, live)
        run_simulations(tree, rows, settings, leaves, net, live, 0, settings.simulations)
        for t in range(slots):
            if not live[t]:
                continue
            action = conclude(tree, settings, leaves, t, policy)
            if settings.method == PUCT and rows.root_state[t, S_PLY] < plan.explore_plies:
                u = _uniform(rng, t)
                for a in range(NUM_ACTIONS):
                    u -= policy[a]
                    if u <= 0.0 and policy[a] > 0.0:
                        action = a
                        break
            own, opponent, kings = turn_boards(rows.root_state, t)
            record.own[kept], record.opponent[kept], record.kings[kept] = own, opponent, kings
            record.own_is_black[kept] = rows.root_state[t, S_TURN] == 0
            record.continuing[kept] = current_square(rows.root_state, t)
            record.policy[kept] = policy
            legal_hops(rows.root_state, leaves, t)
            record.legal[kept] = leaves.mask[t]
            record.search[kept] = root_value(tree, t)
            record.game[kept] = game_of[t]
            record.mover[kept] = rows.root_state[t, S_TURN]
            kept += 1
            hop(rows.root_state, rows.root_positions, rows.last, t, action, rows.rules)


# -- games and shards --------------------------------------------------------------------------


def load_net(net: str | NetArrays, seed: int = 0) -> NetArrays:
    """``untrained`` (initial weights from ``seed``), a weights file, or the arrays themselves."""
    if isinstance(net, NetArrays):
        return net
    return untrained_net(seed=seed) if net == "untrained" else read_net(net)[0]


def self_play(
    games: int,
    net: str | NetArrays = "untrained",
    seed: int = 0,
    first_game: int = 0,
    simulations: int = 32,
    considered: int = 16,
    search: str = "gumbel",
    random_plies: int = 4,
    explore_plies: int = 20,
    slots: int = 64,
    through_forced: bool = False,
    widen: int = 0,
    egdb_pieces: int = 0,
    egdb_folder: str | None = None,
    start: Board | None = None,
) -> dict[str, np.ndarray]:
    """Play self-play games and keep their decisions.

    Args:
        games: how many games.
        net: the net (``untrained``, a weights file or ``NetArrays``).
        seed: game ``g`` plays on stream ``(seed, g)``.
        first_game: the index of the first game.
        simulations, considered, search: the search's settings (``tree.SearchConstants``).
        random_plies: uniformly random moves from the initial position.
        explore_plies: PUCT only: plies whose hop is drawn by the visit counts.
        slots: games searched at once (their leaves are one batch).
        through_forced, widen: the search's additions below the root (``tree.SearchConstants``;
            off by default here, as the papers' search).
        egdb_pieces: end a game at the first position between moves that the endgame
            database of this many pieces holds, with its result (``END_EGDB``; 0: off, the
            default; it must be built: ``checkers egdb build``). The search never probes it.
        egdb_folder: the database's folder (default ``checkers_env.egdb.default_folder()``).
        start: the position every game starts from (default: the initial position).

    Returns:
        Per decision ``SHARD_ARRAYS`` (``outcome``: the game's result for the side to move,
        1 / 0 / -1) and per game ``GAME_ARRAYS``.
    """
    check_counts(
        games=(games, 0),
        simulations=(simulations, 1),
        random_plies=(random_plies, 0),
        slots=(slots, 1),
        egdb_pieces=(egdb_pieces, 0),
    )
    arrays = load_net(net, seed)
    rules = Rules().as_array()
    slots = max(1, min(slots, games))
    settings = make_settings(
        SearchConstants(search, simulations, considered, through_forced=through_forced, widen=widen)
    )
    egdb = probe_of(EndgameDatabase.cached(egdb_pieces, egdb_folder) if egdb_pieces else None)
    board = Board() if start is None else start
    plan = Plan(
        int(seed),
        int(first_game),
        int(games),
        int(random_plies),
        int(explore_plies),
        np.array([board.black, board.white, board.kings, int(board.turn)], np.int64),
        egdb,
    )
    record = new_record(games * (int(rules[RULE_MAX_PLIES]) + 100), max(games, 1))
    tree = new_tree(slots, NODES_PER_SIMULATION * (simulations + 1) + 48)
    kept = play_games(
        plan, tree, new_rows(slots, rules), settings, new_leaves(slots, arrays.scratch_size), arrays, record
    )
    out = {name: getattr(record, name)[:kept].copy() for name in SHARD_ARRAYS}
    result = record.game_result[out["game"]]
    out["outcome"] = np.where(out["mover"] == 0, result, -result).astype(np.int8)
    out["game"] = out["game"] + first_game
    out["game_index"] = np.arange(first_game, first_game + games, dtype=np.int64)
    for name in GAME_ARRAYS[1:]:
        out[name] = getattr(record, name)[:games].copy()
    return out


def build_shard(params: dict, seed: int, shard: int) -> dict[str, np.ndarray]:
    """Play shard ``shard`` (games ``shard * shard_size ...``): its arrays as stored, ``policy``
    as float16 and ``legal`` packed to bits.

    Args:
        params: ``games``, ``shard_size``, ``net`` (a weights file or ``untrained``),
            ``simulations``, ``considered``, ``search``, ``random_plies``, ``explore_plies``,
            ``slots``, and optionally ``through_forced``, ``widen`` and ``egdb_pieces``
            (default off).
        seed: the seed; a shard depends on ``(seed, shard)`` and ``params`` only.
        shard: the shard's index.
    """
    numba.set_num_threads(1)
    size = min(params["shard_size"], params["games"] - shard * params["shard_size"])
    arrays = self_play(
        size,
        params["net"],
        seed,
        shard * params["shard_size"],
        params["simulations"],
        params["considered"],
        params["search"],
        params["random_plies"],
        params["explore_plies"],
        params["slots"],
        params.get("through_forced", False),
        params.get("widen", 0),
        params.get("egdb_pieces", 0),
    )
    arrays["policy"] = arrays["policy"].astype(np.float16)
    arrays["legal"] = np.packbits(arrays["legal"] != 0, axis=1)
    return arrays


def _unpack(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A shard's arrays as read: ``policy`` as float32 and ``legal`` unpacked."""
    arrays["policy"] = arrays["policy"].astype(np.float32)
    arrays["legal"] = np.unpackbits(arrays["legal"], axis=1).astype(np.int8)
    return arrays


#: The shards' format (``checkers_env.shards``): :func:`build_shard`'s games, read back with
#: ``policy`` as float32 and ``legal`` unpacked; loading keeps the decisions.
SHARDS = ShardFormat(
    FORMAT_VERSION,
    SHARD_ARRAYS + ("outcome",) + GAME_ARRAYS,
    build_shard,
    loaded=SHARD_ARRAYS + ("outcome",),
    shapes=(("policy", (NUM_ACTIONS,)), ("legal", (NUM_ACTIONS // 8,))),
    decode=_unpack,
)
shard_bytes = SHARDS.shard_bytes
read_shard = SHARDS.read_shard
generate = SHARDS.generate
load_shards = SHARDS.load_shards


__all__ = [
    "GAME_ARRAYS",
    "SHARD_ARRAYS",
    "SHARDS",
    "build_shard",
    "generate",
    "load_shards",
    "play_games",
    "read_shard",
    "self_play",
]
