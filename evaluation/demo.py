"""``make demo``: a tour of the rules core in a few seconds.

Shows the start position, plays a short seeded random game printing each move in PDN, shows
the final position as a board and as FEN, then runs perft 1..10 from the start with nodes/s
and checks every count against the published one. (When the league exists the demo will
play agents against each other instead.)

    python -m evaluation.demo
"""

from __future__ import annotations

import random
import sys
import time

#: Perft from the start position (OEIS A133046; DESIGN §2).
PUBLISHED_PERFT = {
    1: 7,
    2: 49,
    3: 302,
    4: 1469,
    5: 7361,
    6: 36768,
    7: 179740,
    8: 845931,
    9: 3963680,
    10: 18391564,
    11: 85242128,
    12: 388623673,
    13: 1766623630,
}


def main(perft_depth: int = 10, max_plies: int = 60, seed: int = 0) -> int:
    """Run the demo; return 0 when every perft count matches the published one, else 1.

    Args:
        perft_depth: the deepest perft to run (1..13; 10 takes about a second).
        max_plies: stop the random game after this many plies if it is not over sooner.
        seed: the seed of the random game.
    """
    if not 1 <= perft_depth <= max(PUBLISHED_PERFT):
        raise ValueError(f"perft_depth must be between 1 and {max(PUBLISHED_PERFT)}, got {perft_depth}")
    started = time.perf_counter()

    from checkers_env import BLACK, Board, Game, perft

    print("English draughts: the start position (Black moves first)\n")
    print(Board())

    rng = random.Random(seed)
    game = Game()  # the default Rules: every automatic draw rule on
    print(f"\nA random game (uniformly random legal moves, seed {seed}, at most {max_plies} plies):\n")
    line = ""
    while not game.is_over() and game.ply < max_plies:
        black_to_move = game.board.turn == BLACK
        move = game.play(rng.choice(game.legal_moves()))
        if black_to_move:  # one line per move number: Black's move, then White's reply
            line = f"{(game.ply + 1) // 2:>4}. {move}"
        else:
            print(f"{line:<16}{move}")
            line = ""
    if line:
        print(line)
    if game.is_over():
        ending = f"game over after {game.ply} plies: {game.result} ({game.termination})"
    else:
        ending = f"stopped after {game.ply} plies, game not over"
    print(f"\n{ending}\n")
    print(game.board)
    print(f"FEN: {game.board.fen()}")

    print("\nPerft from the start position (move paths of each length, published: OEIS A133046):\n")
    compile_started = time.perf_counter()
    perft(Board(), 1)
    print(f"  kernel ready in {time.perf_counter() - compile_started:.2f} s (compile or numba cache)")
    print(f"  {'depth':>5} {'nodes':>12} {'seconds':>9} {'nodes/s':>14}  check")
    wrong = []
    perft_nodes = 0
    perft_seconds = 0.0
    for depth in range(1, perft_depth + 1):
        t0 = time.perf_counter()
        nodes = perft(Board(), depth)
        seconds = time.perf_counter() - t0
        perft_nodes += nodes
        perft_seconds += seconds
        ok = nodes == PUBLISHED_PERFT[depth]
        if not ok:
            wrong.append(depth)
        check = "ok" if ok else f"WRONG, published {PUBLISHED_PERFT[depth]}"
        rate = f"{nodes / seconds:,.0f}" if seconds > 0 else "-"
        print(f"  {depth:>5} {nodes:>12,} {seconds:>9.4f} {rate:>14}  {check}")

    total = time.perf_counter() - started
    verdict = "all match" if not wrong else f"MISMATCH at depth {', '.join(map(str, wrong))}"
    print(
        f"\nSummary: random game {game.ply} plies ({game.result}); perft 1..{perft_depth} "
        f"{verdict}, {perft_nodes / max(perft_seconds, 1e-9) / 1e6:.1f} M nodes/s overall; "
        f"demo took {total:.1f} s"
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
