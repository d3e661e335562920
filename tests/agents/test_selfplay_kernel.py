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

from checkers_agents.alphabeta import make_evaluator
from checkers_agents.alphabeta.searcher import memory_for, table_for
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
from checkers_agents.alphabeta.stack import flat_memory, memory_views
from checkers_agents.alphabeta.transposition import new_table
from checkers_agents.mcrd.data import play_pseudo_random_games
from checkers_agents.outcome_net.selfplay import play_games as play_outcome_games
from checkers_agents.search_parts.endgame_probe import no_egdb
from checkers_agents.search_parts.evaluators import MATERIAL
from checkers_agents.td_minimax import Net
from checkers_agents.td_minimax.learn import (
    R_PLIES,
    R_TERMINATION,
    R_WINNER,
    RESULT_FIELDS,
    play_training_game,
    training_game,
)
from checkers_env import Board, Rules
from checkers_env.game_state import COLOR_BLACK, COLOR_WHITE
from checkers_env.movegen import seed_state

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
    setup = SearchSetup(
        MATERIAL.valuation(),
        new_table(1 << 10),
        flat_memory(),
        no_egdb(),
        False,
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


@pytest.mark.parametrize("seed", range(4))
def test_td_minimax_training_game_is_the_kernels_game(seed):
    """td-minimax's training game runs the kernel's pieces: with nothing learnt (both
    learning rates 0) it plays the game ``play_games`` plays with the same net, policy and
    stream (its search keeps killers and history from move to move, which orders moves
    only and so changes no move)."""
    depth, epsilon, random_plies, max_plies = 2, 0.2, 4, 150
    net = Net.initial(seed=seed, scale=0.5)
    result = np.zeros(RESULT_FIELDS, np.int64)
    play_training_game(
        *net.copy().arrays,
        training_game(depth, True, 0.0, 0.0, True, epsilon, random_plies, max_plies, 80, 3),
        seed_state(seed, 0),
        result,
    )

    evaluator = net.evaluator()
    start = Board()
    record = empty_record(1, max_plies)
    play_games(
        GameBatch(
            seed,
            0,
            1,
            np.array([[start.black, start.white, start.kings, 1]], np.int64),
            Rules(max_plies=max_plies).as_array(),
        ),
        MovePolicy(POLICY_EPSILON, epsilon, random_plies, depth, depth),
        SearchSetup(
            evaluator.valuation(True, tie_margin=1e-9),
            new_table(1 << 10),
            flat_memory(evaluator.width),
            no_egdb(),
            False,
        ),
        evaluator.net,
        record,
    )
    winner = {1: COLOR_BLACK, -1: COLOR_WHITE}.get(int(record.game_result[0]), -1)
    assert (result[R_PLIES], result[R_TERMINATION], result[R_WINNER]) == (
        record.game_length[0],
        record.game_end[0],
        winner,
    )


@pytest.mark.parametrize("eval_name", ["material", "outcome-net"])
def test_searches_read_no_buffer_of_flat_memory_but_killers_and_history_before_writing_it(eval_name):
    """``flat_memory`` zeroes the killers and history only: garbage in every other buffer
    (a float32 net's per-ply first-layer sums included) changes no game and no node count."""
    evaluator = make_evaluator(eval_name, "zoo" if eval_name != "material" else None)
    start = Board()
    played = []
    for garbage in (False, True):
        flat = memory_for(evaluator)
        memory = memory_views(flat)
        assert not memory.killers.any() and not memory.history_scores.any()
        if garbage:
            for name in ("moves", "order_scores", "order_index", "stack", "active"):
                getattr(memory, name)[...] = -12345
            for name in ("values", "root_scores", "scratch", "accumulators"):
                if getattr(memory, name) is not None:  # a search without kept sums has none
                    getattr(memory, name)[...] = np.nan
        record = empty_record(2, 60)
        _n, nodes = play_games(
            GameBatch(
                4,
                0,
                2,
                np.array([[start.black, start.white, start.kings, 1]], np.int64),
                Rules(max_plies=60).as_array(),
            ),
            MovePolicy(POLICY_SEARCH, 0.0, 2, 1, 3),
            SearchSetup(evaluator.valuation(), table_for(evaluator, 10), flat, no_egdb(), False),
            evaluator.net,
            record,
        )
        played.append((nodes, [getattr(record, name).tobytes() for name in record._fields]))
    assert played[0][0] > 0
    assert (memory.accumulators is not None) == (eval_name == "outcome-net")  # the net's search kept per-ply sums
    assert played[0] == played[1]


@pytest.mark.parametrize(
    "rules, record, message",
    [
        (Rules(max_plies=None), empty_record(2, 60), "needs a move cap"),
        (Rules(max_plies=60), empty_record(2, 30), "record is too small"),
    ],
)
def test_play_games_refuses_a_batch_its_record_cannot_hold(rules, record, message):
    start = Board()
    setup = SearchSetup(MATERIAL.valuation(), new_table(1 << 10), flat_memory(), no_egdb(), False)
    batch = GameBatch(1, 0, 2, np.array([[start.black, start.white, start.kings, 1]], np.int64), rules.as_array())
    with pytest.raises(ValueError, match=message):
        play_games(batch, MovePolicy(POLICY_RANDOM, 0.0, 0, 1, 1), setup, None, record)
