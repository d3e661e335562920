"""Depth and nodes/s at 0.5 s per move on the 24 middlegame positions of
``python -m benchmarks search_depth``, for each agent spec given (a fresh agent each, one
search per position, compiled first).  From the repository root:

    PYTHONPATH=. python docs/results/outcome-net-3/pattern-screen/depth.py zoo:outcome-net-3 \
        "alphabeta:eval=outcome-net,weights=runs/pattern-screen/patterns-128-32.safetensors,time=0.5,egdb=5,table_cutoffs=1,pvs=1,reductions=1"
"""
import sys

from benchmarks.bench_outcome_net import _positions
from benchmarks.bench_search_depth import _timed_searches
from checkers_env import make_agent

boards = _positions(24, seed=3)
for spec in sys.argv[1:]:
    _timed_searches(make_agent(spec), boards[:2])
    print(spec, _timed_searches(make_agent(spec), boards), flush=True)
