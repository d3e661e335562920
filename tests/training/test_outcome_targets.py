"""The outcome net's training targets: the root value's scale, the mix with the result, and
the TD(lambda) returns along a game."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_training.outcome_targets import lambda_returns, search_scale, targets


def test_search_scale_makes_the_results_most_likely():
    rng = np.random.default_rng(0)
    values = rng.normal(0.0, 300.0, 20_000)
    won = rng.random(values.size) < 1.0 / (1.0 + np.exp(-values / 150.0))
    assert search_scale(values, np.where(won, 1, -1)) == pytest.approx(150.0, rel=0.1)


def _positions(outcome, search, game=None, ply=None, black_to_move=None):
    n = len(outcome)
    return {
        "outcome": np.array(outcome, dtype=np.int8),
        "search": np.array(search, dtype=np.float64),
        "game": np.zeros(n, np.int64) if game is None else np.array(game),
        "ply": np.arange(n) if ply is None else np.array(ply),
        "black_to_move": np.arange(n) % 2 == 0 if black_to_move is None else np.array(black_to_move),
    }


def test_search_targets_mix_the_root_value_where_there_is_one():
    data = _positions([1, 1, -1, 0, 1], [500.0, -500.0, -1e6, 0.0, np.nan], game=[0, 1, 2, 3, 4])
    every = np.ones(5, dtype=bool)
    plain = targets(data, every, 0.0)
    np.testing.assert_array_equal(plain, [1.0, 1.0, 0.0, 0.5, 1.0])
    mixed = targets(data, every, 0.5)
    assert mixed[4] == 1.0  # not searched: the result alone
    assert mixed[2] == pytest.approx(0.0, abs=1e-6)  # a forced loss agrees with the result
    assert 0.5 < mixed[1] < mixed[0] <= 1.0  # a won game the search thought lost counts less
    assert mixed[3] == pytest.approx(0.5)
    # The kept positions' targets, their scale fitted on them alone.
    keep = np.array([True, True, False, True, False])
    alone = {name: values[keep] for name, values in data.items()}
    np.testing.assert_array_equal(targets(data, keep, 0.5), targets(alone, np.ones(3, bool), 0.5))


def test_lambda_returns_run_back_from_the_result_through_the_later_values():
    # One game, black to move first, sides alternating; black won (white's view: 0).
    result = np.array([1.0, 0.0, 1.0, 0.0])
    value = np.array([0.5, 0.4, 0.7, np.nan])  # each from its own side to move's view
    game, ply, black = np.zeros(4, np.int64), np.arange(4), np.array([True, False, True, False])
    lam = 0.5
    returns = lambda_returns(result, value, game, ply, black, lam)
    # The last position keeps the result; one not searched passes on its successor's return.
    r3 = 0.0
    r2 = 1.0 - r3  # the successor's value is missing
    r1 = (1 - lam) * (1 - 0.7) + lam * (1 - r2)
    r0 = (1 - lam) * (1 - 0.4) + lam * (1 - r1)
    np.testing.assert_allclose(returns, [r0, r1, r2, r3])
    np.testing.assert_array_equal(lambda_returns(result, value, game, ply, black, 1.0), result)
    # Order does not matter, games do not mix, and a side moving twice (no flip) is honoured.
    shuffled = np.array([2, 0, 3, 1])
    np.testing.assert_allclose(
        lambda_returns(result[shuffled], value[shuffled], game, ply[shuffled], black[shuffled], lam), returns[shuffled]
    )
    two = lambda_returns(
        np.array([1.0, 1.0, 0.0]),
        np.array([0.2, 0.9, 0.3]),
        np.array([0, 0, 1]),
        np.array([0, 1, 0]),
        np.array([True, True, False]),
        lam,
    )
    np.testing.assert_allclose(two, [(1 - lam) * 0.9 + lam * 1.0, 1.0, 0.0])
