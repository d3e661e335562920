"""The goal match with the growing weight against the match before it on the same openings
and colours, and how its games ended: ``python docs/results/alphazero/puct-weight/paired.py``."""

import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
TAGS = re.compile(r'\[(\w+) "([^"]*)"\]')
OPPONENT = "zoo:outcome-net-3"


def games(path: Path) -> list[dict]:
    """Each game's PDN tags."""
    return [dict(TAGS.findall(block)) for block in path.read_text().split("[Event ")[1:]]


def points(game: dict) -> tuple[tuple[str, bool], float]:
    """``((opening, alphazero has Black), alphazero's points)`` of a game."""
    black = game["Black"] != OPPONENT
    if game["Result"] == "1/2-1/2":
        return (game["Opening"], black), 0.5
    return (game["Opening"], black), float((game["Result"] == "1-0") == black)


before = dict(points(game) for game in games(HERE.parent / "prior-temperature" / "vs-outcome-net-3-t05" / "games.pdn"))
match = games(HERE / "vs-outcome-net-3-t05" / "games.pdn")
now = dict(points(game) for game in match)
paired = sorted(set(now) & set(before))
print(f"{len(paired)} games on the same opening and colours")
print(f"c_puct_base=19652: {sum(now[k] for k in paired)} points, before it: {sum(before[k] for k in paired)}")
print(f"games it scored more in: {sum(now[k] > before[k] for k in paired)}, fewer: {sum(now[k] < before[k] for k in paired)}")
print("the match's endings:", dict(Counter(game["Termination"] for game in match)))
