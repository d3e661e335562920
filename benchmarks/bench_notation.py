"""Notation speed: replaying the ACF archive through ``read_pdn``, writing PDN, and FEN
parsing and formatting.

The replay checks every move of the 4,000 games (parse, legality, play, end-of-game
bookkeeping), so its games/s is what a user loading a game collection sees. FEN figures use
the positions of the first games of the archive, a realistic mix of openings, middle games
and king endings.
"""

from __future__ import annotations

import time

from checkers_env.datasets import ACF_GAMES

#: Games whose positions feed the FEN measurements (about 65 positions each).
FEN_GAMES = 200

#: Each FEN and PDN-writing measurement repeats its batch for at least this long.
MIN_SECONDS = 1.0


def run() -> dict:
    from checkers_env import Board, read_pdn

    Board().legal_moves()  # compile or load the kernels outside the timings
    text = ACF_GAMES.read_text(encoding="utf-8")

    started = time.perf_counter()
    games = read_pdn(text)
    replay_seconds = time.perf_counter() - started
    moves = sum(len(game.moves) for game in games)

    boards = [board for game in games[:FEN_GAMES] for board in game.boards]
    fens = [board.fen() for board in boards]
    parse_rate = _rate(lambda: [Board.from_fen(fen) for fen in fens], len(fens))
    format_rate = _rate(lambda: [board.fen() for board in boards], len(boards))
    pdn_rate = _rate(lambda: [game.to_pdn() for game in games[:FEN_GAMES]], FEN_GAMES)

    return {
        "acf_replay": {
            "games": len(games),
            "moves": moves,
            "seconds": round(replay_seconds, 3),
            "games_per_s": len(games) / replay_seconds,
            "moves_per_s": moves / replay_seconds,
        },
        "fen": {
            "positions": len(fens),
            "parse_per_s": parse_rate,
            "format_per_s": format_rate,
        },
        "pdn_write_games_per_s": pdn_rate,
    }


def _rate(batch, items: int) -> float:
    """Items per second of ``batch()`` (which handles ``items`` items), repeated for at least
    ``MIN_SECONDS``; the best repetition counts, as usual for timings."""
    best = float("inf")
    spent = 0.0
    while spent < MIN_SECONDS:
        started = time.perf_counter()
        batch()
        elapsed = time.perf_counter() - started
        best = min(best, elapsed)
        spent += elapsed
    return items / best


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
