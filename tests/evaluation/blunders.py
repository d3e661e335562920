"""Games whose blunders are known, for the loss autopsy and drift set tests: a man left to a
capture, found by the fall of the loser's value and checked by a deeper search. Every search
has a fixed depth, so the results are the same on every run."""

from __future__ import annotations

from checkers_env import Game, make_agent
from checkers_env.pdn import game_to_pdn

FAST = "alphabeta:depth=4,eval=material,seed=0"
DEEP = "alphabeta:depth=6,eval=material,seed=0"
#: Half a man, in the material evaluation's points.
THRESHOLD = -50.0
#: Black leaves the man of 16 to 19x12 at ply 2; White leaves the man of 18 to 15x22 at ply 3.
BLACK_BLUNDER = ["9-13", "23-19", "12-16", "19x12"]
WHITE_BLUNDER = ["11-15", "21-17", "7-11", "22-18", "15x22"]
#: The moves a depth-6 material search keeps at ply 2 and ply 3 of those games (each level).
BLACK_BEST = {"5-9", "11-16", "10-15", "6-9", "11-15", "10-14"}
WHITE_BEST = {"17-14", "24-20", "23-19", "17-13", "24-19", "25-21"}


def blunder_game(moves: list[str], black: str, white: str, result: str, more: int = 4) -> str:
    """The PDN of ``moves`` and ``more`` plies of a depth-4 search after them, ``result`` stated
    (a resignation: the rules have not ended it)."""
    game = Game(moves=moves)
    player = make_agent(FAST)
    for _ in range(more):
        game.play(player.select_move(game))
    game.headers.update({"Event": "test", "Black": black, "White": white, "Result": result})
    return game_to_pdn(game)
