"""Guided MCRD descents: playouts per second, plain against guided, one thread, one process.

Measured in one run, from the 7 children of the start position as the agent plays them
(``max_moves=150``, king cycle test on, uniform allocation, ``cpu.CpuRunner`` launches of
``LAUNCH`` playouts, ``numba.set_num_threads(1)``), with an untrained ``mcrd-net`` guide of
the default size (``C = 8, H = 32``) and of ``C = 4, H = 16``:

* ``plain_playouts_per_s``: no guide;
* ``guided_<rate>_playouts_per_s`` and ``..._mean_plies``: ``guide_rate`` 0.5 and 1;
* ``door_evaluations_per_s``: the net's forward passes per second through the search's
  evaluator interface (``net.evaluations_per_s``) at each size;
* ``..._over_plain``: how many times slower a guided playout is.

Each figure is the best of ``REPEATS`` repetitions of about ``SECONDS`` (at least one launch).
"""

from __future__ import annotations

import numba

from .bench_mcrd import cpu_rate

SECONDS = 1.0
REPEATS = 2
LAUNCH = 64
SIZES = ((8, 32), (4, 16))
RATES = (0.5, 1.0)


def run() -> dict:
    from checkers_env import Board

    from checkers_agents.mcrd import net
    from checkers_agents.mcrd.root import cycle_context, make_children

    board = Board()
    children = make_children(board)
    context = cycle_context(board, None)
    threads = numba.get_num_threads()
    results: dict = {"launch": LAUNCH}
    try:
        numba.set_num_threads(1)
        _rate(children, context, None, 0.0, seconds=0.0)  # compile
        plain, plies = max(_rate(children, context, None, 0.0, launch=4096) for _ in range(REPEATS))
        results["plain_playouts_per_s"] = plain
        results["plain_mean_plies"] = plies
        for channels, hidden in SIZES:
            size = f"c{channels}_h{hidden}"
            guide = net.untrained(0, channels, hidden).to_evaluator()
            results[f"{size}_door_evaluations_per_s"] = net.evaluations_per_s(guide)
            _rate(children, context, guide, 0.5, seconds=0.0)  # compile
            for rate in RATES:
                speed, plies = max(_rate(children, context, guide, rate) for _ in range(REPEATS))
                results[f"{size}_guided_{rate}_playouts_per_s"] = speed
                results[f"{size}_guided_{rate}_mean_plies"] = plies
                results[f"{size}_guided_{rate}_over_plain"] = plain / speed
    finally:
        numba.set_num_threads(threads)
    for key, value in results.items():
        print(f"   {key:40s} {value if isinstance(value, int) else f'{value:,.1f}'}")
    return results


def _rate(children, context, guide, guide_rate, seconds: float = SECONDS, launch: int = LAUNCH):
    return cpu_rate(children, context, seconds=seconds, launch=launch, guide=guide, guide_rate=guide_rate)
