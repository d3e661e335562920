"""How much a deeper teacher would change the outcome net's targets: quiet positions that
``zoo:outcome-net-3``'s self-play searched at depth 6, searched again by the same net (the
5-piece database probed, the card's three pruning switches) at depths 6, 8, 10 and 12, and
each depth's root values and training targets (the zoo's recipe, ``--search-weight 0.5``,
by the trainer's ``outcome_targets.targets``) correlated with the depth-6 ones:
``python docs/results/outcome-net-3/deep-teacher/teacher_depth.py runs/td/control/data/gen-0``."""

import sys
import time
from pathlib import Path

import numpy as np

from checkers_agents.alphabeta import Searcher
from checkers_agents.outcome_net.net import fold, read
from checkers_agents.outcome_net.quiet import quiet_mask
from checkers_agents.outcome_net.selfplay import read_shard
from checkers_env import BLACK, WHITE, Board
from checkers_env.egdb import EndgameDatabase
from checkers_training.outcome_targets import targets

COUNT = 600
DEPTHS = (6, 8, 10, 12)

shards = sorted(Path(sys.argv[1]).glob("shard-*.npz"))
rng = np.random.default_rng(0)
boards, results, stored = [], [], []
for path in rng.choice(shards, 6, replace=False):
    data = read_shard(path)
    keep = quiet_mask(data["black"], data["white"], data["kings"], data["black_to_move"])
    rows = np.flatnonzero(keep & np.isfinite(data["search"]) & (np.abs(data["search"]) < 1.5))
    for i in rng.choice(rows, COUNT // 6, replace=False):
        turn = BLACK if data["black_to_move"][i] else WHITE
        boards.append(Board(int(data["black"][i]), int(data["white"][i]), int(data["kings"][i]), turn))
        results.append(int(data["outcome"][i]))
        stored.append(float(data["search"][i]))
results, stored = np.array(results, np.int8), np.array(stored)
evaluator = fold(read("zoo/outcome-net-3/weights.safetensors"))
database = EndgameDatabase.cached(5)
every = np.ones(len(boards), dtype=bool)


def target(values: np.ndarray) -> np.ndarray:
    """The trainer's targets of the positions with these root values (each position a game
    of its own: ``--target-lambda 1`` reads no other)."""
    positions = {"outcome": results, "search": values, "game": np.arange(len(values)),
                 "ply": np.zeros(len(values), np.int32), "black_to_move": every}
    return targets(positions, every, 0.5)


values = {}
for depth in DEPTHS:
    start = time.perf_counter()
    searcher = Searcher(evaluator, tt_bits=20, egdb=database, table_cutoffs=True, pvs=True, reductions=True)
    values[depth] = np.array([searcher.search(board, depth).value for board in boards])
    seconds = (time.perf_counter() - start) / len(boards)
    print(f"depth {depth:2d}: {1000 * seconds:5.1f} ms a position; root values correlate "
          f"{np.corrcoef(values[depth], values[6])[0, 1]:.3f} with depth 6's, "
          f"{np.corrcoef(values[depth], results)[0, 1]:.3f} with the results; targets "
          f"{np.corrcoef(target(values[depth]), target(values[6]))[0, 1]:.3f} with depth 6's")
print(f"{len(boards)} positions; the self-play's stored depth-6 values correlate "
      f"{np.corrcoef(stored, values[6])[0, 1]:.3f} with depth 6 searched again here")
