"""The JAX env checked against the numba vector env, on whatever device JAX runs on.

    >>> from checkers_env.jax.truth import side_by_side
    >>> side_by_side(num_games=64, steps=40)["mismatches"]
    0

Random games are played through both envs at once, the same legal action given to both
at every step: the numba vector env in self-play (``self_play=True``, next-step autoreset)
and ``Checkers`` with finished games replaced by fresh ones on the same step. At every step
the legal masks (of games still on), the observations (of every game), the reward of the
player who moved, and ``terminated`` and ``truncated`` must be equal. The test suite runs
this; ``make gpu-check`` runs it on the card.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..game import Rules
from ..game_state import END_NO_MOVES, END_NO_PROGRESS, END_REPETITION
from ..vector_env import CheckersVectorEnv
from .env import Checkers


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (0 where none is legal)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def side_by_side(num_games: int = 512, steps: int = 250, seed: int = 0, rules: Rules = Rules()) -> dict[str, int]:
    """Play ``steps`` random steps of ``num_games`` games through both envs.

    Returns:
        Counts: ``steps`` (hops of games still on), ``mismatches`` (steps where anything
        differed; 0 when the envs agree), ``first_mismatch`` (the step, or -1), and what the
        games went through: ``kings`` and ``continuing`` (observations with a king, with a
        capture going on), ``wins``, ``repetition``, ``no_progress`` and ``truncated`` (games
        that ended so).
    """
    vector = CheckersVectorEnv(num_envs=num_games, self_play=True, rules=rules)
    env = Checkers(rules=rules)
    init = jax.jit(jax.vmap(env.init))

    @jax.jit
    def advance(state, actions, fresh, restart):
        stepped = jax.vmap(env.step)(state, actions)
        pick = lambda new, old: jnp.where(restart.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)  # noqa: E731
        return jax.tree.map(pick, fresh, stepped)

    observations, infos = vector.reset(seed=seed)
    state = init(jax.random.split(jax.random.PRNGKey(seed), num_games))
    fresh = init(jax.random.split(jax.random.PRNGKey(seed + 1), num_games))  # the next games' player orders
    rng = np.random.default_rng(seed)
    ended = np.zeros(num_games, dtype=bool)
    rows = np.arange(num_games)
    seen = dict.fromkeys(
        ("steps", "mismatches", "kings", "continuing", "wins", "repetition", "no_progress", "truncated"), 0
    )
    seen["first_mismatch"] = -1
    for t in range(steps):
        masks = infos["action_mask"].astype(bool)
        live = ~ended
        same = np.array_equal(np.asarray(state.legal_action_mask)[live], masks[live])
        same &= np.array_equal(np.asarray(state.observation), observations)
        actions = random_actions(masks, rng)
        actor = np.asarray(state.current_player)
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        state = advance(state, actions, fresh, ended)
        same &= np.array_equal(np.asarray(state.rewards)[rows, actor], rewards)
        same &= np.array_equal(np.asarray(state.terminated), terminated)
        same &= np.array_equal(np.asarray(state.truncated), truncated)
        if not same:
            seen["mismatches"] += 1
            seen["first_mismatch"] = t if seen["first_mismatch"] < 0 else seen["first_mismatch"]
        ends = np.asarray(state._termination)
        seen["steps"] += int(live.sum())
        seen["kings"] += int(observations[:, [1, 3]].any(axis=(1, 2, 3)).sum())
        seen["continuing"] += int(observations[:, 4].any(axis=(1, 2)).sum())
        seen["wins"] += int((ends == END_NO_MOVES).sum())
        seen["repetition"] += int((ends == END_REPETITION).sum())
        seen["no_progress"] += int((ends == END_NO_PROGRESS).sum())
        seen["truncated"] += int(truncated.sum())
        ended = terminated | truncated
    return seen


__all__ = ["random_actions", "side_by_side"]
