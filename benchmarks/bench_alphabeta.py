"""Alpha-beta search speed: nodes/s of the ``alphabeta`` kernel at fixed depths.

Each position is searched by iterative deepening to a fixed depth, from an empty table
(``Searcher.clear()`` before every search, outside the timing), once per evaluation; every
node the kernel visits counts, quiescence included. A measurement repeats its search for at
least ``MIN_SECONDS`` and divides all the nodes by all the time. ``nodes_per_s`` uses the
wall clock; ``nodes_per_cpu_s`` the thread's CPU time (the fairer figure on a busy machine).
``first_call_s`` is the first search of the process: loading the kernel from numba's cache,
or compiling it when the cache is cold.

Positions: the start, two middle games from the ACF archive (``checkers_env/data/acf_games.pdn.xz``:
game 6 after 20 plies, nine men each; game 2 after 30 plies, seven against six) and a king
ending (game 7). Each is searched at depth 10 and at a depth where one search takes a few
tenths of a second.
"""

from __future__ import annotations

import time

#: (name, FEN, depths)
POSITIONS = (
    ("start", "B:W21-32:B1-12", (10, 14)),
    ("middle_game", "B:W12,21,23,25,27,28,30,31,32:B3,4,5,6,7,9,10,14,20", (10, 14)),
    ("middle_game_2", "B:W18,20,21,22,25,28,31:B1,2,9,11,12,14", (10, 16)),
    ("king_ending", "B:WK2,13,17,25,30:B5,6,9,12,K23", (10, 18)),
)

MIN_SECONDS = 0.5
EVALS = ("material", "positional")


def run() -> dict:
    from checkers_agents.alphabeta import Searcher
    from checkers_agents.search_parts.evaluators import MATERIAL, POSITIONAL
    from checkers_env import Board

    searchers = {"material": Searcher(MATERIAL), "positional": Searcher(POSITIONAL)}
    started = time.perf_counter()
    searchers["positional"].search(Board(), 1)
    results: dict = {"first_call_s": time.perf_counter() - started}

    totals = {e: [0, 0.0, 0.0] for e in EVALS}  # nodes, wall, cpu of the deep searches
    for name, fen, depths in POSITIONS:
        board = Board.from_fen(fen)
        for depth in depths:
            entry: dict = {}
            for eval_name in EVALS:
                nodes = wall = cpu = 0
                while wall < MIN_SECONDS:
                    searcher = searchers[eval_name]
                    searcher.clear()
                    cpu_started, wall_started = time.thread_time(), time.perf_counter()
                    result = searcher.search(board, depth)
                    wall += time.perf_counter() - wall_started
                    cpu += time.thread_time() - cpu_started
                    nodes += result.nodes
                entry[eval_name] = {
                    "nodes": result.nodes,
                    "ms": 1000 * wall * result.nodes / nodes,
                    "nodes_per_s": nodes / wall,
                    "nodes_per_cpu_s": nodes / max(cpu, 1e-9),
                    "score": result.value,
                    "best_move": str(result.best_moves[0]),
                }
                if depth == depths[-1]:
                    for i, x in enumerate((nodes, wall, cpu)):
                        totals[eval_name][i] += x
            results[f"{name}_depth{depth}"] = entry
    for eval_name, (nodes, wall, cpu) in totals.items():
        results[f"deep_{eval_name}_nodes_per_s"] = nodes / wall
        results[f"deep_{eval_name}_nodes_per_cpu_s"] = nodes / max(cpu, 1e-9)
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
