"""Environment speed: ``Checkers-v0`` against OpenSpiel's checkers, and the vector env.

Measured in one run (issue 3's goals in brackets):

* ``single``: ``gym.make("Checkers-v0")`` (random opponent inside the kernel) stepped with
  random legal actions read from ``info["action_mask"]``, the observation and the mask
  built every step, resetting when an episode ends [>= 1.5 x OpenSpiel];
* ``openspiel``: ``pyspiel.load_game("checkers")`` stepped with random legal actions while
  building its observation tensor and legal-action mask every step (None when
  ``open-spiel`` is not installed: ``pip install -e '.[bench]'``);
* ``vector``: ``gym.make_vec("Checkers-v0", num_envs=N, vectorization_mode=
  "vector_entry_point")`` through the Gymnasium API (observations, masks in ``infos``),
  N = 1024 and 4096 [>= 2 M steps/s], with random legal actions picked by a small numba
  helper (its cost is included); ``parallel`` is the same with ``parallel=True`` (the
  boards on numba's threads);
* ``autoreset``: the same on N = 1024 in each of Gymnasium's autoreset modes
  (``next_step``, the default; ``same_step``, with its final observations and infos;
  ``disabled``, where the loop resets the finished boards with ``reset_mask``) and with
  ``device="torch"`` (``torch``: tensors on the kernel's arrays, actions given as a tensor;
  None without torch). ``python -m benchmarks.bench_env autoreset`` runs these rows alone
  and writes ``results/env_autoreset.json``;
* ``vector_kernel``: the batch kernel ``batch_step.vector_step`` alone on N = 1024 and 4096 boards,
  the actions chosen outside the timing: ``raw`` is the state machine (the learner's hop,
  the random opponent's reply, ends, autoresets, rewards and the legal-hop masks) without
  the float observation planes [>= 20 M board-steps/s]; ``with_observations`` adds the
  planes (what the Gymnasium API returns); ``parallel`` uses numba's threads, otherwise
  one (as the vector env does without ``parallel``); ``plain_loop`` is the same loop
  compiled without ``prange`` (the reference that shows why the kernel uses it);
  ``self_play`` is the vector env's ``self_play=True`` mode, where the kernel plays no
  opponent and a step is one hop of the side to move (against the random opponent a step
  is the learner's hop and, once its move is complete, the opponent's whole reply).

Parallel figures need idle cores: on a machine shared with other work a parallel step
waits until every thread has been scheduled, and one thread is faster.

A step is one action of the learner (one hop); in the single and vector envs it includes
the opponent's replies. Every figure is the best of a few repetitions of about
``SECONDS`` each.
"""

from __future__ import annotations

import random
import time

import numba
import numpy as np

#: Wall time of one timed repetition.
SECONDS = 0.6
REPEATS = 5
VECTOR_SIZES = (1024, 4096)
AUTORESET_SIZE = 1024


def run() -> dict:
    single = _best(_single_env_rate)
    openspiel = _best(_openspiel_rate) if _have_openspiel() else None
    results = {
        "single_env_steps_per_s": single,
        "openspiel_steps_per_s": openspiel,
        "single_over_openspiel": (single / openspiel) if openspiel else None,
    }
    for n in VECTOR_SIZES:
        results[f"vector_env_n{n}_steps_per_s"] = _best(lambda n=n: _vector_env_rate(n))
    try:
        results["vector_env_n4096_parallel_steps_per_s"] = _best(lambda: _vector_env_rate(4096, parallel=True))
    except TypeError:  # a vector env without the ``parallel`` switch
        results["vector_env_n4096_parallel_steps_per_s"] = None
    results.update(autoreset_rows())
    for n in VECTOR_SIZES:
        for parallel in (False, True):
            for observations in (False, True):
                key = f"vector_kernel_n{n}" + ("_parallel" if parallel else "")
                key += "_with_observations" if observations else "_raw"
                results[key + "_board_steps_per_s"] = _best(
                    lambda n=n, p=parallel, o=observations: _vector_kernel_rate(n, parallel=p, observations=o)
                )
    for n in VECTOR_SIZES:
        for parallel in (False, True):
            key = f"vector_kernel_n{n}_self_play" + ("_parallel" if parallel else "") + "_raw_board_steps_per_s"
            results[key] = _best(
                lambda n=n, p=parallel: _vector_kernel_rate(n, parallel=p, observations=False, self_play=True)
            )
    # Why the batch kernel is compiled with prange even for one thread: the same loop
    # compiled plainly, on one thread, in the same run.
    plain = _best(lambda: _vector_kernel_rate(4096, observations=False, plain_loop=True))
    results["vector_kernel_n4096_plain_loop_raw_board_steps_per_s"] = plain
    results["vector_kernel_n4096_prange_over_plain_loop_one_thread"] = (
        results["vector_kernel_n4096_raw_board_steps_per_s"] / plain
    )
    results["numba_threads"] = numba.get_num_threads()
    _print_table(results)
    return results


def autoreset_rows() -> dict:
    """The vector env on ``AUTORESET_SIZE`` boards in each autoreset mode, and on torch."""
    from gymnasium.vector import AutoresetMode

    n = AUTORESET_SIZE
    rows = {}
    for mode in AutoresetMode:
        rows[f"vector_env_n{n}_{mode.name.lower()}_steps_per_s"] = _best(
            lambda m=mode: _vector_env_rate(n, autoreset_mode=m)
        )
    try:
        import torch  # noqa: F401
    except ImportError:
        rows[f"vector_env_n{n}_torch_steps_per_s"] = None
    else:
        rows[f"vector_env_n{n}_torch_steps_per_s"] = _best(lambda: _vector_env_rate(n, device="torch"))
    return rows


# -- measurements ------------------------------------------------------------------------


def _single_env_rate(seconds: float = SECONDS) -> float:
    import gymnasium as gym

    import checkers_env  # noqa: F401  (registers Checkers-v0)

    env = gym.make("Checkers-v0")
    rng = random.Random(0)
    _, info = env.reset(seed=0)
    for _ in range(200):  # warm up (compiles or loads the kernels)
        info = _single_steps(env, info, rng, 1)
    steps = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        info = _single_steps(env, info, rng, 1000)
        steps += 1000
    env.close()
    return steps / elapsed


def _single_steps(env, info, rng, count):
    randrange = rng.randrange
    for _ in range(count):
        legal = info["action_mask"].nonzero()[0]
        _, _, terminated, truncated, info = env.step(int(legal[randrange(len(legal))]))
        if terminated or truncated:
            _, info = env.reset()
    return info


def _have_openspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def _openspiel_rate(seconds: float = SECONDS) -> float:
    import pyspiel

    game = pyspiel.load_game("checkers")
    rng = random.Random(0)
    state = game.new_initial_state()
    steps = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(1000):
            state.observation_tensor()
            state.legal_actions_mask()
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            if state.is_terminal():
                state = game.new_initial_state()
        steps += 1000
    return steps / elapsed


@numba.njit(cache=True)
def pick_legal(masks, rng, out):
    """A random legal action per row of ``masks`` (xorshift; ``rng`` is a 1-element array)."""
    s = rng[0]
    for i in range(masks.shape[0]):
        s ^= s << 13
        s ^= (s >> 7) & 0x01FFFFFFFFFFFFFF
        s ^= s << 17
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a] != 0
        out[i] = 0
        if count == 0:
            continue
        k = ((s >> 11) & 0xFFFFFFFF) * count >> 32
        for a in range(masks.shape[1]):
            if masks[i, a] != 0:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
    rng[0] = s


def _vector_env_rate(num_envs: int, seconds: float = SECONDS, parallel: bool | None = None, **kwargs) -> float:
    """Steps per second of ``gym.make_vec`` with random legal actions; ``kwargs`` go to the
    env (``autoreset_mode``, ``device``). With autoreset disabled the finished boards are
    reset by ``reset_mask`` (part of the timing); on torch the masks are read and the
    actions given as tensors, without copies."""
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    import checkers_env  # noqa: F401

    if parallel is not None:
        kwargs["parallel"] = parallel
    envs = gym.make_vec("Checkers-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    disabled = kwargs.get("autoreset_mode") == AutoresetMode.DISABLED
    on_torch = kwargs.get("device") == "torch"
    _, infos = envs.reset(seed=0)
    rng = np.array([0x9E3779B97F4A7C15 & 0x7FFFFFFFFFFFFFFF], dtype=np.int64)
    actions = np.zeros(num_envs, dtype=np.int64)
    given = actions
    if on_torch:
        import torch

        given = torch.from_numpy(actions)  # the same memory: pick_legal writes the tensor's actions

    def steps(count, infos):
        for _ in range(count):
            masks = infos["action_mask"]
            pick_legal(masks.numpy() if on_torch else masks, rng, actions)
            _, _, terminated, truncated, infos = envs.step(given)
            if disabled:
                finished = terminated | truncated
                if finished.any():
                    _, infos = envs.reset(options={"reset_mask": finished})
        return infos

    infos = steps(20, infos)
    done = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        infos = steps(10, infos)
        done += 10 * num_envs
    envs.close()
    return done / elapsed


_PLAIN_LOOP = None


def _plain_loop_kernel():
    """``batch_step.vector_step`` with ``range`` for ``prange``, compiled without parallel."""
    global _PLAIN_LOOP
    if _PLAIN_LOOP is None:
        from checkers_env import batch_step

        step_one = batch_step._vector_step_one

        @numba.njit(cache=True)
        def plain_vector_step(
            state, moves, positions, last, actions, episode, rules, observations, masks, rewards, ends, finals
        ):
            for i in range(state.shape[0]):
                rewards[i] = step_one(
                    state, moves, positions, last, actions, episode, rules, observations, masks, ends, finals, i
                )

        _PLAIN_LOOP = plain_vector_step
    return _PLAIN_LOOP


def _vector_kernel_rate(
    num_envs: int,
    seconds: float = SECONDS,
    parallel: bool = False,
    observations: bool = True,
    plain_loop: bool = False,
    self_play: bool = False,
) -> float:
    import gymnasium as gym

    import checkers_env  # noqa: F401
    from checkers_env import batch_step
    from checkers_env import env_machine as core

    envs = gym.make_vec("Checkers-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", self_play=self_play)
    envs.reset(seed=0)
    raw = envs.unwrapped if hasattr(envs, "unwrapped") else envs
    threads = numba.get_num_threads()
    numba.set_num_threads(threads if parallel else 1)
    kernel = _plain_loop_kernel() if plain_loop else batch_step.vector_step
    planes = np.zeros((num_envs, core.NUM_PLANES, 8, 8), dtype=np.float32)
    rewards = np.zeros(num_envs, dtype=np.float64)
    ends = np.zeros((batch_step.ENDS_FIELDS, num_envs), dtype=np.int8)
    finals = np.zeros((0, core.NUM_PLANES, 8, 8), dtype=np.float32)
    masks = np.zeros((num_envs, core.NUM_ACTIONS), dtype=np.int8)
    masks[:] = raw._masks
    rng = np.array([0x2545F4914F6CDD1D], dtype=np.int64)
    actions = np.zeros(num_envs, dtype=np.int64)
    episode = batch_step.episode_settings(raw._start, raw._color_mode, raw._kind, 0, observations)
    arguments = (
        raw._state,
        raw._moves,
        raw._positions,
        raw._last,
        actions,
        episode,
        raw._rules,
        planes,
        core.mask_words(masks),
        rewards,
        ends,
        finals,
    )
    for _ in range(20):
        pick_legal(masks, rng, actions)
        kernel(*arguments)
    steps = 0
    in_kernel = 0.0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(10):
            pick_legal(masks, rng, actions)  # not timed: the kernel alone is measured
            t0 = time.perf_counter()
            kernel(*arguments)
            in_kernel += time.perf_counter() - t0
        steps += 10 * num_envs
    envs.close()
    numba.set_num_threads(threads)
    return steps / in_kernel


def _best(measure) -> float:
    return max(measure() for _ in range(REPEATS))


def _print_table(results: dict) -> None:
    print(f"{'measurement':<40} {'value':>14}")
    for key, value in results.items():
        text = "n/a" if value is None else (f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}")
        print(f"{key:<40} {text:>14}")


if __name__ == "__main__":
    import json
    import sys

    if sys.argv[1:] == ["autoreset"]:
        from benchmarks import machine_info, write_study

        rows = autoreset_rows()
        _print_table(rows)
        write_study(
            "env_autoreset", {"benchmark": "env", "rows": "autoreset", "machine": machine_info(), "results": rows}
        )
    else:
        print(json.dumps(run(), indent=2))
