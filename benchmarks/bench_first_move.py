"""How long an agent's first move takes when its search is compiled (cold: an empty numba
cache) and when it is loaded from the cache (warm), for the search's kinds: the
hand-written evaluation at a fixed depth and on a clock, with the pruning switches, and
the zoo's outcome net (without its endgame database, which a fresh machine lacks). The
kinds run one after another in one fresh process per temperature, so a figure is what
that kind adds to the kernels the kinds before it compiled (a clock after a fixed depth
shares their kernel: its figure is little more than the timed loop's own).

Keys: ``cold_<kind>_s``, ``warm_<kind>_s``, ``cold_total_s``, ``warm_total_s`` and
``cold_over_warm`` (the same run's ratio).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

from . import REPO_ROOT

#: (kind, agent spec), in the order they run.
KINDS = (
    ("depth", "alphabeta:depth=4"),
    ("clock", "alphabeta:time=0.05"),
    ("pruning", "alphabeta:depth=4,table_cutoffs=1,pvs=1,reductions=1"),
    ("outcome_net", "zoo:outcome-net-3,egdb=0,time=0.05"),
)

_FIRST_MOVES = textwrap.dedent(
    """
    import json, sys, time
    from checkers_env import Game, make_agent
    times = {}
    for kind, spec in json.loads(sys.argv[1]):
        started = time.perf_counter()
        make_agent(spec).select_move(Game())
        times[kind] = time.perf_counter() - started
    print(json.dumps(times))
    """
)


def run() -> dict:
    results: dict = {"load_average_1min": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        for temperature in ("cold", "warm"):  # the warm run loads what the cold one compiled
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
            done = subprocess.run(
                [sys.executable, "-c", _FIRST_MOVES, json.dumps(KINDS)],
                cwd=REPO_ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=1800,
                check=True,
            )
            times = json.loads(done.stdout.strip().splitlines()[-1])
            for kind, seconds in times.items():
                results[f"{temperature}_{kind}_s"] = round(seconds, 2)
            results[f"{temperature}_total_s"] = round(sum(times.values()), 2)
    results["cold_over_warm"] = round(results["cold_total_s"] / results["warm_total_s"], 1)
    for key, value in results.items():
        print(f"{key:<28} {value:>10}")
    return results
