"""Nodes per second at a fixed depth (8) from an empty table on the 24 positions of
``benchmarks/engine_ab.py``, thread time, the best of 3 rounds, for each outcome-net
weights file given, with the searcher's default sums (kept for every float32 net since
the pattern screen, afresh for pattern nets during it; ``--kept`` keeps them, ``--fresh``
sums them at each leaf).  From the repository root:

    PYTHONPATH=. python docs/results/outcome-net-3/pattern-screen/speed.py --kept zoo/outcome-net-3/weights.safetensors \
        runs/pattern-screen/patterns-128-32.safetensors zoo/outcome-net-3/weights.safetensors runs/pattern-screen/patterns-128-32.safetensors
"""
import sys
import time

from benchmarks.engine_ab import _positions
from checkers_agents.alphabeta.searcher import Searcher
from checkers_agents.outcome_net import net

way = True if "--kept" in sys.argv else False if "--fresh" in sys.argv else None
boards = _positions(24, seed=5)
for path in [a for a in sys.argv[1:] if a not in ("--kept", "--fresh")]:
    searcher = Searcher(net.fold(net.read(path)), incremental=way)
    for board in boards[:2]:
        searcher.clear()
        searcher.search(board, 3)
    best = 0.0
    for _ in range(3):
        nodes, seconds = 0, 0.0
        for board in boards:
            searcher.clear()
            started = time.thread_time()
            nodes += searcher.search(board, 8).nodes
            seconds += time.thread_time() - started
        best = max(best, nodes / seconds)
    print(path, "nodes", nodes, "nodes/s", round(best), flush=True)
