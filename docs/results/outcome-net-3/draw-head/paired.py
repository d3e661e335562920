"""The draw-head screens against ``alphabeta:time=0.1``, each paired with the match without
contempt on the same openings and colours: ``python docs/results/outcome-net-3/draw-head/paired.py``."""

import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
TAGS = re.compile(r'\[(\w+) "([^"]*)"\]')
OPPONENT = "alphabeta:time=0.1"
#: The folders, contempt 0 (the zoo net as it plays) first.
MATCHES = ("c0", "c0.05", "c0.15", "c0.4")


def scores(folder: Path) -> tuple[dict, Counter]:
    """``{(opening, the net has Black): the net's points}`` of a match, and its draws' endings."""
    tags = [dict(TAGS.findall(block)) for block in (folder / "games.pdn").read_text().split("[Event ")[1:]]
    points = {}
    for t in tags:
        black = t["Black"] != OPPONENT
        points[t["Opening"], black] = 0.5 if t["Result"] == "1/2-1/2" else float((t["Result"] == "1-0") == black)
    return points, Counter(t["Termination"] for t in tags if t["Result"] == "1/2-1/2")


base, _ = scores(HERE / MATCHES[0])
for name in MATCHES:
    now, endings = scores(HERE / name)
    results = Counter(now.values())
    line = (f"{name}: {results[1.0]:.0f}-{results[0.5]:.0f}-{results[0.0]:.0f}, "
            f"{100 * sum(now.values()) / len(now):.1f} %, draws by {dict(sorted(endings.items()))}")
    if name != MATCHES[0]:
        paired = sorted(set(now) & set(base))
        line += (f"; against {MATCHES[0]} on {len(paired)} games: better in {sum(now[k] > base[k] for k in paired)}, "
                 f"worse in {sum(now[k] < base[k] for k in paired)}")
    print(line)
