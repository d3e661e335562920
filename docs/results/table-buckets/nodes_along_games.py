"""Nodes of fixed-depth searches along recorded games, as a game's searches meet them: one
agent per game, its table carried from move to move; zoo:outcome-net-4's search (its card's
switches) without its book. Every position with a choice in the first PLIES plies of every
seventh game of a PDN file, COUNT games. ``--fresh`` searches instead the 12 positions of the
outcome_net benchmark, each with a fresh agent (an empty table) of 2**TT_BITS entries. Run
from the repository root (``PYTHONPATH=.`` for ``--fresh``, which imports the benchmark):

    python nodes_along_games.py DEPTH COUNT PLIES GAMES.pdn OUT.json   # per search: [nodes, thread CPU s]
    python nodes_along_games.py --compare NEW.json OLD.json             # the same searches of two trees
    python nodes_along_games.py --fresh DEPTH TT_BITS                   # nodes and thread CPU s in all
"""

import json
import math
import statistics
import sys
import time

if sys.argv[1] == "--compare":
    new, old = (json.load(open(path)) for path in sys.argv[2:4])
    logs = [math.log(a[0] / b[0]) for a, b in zip(new, old, strict=True)]
    mean, error = statistics.mean(logs), statistics.stdev(logs) / math.sqrt(len(logs))
    nodes_new, nodes_old = sum(a[0] for a in new), sum(b[0] for b in old)
    seconds_new, seconds_old = sum(a[1] for a in new), sum(b[1] for b in old)
    print(
        f"{len(new)} searches; nodes {nodes_new / nodes_old:.3f} of the old tree's in all, geometric mean "
        f"{math.exp(mean):.3f} (95 % {math.exp(mean - 1.96 * error):.3f}-{math.exp(mean + 1.96 * error):.3f}); "
        f"CPU {seconds_new / seconds_old:.3f}; ns a node {1e9 * seconds_new / nodes_new:.1f} "
        f"against {1e9 * seconds_old / nodes_old:.1f}"
    )
    sys.exit()

from checkers_env import Game, make_agent
from checkers_env.pdn import read_pdn

SPEC = (
    "alphabeta:eval=outcome-net,weights=zoo/outcome-net-4/weights.safetensors,egdb=5,"
    "table_cutoffs=1,pvs=1,reductions=0,probcut=1,etc=1"
)
if sys.argv[1] == "--fresh":
    from benchmarks.bench_outcome_net import _positions

    depth, bits = int(sys.argv[2]), int(sys.argv[3])
    make_agent(SPEC + ",depth=6").select_move(Game())  # compile first
    nodes, seconds = 0, 0.0
    for board in _positions(24, seed=3)[:12]:
        agent = make_agent(SPEC + f",depth={depth},seed=1")
        agent.tt_bits = bits
        began = time.thread_time()
        agent.select_move(Game(board))
        seconds += time.thread_time() - began
        nodes += agent.last_search.nodes
    print(depth, bits, nodes, round(seconds, 2))
    sys.exit()

depth, count, plies = (int(value) for value in sys.argv[1:4])
records = read_pdn(sys.argv[4])[: count * 7 : 7]
make_agent(SPEC + ",depth=6").select_move(Game())  # compile first
rows = []
for record in records:
    agent = make_agent(SPEC + f",depth={depth},seed=1")
    game = Game()
    for move in record.moves[:plies]:
        if len(game.legal_moves()) > 1:
            began = time.thread_time()
            agent.select_move(game)
            rows.append((agent.last_search.nodes, time.thread_time() - began))
        game.play(move)
json.dump(rows, open(sys.argv[5], "w"))
print(depth, len(rows), sum(row[0] for row in rows), round(sum(row[1] for row in rows), 2))
