"""Play shard 0 of the depth-8 run again on this machine and compare it with the run's own
(played on another machine): the games, move for move, and the root values."""
import sys

import numpy as np

from checkers_agents.outcome_net import selfplay
from checkers_agents.outcome_net.selfplay import read_shard

#: The run's self-play options (its run.json); shard 0 holds its first 100 games.
PARAMS = {"games": 100, "shard_size": 100, "evaluator": "zoo/outcome-net-3/weights.safetensors", "depth": 8,
          "random_plies": 4, "egdb_pieces": 5}

if __name__ == "__main__":
    run = sys.argv[1] if len(sys.argv) > 1 else "runs/outcome-net/depth8"
    selfplay.generate("/tmp/same-games", PARAMS, seed=2000, workers=1, progress=False)
    here = read_shard("/tmp/same-games/shard-00000.npz", 0)
    kept = read_shard(f"{run}/data/gen-0/shard-00000.npz", 0)
    games = all(np.array_equal(here[k], kept[k]) for k in here if k != "search")
    searched = np.isfinite(here["search"])
    differ = here["search"][searched] != kept["search"][searched]
    print(f"same games: {games}; root values differing: {differ.sum()} of {searched.sum()}, "
          f"by at most {np.abs(here['search'][searched] - kept['search'][searched]).max():.2g}")
