"""Nodes each agent spec searches to a fixed depth on the 24 middlegame positions of
``python -m benchmarks search_depth`` (one search per position, compiled first): their
geometric mean and total. Node counts at a fixed depth do not depend on the machine's
load. From the repository root:

    S="egdb=5,table_cutoffs=1,pvs=1,reductions=1"
    PYTHONPATH=. python docs/results/outcome-net-3/pattern-units/nodes.py 12 \
        "alphabeta:eval=outcome-net,weights=zoo/outcome-net-3/weights.safetensors,$S" \
        "alphabeta:eval=outcome-net,weights=runs/pu16/weights-gen0.safetensors,$S"
"""
import sys

import numpy as np

from benchmarks.bench_outcome_net import _positions
from checkers_env import Game, make_agent

boards = _positions(24, seed=3)
depth = int(sys.argv[1])
for spec in sys.argv[2:]:
    agent = make_agent(f"{spec},depth={depth}")
    agent.select_move(Game(boards[0]))
    nodes = []
    for board in boards:
        agent.select_move(Game(board))
        nodes.append(agent.last_search.nodes)
    nodes = np.array(nodes, dtype=float)
    print(spec, "geometric mean", round(float(np.exp(np.log(nodes).mean()))), "total", int(nodes.sum()), flush=True)
