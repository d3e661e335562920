"""The goal match's games on the openings of stage 10's 50-game screen, against that screen,
and how the goal match's games ended: ``python docs/results/alphazero/prior-temperature/paired.py``."""

import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
TAGS = re.compile(r'\[(\w+) "([^"]*)"\]')


def games(path: Path) -> list[dict]:
    """Each game's PDN tags."""
    return [dict(TAGS.findall(block)) for block in path.read_text().split("[Event ")[1:]]


def record(games: list[dict], player: str) -> str:
    """W-D-L and score of ``player`` (the one that is not outcome-net-3)."""
    wins = draws = losses = 0
    for game in games:
        if game["Result"] == "1/2-1/2":
            draws += 1
        elif (game["Result"] == "1-0") == (game["Black"] == player):
            wins += 1
        else:
            losses += 1
    return f"{wins}-{draws}-{losses} ({(wins + draws / 2) / len(games):.0%})"


screen = games(HERE.parent / "stage10" / "s512-vs-outcome-net-3" / "games.pdn")
match = games(HERE / "vs-outcome-net-3-t05" / "games.pdn")
openings = {game["Opening"] for game in screen}
paired = [game for game in match if game["Opening"] in openings]
print(f"{len(openings)} openings, {len(paired)} of the match's games on them")
print("prior_temperature 1.6:", record(paired, "zoo:alphazero,prior_temperature=1.6"))
print("prior_temperature 1:  ", record(screen, "s512"))
print("the match's endings:", dict(Counter(game["Termination"] for game in match)))
