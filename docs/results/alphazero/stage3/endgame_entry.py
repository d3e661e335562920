"""Were the agent's lost games lost before the endgame? For each game of a match, the 5-piece
database's verdict (for the agent) at the first position with 5 pieces or fewer, counted by
the game's result. Run it from the repository root with the database built
(``checkers egdb build --pieces 5``):

    PYTHONPATH=. python docs/results/alphazero/stage3/endgame_entry.py \
        docs/results/alphazero/stage3/timed/games.pdn zoo:alphazero
"""

import collections
import sys

from checkers_env.board import Color
from checkers_env.egdb import DRAW, LOSS, WIN, EndgameDatabase
from checkers_env.pdn import read_pdn

FLIP = {WIN: LOSS, LOSS: WIN, DRAW: DRAW}


def main(path: str, agent: str) -> None:
    database = EndgameDatabase.open(5)
    counts = collections.Counter()
    for game in read_pdn(path):
        colour = Color.BLACK if game.headers["Black"] == agent else Color.WHITE
        score = {"1-0": 1.0, "0-1": 0.0}.get(game.headers["Result"], 0.5)
        if colour == Color.WHITE and score != 0.5:
            score = 1.0 - score
        entry = "never"
        for board in game.boards:
            probe = database.probe(board)
            if probe is not None:
                entry = probe.value if board.turn == colour else FLIP[probe.value]
                break
        counts[score, entry] += 1
    print("agent's score  database at 5 pieces  games")
    for (score, entry), n in sorted(counts.items()):
        print(f"{score:>13}  {entry:>20}  {n:>5}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
