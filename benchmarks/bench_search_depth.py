"""Depth reached in 0.5 s per move, and nodes/s, for each of the search's pruning switches.

On the 24 middlegame positions of ``bench_outcome_net`` (ballot openings and a few random
moves), each evaluator (the positional points and the zoo's outcome net) searches with
``time=0.5`` under every setting of ``pruning.SearchOptions``: none (the exact search, the
default), each switch alone, the three pruning switches (``all``), and those with the
extensions, and the three with ``partial`` (the whole time spent, an unfinished last
iteration deciding), and the three with each of ``etc``, ``iid`` and ``probcut``. ``mean_depth`` is the mean depth of the last complete iteration;
``nodes_per_s`` counts every node, quiescence included; ``mean_seconds`` is the time a
search took of its ``SECONDS_PER_MOVE``.

``zoo``: the same figures for the zoo's outcome nets as their cards play them (their own
weights, switches and endgame database), ``mean_depth`` per agent.

``nodes_at_depth_9``: the nodes of a depth-9 search from an empty table, per position of
``bench_alphabeta`` and in all, for each setting and both hand-written evaluations (what
each switch saves, without the clock).
"""

from __future__ import annotations

import numpy as np

SECONDS_PER_MOVE = 0.5
SETTINGS = {
    "exact": "",
    "table_cutoffs": ",table_cutoffs=1",
    "pvs": ",pvs=1",
    "reductions": ",reductions=1",
    "all": ",table_cutoffs=1,pvs=1,reductions=1",
    "extensions": ",extensions=1",
    "all_and_extensions": ",table_cutoffs=1,pvs=1,reductions=1,extensions=1",
    "all_partial": ",table_cutoffs=1,pvs=1,reductions=1,partial=1",
    "all_etc": ",table_cutoffs=1,pvs=1,reductions=1,etc=1",
    "all_iid": ",table_cutoffs=1,pvs=1,reductions=1,iid=1",
    "all_probcut": ",table_cutoffs=1,pvs=1,reductions=1,probcut=1",
}
#: Settings that change only the clock, not the tree (left out of ``nodes_at_depth_9``).
CLOCK_ONLY = ("all_partial",)
EVALS = ("positional", "outcome-net")
ZOO_AGENTS = ("zoo:outcome-net", "zoo:outcome-net-2", "zoo:outcome-net-3")


def run() -> dict:
    from checkers_env import make_agent

    from .bench_outcome_net import _positions

    boards = _positions(24, seed=3)
    results: dict = {"positions": len(boards), "seconds_per_move": SECONDS_PER_MOVE}
    for eval_name in EVALS:
        row = results[eval_name] = {}
        for name, extra in SETTINGS.items():
            agent = make_agent(f"alphabeta:eval={eval_name},time={SECONDS_PER_MOVE},seed=1{extra}")
            row[name] = _timed_searches(agent, boards)
    results["zoo"] = {spec: _timed_searches(make_agent(spec), boards) for spec in ZOO_AGENTS}
    results["nodes_at_depth_9"] = _nodes_at_depth(9)
    return results


def _timed_searches(agent, boards: list) -> dict:
    """Depth, nodes/s and time of one timed search from each board by ``agent``."""
    from checkers_env import Game

    agent.select_move(Game(boards[0]))  # compile or load the kernel
    depths, nodes, seconds = [], 0, 0.0
    for board in boards:
        agent.select_move(Game(board))
        depths.append(agent.last_search.depth)
        nodes += agent.last_search.nodes
        seconds += agent.last_search.seconds
    return {
        "mean_depth": float(np.mean(depths)),
        "min_depth": int(min(depths)),
        "nodes_per_s": nodes / seconds,
        "mean_seconds": seconds / len(boards),
    }


def _nodes_at_depth(depth: int) -> dict:
    from checkers_agents.alphabeta import Searcher
    from checkers_agents.search_parts.evaluators import MATERIAL, POSITIONAL
    from checkers_env import Board

    from .bench_alphabeta import POSITIONS

    out: dict = {}
    for eval_name, evaluator in (("material", MATERIAL), ("positional", POSITIONAL)):
        for name, extra in SETTINGS.items():
            if name in CLOCK_ONLY:
                continue
            switches = {key: True for key in extra.replace("=1", "").split(",") if key}
            searcher = Searcher(evaluator, **switches)
            per_position = {}
            for position, fen, _depths in POSITIONS:
                searcher.clear()
                per_position[position] = searcher.search(Board.from_fen(fen), depth).nodes
            out.setdefault(eval_name, {})[name] = {**per_position, "total": sum(per_position.values())}
    return out
