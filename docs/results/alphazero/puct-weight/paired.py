"""The card's two matches at 0.5 s per move against the same matches before it, on the same
openings and colours, and how their games ended:
``python docs/results/alphazero/puct-weight/paired.py``."""

import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
TAGS = re.compile(r'\[(\w+) "([^"]*)"\]')

#: (what changed, the match before, the match now, the opponent's name in both).
MATCHES = (
    ("c_puct_base=19652", RESULTS / "prior-temperature" / "vs-outcome-net-3-t05",
     HERE / "vs-outcome-net-3-t05", "zoo:outcome-net-3"),
    ("prior_temperature=1.6, c_puct_base=19652", RESULTS / "stage10" / "s512-vs-alphabeta-t05",
     HERE / "vs-alphabeta-t05", "alphabeta:time=0.5"),
)


def games(path: Path) -> list[dict]:
    """Each game's PDN tags."""
    return [dict(TAGS.findall(block)) for block in path.read_text().split("[Event ")[1:]]


def points(game: dict, opponent: str) -> tuple[tuple[str, bool], float]:
    """``((opening, alphazero has Black), alphazero's points)`` of a game."""
    black = game["Black"] != opponent
    if game["Result"] == "1/2-1/2":
        return (game["Opening"], black), 0.5
    return (game["Opening"], black), float((game["Result"] == "1-0") == black)


for change, before_folder, now_folder, opponent in MATCHES:
    before = dict(points(game, opponent) for game in games(before_folder / "games.pdn"))
    match = games(now_folder / "games.pdn")
    now = dict(points(game, opponent) for game in match)
    paired = sorted(set(now) & set(before))
    print(f"against {opponent}: {len(paired)} games on the same opening and colours")
    print(f"  {change}: {sum(now[k] for k in paired)} points, before: {sum(before[k] for k in paired)}")
    print(f"  games it scored more in: {sum(now[k] > before[k] for k in paired)}, "
          f"fewer: {sum(now[k] < before[k] for k in paired)}")
    print("  the match's endings:", dict(Counter(game["Termination"] for game in match)))
