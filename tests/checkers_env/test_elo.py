"""The suite's one Elo fit: the league's ratings and the trainers' rating against fixed
anchors are the same maximum-likelihood fit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from checkers_env.elo import ELO_SCALE, bradley_terry, rating_against_anchors
from checkers_env.match import GameRecord


def test_rating_against_fixed_anchors():
    assert rating_against_anchors([(1500.0, 10.0, 20)]) == pytest.approx(1500.0, abs=0.05)
    assert rating_against_anchors([(1500.0, 15.0, 20)]) == pytest.approx(1500 + 400 * math.log10(3), abs=0.05)
    # A clean sweep stays finite, above a sweep less one.
    assert math.isfinite(rating_against_anchors([(1000.0, 20.0, 20)]))
    assert rating_against_anchors([(1000.0, 20.0, 20)]) > rating_against_anchors([(1000.0, 19.0, 20)])
    assert math.isnan(rating_against_anchors([]))
    assert math.isnan(rating_against_anchors([(1000.0, 0.0, 0)]))


def test_two_anchors_give_the_rating_whose_expected_points_are_the_points_scored():
    anchors = [(1306.0, 7.0, 20), (1563.0, 3.0, 20)]
    rating = rating_against_anchors(anchors)
    expected = sum(n / (1 + 10 ** ((a - rating) / 400)) for a, _, n in anchors)
    assert expected == pytest.approx(10.0, abs=0.01)


def test_the_league_fit_and_the_anchored_fit_agree():
    """Against one anchor rated 0, the league's fit without a prior gives the same rating."""
    from checkers_evaluation.league.ratings import fit_elo

    games = [GameRecord("net", "random", "", [], "1-0", "no_moves", key=f"{k}/0/0") for k in range(3)]
    games += [GameRecord("random", "net", "", [], "1-0", "no_moves", key="3/0/1")]
    games += [GameRecord("random", "net", "", [], "1/2-1/2", "repetition", key="4/0/1")]
    league = fit_elo(games, anchor="random", bootstrap=0, prior_draws=0)
    assert league["net"].rating == pytest.approx(rating_against_anchors([(0.0, 3.5, 5)]), abs=0.1)


def test_fixed_players_do_not_move():
    W = np.array([[[0, 6, 5], [4, 0, 2], [5, 8, 0]]], dtype=float)
    N = W + W.transpose(0, 2, 1)
    fixed = np.array([np.nan, 100 * ELO_SCALE, np.nan])
    theta = bradley_terry(W, N, 1.0, fixed=fixed)
    assert theta[0, 1] == pytest.approx(100 * ELO_SCALE)
    assert np.all(np.isfinite(theta))
