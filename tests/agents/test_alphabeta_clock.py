"""The search's clock (``checkers_agents.alphabeta.clock``) and the agent's ``game_time``."""

from __future__ import annotations

import pytest

from checkers_agents.alphabeta import AlphaBetaAgent
from checkers_agents.alphabeta.clock import (
    BANK_SPREAD,
    MIN_MOVES_TO_GO,
    MOVES_TO_GO,
    START_BY,
    STRETCH,
    banked_budget,
    keep_deepening,
    move_budget,
)
from checkers_env import Game, make_agent


def test_a_move_gets_a_share_of_what_is_left():
    soft, hard = move_budget(60.0, 0)
    assert soft == pytest.approx(60.0 / MOVES_TO_GO) and hard == pytest.approx(STRETCH * soft)
    assert move_budget(60.0, 20)[0] > soft  # fewer moves to go
    assert move_budget(60.0, 200)[0] == pytest.approx(60.0 / MIN_MOVES_TO_GO)  # never fewer than this
    assert move_budget(30.0, 0)[0] < soft  # less time left
    assert move_budget(-1.0, 0) == (0.0, 0.0)  # an overdrawn clock gives nothing


def test_deepening_starts_no_iteration_past_a_share_of_the_target_unless_the_choice_is_moving():
    go = dict(last_took=0.01, soft=1.0, hard=3.0, drop_margin=30.0)
    assert START_BY == 0.4 and STRETCH == 3.0  # Cake's
    assert keep_deepening(0.39, best_changed=False, score_drop=0.0, **go)
    assert not keep_deepening(0.41, best_changed=False, score_drop=0.0, **go)  # past 0.4 of the target
    assert keep_deepening(1.1, best_changed=True, score_drop=0.0, **go)  # the best move changed: 3x the target
    assert keep_deepening(1.1, best_changed=False, score_drop=31.0, **go)  # the score fell
    assert not keep_deepening(1.1, best_changed=False, score_drop=29.0, **go)
    assert not keep_deepening(1.21, best_changed=True, score_drop=100.0, **go)  # past 0.4 of 3x
    # The stretched target never passes the hard limit.
    assert not keep_deepening(0.7, 0.01, 1.0, 1.5, True, 0.0, 30.0)
    assert keep_deepening(0.59, 0.01, 1.0, 1.5, True, 0.0, 30.0)
    # An iteration about three times the last one's that would not fit is not started.
    assert not keep_deepening(0.3, 0.6, 1.0, 2.0, True, 0.0, 30.0)


def test_a_banked_move_draws_on_the_bank_up_to_the_stretch():
    assert banked_budget(0.5, 0.0) == (0.5, 0.5)  # nothing banked: the nominal is the limit
    # A share of the bank raises the target; the whole bank (within the stretch) the limit.
    assert banked_budget(0.5, 0.4) == (pytest.approx(0.5 + 0.4 / BANK_SPREAD), pytest.approx(0.9))
    # At most the stretch, and never a target past the limit.
    assert banked_budget(0.5, 10.0) == (pytest.approx(STRETCH * 0.5), pytest.approx(STRETCH * 0.5))
    assert banked_budget(0.5, -0.2) == (0.5, 0.5)  # an overdrawn bank lends nothing


def test_without_a_target_the_whole_budget_is_used():
    assert keep_deepening(0.9, 0.01, None, 1.0, False, 0.0, 30.0)
    assert not keep_deepening(0.9, 0.05, None, 1.0, False, 0.0, 30.0)  # 3 x 0.05 > 0.1 left


def test_game_time_and_bank_are_checked():
    with pytest.raises(ValueError, match="game_time"):
        make_agent("alphabeta:time=0.5,game_time=60")
    with pytest.raises(ValueError, match="time"):
        make_agent("alphabeta:game_time=-3")
    assert make_agent("alphabeta:game_time=60").game_time == 60.0
    with pytest.raises(ValueError, match="bank"):
        make_agent("alphabeta:bank=1")
    assert make_agent("alphabeta:time=0.5,bank=1").bank


def recorded_budgets(agent: AlphaBetaAgent) -> list:
    """The ``(soft, hard)`` seconds of each search the agent starts from now on."""
    search, budgets = agent.searcher.search, []

    def recording_search(board, depth, seconds, draws, soft_seconds=None):
        budgets.append((soft_seconds, seconds))
        return search(board, depth, seconds, draws, soft_seconds=soft_seconds)

    agent.searcher.search = recording_search
    return budgets


def test_a_game_clock_is_spent_over_the_game_and_renewed_for_the_next():
    # The clock's accounting is checked through the budgets handed to the search, not
    # wall-clock times, which a loaded machine stretches.
    agent = AlphaBetaAgent(game_time=2.0, seed=1)
    opponent = make_agent("alphabeta:depth=2,seed=1")
    budgets = recorded_budgets(agent)
    for _ in range(2):
        game, spent = Game(), []
        while not game.is_over() and len(game.moves) < 40:
            if len(game.moves) % 2 == 0:
                budgets.clear()
                expected = move_budget(2.0 - sum(spent), len(game.moves) // 2)
                game.play(agent.select_move(game))
                # Each move gets a share of what this game's moves have left on the clock.
                assert budgets == [pytest.approx(expected)]
                spent.append(agent.last_search.seconds)
                assert agent._clock_used == pytest.approx(sum(spent))
            else:
                game.play(opponent.select_move(game))
        assert len(spent) == 20
    # A new game starts on a full clock.
    budgets.clear()
    agent.select_move(Game())
    assert budgets == [pytest.approx(move_budget(2.0, 0))]


def test_a_bank_holds_what_the_game_s_moves_left_of_their_time():
    agent = AlphaBetaAgent(time=0.05, bank=True, seed=1)
    opponent = make_agent("alphabeta:depth=2,seed=1")
    budgets = recorded_budgets(agent)
    game, spent, limits = Game(), [], []
    while not game.is_over() and len(game.moves) < 30:
        if len(game.moves) % 2 == 0:
            budgets.clear()
            expected = banked_budget(0.05, 0.05 * len(spent) - sum(spent))
            limits.append(expected)
            game.play(agent.select_move(game))
            assert budgets == [pytest.approx(expected)]
            spent.append(min(agent.last_search.seconds, expected[1]))  # charged at most its limit
            assert agent._clock_used == pytest.approx(sum(spent))
        else:
            game.play(opponent.select_move(game))
    # Moves that stopped early (a stable root, a forced move) left time that later moves
    # were allowed to draw on, and aimed at.
    assert any(hard > 0.05 + 1e-9 for _soft, hard in limits)
    assert any(soft > 0.05 + 1e-9 for soft, _hard in limits)
    # A new game starts with an empty bank.
    budgets.clear()
    agent.select_move(Game())
    assert budgets == [pytest.approx((0.05, 0.05))]


def test_a_book_move_banks_all_of_its_time():
    agent = AlphaBetaAgent(time=0.05, bank=True, book=True, seed=1)
    opponent = AlphaBetaAgent(depth=2, book=True, seed=1)
    budgets = recorded_budgets(agent)
    game, book_moves = Game(), 0
    while not budgets:
        if len(game.moves) % 2 == 0:
            game.play(agent.select_move(game))
            book_moves += agent.last_search is None
        else:
            game.play(opponent.select_move(game))
    assert book_moves >= 1  # the master book has the first moves
    # The first search draws on the time of every book move before it.
    assert budgets == [pytest.approx(banked_budget(0.05, 0.05 * book_moves))]


def test_an_unfinished_iteration_decides_with_the_moves_it_finished():
    """``partial``: an iteration cut short keeps the scores of the root moves it finished,
    which are those of the complete iteration, and plays the best of them when they include
    the last choice; here a move the depth-7 search placed below it wins at depth 8."""
    import numpy as np

    from checkers_agents.alphabeta import Draws, Searcher
    from checkers_agents.alphabeta.negamax import search_kernel
    from checkers_agents.alphabeta.searcher import _position
    from checkers_agents.alphabeta.stack import S_INDEX
    from checkers_env import Board

    board = Board()

    def depth_8(searcher, node_limit):
        return search_kernel(
            _position(board),
            8,
            node_limit,
            searcher.options,
            searcher.valuation,
            searcher.net,
            Draws.none().rules(),
            searcher.generation,
            searcher.table_bundle,
            searcher.memory,
            searcher.egdb_probe,
        )

    whole, cut = Searcher(partial=True), Searcher(partial=True)
    whole.search(board, 7)
    seven = cut.search(board, 7)
    whole_nodes = depth_8(whole, 1 << 62)[3]
    assert depth_8(cut, int(0.9 * whole_nodes))[4]  # aborted
    finished = cut.memory.order_index[0, : cut.memory.stack[0, S_INDEX] - 1]
    assert 2 <= len(finished) < seven.rows.shape[0]
    done = (seven.value, 7, seven.rows.shape[0], seven.root_scores.copy(), seven.rows)
    value, depth, _count, scores, _rows = cut._unfinished_iteration(done, cut.valuation.tie_margin)
    np.testing.assert_array_equal(scores[finished], whole.root_scores[finished])
    assert np.isnan(np.delete(scores, finished)).all() and depth == 7
    assert value == np.nanmax(scores) == whole.root_scores[finished].max()
    assert int(np.nanargmax(scores)) != int(np.argmax(seven.root_scores))  # the deeper look changed the move
    # Where the last choice is not among the finished moves, the complete iteration stands.
    unfinished_choice = (
        seven.value,
        7,
        seven.rows.shape[0],
        np.where(np.isin(np.arange(len(scores)), finished), -1e9, 0.0),
        seven.rows,
    )
    assert cut._unfinished_iteration(unfinished_choice, cut.valuation.tie_margin) is unfinished_choice


def test_partial_is_read_from_the_spec():
    assert make_agent("alphabeta:time=0.5,partial=1").searcher.partial
    assert not make_agent("alphabeta:time=0.5").searcher.partial
