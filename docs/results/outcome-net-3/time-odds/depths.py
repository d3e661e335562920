"""Mean depth, as the agents of the time-odds matches search, on the 24 middlegame positions
of ``python -m benchmarks search_depth``, one search each, as the benchmark times them:
``PYTHONPATH=. python docs/results/outcome-net-3/time-odds/depths.py`` (about two minutes)."""

from benchmarks.bench_outcome_net import _positions
from benchmarks.bench_search_depth import _timed_searches
from checkers_env import make_agent

SPECS = (
    "alphabeta:time=0.1",
    "alphabeta:time=0.5",
    "zoo:outcome-net-3,time=0.1",
    "zoo:outcome-net-3,time=0.4",
    "zoo:outcome-net-3",
    "zoo:outcome-net-3,time=1.6",
    "zoo:outcome-net-3,time=2.0",
)

boards = _positions(24, seed=3)
for spec in SPECS:
    row = _timed_searches(make_agent(spec), boards)
    print(f"{spec}: mean depth {row['mean_depth']:.1f} (min {row['min_depth']}), "
          f"{row['nodes_per_s'] / 1e6:.2f} M nodes/s, {row['mean_seconds']:.2f} s a search")
