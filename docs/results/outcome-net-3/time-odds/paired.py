"""``zoo:outcome-net-3`` with more time than the positional search it plays, on the same openings
and colours as the equal clock: each match's score and endings, whether its draws are ones the
net ever led in, and the games that changed against the equal clock:
``python docs/results/outcome-net-3/time-odds/paired.py``."""

import json
import re
from collections import Counter
from pathlib import Path

from checkers_env.pdn import read_pdn

HERE = Path(__file__).resolve().parent
TAGS = re.compile(r'\[(\w+) "([^"]*)"\]')

#: The opponent, then (the net's time per move, the match's folder), the equal clock of the
#: same session first; the equal clock of an earlier session's (faster) machine last.
MATCHES = (
    ("alphabeta:time=0.1", (("1x (0.1 s)", HERE / "t0.1-vs-t0.1"),
                            ("4x (0.4 s)", HERE / "t0.4-vs-t0.1"),
                            ("16x (1.6 s)", HERE / "t1.6-vs-t0.1"),
                            ("1x (0.1 s), earlier machine", HERE.parent / "contempt-t01" / "c0"))),
    ("alphabeta:time=0.5", (("1x (0.5 s)", HERE / "t0.5-vs-t0.5"),
                            ("4x (2.0 s)", HERE / "t2.0-vs-t0.5"),
                            ("1x (0.5 s), earlier machine", HERE.parent / "vs-alphabeta"))),
)


def points(tags: dict, opponent: str) -> tuple[tuple[str, bool], float]:
    """``((opening, the net has Black), the net's points)`` of a game."""
    black = tags["Black"] != opponent
    if tags["Result"] == "1/2-1/2":
        return (tags["Opening"], black), 0.5
    return (tags["Opening"], black), float((tags["Result"] == "1-0") == black)


def seconds_a_move(folder: Path, opponent: str) -> str:
    """The clock time each side used per move over the match (``games.jsonl``), where kept."""
    path = folder / "games.jsonl"
    if not path.exists():
        return ""
    used = {"net": 0.0, "opponent": 0.0}
    moves = 0
    for line in path.read_text().splitlines():
        game = json.loads(line)
        for colour in ("black", "white"):
            used["opponent" if game[colour] == opponent else "net"] += game["seconds"][colour]
        moves += len(game["moves"])
    return f"; seconds a move: the net {2 * used['net'] / moves:.3f}, its opponent {2 * used['opponent'] / moves:.3f}"


def held_lead(game, opponent: str, hold: int = 8) -> int:
    """The largest material lead of the net's side held for ``hold`` plies in a row."""
    black = game.headers["Black"] != opponent
    lead = [(bin(b.black).count("1") - bin(b.white).count("1")) * (1 if black else -1) for b in game.boards]
    return max((min(lead[i:i + hold]) for i in range(len(lead) - hold)), default=0)


for opponent, matches in MATCHES:
    print(f"against {opponent}")
    scores = {}
    for label, folder in matches:
        path = folder / "games.pdn"
        tags = [dict(TAGS.findall(block)) for block in path.read_text().split("[Event ")[1:]]
        scores[label] = dict(points(t, opponent) for t in tags)
        results = Counter(scores[label].values())
        draws = [g for g in read_pdn(path) if g.result == "1/2-1/2"]
        never_led = sum(held_lead(g, opponent) < 1 for g in draws)
        endings = Counter(t["Termination"] for t in tags if t["Result"] == "1/2-1/2")
        print(f"  {label}: {results[1.0]:.0f}-{results[0.5]:.0f}-{results[0.0]:.0f}, "
              f"{100 * sum(scores[label].values()) / len(tags):.1f} %; "
              f"draws never led in: {never_led} of {len(draws)}; draws by {dict(endings)}"
              f"{seconds_a_move(folder, opponent)}")
    equal_label = matches[0][0]
    equal = scores[equal_label]
    for label, _ in matches[1:]:
        now = scores[label]
        paired = sorted(set(now) & set(equal))
        print(f"  {label} against {equal_label}, {len(paired)} games paired: "
              f"{sum(now[k] for k in paired)} points against {sum(equal[k] for k in paired)}; "
              f"better in {sum(now[k] > equal[k] for k in paired)}, worse in {sum(now[k] < equal[k] for k in paired)}, "
              f"drawn in both {sum(now[k] == equal[k] == 0.5 for k in paired)}")
