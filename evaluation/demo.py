"""``make demo``: a short league of the zoo's agents and the baselines, in a few minutes.

Shows the start position and checks the move generator (perft 1..9 against the
published counts), then plays a round robin of ``random``, ``greedy``, ``alphabeta`` at
depths 2 and 4 and every agent of the zoo, each pair playing ``GAMES_PER_PAIR`` games
(3-move-ballot openings with colours swapped), and prints the ratings. Zoo agents that
probe the endgame database (their card has ``egdb``) need it built: the demo builds it
first if it is missing (once per machine; ``checkers_env.egdb.BUILD_TIME`` and
``size_text`` say how long and how big). The full report (crosstable, ratings, heatmap,
ratings plot, every game in PDN) is written to ``runs/demo/``.

    python -m checkers_evaluation.demo [--games-per-pair N] [--workers K] [--out DIR]
"""

from __future__ import annotations

import sys
import time

#: Perft from the start position (OEIS A133046; docs/design.md §1).
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

BASELINES = ["random", "greedy", "alphabeta:depth=2", "alphabeta:depth=4"]

#: Games each pair plays: enough to tell the zoo's agents from the baselines in a few
#: minutes, not enough to order two players as close as ``greedy`` and ``random`` (about 40
#: Elo apart; the README says why).
GAMES_PER_PAIR = 6

#: Perft depths checked against the published counts.
PERFT_DEPTH = 9


def demo_games(agents: list[str], games_per_pair: int = GAMES_PER_PAIR) -> int:
    """Games of the demo's round robin between ``agents``."""
    return len(agents) * (len(agents) - 1) // 2 * games_per_pair


def demo_agents(time_per_move: float = 0.1) -> list[str]:
    """The baselines and every zoo entry; entries that think for a set time per move
    (their card has a ``time`` parameter, like mcrd) get ``time_per_move`` instead."""
    from checkers_agents.zoo import load_card, zoo_names

    agents = list(BASELINES)
    for name in zoo_names():
        timed = "time" in load_card(name)[0]["params"]
        agents.append(f"zoo:{name},time={time_per_move}" if timed else f"zoo:{name}")
    return agents


def database_pieces(agents: list[str]) -> int:
    """The largest endgame database the zoo agents among ``agents`` probe (0: none)."""
    from checkers_agents.zoo import load_card
    from checkers_env.agent import parse_spec

    pieces = 0
    for spec in agents:
        kind, params = parse_spec(spec)
        if kind == "zoo":
            pieces = max(pieces, int(load_card(params["entry"])[0]["params"].get("egdb", 0)))
    return pieces


def ensure_database(pieces: int) -> None:
    """Build the endgame database of ``pieces`` pieces in the default folder unless it is there."""
    from checkers_env import egdb

    if pieces and (egdb.complete_pieces(egdb.default_folder()) or 0) < pieces:
        print(
            f"building the {pieces}-piece endgame database once for this machine "
            f"({egdb.BUILD_TIME[pieces]}, {egdb.size_text(pieces)} into {egdb.default_folder()})"
        )
        egdb.build(pieces, egdb.default_folder(), progress=True)


def check_perft(depth: int) -> bool:
    from checkers_env import Board, perft

    ok = True
    started = time.perf_counter()
    for d in range(1, depth + 1):
        count = perft(Board(), d)
        ok &= count == PUBLISHED_PERFT[d]
    elapsed = time.perf_counter() - started
    status = "all match the published counts" if ok else "MISMATCH with the published counts"
    print(f"perft 1..{depth} from the start: {status} ({elapsed:.2f} s)")
    return ok


def main(argv: list[str] | None = None) -> int:
    from checkers_evaluation.options import ArgumentParser, folder_path, positive_number, whole_number

    parser = ArgumentParser(prog="python -m checkers_evaluation.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-pair", type=whole_number(2), default=GAMES_PER_PAIR)
    parser.add_argument("--workers", type=whole_number(1), default=2)
    parser.add_argument(
        "--time-per-move", type=positive_number, default=0.1, help="for zoo agents with a time budget (mcrd)"
    )
    parser.add_argument("--out", type=folder_path, default="runs/demo")
    parser.add_argument("--perft-depth", type=whole_number(1, max(PUBLISHED_PERFT)), default=PERFT_DEPTH)
    args = parser.parse_args(argv)
    if args.games_per_pair % 2:
        parser.error(
            f"argument --games-per-pair: must be even (each opening with both colours), got {args.games_per_pair}"
        )

    from checkers_env import Board
    from checkers_evaluation.league import League

    print(Board())
    if not check_perft(args.perft_depth):
        return 1
    agents = demo_agents(args.time_per_move)
    ensure_database(database_pieces(agents))
    print(f"\nleague of {len(agents)} agents: {', '.join(agents)}")
    print(
        f"{args.games_per_pair} games per pair, {demo_games(agents, args.games_per_pair)} games "
        f"(ballot openings, colours swapped), {args.workers} workers\n"
    )
    started = time.perf_counter()
    League(
        agents,
        out=args.out,
        games_per_pair=args.games_per_pair,
        workers=args.workers,
        overwrite=True,
        bootstrap=500,
    ).run()
    print("\nPlayers whose 95 % intervals overlap are not told apart by these games.")
    print(f"done in {time.perf_counter() - started:.0f} s; open {args.out}/heatmap.png and {args.out}/ratings.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
