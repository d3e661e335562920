"""Where the agent's search spends its time: a descent against the net's evaluation.

Builds the agent's tree for one middlegame position (the benchmark's positions, 8,000
simulations, the zoo's net), then times, in CPU time on one thread: one descent past the
schedule, one evaluation of the net, the hops along the last descent's path alone, the
choices of the rule below the root along the same path alone, and the parts of that rule at
each node of the path (the prior written out, the completed q-values, the improved policy,
the whole rule). Then self-play's speed at 32 simulations (64 games at once, best of 3). Run it from the repository root:

    PYTHONPATH=. python docs/results/alphazero/search-below-root/descent_cost.py

To compare two trees, run it in each (another tree through links named as the installed
packages, as ``benchmarks.engine_ab`` does).
"""

import time

import numba
import numpy as np

from benchmarks.bench_outcome_net import _positions
from checkers_agents.alphazero import AlphaZeroAgent
from checkers_agents.alphazero.agent import _settings, load_net
from checkers_agents.alphazero.search import copy_root, descend_all, evaluate_leaves, run_simulations, start_searches
from checkers_agents.alphazero.selfplay import self_play
from checkers_agents.alphazero.tree import completed_sigma, improved_policy, interior_child, write_prior
from checkers_env import Game
from checkers_env.env_machine import hop

SIMULATIONS, REPEATS = 8000, 20000


@numba.njit
def _descents(tree, rows, settings, leaves, live, reps):
    for _ in range(reps):
        descend_all(tree, rows, settings, leaves, live, SIMULATIONS)


@numba.njit
def _evaluations(net, leaves, live, reps):
    for _ in range(reps):
        evaluate_leaves(net, leaves, live)


@numba.njit
def _hops(rows, path, reps):
    for _ in range(reps):
        copy_root(rows, 0)
        for action in path:
            hop(rows.state, rows.positions, rows.last, 0, action, rows.rules)


@numba.njit
def _choices(tree, settings, leaves, reps):
    levels = 0
    for _ in range(reps):
        node = 0
        while tree.children[0, node] > 0:
            node = interior_child(tree, 0, node, settings, leaves.sigma[0], leaves.prior[0])
            levels += 1
    return levels


@numba.njit
def _rule_part(tree, settings, leaves, path, part, reps):
    sigma, prior = leaves.sigma[0], leaves.prior[0]
    for _ in range(reps):
        for node in path:
            if part == 0:
                write_prior(tree, 0, node, prior)
            elif part == 1:
                completed_sigma(tree, 0, node, settings, sigma, prior)
            elif part == 2:
                improved_policy(tree, 0, node, settings, sigma, prior)
            else:
                interior_child(tree, 0, node, settings, sigma, prior)


def _cpu(function, *args) -> float:
    function(*args[:-1], 1)
    started = time.process_time()
    function(*args)
    return (time.process_time() - started) / args[-1] * 1e6


def main() -> None:
    numba.set_num_threads(1)
    board = _positions(12, seed=3)[1]
    agent = AlphaZeroAgent(weights="zoo", simulations=SIMULATIONS)
    rows = agent._rows(Game(board))
    settings = _settings(agent.search, SIMULATIONS, agent.considered, agent.through_forced, agent.widen)
    tree, leaves, live = agent.tree, agent.leaves, np.ones(1, np.bool_)
    start_searches(tree, rows, leaves, agent.net, live)
    started = time.process_time()
    run_simulations(tree, rows, settings, leaves, agent.net, live, 0, SIMULATIONS)
    search = (time.process_time() - started) / SIMULATIONS * 1e6
    mean_path = tree.visits[0, 1:tree.size[0]].sum() / tree.visits[0, 0]
    descent = _cpu(_descents, tree, rows, settings, leaves, live, REPEATS)
    evaluation = _cpu(_evaluations, agent.net, leaves, live, REPEATS)
    path, node = [], leaves.node[0]
    while node > 0:
        path.append(tree.action[0, node])
        node = tree.parent[0, node]
    path = np.array(path[::-1], np.int64)
    hops = _cpu(_hops, rows, path, REPEATS)
    choices = _cpu(_choices, tree, settings, leaves, REPEATS)
    print(f"search {search:.1f} us a simulation, mean path {mean_path:.1f} nodes")
    print(f"one descent {descent:.1f} us, one evaluation {evaluation:.1f} us")
    print(f"along the last path ({len(path)} levels): hops {hops:.1f} us, choices {choices:.1f} us")
    nodes, node = [], 0  # the nodes the rule chooses at, from the root down
    while tree.children[0, node] > 0:
        nodes.append(node)
        node = interior_child(tree, 0, node, settings, leaves.sigma[0], leaves.prior[0])
    nodes = np.array(nodes, np.int64)
    parts = [_cpu(_rule_part, tree, settings, leaves, nodes, part, REPEATS) / len(nodes) * 1e3 for part in range(4)]
    print("the rule's parts a level (ns): prior {:.0f}, completed q {:.0f}, improved policy {:.0f}, "
          "whole rule {:.0f}".format(*parts))
    net = load_net("zoo")
    self_play(2, net, seed=0, simulations=8, slots=2)
    best = np.inf
    for _ in range(3):
        started = time.perf_counter()
        data = self_play(64, net, seed=1, simulations=32, slots=64)
        best = min(best, time.perf_counter() - started)
    print(f"self-play at 32 simulations: {len(data['own']) * 32 / best:,.0f} simulations a second")


if __name__ == "__main__":
    main()
