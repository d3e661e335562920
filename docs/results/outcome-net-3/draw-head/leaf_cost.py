"""What reading the draw head costs the search (with ``draw_head.diff`` applied): the same
net searched to a fixed depth on the benchmark's middlegame positions with Black to move
(with contempt the table is cleared whenever the side searched for changes, which a game
never does, and here would cost more than the leaves do) without contempt
(the head unread), with a contempt too small to change the tree (the head read at every
leaf), and with 0.15: nodes per second of each, best of three. Given a net without a draw
head, it measures what contempt alone costs: ``PYTHONPATH=. python docs/results/outcome-net-3/draw-head/leaf_cost.py runs/draw-head/weights.safetensors``
(or ``zoo/outcome-net-3/weights.safetensors``)."""

import sys
import time

from benchmarks.bench_outcome_net import _positions
from checkers_agents.alphabeta import Searcher
from checkers_agents.outcome_net.net import fold, read
from checkers_env import BLACK

DEPTH = 9
evaluator = fold(read(sys.argv[1]))
boards = [board for board in _positions(24, seed=3) if board.turn == BLACK]
for contempt in (0.0, 1e-9, 0.15):
    best = 0.0
    for _ in range(3):
        searcher = Searcher(evaluator, tt_bits=20, contempt=contempt, table_cutoffs=True, pvs=True, reductions=True)
        nodes, start = 0, time.perf_counter()
        for board in boards:
            nodes += searcher.search(board, DEPTH).nodes
        best = max(best, nodes / (time.perf_counter() - start))
    print(f"contempt {contempt}: {best / 1e6:.2f} M nodes/s at depth {DEPTH} ({len(boards)} positions)")
