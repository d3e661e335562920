"""Which copy of the search kernel runs: the pruned search with the zoo's outcome net (the
12 positions of ``engine_ab``'s ``alphabeta-pruned-outcome-net`` part, depth 12, each from
a cleared table) in fresh processes on one CPU, first with its kernels compiled afresh into
an empty numba cache, then loaded from that cache with and without the searcher's call of
the kernel before its first search (``Searcher._bind_kernel``), to a fixed depth
(``search_from_python``) and under a clock (``search_iteration``).

    python -m benchmarks.kernel_copies [--rounds 3]

Each figure is the best round's thread CPU time. Writes
``benchmarks/results/kernel_copies.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
#: (label, how the worker searches, whether it skips the binding call), in the order run;
#: the first compiles the kernels into the empty cache, the others load them from it.
RUNS = (
    ("compiled afresh", "depth", False),
    ("cached, not bound", "depth", True),
    ("cached, bound", "depth", False),
    ("cached, not bound, under a clock", "clock", True),
    ("cached, bound, under a clock", "clock", False),
)


def worker(how: str, unbound: bool, rounds: int) -> float:
    from benchmarks.engine_ab import _positions
    from checkers_agents.alphabeta import Searcher, make_evaluator

    searcher = Searcher(make_evaluator("outcome-net"), table_cutoffs=True, pvs=True, reductions=True)
    if unbound:
        searcher._kernel_bound = True  # as before the binding: the callers' own copies run
    boards = _positions(12, seed=5)
    seconds = 600.0 if how == "clock" else None  # a limit the search never reaches

    def round_time() -> float:
        started = time.thread_time()
        for board in boards:
            searcher.clear()
            searcher.search(board, depth=12, seconds=seconds)
        return time.thread_time() - started

    round_time()  # compilation or loading
    return min(round_time() for _ in range(rounds))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per process (the best is kept)")
    parser.add_argument("--out", default=str(REPO_ROOT / "benchmarks" / "results" / "kernel_copies.json"))
    parser.add_argument("--worker", nargs=2, metavar=("HOW", "UNBOUND"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1] == "1", args.rounds)))
        return {}
    cpu = str(max(os.sched_getaffinity(0)))
    results = {}
    with tempfile.TemporaryDirectory(prefix="kernel-copies-") as cache:
        environment = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1", PYTHONPATH=str(REPO_ROOT))
        for label, how, unbound in RUNS:
            command = ["taskset", "-c", cpu, sys.executable, "-m", "benchmarks.kernel_copies"]
            command += ["--rounds", str(args.rounds), "--worker", how, "1" if unbound else "0"]
            done = subprocess.run(command, env=environment, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
            results[label] = round(float(done.stdout.strip().splitlines()[-1]), 4)
            print(f"{label:34s} {results[label]:.3f} s", flush=True)
    report = {"positions": 12, "depth": 12, "rounds": args.rounds, "seconds": results}
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return report


if __name__ == "__main__":
    main()
