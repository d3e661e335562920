"""The outcome net's training targets, from the self-play shards' results and root values.

The shards keep each searched position's root value, in the units of the evaluator that
searched it (the positional points for generation 0, the net's expected result after). It
becomes a probability by one logistic fit per generation, ``p = sigmoid(value / s)`` with
the scale ``s`` that makes the games' results most likely (:func:`search_scale`; forced wins
saturate to 0 or 1), and the target is ``(1 - w) r + w p`` with ``w = --search-weight`` (0
by default, so the trained runs of the zoo replay as they were). Positions that were not
searched (the random plies) keep ``r`` alone. ``r`` is the result, ``(result + 1) / 2``,
with ``--target-lambda`` 1 (the default); below 1 it is the TD(lambda) return toward it
(:func:`lambda_returns`): ``r_t = (1 - lambda) p_{t+1} + lambda r_{t+1}`` along the game,
each from the side to move's view, ``r`` of the game's last position its result, and a
position that was not searched passing on ``r`` of the next. The result then reaches a
position through the values of the positions after it, each a search of its own: less noise
than one game's end, more than one search can see.
"""

from __future__ import annotations

import numba
import numpy as np


def search_scale(values: np.ndarray, results: np.ndarray) -> float:
    """The scale ``s`` that makes ``results`` (1 won, 0 drawn, -1 lost) most likely under
    ``P(won) = sigmoid(values / s)``, a draw counting half (binary cross-entropy against
    ``(result + 1) / 2``): a grid over eleven decades, then a finer one around its best."""
    target = (results.astype(np.float64) + 1.0) / 2.0
    values = values.astype(np.float64)

    def loss(scale: float) -> float:
        z = values / scale
        return float(np.mean(np.logaddexp(0.0, z) - target * z))

    grid = np.geomspace(1e-4, 1e7, 111)
    best = grid[int(np.argmin([loss(s) for s in grid]))]
    fine = np.geomspace(best / 1.3, best * 1.3, 27)
    return float(fine[int(np.argmin([loss(s) for s in fine]))])


def lambda_returns(
    result: np.ndarray, values: np.ndarray, game: np.ndarray, ply: np.ndarray, black_to_move: np.ndarray, lam: float
) -> np.ndarray:
    """The TD(``lam``) returns of a set of games' positions (the module docstring's ``r``).

    Args:
        result: per position, the game's result from its side to move's view, in [0, 1].
        values: per position, the search's root value as a probability from the same view
            (``NaN`` where the position was not searched).
        game, ply: which game a position is of, and its ply there (any order).
        black_to_move: whose view each value is from.
        lam: lambda; 1 gives ``result`` back.

    Returns:
        float64 returns, in the positions' order.
    """
    returns = np.asarray(result, np.float64).copy()
    if lam >= 1.0 or len(returns) == 0:
        return returns
    order = np.lexsort((ply, game))
    returns[order] = _returns_in_order(
        returns[order],
        np.asarray(values, np.float64)[order],
        np.asarray(game)[order],
        np.asarray(black_to_move, np.bool_)[order],
        float(lam),
    )
    return returns


@numba.njit(cache=True)
def _returns_in_order(result, value, game, black, lam):
    """:func:`lambda_returns` of positions sorted by game and ply, backwards through each game."""
    out = result.copy()
    for i in range(len(out) - 2, -1, -1):
        j = i + 1
        if game[j] != game[i]:
            continue  # the game's last position keeps its result
        same = black[j] == black[i]
        later = out[j] if same else 1.0 - out[j]
        p = value[j]
        if np.isnan(p):
            out[i] = later
        else:
            out[i] = (1.0 - lam) * (p if same else 1.0 - p) + lam * later
    return out


def targets(data: dict[str, np.ndarray], keep: np.ndarray, weight: float, lam: float = 1.0) -> np.ndarray:
    """The training targets of one generation's ``keep`` positions (module docstring: the
    search target). The scale is fitted on those; a return runs through all of them."""
    outcome, search = data["outcome"], data["search"]
    result = (outcome.astype(np.float64) + 1.0) / 2.0
    searched = np.isfinite(search)
    p = np.full(len(search), np.nan)
    fitted = searched & keep
    if (weight > 0 or lam < 1.0) and fitted.any():
        scale = search_scale(search[fitted], outcome[fitted])
        p[searched] = 1.0 / (1.0 + np.exp(-np.clip(search[searched].astype(np.float64) / scale, -60.0, 60.0)))
    target = lambda_returns(result, p, data["game"], data["ply"], data["black_to_move"], lam)[keep]
    searched, p = searched[keep], p[keep]
    if weight > 0:
        target[searched] = (1.0 - weight) * target[searched] + weight * p[searched]
    return target.astype(np.float32)


__all__ = ["lambda_returns", "search_scale", "targets"]
