"""Rules-core speed: perft, random playouts, and the first-call compile time of the kernels.

Measured in one run (the goals on the 2-core development machine in brackets):

* ``perft``: ``perft_kernel`` from the start position at depths 10 and 11, single thread,
  with bulk counting at the leaves (the last ply's moves counted by ``count_moves``, not
  made) [perft(11) >= 150 M nodes/s] and without (every leaf move listed and made). The
  node counts are checked against the published ones; ``perft_counts_ok`` says so.
* ``playouts``: ``random_playouts`` (defined here) from the start (uniformly random complete moves until
  a side cannot move, capped at 400 plies) on 1 thread [>= 350 k games/s] and on 2 threads
  with ``prange`` [>= 700 k games/s].
* ``compile``: a fresh interpreter imports ``checkers_env`` and calls every public kernel of
  ``bitboard.py`` and ``movegen.py`` once, first with an empty ``NUMBA_CACHE_DIR`` (cold:
  everything is compiled) [< 10 s], then again with the same folder (warm: everything
  is loaded from the cache) [< 1 s]. ``*_first_calls_s`` is the time of those first calls,
  ``*_import_s`` the import before them.

Every speed is the best of a few repetitions, in wall-clock time. The machine may be
shared: ``load_average_1min`` (before the run) says how busy it was, and figures taken
under load are low.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numba
import numpy as np

from checkers_env.bitboard import (
    apply_move,
    count_captures,
    count_steps,
    crowning_row,
    jumpers,
    nth_capture,
    nth_step,
)
from checkers_env.movegen import random_below, seed_state, xorshift64

REPO_ROOT = Path(__file__).resolve().parent.parent  # runs as a script too

#: Published perft counts from the start position (OEIS A133046).
PERFT_COUNTS = {10: 18391564, 11: 85242128}
PERFT_REPEATS = {10: 5, 11: 3}
PLAYOUT_GAMES = 200_000
PLAYOUT_REPEATS = 3
MAX_PLIES = 400

#: Run in a fresh interpreter: import, then one call of each public kernel; prints JSON.
_FIRST_CALLS = textwrap.dedent(
    """
    import json, time
    started = time.perf_counter()
    import numpy as np
    from checkers_env import bitboard as bb, movegen as k
    imported = time.perf_counter()
    black, white, kings = 0x00000FFF, 0xFFF00000, 0
    bb.step(black, 1)
    bb.jumpers(black, white, kings, True)
    bb.count_moves(black, white, kings, True)
    bb.nth_move(black, white, kings, True, 0)
    bb.capture_search(black, white, kings, True, 9, -1)
    bb.apply_move(black, white, kings, True, 9, 13, 0)
    k.generate_moves_kernel(black, white, kings, True, k.new_move_buffer())
    k.perft_kernel(black, white, kings, True, 3, True, np.zeros((3, k.MAX_MOVES, k.MOVE_FIELDS), np.int64))
    done = time.perf_counter()
    print(json.dumps({"import_s": imported - started, "first_calls_s": done - imported}))
    """
)


def run() -> dict:
    results: dict = {"load_average_1min": os.getloadavg()[0]}
    results.update(_perft())
    results.update(_playouts())
    results.update(_compile_times())
    _print_table(results)
    return results


# -- measurements ------------------------------------------------------------------------


def _perft() -> dict:
    from checkers_env.movegen import MAX_MOVES, MOVE_FIELDS, perft_kernel

    black, white, kings = 0x00000FFF, 0xFFF00000, 0
    buffers = np.zeros((max(PERFT_COUNTS), MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    perft_kernel(black, white, kings, True, 3, True, buffers)  # compile or load
    results = {}
    counts_ok = True
    for depth, expected in PERFT_COUNTS.items():
        for bulk in (True, False):
            best = float("inf")
            for _ in range(PERFT_REPEATS[depth]):
                started = time.perf_counter()
                nodes = perft_kernel(black, white, kings, True, depth, bulk, buffers)
                best = min(best, time.perf_counter() - started)
            counts_ok &= nodes == expected
            name = f"perft{depth}_{'bulk' if bulk else 'no_bulk'}"
            results[f"{name}_nodes_per_s"] = nodes / best
    results["perft_counts_ok"] = bool(counts_ok)
    return results


# The playout workload: uniformly random complete moves, as the move generator would pick
# them but without listing them (the suite's agents play through generate_moves instead).


@numba.njit(cache=True)
def random_playout(black, white, kings, black_to_move, max_plies, state):
    """Play uniformly random complete moves until a side cannot move or ``max_plies``.

    Returns:
        ``(winner, plies, state)``: winner 0 Black, 1 White, -1 unfinished at the cap.
    """
    if black_to_move:
        mover, opponent = black, white
    else:
        mover, opponent = white, black
    side = black_to_move != 0
    for ply in range(max_plies):
        # Move k of n in generate_moves' order, as count_moves + nth_move would pick it,
        # but without listing: steps come straight from the popcounts, and only positions
        # with a capture run the capture walk.
        jumping = jumpers(mover, opponent, kings, side)
        if jumping == 0:
            n = count_steps(mover, opponent, kings, side)
            if n == 0:
                return (1 if side else 0), ply, state
            state, k = random_below(state, n)
            from_bb, to_bb = nth_step(mover, opponent, kings, side, k)
            mover ^= from_bb | to_bb
            if kings & from_bb:
                kings ^= from_bb | to_bb
            elif to_bb & crowning_row(side):
                kings |= to_bb
        else:
            n = count_captures(mover, opponent, kings, side)
            state, k = random_below(state, n)
            frm, to, captured, _, _ = nth_capture(mover, opponent, kings, side, jumping, k)
            mover, opponent, kings = apply_move(mover, opponent, kings, side, frm, to, captured)
        mover, opponent = opponent, mover
        side = not side
    return -1, max_plies, state


@numba.njit(cache=True, parallel=True)
def random_playouts(black, white, kings, black_to_move, games, max_plies, seed):
    """Many random playouts with ``prange``; returns ``int64[3]`` Black wins, White wins, caps."""
    black_wins = 0
    white_wins = 0
    capped = 0
    for g in numba.prange(games):
        state = xorshift64(seed_state(seed, g))
        winner, _, _ = random_playout(black, white, kings, black_to_move, max_plies, state)
        if winner == 0:
            black_wins += 1
        elif winner == 1:
            white_wins += 1
        else:
            capped += 1
    result = np.empty(3, dtype=np.int64)
    result[0] = black_wins
    result[1] = white_wins
    result[2] = capped
    return result


def _playouts() -> dict:
    black, white, kings = 0x00000FFF, 0xFFF00000, 0
    random_playouts(black, white, kings, True, 10, MAX_PLIES, 1)  # compile or load
    results = {}
    threads_before = numba.get_num_threads()
    try:
        for threads in (1, 2):
            if threads > numba.config.NUMBA_NUM_THREADS:
                results[f"playouts_{threads}_threads_games_per_s"] = None
                continue
            numba.set_num_threads(threads)
            best = float("inf")
            for seed in range(PLAYOUT_REPEATS):
                started = time.perf_counter()
                random_playouts(black, white, kings, True, PLAYOUT_GAMES, MAX_PLIES, seed)
                best = min(best, time.perf_counter() - started)
            results[f"playouts_{threads}_threads_games_per_s"] = PLAYOUT_GAMES / best
    finally:
        numba.set_num_threads(threads_before)
    return results


def _compile_times() -> dict:
    results = {}
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        for kind in ("cold", "warm"):  # the warm run reuses what the cold one compiled
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
            done = subprocess.run(
                [sys.executable, "-c", _FIRST_CALLS],
                cwd=REPO_ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
                check=True,
            )
            times = json.loads(done.stdout.strip().splitlines()[-1])
            results[f"compile_{kind}_first_calls_s"] = times["first_calls_s"]
            results[f"compile_{kind}_import_s"] = times["import_s"]
    return results


def _print_table(results: dict) -> None:
    print(f"{'measurement':<40} {'value':>14}")
    for key, value in results.items():
        if value is None or isinstance(value, bool):
            text = "n/a" if value is None else str(value)
        else:
            text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"
        print(f"{key:<40} {text:>14}")


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
