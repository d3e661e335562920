"""The JAX rules against outside truth: the numba vector env step by step, the published
perft counts, and the 4,000 ACF games."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

from checkers_env import Rules, read_pdn  # noqa: E402
from checkers_env.datasets import ACF_GAMES, hop_action  # noqa: E402
from checkers_env.game_state import END_NO_MOVES, END_NO_PROGRESS, END_REPETITION  # noqa: E402
from checkers_env.jax import Checkers, boards_of, perft  # noqa: E402
from checkers_env.vector_env import CheckersVectorEnv  # noqa: E402

PERFT = [1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931]  # OEIS A133046


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (0 where none is legal)."""
    scores = rng.random(masks.shape) * masks
    return np.argmax(scores, axis=1)


def play_both(num_games: int, steps: int, seed: int, rules: Rules) -> dict[str, int]:
    """Random games through the numba vector env (self-play, next-step autoreset) and the
    JAX env side by side; assert they agree at every step; return what was seen."""
    vector = CheckersVectorEnv(num_envs=num_games, self_play=True, rules=rules)
    env = Checkers(rules=rules)
    init = jax.jit(jax.vmap(env.init))

    @jax.jit
    def advance(state, actions, fresh, restart):
        stepped = jax.vmap(env.step)(state, actions)
        pick = lambda new, old: jax.vmap(lambda r, a, b: jax.numpy.where(r, a, b))(restart, new, old)  # noqa: E731
        return jax.tree.map(pick, fresh, stepped)

    observations, infos = vector.reset(seed=seed)
    key = jax.random.PRNGKey(seed)
    state = init(jax.random.split(key, num_games))
    fresh = init(jax.random.split(jax.random.PRNGKey(seed + 1), num_games))  # the next games' player orders
    rng = np.random.default_rng(seed)
    ended = np.zeros(num_games, dtype=bool)
    seen = {"steps": 0, "kings": 0, "continuing": 0, "truncated": 0, "wins": 0,
            "repetition": 0, "no_progress": 0}
    rows = np.arange(num_games)
    for _ in range(steps):
        masks = infos["action_mask"].astype(bool)
        live = ~ended
        np.testing.assert_array_equal(np.asarray(state.legal_action_mask)[live], masks[live])
        np.testing.assert_array_equal(np.asarray(state.observation), observations)
        actions = random_actions(masks, rng)
        actor = np.asarray(state.current_player)
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        state = advance(state, actions, fresh, ended)
        np.testing.assert_array_equal(np.asarray(state.rewards)[rows, actor], rewards)
        np.testing.assert_array_equal(np.asarray(state.rewards).sum(axis=1), 0.0)
        np.testing.assert_array_equal(np.asarray(state.terminated), terminated)
        np.testing.assert_array_equal(np.asarray(state.truncated), truncated)
        ends = np.asarray(state._termination)
        seen["steps"] += int(live.sum())
        seen["kings"] += int(observations[:, [1, 3]].any(axis=(1, 2, 3)).sum())
        seen["continuing"] += int(observations[:, 4].any(axis=(1, 2)).sum())
        seen["truncated"] += int(truncated.sum())
        seen["wins"] += int((ends == END_NO_MOVES).sum())
        seen["repetition"] += int((ends == END_REPETITION).sum())
        seen["no_progress"] += int((ends == END_NO_PROGRESS).sum())
        ended = terminated | truncated
    return seen


def test_a_million_random_steps_agree_with_the_vector_env():
    seen = play_both(num_games=4096, steps=250, seed=7, rules=Rules())
    assert seen["steps"] >= 1_000_000
    for what in ("kings", "continuing", "wins", "repetition", "no_progress"):
        assert seen[what] > 0, (what, seen)


def test_the_move_cap_truncates_as_in_the_vector_env():
    seen = play_both(num_games=256, steps=120, seed=3, rules=Rules(max_plies=30))
    assert seen["truncated"] > 0 and seen["wins"] > 0, seen


@pytest.mark.parametrize("depth", range(len(PERFT)))
def test_perft_through_step_is_the_published_count(depth):
    assert perft(Checkers(rules=Rules.without_draws()), depth, batch=8192) == PERFT[depth]


def test_the_acf_games_replay_hop_by_hop():
    """Every move of the 4,000 ACF games, hop by hop through ``step``: each hop legal, the
    turn passing exactly when the move is complete, the board equal to the game's."""
    games = read_pdn(ACF_GAMES)
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
        np.asarray(final.terminated), [not game.boards[-1].has_legal_moves() for game in games])
