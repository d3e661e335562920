"""What a leaf costs with and without pattern inputs, by the width of the first layer and
by how many of its units the block rows feed: nanoseconds per position summed afresh
(``benchmarks/bench_net_door.py``'s ``evaluation_ns``: 4,000 positions of random games,
thread time, best of its rounds), for random nets of H-32 units, squares only, with the 21
block rows feeding every unit, and (H = 128) feeding the first K units. From the
repository root:

    PYTHONPATH=. python docs/results/outcome-net-3/patterns-gen0/leaf_cost.py
"""
import numpy as np

from benchmarks.bench_net_door import _evaluation_ns
from checkers_agents.outcome_net import net

WIDTHS = (32, 64, 128, 256)
NARROW = (16, 32, 64)


def evaluator(hidden: int, patterns: bool, units: int = 0):
    tensors = net.tensors_of(net.value_net(hidden, 32, seed=0, patterns=patterns, pattern_units=units))
    if patterns:  # the block rows start at zero; the cost does not depend on the values
        tensors["blocks.weight"] = np.random.default_rng(0).normal(
            0.0, 0.05, tensors["blocks.weight"].shape).astype(np.float32)
    return net.fold(tensors)


if __name__ == "__main__":
    evaluators = {}
    for hidden in WIDTHS:
        evaluators[f"squares-{hidden}"] = evaluator(hidden, False)
        evaluators[f"patterns-{hidden}"] = evaluator(hidden, True)
    for units in NARROW:
        evaluators[f"patterns-128-{units}"] = evaluator(128, True, units)
    costs = _evaluation_ns(evaluators, 4000)
    for hidden in WIDTHS:
        squares, patterns = costs[f"squares-{hidden}"], costs[f"patterns-{hidden}"]
        print(f"{hidden:>4} units: squares {squares:6.1f} ns, patterns {patterns:6.1f} ns, "
              f"blocks {patterns - squares:6.1f} ns ({patterns / squares:.2f}x)")
    squares = costs["squares-128"]
    for units in NARROW:
        patterns = costs[f"patterns-128-{units}"]
        print(f" 128 units, blocks feeding {units:>3}: {patterns:6.1f} ns, "
              f"blocks {patterns - squares:6.1f} ns ({patterns / squares:.2f}x)")
