"""The JAX rules' pieces against the core's tables."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

from checkers_env import bitboard  # noqa: E402
from checkers_env.encoding import BIT_OF_ACTION_SQUARE  # noqa: E402
from checkers_env.jax import rules  # noqa: E402


def test_hop_of_reads_the_action_frame_of_both_colours():
    actions = jnp.arange(128)
    for color in (0, 1):
        bits, directions = jax.vmap(lambda a, c=color: rules.hop_of(jnp.int32(c), a))(actions)
        np.testing.assert_array_equal(np.asarray(bits), BIT_OF_ACTION_SQUARE[color, np.arange(128) >> 2])
        expected = np.arange(128) & 3 if color == 0 else 3 - (np.arange(128) & 3)
        np.testing.assert_array_equal(np.asarray(directions), expected)


@pytest.mark.parametrize("direction", range(4))
def test_steps_match_the_numba_steps(direction):
    rng = np.random.default_rng(direction)
    boards = rng.integers(0, 1 << 32, size=200, dtype=np.uint64)
    numba_step = (bitboard.step_nw, bitboard.step_ne, bitboard.step_sw, bitboard.step_se)[direction]
    expected = [numba_step(int(b)) & bitboard.FULL for b in boards]
    got = jax.vmap(lambda x: rules.step(x, direction))(jnp.asarray(boards, dtype=jnp.uint32))
    np.testing.assert_array_equal(np.asarray(got, dtype=np.uint64), expected)
    towards = jax.vmap(lambda x: rules.step_towards(x, jnp.int32(direction)))(jnp.asarray(boards, dtype=jnp.uint32))
    np.testing.assert_array_equal(np.asarray(towards, dtype=np.uint64), expected)
