"""PDN reading speed, strict against lenient: games/s and moves/s of ``read_pdn`` in both
modes on the same texts in the same run, and their ratio (lenient / strict).

Two texts: the ACF archive (4,000 clean games: what leniency costs where nothing needs
repair) and the quirk corpus of ``tests/data/pdn_quirks`` repeated (only lenient reads it;
strict stops at the first quirk). Each reading is repeated and the best one counts.
"""

from __future__ import annotations

import time
from pathlib import Path

from checkers_env.datasets import ACF_GAMES

QUIRKS = Path(__file__).resolve().parents[1] / "tests" / "data" / "pdn_quirks"
REPEATS = 3


def run() -> dict:
    from checkers_env import read_pdn

    read_pdn("1. 11-15 *")  # load the kernels outside the timings
    text = ACF_GAMES.read_bytes()
    strict = _best(lambda: read_pdn(text))
    lenient = _best(lambda: read_pdn(text, lenient=True))
    quirks = b"\n".join(path.read_bytes() + b"\n" for path in sorted(QUIRKS.glob("*.pdn"))) * 50
    quirky = _best(lambda: read_pdn(quirks, lenient=True))
    return {
        "acf_strict": strict,
        "acf_lenient": lenient,
        "lenient_over_strict_games_per_s": lenient["games_per_s"] / strict["games_per_s"],
        "quirk_corpus_x50_lenient": quirky,
    }


def _best(read) -> dict:
    best = None
    for _ in range(REPEATS):
        started = time.perf_counter()
        games = read()
        seconds = time.perf_counter() - started
        best = seconds if best is None else min(best, seconds)
    moves = sum(len(game.moves) for game in games)
    return {
        "games": len(games),
        "moves": moves,
        "seconds": round(best, 3),
        "games_per_s": len(games) / best,
        "moves_per_s": moves / best,
    }
