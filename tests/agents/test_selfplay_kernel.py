"""The one self-play kernel (``checkers_agents.alphabeta.selfplay``): it plays the games of
the loops it replaced move for move, and its policy switch does what it says.

The pinned figures are those of the former loops (``mcrd.data.games_kernel`` and
``outcome_net.selfplay.selfplay_kernel``, commit 0e0ea13) on the same seeds: game lengths,
results, end kinds and a CRC-32 of every position written.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from checkers_env import Board, Rules

from checkers_agents.alphabeta.evaluators import MATERIAL
from checkers_agents.alphabeta.memory import TT_FIELDS, Table, flat_memory
from checkers_agents.alphabeta.negamax import no_egdb
from checkers_agents.alphabeta.selfplay import (
    MOVE_NONE,
    MOVE_RANDOM,
    MOVE_SEARCH,
    POLICY_EPSILON,
    POLICY_MIXED,
    POLICY_RANDOM,
    POLICY_SEARCH,
    GameBatch,
    MovePolicy,
    SearchSetup,
    empty_record,
    play_games,
)
from checkers_agents.mcrd.data import play_pseudo_random_games
from checkers_agents.outcome_net.selfplay import play_games as play_outcome_games

POSITION_ARRAYS = ("black", "white", "kings", "black_to_move", "ply", "game")


def crc(arrays: dict, names) -> int:
    return zlib.crc32(b"".join(np.ascontiguousarray(arrays[name]).tobytes() for name in names))


def test_mcrd_pseudo_random_games_are_the_former_loops():
    games = play_pseudo_random_games(8, seed=3)
    assert games["game_length"].tolist() == [43, 80, 134, 154, 107, 192, 57, 94]
    assert games["game_result"].tolist() == [1, -1, -1, -1, 0, 0, 1, -1]
    assert len(games["black"]) == 869
    assert crc(games, POSITION_ARRAYS + ("move_kind",)) == 3787031177


def test_outcome_net_selfplay_games_are_the_former_loops():
    games = play_outcome_games(5, seed=5, depth=2, random_plies=4)
    assert games["game_length"].tolist() == [117, 132, 62, 97, 49]
    assert games["game_result"].tolist() == [-1, 1, 1, -1, -1]
    assert games["game_end"].tolist() == [1, 1, 1, 1, 1]
    assert len(games["black"]) == 462
    assert crc(games, POSITION_ARRAYS + ("search",)) == 2756273469


def play(policy: int, rate: float, random_plies: int = 0, games: int = 3, seed: int = 9):
    rules = Rules(max_plies=60).as_array()
    record = empty_record(games, 60)
    start = Board()
    starts = np.array([[start.black, start.white, start.kings, 1]], np.int64)
    entries = np.zeros((1 << 10, TT_FIELDS), np.int64)
    setup = SearchSetup(
        MATERIAL.valuation(), Table(entries, entries.view(np.float64)),
        flat_memory(), no_egdb(), False,
    )
    n, nodes = play_games(
        GameBatch(seed, 0, games, starts, rules), MovePolicy(policy, rate, random_plies, 1, 2), setup, None, record
    )
    return {name: getattr(record, name)[:n] for name in record._fields[:8]}, nodes


@pytest.mark.parametrize(
    "policy, rate, random_plies, kinds",
    [
        (POLICY_RANDOM, 0.0, 0, {MOVE_RANDOM}),
        (POLICY_SEARCH, 0.0, 0, {MOVE_SEARCH}),
        (POLICY_SEARCH, 0.0, 1000, {MOVE_RANDOM}),  # random plies first, here all of them
        (POLICY_MIXED, 1.0, 0, {MOVE_SEARCH}),
        (POLICY_MIXED, 0.0, 0, {MOVE_RANDOM}),
        (POLICY_MIXED, 0.5, 0, {MOVE_RANDOM, MOVE_SEARCH}),
        (POLICY_EPSILON, 0.0, 0, {MOVE_SEARCH}),
        (POLICY_EPSILON, 1.0, 0, {MOVE_RANDOM}),
        (POLICY_EPSILON, 0.3, 0, {MOVE_RANDOM, MOVE_SEARCH}),
    ],
)
def test_policy_switch_chooses_the_kind_of_each_move(policy, rate, random_plies, kinds):
    positions, nodes = play(policy, rate, random_plies)
    moved = positions["move_kind"][positions["move_kind"] != MOVE_NONE]
    assert set(moved.tolist()) == kinds
    searched = positions["move_kind"] == MOVE_SEARCH
    assert np.isfinite(positions["search_value"][searched]).all()
    assert np.isnan(positions["search_value"][~searched]).all()
    assert (nodes > 0) == (MOVE_SEARCH in kinds)

