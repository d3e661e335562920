"""The JAX env (``checkers_env.jax``) against the numba vector env, on this machine's CPU.

For each batch size N in ``SIZES`` (1 to 65,536 games), in one run:

* ``jax``: hops per second of ``jax.jit`` over ``jax.vmap(Checkers().step)``, a random
  legal action per game drawn inside the jitted call (one uniform number per game, the
  k-th legal action), finished games replaced by fresh ones in the same call (as pgx's
  ``auto_reset``); one Python call per batch step, as a training loop makes them;
* ``numba``: the numba vector env in self-play (``CheckersVectorEnv(self_play=True)``: one
  hop of the side to move per step, observations and masks written, autoreset on the next
  step), with random legal actions picked by ``bench_env.pick_legal`` (its cost included);
* ``jax_over_numba``: their ratio; ``jax_compile_s``: tracing and compiling the jitted call
  (an XLA compilation per batch size).

Both sides compute the same things per hop: the rules, the ends, the observation planes
and the legal-action mask. Figures are hops (single env steps) per second, the best of
``REPEATS`` timings of about ``SECONDS`` each, on whatever JAX sees as its default device
(``jax_device``); ``python -m benchmarks jax_env`` on a GPU machine measures the card.
Needs the ``jax`` extra (``pip install -e '.[jax]'``).
"""

from __future__ import annotations

import time

import numpy as np

from .bench_env import pick_legal

SIZES = (1, 16, 256, 4096, 65536)
SECONDS = 1.0
REPEATS = 3


def run() -> dict:
    import jax

    return {"jax_device": str(jax.devices()[0]), "jax_version": jax.__version__, **table(SIZES)}


def table(sizes, numba_up_to: int | None = None) -> dict:
    """The rows of ``sizes``: each ``{"jax_steps_per_s", "jax_compile_s", "numba_steps_per_s",
    "jax_over_numba"}`` under ``n<N>``, the numba figures only up to ``numba_up_to`` games
    (all when None). A size whose batch does not fit the device ends the table there, its
    row saying why."""
    results: dict = {}
    for n in sizes:
        try:
            compile_s, jax_rate = _jax_rate(n)
        except Exception as error:  # out of device memory at the largest sizes
            results[f"n{n}"] = {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"}
            break
        row = {"jax_steps_per_s": jax_rate, "jax_compile_s": compile_s}
        if numba_up_to is None or n <= numba_up_to:
            numba_rate = max(_numba_rate(n) for _ in range(REPEATS))
            row.update(numba_steps_per_s=numba_rate, jax_over_numba=jax_rate / numba_rate)
        results[f"n{n}"] = row
        versus = (
            f"  numba {row['numba_steps_per_s']:>13,.0f} (x{row['jax_over_numba']:.2f})"
            if "numba_steps_per_s" in row
            else ""
        )
        print(f"N={n:>8}: jax {jax_rate:>14,.0f} hops/s{versus}  compile {compile_s:.1f} s", flush=True)
    return results


def _jax_rate(n: int) -> tuple[float, float]:
    """(compile seconds, best hops per second) of the jitted, vmapped step on ``n`` games."""
    import jax
    import jax.numpy as jnp

    from checkers_env.jax import Checkers

    env = Checkers()
    init = jax.jit(jax.vmap(env.init))

    def advance(state, fresh, key):
        key, draw = jax.random.split(key)
        legal = state.legal_action_mask
        k = jnp.floor(jax.random.uniform(draw, (n,)) * legal.sum(axis=1)).astype(jnp.int32)
        actions = jnp.argmax(jnp.cumsum(legal, axis=1) > k[:, None], axis=1)
        state = jax.vmap(env.step)(state, actions)
        over = state.terminated | state.truncated
        restart = lambda new, old: jnp.where(over.reshape((n,) + (1,) * (old.ndim - 1)), new, old)  # noqa: E731
        return jax.tree.map(restart, fresh, state), key

    state = init(jax.random.split(jax.random.PRNGKey(0), n))
    fresh = init(jax.random.split(jax.random.PRNGKey(1), n))
    key = jax.random.PRNGKey(2)
    started = time.perf_counter()
    advance = jax.jit(advance).lower(state, fresh, key).compile()
    compile_s = time.perf_counter() - started
    for _ in range(20):
        state, key = advance(state, fresh, key)
    jax.block_until_ready(state)
    best = 0.0
    for _ in range(REPEATS):
        calls = 0
        started = time.perf_counter()
        while time.perf_counter() - started < SECONDS:
            for _ in range(10):
                state, key = advance(state, fresh, key)
            jax.block_until_ready(state)
            calls += 10
        best = max(best, calls * n / (time.perf_counter() - started))
    return compile_s, best


def _numba_rate(n: int) -> float:
    """Hops per second of the numba vector env in self-play on ``n`` games."""
    from checkers_env.vector_env import CheckersVectorEnv

    env = CheckersVectorEnv(num_envs=n, self_play=True)
    _, infos = env.reset(seed=0)
    rng = np.array([0x9E3779B97F4A7C15 & 0x7FFFFFFFFFFFFFFF], dtype=np.int64)
    actions = np.zeros(n, dtype=np.int64)
    for _ in range(20):
        pick_legal(infos["action_mask"], rng, actions)
        infos = env.step(actions)[4]
    calls = 0
    started = time.perf_counter()
    while time.perf_counter() - started < SECONDS:
        for _ in range(10):
            pick_legal(infos["action_mask"], rng, actions)
            infos = env.step(actions)[4]
        calls += 10
    return calls * n / (time.perf_counter() - started)


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
