"""The nets inside the one alpha-beta against the positional evaluator, in the same run:
nodes per second of every zoo net through the evaluator door, with first-layer sums updated
move by move (``incremental``) and summed at every leaf (``fresh``).

Fixed-depth part: 24 positions of random games (``engine_ab``'s), each searched from an
empty table at the net's depth, by the net both ways and by the positional evaluator at the
same depth; rounds alternate the order of the searchers, and each figure is nodes over the
thread's CPU seconds (the fairer clock on a shared machine). ``ratio_*`` is a net's nodes
per second over the positional evaluator's at the same depth, the median over the rounds
(with its range); ``incremental_over_fresh`` the same for the two ways of one net.

``outcome-net-patterns``: a net of ``zoo:outcome-net-3``'s shape (128-32) with pattern
inputs (``checkers_env.encoding.pattern_inputs``), its weights random (the cost of a leaf
does not depend on their values), measured the same way at the outcome net's depth.
``outcome-net-phases``: ``outcome-net``'s net as a net of 4 phases, each a copy of its
later layers (``outcome_net.net.with_phases``): the same values and nodes, so its ratio over
``outcome-net``'s is what picking a phase's layers at each leaf costs.

Timed part (the zoo cards' and ``outcome_net.json``'s measure): 24 positions after ballot
openings, ``SECONDS_PER_MOVE`` per search, the outcome net and the MCRD CNN against the
positional evaluator: nodes per second and the depth reached.

Evaluation part (``evaluation_ns``): nanoseconds per static evaluation of each evaluator,
first layer summed fresh, over the positions of uniformly random games, best of
``ROUNDS``: what a leaf costs apart from the search around it.
"""

from __future__ import annotations

import statistics
import time

NETS = ("outcome-net", "mcrd-net", "td-minimax", "slow-fast", "outcome-net-patterns", "outcome-net-phases")
DEPTHS = {
    "outcome-net": 7,
    "mcrd-net": 5,
    "td-minimax": 7,
    "slow-fast": 5,
    "outcome-net-patterns": 7,
    "outcome-net-phases": 7,
}
ROUNDS = 5
SECONDS_PER_MOVE = 0.5


def _nodes_per_cpu_s(searcher, boards, depth) -> tuple[int, float]:
    nodes = 0
    seconds = 0.0
    for board in boards:
        searcher.clear()
        started = time.thread_time()
        nodes += searcher.search(board, depth).nodes
        seconds += time.thread_time() - started
    return nodes, seconds


def _timed(searcher, boards) -> dict:
    nodes = seconds = 0.0
    depths = []
    for board in boards:
        searcher.clear()
        result = searcher.search(board, seconds=SECONDS_PER_MOVE)
        nodes += result.nodes
        seconds += result.seconds
        depths.append(result.depth)
    return {"nodes_per_s": nodes / seconds, "mean_depth": statistics.fmean(depths)}


def _evaluation_ns(evaluators: dict, positions: int = 4000) -> dict:
    import numba
    import numpy as np

    from checkers_agents.search_parts.evaluators import MAX_ACTIVE, hand_value, net_value
    from checkers_env import Game
    from checkers_env.board import BLACK

    @numba.njit(cache=False)
    def sweep(movers, opponents, kings, black, kind, net, net_functions, width):
        total = 0.0
        if net is None:
            for i in range(movers.shape[0]):
                total += hand_value(movers[i], opponents[i], kings[i], black[i], kind)
            return total
        active = np.empty(MAX_ACTIVE, np.int64)
        scratch = np.empty(2 * width, net[1].dtype)
        for i in range(movers.shape[0]):
            total += net_value(movers[i], opponents[i], kings[i], black[i], net, net_functions, active, scratch)
        return total

    rng = np.random.default_rng(0)
    boards = []
    while len(boards) < positions:
        game = Game()
        while not game.is_over() and len(boards) < positions:
            boards.append(game.board)
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
    sides = (
        np.array([b.black if b.turn == BLACK else b.white for b in boards], np.int64),
        np.array([b.white if b.turn == BLACK else b.black for b in boards], np.int64),
        np.array([b.kings for b in boards], np.int64),
        np.array([b.turn == BLACK for b in boards]),
    )
    costs = {}
    for name, evaluator in evaluators.items():
        args = (*sides, evaluator.kind, evaluator.net, evaluator.net_functions, evaluator.width)
        sweep(*args)  # compile
        best = float("inf")
        for _ in range(ROUNDS):
            started = time.thread_time()
            for _ in range(20):
                sweep(*args)
            best = min(best, (time.thread_time() - started) / (20 * len(boards)))
        costs[name] = best * 1e9
    return costs


def _evaluator(name: str):
    """The zoo net ``name``, the random pattern net of ``outcome-net-patterns``, or
    ``outcome-net``'s net in 4 phases (``outcome-net-phases``)."""
    from checkers_agents.alphabeta import make_evaluator

    if name not in ("outcome-net-patterns", "outcome-net-phases"):
        return make_evaluator(name)
    import numpy as np

    from checkers_agents.outcome_net import net
    from checkers_agents.zoo import zoo_weights

    if name == "outcome-net-phases":
        return net.fold(net.with_phases(net.read(zoo_weights("outcome-net")), 4))

    tensors = net.tensors_of(net.value_net(128, 32, seed=0, patterns=True))
    tensors["blocks.weight"] = (
        np.random.default_rng(0).normal(0.0, 0.05, tensors["blocks.weight"].shape).astype(np.float32)
    )
    return net.fold(tensors)


def _summary(ratios: list[float]) -> dict:
    return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}


def run() -> dict:
    from benchmarks.bench_outcome_net import _positions as ballot_positions
    from benchmarks.engine_ab import _positions
    from checkers_agents.alphabeta import Searcher
    from checkers_agents.search_parts.evaluators import POSITIONAL

    boards = _positions(24, seed=5)
    searchers = {"positional": Searcher(POSITIONAL)}
    for name in NETS:
        evaluator = _evaluator(name)
        searchers[f"{name}/incremental"] = Searcher(evaluator, incremental=True)
        searchers[f"{name}/fresh"] = Searcher(evaluator, incremental=False)
    for searcher in searchers.values():  # compile or load the kernels
        _nodes_per_cpu_s(searcher, boards[:2], 2)
    jobs = [(key, DEPTHS[key.split("/")[0]]) for key in searchers if key != "positional"]
    jobs += [("positional", depth) for depth in sorted(set(DEPTHS.values()))]
    rates: dict[tuple[str, int], list[float]] = {job: [] for job in jobs}
    nodes: dict[tuple[str, int], int] = {}
    for r in range(ROUNDS):
        for key, depth in jobs if r % 2 == 0 else reversed(jobs):
            count, seconds = _nodes_per_cpu_s(searchers[key], boards, depth)
            rates[(key, depth)].append(count / seconds)
            nodes[(key, depth)] = count
    results: dict = {"positions": len(boards), "rounds": ROUNDS, "clock": "thread CPU time"}
    for depth in sorted(set(DEPTHS.values())):
        results[f"positional_depth{depth}"] = {
            "nodes": nodes[("positional", depth)],
            "nodes_per_s": statistics.median(rates[("positional", depth)]),
        }
    for name in NETS:
        depth = DEPTHS[name]
        positional = rates[("positional", depth)]
        entry: dict = {"depth": depth}
        for way in ("incremental", "fresh"):
            key = (f"{name}/{way}", depth)
            entry[way] = {
                "nodes": nodes[key],
                "nodes_per_s": statistics.median(rates[key]),
                "ratio_to_positional": _summary([a / b for a, b in zip(rates[key], positional)]),
            }
        entry["incremental_over_fresh"] = _summary(
            [a / b for a, b in zip(rates[(f"{name}/incremental", depth)], rates[(f"{name}/fresh", depth)])]
        )
        results[name] = entry

    ballots = ballot_positions(24, seed=3)
    timed = {"seconds_per_move": SECONDS_PER_MOVE, "positional": _timed(searchers["positional"], ballots)}
    for name in ("outcome-net", "mcrd-net"):
        timed[name] = _timed(searchers[f"{name}/incremental"], ballots)
        timed[name]["ratio_to_positional"] = timed[name]["nodes_per_s"] / timed["positional"]["nodes_per_s"]
    results["timed"] = timed
    results["evaluation_ns"] = _evaluation_ns(
        {"positional": POSITIONAL, **{name: searchers[f"{name}/fresh"].evaluator for name in NETS}}
    )
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
