"""The JAX env's API: pgx's own api_test, jit and vmap, illegal actions, ends, pictures
and errors."""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pgx = pytest.importorskip("pgx")

import jax.numpy as jnp  # noqa: E402
from pgx._src import api_test as pgx_api_test  # noqa: E402

from checkers_env import Board, Rules  # noqa: E402
from checkers_env.datasets import hop_action  # noqa: E402
from checkers_env.game_state import END_NO_MOVES  # noqa: E402
from checkers_env.jax import Checkers, State, boards_of  # noqa: E402
from checkers_env.jax.env import ENV_ID  # noqa: E402


def test_pgx_api_test_passes(monkeypatch):
    """pgx's api_test as pgx ships it, with two things patched:

    - its list of ids, which only pgx's own games can be on (see the module docstring of
      ``checkers_env.jax.env``);
    - the random player of its single-state half: pgx's ``act_randomly`` samples along
      axis 1, which a single state's mask does not have, and current JAX raises for it
      (pgx's own ``tic_tac_toe`` fails there the same way); the one here samples along
      the last axis, the same choice for a batch.
    """
    ids = Literal[get_args(pgx.core.EnvId) + (ENV_ID,)]  # type: ignore[valid-type]
    monkeypatch.setattr(pgx_api_test, "EnvId", ids)
    monkeypatch.setattr(
        pgx_api_test,
        "act_randomly",
        jax.jit(lambda key, mask: jax.random.categorical(key, jnp.log(mask.astype(jnp.float32)), axis=-1)),
    )
    pgx_api_test.api_test(Checkers(), num=10)


def test_pgx_tools_see_a_pgx_env():
    env = Checkers()
    assert isinstance(env, pgx.core.Env) and isinstance(env.init(jax.random.PRNGKey(0)), pgx.core.State)
    assert (env.id, env.version, env.num_players, env.num_actions, env.observation_shape) == (
        "checkers",
        "v0",
        2,
        128,
        (5, 8, 8),
    )


def test_players_are_drawn_and_black_moves_first():
    states = jax.jit(jax.vmap(Checkers().init))(jax.random.split(jax.random.PRNGKey(1), 64))
    order = np.asarray(states._player_order)
    assert set(map(tuple, order)) == {(0, 1), (1, 0)}
    np.testing.assert_array_equal(np.asarray(states.current_player), order[:, 0])
    assert (np.asarray(states._turn) == 0).all()


def test_a_multi_jump_keeps_the_turn_until_it_is_complete():
    """23x14x7 (ACF archive game 2, White's 10th move): after the first hop the same side
    is to move, only the capturing piece's next jump is legal and the observation marks it."""
    board = Board.from_fen("W:W19,21,23,24,25,27,28,29,30,31,32:B1,2,3,4,5,6,10,11,12,15,16,18")
    env = Checkers()
    step = jax.jit(env.step)
    state = env.init_position(jax.random.PRNGKey(0), board)
    white = int(state.current_player)
    state = step(state, hop_action(False, 23, 14))
    assert int(state.current_player) == white and int(state._turn) == 1
    assert np.flatnonzero(np.asarray(state.legal_action_mask)).tolist() == [hop_action(False, 14, 7)]
    assert np.asarray(state.observation)[4].sum() == 1
    assert float(np.abs(np.asarray(state.rewards)).sum()) == 0.0
    state = step(state, hop_action(False, 14, 7))
    assert int(state.current_player) != white and int(state._square) == -1
    assert boards_of(state) == [board.play("23x14x7")]
    assert np.asarray(state.observation)[4].sum() == 0


def test_a_win_rewards_the_players_and_a_finished_game_stays_finished():
    env = Checkers()
    step = jax.jit(env.step)
    state = env.init_position(jax.random.PRNGKey(3), Board.from_fen("B:W18:B14"))
    black = int(state.current_player)
    state = step(state, hop_action(True, 14, 23))
    assert bool(state.terminated) and not bool(state.truncated) and int(state._termination) == END_NO_MOVES
    assert float(state.rewards[black]) == 1.0 and float(state.rewards[1 - black]) == -1.0
    assert bool(state.legal_action_mask.all())
    again = step(state, 0)
    assert float(np.abs(np.asarray(again.rewards)).sum()) == 0.0 and bool(again.terminated)
    assert boards_of(again) == boards_of(state)


def test_a_decided_start_position_is_over_at_once():
    state = Checkers().init_position(jax.random.PRNGKey(0), Board.from_fen("W:W:B14"))
    assert bool(state.terminated) and int(state._termination) == END_NO_MOVES
    with pytest.raises(TypeError, match="Board"):
        Checkers().init_position(jax.random.PRNGKey(0), "B:W18:B14")  # type: ignore[arg-type]


def test_svg_draws_one_board_or_a_batch(tmp_path):
    env = Checkers()
    one = env.init(jax.random.PRNGKey(0))
    assert one.to_svg().count("checkers-board") == 1
    batch = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 20))
    assert batch.to_svg().count("checkers-board") == 16
    path = tmp_path / "b.svg"
    batch.save_svg(path)
    assert path.read_text().startswith("<svg")
    with pytest.raises(ValueError, match=r"\.svg"):
        one.save_svg(tmp_path / "b.png")


def test_rules_without_a_bound_on_repetition_are_refused():
    with pytest.raises(ValueError, match="fixed-size history"):
        Checkers(rules=Rules(no_progress_plies=None, max_plies=None))
    with pytest.raises(TypeError, match="checkers_env.Rules"):
        Checkers(rules="default")  # type: ignore[arg-type]
    assert Checkers(rules=Rules.without_draws()).history == 1


def test_state_is_a_pytree_that_jit_and_vmap_keep():
    env = Checkers()
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 3))
    leaves = jax.tree.leaves(state)
    assert all(leaf.shape[0] == 3 for leaf in leaves)
    assert isinstance(state, State)


def test_pgx_auto_reset_restarts_finished_games():
    from pgx.experimental import auto_reset

    env = Checkers(rules=Rules(max_plies=60))
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 32))
    key = jax.random.PRNGKey(1)
    ended = 0
    for _ in range(150):
        key, draw, keys = jax.random.split(key, 3)
        action = jax.random.categorical(draw, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
        state = step(state, action, jax.random.split(keys, 32))
        ended += int((state.terminated | state.truncated).sum())
        # A finished game is already the next one's start: its mask is the start's 7 moves.
        done = np.asarray(state.terminated | state.truncated)
        assert (np.asarray(state.legal_action_mask)[done].sum(axis=1) == 7).all()
        assert (np.asarray(state._termination)[done] == 0).all()
    assert ended >= 32  # 150 hops under a 60-ply cap: about two games per slot


def test_the_docstring_examples_run():
    import doctest

    import checkers_env.jax
    from checkers_env.jax import truth

    for module in (checkers_env.jax, truth):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
