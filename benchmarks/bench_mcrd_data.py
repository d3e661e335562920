"""MCRD training data (issue #17): how fast the databases of ``checkers_agents.mcrd.data`` fill.

* ``games_depth{1,2,3,4}_positions_per_s``: pseudo-random game positions per second
  (``minimax_rate=0.5``, one thread, ``GAMES`` games), the minimax depth being the choice
  the document leaves open (default 3);
* ``mcrd_cpu_workers1_positions_per_s``: MCRD-labelled positions per second on the CPU
  backend (``PLAYOUTS`` playouts per position, self-play at ``SELFPLAY_PLAYOUTS``), one
  process with MCRD's ``prange`` threads over every core;
* ``mcrd_cpu_workers2_positions_per_s``: the same over a process pool of 2 (one numba
  thread each), the other way to use the cores;
* ``mcrd_cuda_positions_per_s``: the CUDA backend, only with a real GPU (None otherwise).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

GAMES = 300
POSITIONS = 64
SHARD = 16
PLAYOUTS = 2000
SELFPLAY_PLAYOUTS = 100


def run() -> dict:
    from checkers_agents.mcrd.agent import gpu_available
    from checkers_agents.mcrd.data import generate, mcrd_params, play_pseudo_random_games

    results: dict = {}
    play_pseudo_random_games(2, seed=0)  # compile
    for depth in (1, 2, 3, 4):
        best = 0.0
        for repeat in range(3):
            started = time.perf_counter()
            data = play_pseudo_random_games(GAMES, seed=repeat, minimax_depth=depth)
            best = max(best, len(data["value"]) / (time.perf_counter() - started))
        results[f"games_depth{depth}_positions_per_s"] = best
    backends = ["cpu"] + (["cuda"] if gpu_available() else [])
    for backend in backends:
        for workers in (1, 2) if backend == "cpu" else (1,):
            params = mcrd_params(
                POSITIONS, PLAYOUTS, shard_size=SHARD, backend=backend, selfplay_playouts=SELFPLAY_PLAYOUTS
            )
            with tempfile.TemporaryDirectory() as folder:
                if workers == 1:  # compile outside the timing
                    generate(Path(folder) / "warm", "mcrd", mcrd_params(2, 16, backend=backend), progress=False)
                started = time.perf_counter()
                generate(Path(folder) / "db", "mcrd", params, seed=1, workers=workers, progress=False)
                rate = POSITIONS / (time.perf_counter() - started)
            key = (
                f"mcrd_{backend}_workers{workers}_positions_per_s" if backend == "cpu" else "mcrd_cuda_positions_per_s"
            )
            results[key] = rate
    results.setdefault("mcrd_cuda_positions_per_s", None)
    results["sizes"] = {
        "games": GAMES,
        "positions": POSITIONS,
        "shard_size": SHARD,
        "playouts": PLAYOUTS,
        "selfplay_playouts": SELFPLAY_PLAYOUTS,
    }
    for key, value in results.items():
        if not isinstance(value, dict):
            print(f"   {key:36s} {value if value is None else f'{value:,.1f}'}")
    return results
