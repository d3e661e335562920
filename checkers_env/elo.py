"""The suite's one Elo fit: Bradley-Terry ratings by maximum likelihood (Newton's method),
used by the league's ratings (``checkers_evaluation.league.ratings.fit_elo``, with its prior,
anchor and bootstrap) and by the trainers that rate a net against anchors of fixed rating
(:func:`rating_against_anchors`). It lives in the core because evaluation and training both
use it and neither imports the other.

Strengths are in natural-log units: ``theta = rating * ELO_SCALE``, so player ``i`` scores
``1 / (1 + exp(theta_j - theta_i))`` against ``j``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: Natural-log units per Elo point: a rating difference ``d`` gives odds ``10 ** (d / 400)``.
ELO_SCALE = math.log(10) / 400

NO_MAXIMUM = (
    "the rating fit has no finite maximum: without a prior (prior_draws=0) a player who won "
    "or lost every game, or players with no chain of games between them, cannot be rated"
)


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _objective(theta, W, N, prior):
    diff = theta[:, :, None] - theta[:, None, :]
    value = np.sum(W * _log_sigmoid(diff), axis=(1, 2))
    if prior:
        value = value + prior * 0.5 * np.sum(_log_sigmoid(theta) + _log_sigmoid(-theta), axis=1)
    return value


def bradley_terry(
    W: np.ndarray,
    N: np.ndarray,
    prior: float,
    tol: float = 1e-10,
    max_iter: int = 200,
    fixed: np.ndarray | None = None,
) -> np.ndarray:
    """Maximise the penalised Bradley-Terry log-likelihood for each matrix of the batch.

    Args:
        W: points ``W[b, i, j]`` that player i scored against j, shape (B, n, n).
        N: games ``N[b, i, j]`` between them (symmetric), shape (B, n, n).
        prior: virtual draws of each player against the centre of the scale (0: none).
        tol: the largest step, in natural-log units, at which the iteration stops.
        max_iter: Newton steps at most.
        fixed: strengths known beforehand, shape (n,), NaN for the players to fit: the fit
            moves only the others (anchors of fixed rating).

    Returns:
        The strengths in natural-log units, shape (B, n).

    Raises:
        ValueError: the likelihood has no finite maximum (:data:`NO_MAXIMUM`).
    """
    batch, n, _ = W.shape
    theta = np.zeros((batch, n))
    held = np.zeros(n, dtype=bool) if fixed is None else ~np.isnan(fixed)
    if fixed is not None and held.any():
        # The others start at the anchors' mean: of their order, where Newton converges.
        theta[:, held] = fixed[held]
        theta[:, ~held] = fixed[held].mean()
    # Without the prior or fixed players the likelihood is flat along (1, ..., 1); fix the mean instead.
    gauge = 0.0 if prior or held.any() else 1.0 / n
    value = _objective(theta, W, N, prior)
    active = np.ones(batch, dtype=bool)
    idx = np.arange(n)
    for _ in range(max_iter):
        if not active.any():
            break
        t, Wa, Na = theta[active], W[active], N[active]
        diff = t[:, :, None] - t[:, None, :]
        p = np.exp(_log_sigmoid(diff))
        grad = np.sum(Wa - Na * p, axis=2)
        info = Na * p * (1 - p)  # Fisher information of each pair
        hess = info.copy()  # negative Hessian: diag sum of info, off-diagonal -info
        hess *= -1
        hess[:, idx, idx] = info.sum(axis=2)
        if prior:
            s = np.exp(_log_sigmoid(t))
            grad += prior * (0.5 - s)
            hess[:, idx, idx] += prior * s * (1 - s)
        if gauge:
            hess += gauge
        if held.any():  # a fixed player's row and column say: do not move
            grad[:, held] = 0.0
            hess[:, held, :] = 0.0
            hess[:, :, held] = 0.0
            hess[:, idx[held], idx[held]] = 1.0
        try:
            step = np.linalg.solve(hess, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            raise ValueError(NO_MAXIMUM) from None
        # Backtracking: halve the step until the objective does not decrease.
        old = value[active]
        scale = np.ones(len(t))
        for _ in range(60):
            trial = t + scale[:, None] * step
            new = _objective(trial, Wa, Na, prior)
            bad = new < old - 1e-12 * np.maximum(1.0, np.abs(old))
            if not bad.any():
                break
            scale[bad] *= 0.5
        trial = t + scale[:, None] * step
        theta[active] = trial
        value[active] = _objective(trial, Wa, Na, prior)
        done = np.max(np.abs(scale[:, None] * step), axis=1) < tol
        where = np.flatnonzero(active)
        active[where[done]] = False
    else:
        if active.any():
            raise ValueError(NO_MAXIMUM)
    if not np.all(np.isfinite(theta)):
        raise ValueError(NO_MAXIMUM)
    return theta


def rating_against_anchors(results: Sequence[tuple[float, float, int]]) -> float:
    """The maximum-likelihood Elo rating of one player from its games against anchors of
    fixed rating, by :func:`bradley_terry` with the anchors held.

    Points are clipped half a game from 0 and from all, so a clean sweep (or a clean loss)
    stays finite.

    Args:
        results: ``(anchor rating, points scored against it, games)`` per anchor.

    Returns:
        The rating, to a tenth of a point; NaN when no game was played.
    """
    played = [(a, p, n) for a, p, n in results if n > 0]
    if not played:
        return float("nan")
    k = len(played)
    W = np.zeros((1, k + 1, k + 1))
    N = np.zeros((1, k + 1, k + 1))
    for j, (_, points, games) in enumerate(played, start=1):
        points = min(max(points, 0.5), games - 0.5)
        W[0, 0, j], W[0, j, 0] = points, games - points
        N[0, 0, j] = N[0, j, 0] = games
    fixed = np.array([np.nan] + [a * ELO_SCALE for a, _, _ in played])
    theta = bradley_terry(W, N, 0.0, fixed=fixed)
    return round(float(theta[0, 0]) / ELO_SCALE, 1)


__all__ = ["ELO_SCALE", "NO_MAXIMUM", "bradley_terry", "rating_against_anchors"]
