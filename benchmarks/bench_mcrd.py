"""MCRD speed: playouts per second of the CPU backend, against OpenSpiel's random games.

Measured in one run (issue 5's goal in brackets):

* ``cpu_1_thread_playouts_per_s`` and ``cpu_2_threads_playouts_per_s``: MCRD descents from
  the 7 children of the start position, as the agent plays them (``max_moves=150``, king
  cycle test on, uniform allocation), launches of ``LAUNCH`` playouts through
  ``cpu.run_launch`` with ``numba.set_num_threads(1)`` and ``(2)``;
* ``openspiel_random_games_per_s``: ``pyspiel.load_game("checkers")`` played from the start
  with uniformly random legal actions until terminal, in Python (None when ``open-spiel``
  is not installed: ``pip install -e '.[bench]'``);
* ``cpu_2_threads_over_openspiel`` [>= 120];
* ``search_20000_playouts_s``: one ``mcrd:playouts=20000,backend=cpu`` move from the start;
* ``cuda_playouts_per_s``: the CUDA backend with launches of ``CUDA_LAUNCH`` threads, only
  when a real GPU is present (None otherwise; the simulator is not timed).

A random checkers game and an MCRD descent are not quite the same work: a descent starts one
ply in and stops at the 150-draw cap (about 3 % of descents from the start reach it); the
mean descent length is reported as ``mean_descent_plies``, and OpenSpiel's mean game length
(its actions are single hops, so a multi-capture counts several) as
``openspiel_mean_game_plies``. Every figure is the best of
``REPEATS`` repetitions of about ``SECONDS`` each.
"""

from __future__ import annotations

import random
import time

import numba
import numpy as np

SECONDS = 1.0
REPEATS = 3
LAUNCH = 16_384
CUDA_LAUNCH = 262_144


def run() -> dict:
    from checkers_agents.mcrd.agent import gpu_available
    from checkers_agents.mcrd.root import cycle_context, make_children
    from checkers_env import Board

    board = Board()
    children = make_children(board)
    context = cycle_context(board, None)
    cpu_rate(children, context, seconds=0.0)  # compile
    threads = numba.get_num_threads()
    results: dict = {}
    try:
        for n in (1, 2):
            numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
            rate, plies, _ = max(cpu_rate(children, context, seed=n) for _ in range(REPEATS))
            results[f"cpu_{n}_thread{'s' if n > 1 else ''}_playouts_per_s"] = rate
            results["mean_descent_plies"] = plies
    finally:
        numba.set_num_threads(threads)
    openspiel = None
    if _have_openspiel():
        openspiel, plies = max(_openspiel_rate() for _ in range(REPEATS))
        results["openspiel_mean_game_plies"] = plies
    results["openspiel_random_games_per_s"] = openspiel
    results["cpu_2_threads_over_openspiel"] = results["cpu_2_threads_playouts_per_s"] / openspiel if openspiel else None
    results["search_20000_playouts_s"] = _search_seconds()
    results["cuda_playouts_per_s"] = cuda_rate(children, context) if gpu_available() else None
    results["numba_threads"] = numba.config.NUMBA_NUM_THREADS
    for key, value in results.items():
        print(f"   {key:32s} {value if value is None or isinstance(value, int) else f'{value:,.1f}'}")
    return results


def cpu_rate(
    children, context, seed: int = 1, seconds: float = SECONDS, launch: int = LAUNCH, **runner_options
) -> tuple[float, float, float]:
    """(playouts per second, mean plies, mean net evaluations per playout) of even CPU
    launches of ``launch`` playouts for ``seconds``; ``runner_options`` go to ``CpuRunner``
    (a guide and its settings)."""
    from checkers_agents.mcrd.cpu import CpuRunner, KingHistory, PlayoutRules, SearchStart

    start = SearchStart(children, KingHistory(*context), PlayoutRules(150, 1.0, True), seed)
    runner = CpuRunner(start, **runner_options)
    arms = np.arange(len(children.moves))
    per_launch = max(launch // len(arms), 1) * len(arms)
    done = 0
    started = time.perf_counter()
    while True:
        runner.launch(arms, None, per_launch)
        done += per_launch
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            break
    _, counts, _, diagnostics = runner.read()
    return done / elapsed, float(diagnostics[0] / counts.sum()), float(diagnostics[3] / counts.sum())


def _have_openspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def _openspiel_rate(seconds: float = SECONDS) -> tuple[float, float]:
    import pyspiel

    game = pyspiel.load_game("checkers")
    rng = random.Random(0)
    games = plies = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        games += 1
    return games / elapsed, plies / games


def _search_seconds() -> float:
    from checkers_env import Game, make_agent

    agent = make_agent("mcrd:playouts=20000,backend=cpu,seed=0")
    agent.search(Game())
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        agent.search(Game())
        best = min(best, time.perf_counter() - started)
    return best


def cuda_rate(children, context, seconds: float = SECONDS, launch: int = CUDA_LAUNCH, repeats: int = REPEATS) -> float:
    """Playouts per second of even CUDA launches of ``launch`` threads (best of ``repeats``
    rounds of about ``seconds``, after a first launch that compiles the kernel)."""
    from checkers_agents.mcrd.cpu import KingHistory, PlayoutRules, SearchStart
    from checkers_agents.mcrd.cuda import CudaRunner

    arms = np.arange(len(children.moves))
    per_launch = max(launch // len(arms), 1) * len(arms)
    start = SearchStart(children, KingHistory(*context), PlayoutRules(150, 1.0, True), 1)
    runner = CudaRunner(start, max_threads=per_launch)
    runner.launch(arms, None, per_launch)  # compile
    best = 0.0
    for _ in range(repeats):
        done = 0
        started = time.perf_counter()
        while done == 0 or time.perf_counter() - started < seconds:
            runner.launch(arms, None, per_launch)
            done += per_launch
        best = max(best, done / max(time.perf_counter() - started, 1e-9))
    return best
