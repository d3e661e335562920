"""League speed: ``alphabeta:depth=4`` against itself, on 1 and 2 worker processes.

Each run plays the same planned games (ballot openings, colours swapped) into a fresh
folder; games/s counts the whole league call, worker start-up included, as a user sees it.
The 2-worker figure over the 1-worker figure is the parallel speed-up on this machine.
"""

from __future__ import annotations

import tempfile
import time

AGENTS = ["alphabeta:depth=4", "alphabeta:depth=4,seed=1"]
GAMES = 160


def run() -> dict:
    from checkers_env import Game, make_agent
    from checkers_evaluation.league import League

    make_agent(AGENTS[0]).select_move(Game())  # compile or load the search outside the timings
    results = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as out:
            league = League(AGENTS, out=out, games_per_pair=GAMES, workers=workers, bootstrap=10, progress=False)
            started = time.perf_counter()
            league.run()
            seconds = time.perf_counter() - started
        results[f"workers_{workers}"] = {"games": GAMES, "seconds": round(seconds, 2), "games_per_s": GAMES / seconds}
    results["speedup_2_over_1"] = results["workers_2"]["games_per_s"] / results["workers_1"]["games_per_s"]
    return results


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
