"""Check that ``--target-lambda 1`` gives the targets of the trainer before the option, and
time the returns: ``python docs/results/outcome-net-3/td-lambda/same_targets.py runs/td/control``
(a run folder with its ``data/gen-0`` shards)."""

import sys
import time
from pathlib import Path

import numpy as np

from checkers_agents.outcome_net.quiet import quiet_mask
from checkers_agents.outcome_net.selfplay import load_shards
from checkers_training.outcome_targets import lambda_returns, search_scale, targets

data = load_shards(sorted((Path(sys.argv[1]) / "data" / "gen-0").glob("shard-*.npz")))
keep = quiet_mask(data["black"], data["white"], data["kings"], data["black_to_move"])
# The former recipe, written out: the kept positions' result, half of it the root value.
outcome, search = data["outcome"][keep], data["search"][keep]
former = (outcome.astype(np.float64) + 1.0) / 2.0
searched = np.isfinite(search)
scale = search_scale(search[searched], outcome[searched])
former[searched] = 0.5 * former[searched] + 0.5 / (1.0 + np.exp(-np.clip(search[searched].astype(np.float64) / scale, -60.0, 60.0)))
print(f"{keep.sum()} kept positions; lambda 1 gives the former targets bit for bit:",
      np.array_equal(former.astype(np.float32), targets(data, keep, 0.5, 1.0)))
result = (data["outcome"] + 1.0) / 2.0
values = np.where(np.isfinite(data["search"]), 0.5, np.nan)
started = time.perf_counter()
lambda_returns(result, values, data["game"], data["ply"], data["black_to_move"], 0.8)
print(f"the TD(0.8) returns of all {len(result)} positions: {time.perf_counter() - started:.2f} s")
