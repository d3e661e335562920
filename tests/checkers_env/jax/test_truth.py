"""The JAX rules against outside truth: the numba vector env step by step, the published
perft counts, and the 4,000 ACF games."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

from checkers_env import Rules  # noqa: E402
from checkers_env.datasets import hop_action  # noqa: E402
from checkers_env.jax import Checkers, boards_of, perft  # noqa: E402
from checkers_env.jax.truth import side_by_side  # noqa: E402

PERFT = [1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931]  # OEIS A133046


def test_random_steps_agree_with_the_vector_env():
    seen = side_by_side(num_games=512, steps=250, seed=5, rules=Rules())
    assert seen["mismatches"] == 0, seen
    assert seen["steps"] >= 100_000
    for what in ("kings", "continuing", "wins", "repetition"):
        assert seen[what] > 0, (what, seen)


@pytest.mark.slow
def test_a_million_random_steps_agree_with_the_vector_env():
    seen = side_by_side(num_games=4096, steps=250, seed=7, rules=Rules())
    assert seen["mismatches"] == 0, seen
    assert seen["steps"] >= 1_000_000
    for what in ("kings", "continuing", "wins", "repetition", "no_progress"):
        assert seen[what] > 0, (what, seen)


def test_shorter_draw_rules_end_games_as_in_the_vector_env():
    seen = side_by_side(num_games=256, steps=150, seed=3, rules=Rules(no_progress_plies=8, max_plies=90))
    assert seen["mismatches"] == 0, seen
    for what in ("truncated", "wins", "no_progress"):
        assert seen[what] > 0, (what, seen)


def test_a_difference_is_seen(monkeypatch):
    """The comparison can fail: with the JAX env's observation of one plane wrong, it
    reports a mismatch at the first step."""
    from checkers_env.jax import rules as jax_rules

    planes = jax_rules.planes
    monkeypatch.setattr(jax_rules, "planes", lambda *args: planes(*args).at[0, 0, 0].add(1.0))
    seen = side_by_side(num_games=8, steps=3, seed=1)
    assert seen["mismatches"] == 3 and seen["first_mismatch"] == 0


@pytest.mark.parametrize("depth", [*range(len(PERFT) - 1), pytest.param(len(PERFT) - 1, marks=pytest.mark.slow)])
def test_perft_through_step_is_the_published_count(depth):
    assert perft(Checkers(rules=Rules.without_draws()), depth, batch=8192) == PERFT[depth]


def test_the_acf_games_replay_hop_by_hop(acf_games):
    """Every move of the 4,000 ACF games, hop by hop through ``step``: each hop legal, the
    turn passing exactly when the move is complete, the board equal to the game's."""
    games = acf_games
    env = Checkers(rules=Rules.without_draws())
    longest = max(sum(len(move.path) - 1 for move in game.moves) for game in games)
    hops = np.zeros((len(games), longest), dtype=np.int32)
    completes = np.zeros((len(games), longest), dtype=bool)
    lengths = np.zeros(len(games), dtype=np.int32)
    for g, game in enumerate(games):
        n = 0
        for board, move in zip(game.boards, game.moves):
            for frm, to in zip(move.path, move.path[1:]):
                hops[g, n] = hop_action(board.turn == 0, frm, to)
                n += 1
            completes[g, n - 1] = True
        lengths[g] = n

    @jax.jit
    def replay(hops, lengths):
        def one(state, t):
            moving = t < lengths
            stepped = jax.vmap(env.step)(state, hops[:, t])
            legal = jax.vmap(lambda s, a: s.legal_action_mask[a])(state, hops[:, t]) | ~moving
            kept = jax.tree.map(lambda new, old: jax.vmap(jax.numpy.where)(moving, new, old), stepped, state)
            return kept, (legal, kept._square < 0)

        start = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), hops.shape[0]))
        return jax.lax.scan(one, start, jax.numpy.arange(hops.shape[1]))

    final, (legal, complete) = replay(hops, lengths)
    legal, complete = np.asarray(legal).T, np.asarray(complete).T
    inside = np.arange(longest)[None, :] < lengths[:, None]
    assert legal.all()
    np.testing.assert_array_equal(complete[inside], completes[inside])
    assert boards_of(final) == [game.boards[-1] for game in games]
    np.testing.assert_array_equal(
        np.asarray(final.terminated), [not game.boards[-1].has_legal_moves() for game in games]
    )
