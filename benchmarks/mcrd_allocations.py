"""How well each MCRD allocation spends a fixed playout budget (a bandit measurement).

    python -m benchmarks.mcrd_allocations [--positions 40] [--budget 10000] [--seeds 10]

Games between MCRD variants are a blunt instrument (mostly draws, wide intervals). This
measures the allocations directly, as best-arm identification: for positions taken from
master games (``checkers_env/data/acf_games.pdn.xz``, ply 12-40, at least three legal moves), a large
uniform search gives each move's win rate (the reference), and each allocation, run with
``--budget`` playouts under ``--seeds`` seeds, is scored by

* ``regret``: reference rate of the best move minus that of the move chosen (mean), and
* ``best``: how often it chose the reference's best move.

Writes ``benchmarks/results/mcrd_allocations.json``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from checkers_agents.mcrd import MCRDAgent
from checkers_env import read_pdn
from checkers_env.datasets import ACF_GAMES

from . import write_study

ALLOCATIONS = ("uniform", "proportional", "halving")


def positions(count: int, seed: int = 0, min_moves: int = 3) -> list:
    """``count`` positions from master games, ply 12-40, with at least ``min_moves`` moves."""
    games = read_pdn(ACF_GAMES)
    rng = np.random.default_rng(seed)
    chosen = []
    for index in rng.permutation(len(games)):
        boards = games[index].boards
        if len(boards) <= 40:
            continue
        board = boards[int(rng.integers(12, 41))]
        if len(board.legal_moves()) >= min_moves:
            chosen.append(board)
        if len(chosen) == count:
            break
    return chosen


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--budget", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--reference", type=int, default=400_000, help="playouts of the reference search")
    parser.add_argument("--launch", type=int, default=1000, help="playouts per launch (proportional adapts per launch)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    regret = {a: [] for a in ALLOCATIONS}
    best = {a: [] for a in ALLOCATIONS}
    for number, board in enumerate(positions(args.positions)):
        reference = MCRDAgent(playouts=args.reference, backend="cpu", seed=10_000 + number).search(board).rates
        for allocation in ALLOCATIONS:
            for seed in range(args.seeds):
                agent = MCRDAgent(
                    playouts=args.budget, launch=args.launch, allocation=allocation, backend="cpu", seed=seed
                )
                chosen = agent.search(board).chosen
                regret[allocation].append(reference.max() - reference[chosen])
                best[allocation].append(reference[chosen] == reference.max())
    results = {
        "positions": args.positions,
        "budget": args.budget,
        "seeds": args.seeds,
        "reference_playouts": args.reference,
        "launch": args.launch,
        "seconds": round(time.perf_counter() - started, 1),
    }
    for allocation in ALLOCATIONS:
        r = np.array(regret[allocation])
        results[allocation] = {
            "mean_regret": float(r.mean()),
            "regret_standard_error": float(r.std(ddof=1) / np.sqrt(len(r))),
            "best_move_share": float(np.mean(best[allocation])),
        }
        print(
            f"{allocation:13s} regret {r.mean():.4f} +- {results[allocation]['regret_standard_error']:.4f}"
            f"  best move {np.mean(best[allocation]):.1%}"
        )
    write_study("mcrd_allocations", results)
    return results


if __name__ == "__main__":
    main()
