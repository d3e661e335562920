"""Elo by maximum likelihood: recovery of known strengths, anchoring, bootstrap intervals,
the prior that keeps perfect scores finite, and the tables."""

from __future__ import annotations

import csv
import io
import math
import random

import numpy as np
import pytest

from checkers_env.match import GameRecord
from checkers_evaluation.league.ratings import ELO_SCALE, MAX_BOOTSTRAP, fit_elo


def expected_score(rating: float, opponent: float) -> float:
    """Elo's expected score of a player rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


TRUE = {"random": 0.0, "greedy": 200.0, "alphabeta:depth=4": 400.0, "zoo:strong": 800.0}


def simulate(true: dict[str, float], games_per_pair: int, seed: int) -> list[GameRecord]:
    """A round robin from known ratings, colours alternating, with draws.

    Each game's expected score for Black is the Elo expectation ``E``; a draw happens with
    probability ``min(E, 1 - E)`` and the rest splits into wins and losses so that the
    expected score stays ``E`` (so the model the fit assumes is the true one)."""
    rng = random.Random(seed)
    records = []
    names = list(true)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for g in range(games_per_pair):
                black, white = (a, b) if g % 2 == 0 else (b, a)
                e = expected_score(true[black], true[white])
                draw = min(e, 1 - e)
                u = rng.random()
                result = "1-0" if u < e - draw / 2 else "1/2-1/2" if u < e + draw / 2 else "0-1"
                records.append(GameRecord(black, white, "", [], result, "no_moves", key=f"{a}|{b}|{g}"))
    return records


def standard_errors(true: dict[str, float], games_per_pair: int, anchor: str) -> tuple[dict, np.ndarray, list]:
    """Asymptotic standard errors (Elo) of each rating relative to the anchor, from the
    Fisher information of the model at the true ratings; also the covariance matrix.

    With draws the real variance of a game's score is below the model's ``p (1 - p)``, so
    these errors are, if anything, too large: tolerances built on them are conservative."""
    names = list(true)
    n = len(names)
    info = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                p = expected_score(true[names[i]], true[names[j]])
                w = games_per_pair * p * (1 - p)
                info[i, j] -= w
                info[i, i] += w
    keep = [k for k in range(n) if names[k] != anchor]
    cov = np.linalg.inv(info[np.ix_(keep, keep)]) / ELO_SCALE**2
    se = {names[k]: math.sqrt(cov[m, m]) for m, k in enumerate(keep)}
    se[anchor] = 0.0
    return se, cov, [names[k] for k in keep]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fit_recovers_order_and_spacing(seed):
    games = 200
    ratings = fit_elo(simulate(TRUE, games, seed), bootstrap=0)
    se, cov, free = standard_errors(TRUE, games, "random")
    assert ratings.players() == sorted(TRUE, key=TRUE.get, reverse=True)
    assert ratings["random"].rating == 0.0
    for name, truth in TRUE.items():
        assert abs(ratings[name].rating - truth) < 4 * se[name] + 5, (name, ratings[name].rating, se[name])
    # Spacing: each gap between neighbours within four standard errors of that difference.
    order = sorted(TRUE, key=TRUE.get)
    for low, high in zip(order, order[1:]):
        var = sum(
            s * t * (cov[free.index(a), free.index(b)] if a in free and b in free else 0.0)
            for a, s in ((high, 1), (low, -1))
            for b, t in ((high, 1), (low, -1))
        )
        gap = ratings[high].rating - ratings[low].rating
        assert abs(gap - (TRUE[high] - TRUE[low])) < 4 * math.sqrt(var) + 5, (low, high, gap)


def test_errors_shrink_like_one_over_root_games():
    # The tolerance above rests on the information calculation; check it scales as it should.
    se_100, _, _ = standard_errors(TRUE, 100, "random")
    se_400, _, _ = standard_errors(TRUE, 400, "random")
    assert se_100["greedy"] == pytest.approx(2 * se_400["greedy"])
    assert 20 < se_100["greedy"] < 60


def test_plain_maximum_likelihood_matches_the_closed_form():
    # Two players: the MLE difference is 400 log10(score / (1 - score)).
    records = [GameRecord("a", "b", "", [], r, "no_moves") for r in ("1-0", "1-0", "0-1")]
    records += [GameRecord("b", "a", "", [], "0-1", "no_moves")]
    ratings = fit_elo(records, anchor="b", bootstrap=0, prior_draws=0)
    assert ratings["a"].rating == pytest.approx(400 * math.log10(3), abs=1e-6)


def test_a_draw_counts_as_half_a_win_for_each_side():
    wins_and_loss = [GameRecord("a", "b", "", [], r, "no_moves") for r in ("1-0", "1-0", "1-0", "0-1")]
    wins_and_draws = [GameRecord("a", "b", "", [], r, "x") for r in ("1-0", "1-0", "1/2-1/2", "1/2-1/2")]
    first = fit_elo(wins_and_loss, anchor="b", bootstrap=0)
    second = fit_elo(wins_and_draws, anchor="b", bootstrap=0)
    assert first["a"].rating == pytest.approx(second["a"].rating, abs=1e-9)
    assert second["a"].draws == 2 and second["a"].score == 0.75
    only_draws = fit_elo([GameRecord("a", "b", "", [], "1/2-1/2", "x")] * 5, anchor="b", bootstrap=0)
    assert only_draws["a"].rating == pytest.approx(0.0, abs=1e-9)


def test_the_prior_is_weak():
    # Its pull is a few Elo, and for a lopsided pairing (96 % here) a small part of the
    # statistical error (under half), where one draw more or less moves the rating most.
    records = simulate(TRUE, 200, seed=4)
    with_prior = fit_elo(records, bootstrap=0)
    plain = fit_elo(records, bootstrap=0, prior_draws=0)
    se, _, _ = standard_errors(TRUE, 200, "random")
    for name in TRUE:
        assert abs(with_prior[name].rating - plain[name].rating) < max(10, 0.5 * se[name])


def test_a_perfect_score_has_an_interval_of_real_width():
    # A plain bootstrap of all-won games resamples all-won games: a zero-width interval.
    for pairs in (1, 5, 20):
        records = []
        for k in range(pairs):
            records.append(GameRecord("winner", "random", "", [], "1-0", "no_moves", key=f"0-1/{k}/0"))
            records.append(GameRecord("random", "winner", "", [], "0-1", "no_moves", key=f"0-1/{k}/1"))
        winner = fit_elo(records, bootstrap=400)["winner"]
        assert winner.lower < winner.rating < winner.upper
        assert winner.upper - winner.lower > 100
        assert winner.lower > 0  # and yet clearly better than random


def test_a_player_who_won_every_game_stays_finite():
    records = simulate({"random": 0, "greedy": 200}, 20, seed=5)
    for opponent in ("random", "greedy"):
        for g in range(10):
            black, white = ("champ", opponent) if g % 2 == 0 else (opponent, "champ")
            records.append(GameRecord(black, white, "", [], "1-0" if black == "champ" else "0-1", "no_moves"))
    ratings = fit_elo(records, bootstrap=200)
    champ = ratings["champ"]
    assert ratings.players()[0] == "champ"
    assert champ.score == 1.0 and champ.losses == 0
    assert all(math.isfinite(v) for v in (champ.rating, champ.lower, champ.upper))
    assert 400 < champ.rating < 2000
    assert champ.lower <= champ.rating <= champ.upper
    with pytest.raises(ValueError, match="prior_draws"):
        fit_elo(records, bootstrap=0, prior_draws=0)


def test_anchor_on_random_or_on_the_mean():
    records = simulate(TRUE, 60, seed=6)
    anchored = fit_elo(records, bootstrap=0)
    assert anchored.anchor == "random" and anchored["random"].rating == 0.0

    centred = fit_elo(records, anchor=None, bootstrap=0)
    assert centred.anchor is None
    assert sum(p.rating for p in centred) == pytest.approx(0.0, abs=1e-6)
    for name in TRUE:  # the same ratings, shifted
        shift = anchored[name].rating - centred[name].rating
        assert shift == pytest.approx(anchored["greedy"].rating - centred["greedy"].rating, abs=1e-6)

    without_random = [r for r in records if "random" not in (r.black, r.white)]
    fallback = fit_elo(without_random, bootstrap=0)
    assert fallback.anchor is None
    assert sum(p.rating for p in fallback) == pytest.approx(0.0, abs=1e-6)
    assert "mean rating = 0" in fallback.to_markdown()


def test_anchor_matches_the_only_player_of_that_kind():
    renamed = {"random:seed=7" if k == "random" else k: v for k, v in TRUE.items()}
    ratings = fit_elo(simulate(renamed, 20, seed=7), bootstrap=0)
    assert ratings.anchor == "random:seed=7"
    assert ratings["random:seed=7"].rating == 0.0
    named = fit_elo(simulate(renamed, 20, seed=7), anchor="greedy", bootstrap=0)
    assert named["greedy"].rating == 0.0


def test_bootstrap_intervals_cover_the_truth_in_most_leagues():
    covered = total = 0
    for seed in range(30):
        ratings = fit_elo(simulate(TRUE, 40, seed=100 + seed), bootstrap=200, seed=seed)
        for name, truth in TRUE.items():
            if name == "random":
                assert ratings[name].lower == ratings[name].upper == 0.0
                continue
            line = ratings[name]
            assert line.lower <= line.rating <= line.upper
            covered += line.lower <= truth <= line.upper
            total += 1
    assert covered / total >= 0.8, f"{covered}/{total} intervals hold the true rating"


def test_bootstrap_intervals_shrink_with_more_games():
    small = fit_elo(simulate(TRUE, 40, seed=8), bootstrap=300)
    large = fit_elo(simulate(TRUE, 640, seed=8), bootstrap=300)
    for name in TRUE:
        if name == "random":
            continue
        width_small = small[name].upper - small[name].lower
        width_large = large[name].upper - large[name].lower
        # Sixteen times the games: about a quarter of the width.
        assert width_large < 0.5 * width_small, (name, width_small, width_large)


def test_ratings_do_not_depend_on_the_order_of_the_games_and_are_seeded():
    records = simulate(TRUE, 30, seed=9)
    shuffled = list(records)
    random.Random(0).shuffle(shuffled)
    a = fit_elo(records, bootstrap=100, seed=3)
    b = fit_elo(shuffled, bootstrap=100, seed=3)
    assert a.to_csv() == b.to_csv()
    c = fit_elo(records, bootstrap=100, seed=4)
    assert [p.rating for p in c] == [p.rating for p in a]
    assert [p.lower for p in c] != [p.lower for p in a]


def test_tables_are_sorted_best_first():
    ratings = fit_elo(simulate(TRUE, 40, seed=10), bootstrap=50)
    order = ratings.players()
    assert [p.player for p in ratings] == order
    assert [p.rating for p in ratings] == sorted((p.rating for p in ratings), reverse=True)

    rows = list(csv.DictReader(io.StringIO(ratings.to_csv())))
    assert [r["player"] for r in rows] == order
    assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4]
    assert all(int(r["games"]) == 120 for r in rows)
    top = rows[0]
    assert float(top["lower"]) <= float(top["elo"]) <= float(top["upper"])
    assert int(top["wins"]) + int(top["draws"]) + int(top["losses"]) == 120

    markdown = ratings.to_markdown()
    lines = markdown.splitlines()
    assert lines[0].startswith("| # | player | Elo | 95 % interval")
    assert [line.split("|")[2].strip() for line in lines[2:6]] == order
    assert (
        "anchored on random = 0" in markdown
        and "50 Bayesian-bootstrap replicates over colour-swapped pairs" in markdown
    )
    assert ratings.as_dict()["random"] == 0.0


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="no games"):
        fit_elo([])
    with pytest.raises(ValueError, match="'\\*'"):
        fit_elo([GameRecord("a", "b", "", [], "*", "")])
    with pytest.raises(ValueError, match="bootstrap"):
        fit_elo(simulate(TRUE, 2, 0), bootstrap=-1)
    with pytest.raises(ValueError, match=f"bootstrap must be 0 to {MAX_BOOTSTRAP}, got 99999999999"):
        fit_elo(simulate(TRUE, 2, 0), bootstrap=99_999_999_999)  # not a MemoryError after the fit
    with pytest.raises(KeyError, match="not rated"):
        fit_elo(simulate(TRUE, 2, 0), bootstrap=0)["nobody"]
