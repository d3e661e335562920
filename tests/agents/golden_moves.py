"""The fixed positions of the zoo's behaviour test, and how the expected moves were made.

``python -m tests.agents.golden_moves`` (from the repository root) writes
``tests/data/golden_moves.json``: for each of 240 positions drawn with a fixed seed from the
ACF games (each with the game's history up to it, so the draw rules matter), the move each
agent below chooses. The file was written once, before the redesign of the agents (issue
#15), and is never regenerated to make a test pass: a change in it is a change in behaviour.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from checkers_env import Game, make_agent, read_pdn
from checkers_env.datasets import ACF_GAMES

DATA = Path(__file__).resolve().parent.parent / "data"
FIXTURE = DATA / "golden_moves.json"
NUM_POSITIONS = 240
SEED = 20261123

#: Every zoo agent (MCRD on a fixed playout budget instead of its clock, so it is
#: reproducible) and the alpha-beta baselines that share its search.
SPECS = (
    "zoo:td-minimax",
    "zoo:slow-fast",
    "zoo:ppo",
    "zoo:mcrd,time=None,playouts=4000,backend=cpu",
    "alphabeta:depth=4",
    "alphabeta:depth=4,eval=material",
    "greedy",
)


def positions() -> list[Game]:
    """The positions: games of the ACF archive cut at a seeded ply, history included."""
    games = read_pdn(ACF_GAMES)
    rng = np.random.default_rng(SEED)
    chosen = []
    while len(chosen) < NUM_POSITIONS:
        game = games[int(rng.integers(len(games)))]
        if len(game.moves) < 2:
            continue
        ply = int(rng.integers(len(game.moves)))
        cut = Game(game.start, moves=game.moves[:ply])  # the default draw rules, as in the league
        if not cut.is_over():
            chosen.append(cut)
    return chosen


def choose(spec: str, games: list[Game]) -> list[str]:
    """The move ``spec`` chooses in each position, reseeded the same way before each."""
    agent = make_agent(spec)
    moves = []
    for i, game in enumerate(games):
        agent.reset(seed=i)
        moves.append(str(agent.select_move(game)))
    return moves


def main() -> None:
    games = positions()
    fixture = {
        "positions": [{"start": g.start.fen(), "moves": [str(m) for m in g.moves]} for g in games],
        "moves": {spec: choose(spec, games) for spec in SPECS},
    }
    FIXTURE.write_text(json.dumps(fixture, indent=1) + "\n")


if __name__ == "__main__":
    main()
