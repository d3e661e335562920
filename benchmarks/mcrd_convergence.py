"""Whether more playouts would change MCRD's moves (what a bigger budget could buy).

    python -m benchmarks.mcrd_convergence [--positions 60] [--budget 800000]

``--budget`` defaults to about what ``mcrd:time=1`` spends on this project's 2-core
machine (780 k playouts per second, ``python -m benchmarks mcrd``). For positions from
master games (``checkers_env/data/acf_games.pdn.xz``, the same draw as ``mcrd_allocations``, at
least two legal moves) the uniform search is run with a quarter of the budget, the budget
under two seeds, and four times the budget, and the chosen moves are compared:

* ``same_move_budget_two_seeds``: how often two searches with the budget agree (the noise
  left at the budget);
* ``same_move_budget_vs_4x`` and ``same_move_quarter_vs_4x``: how often the budget (or a
  quarter of it) chooses what four times the budget chooses;
* ``regret_vs_4x``: the four-times search's win rate of its choice minus that of the
  budget's choice (mean), in win-rate points.

If the budget already chooses as four times the budget does, a faster backend (a GPU) or a
longer clock would not change the agent's play: its strength is then what random descents
value, not how many of them it runs. Writes ``benchmarks/results/mcrd_convergence.json``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from checkers_agents.mcrd import MCRDAgent

from . import write_study
from .mcrd_allocations import positions


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--budget", type=int, default=800_000, help="playouts (about mcrd:time=1 here)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    budgets = {
        "quarter": (args.budget // 4, 1),
        "budget": (args.budget, 1),
        "budget_other_seed": (args.budget, 2),
        "four_times": (4 * args.budget, 1),
    }
    rows = []
    for board in positions(args.positions, min_moves=2):
        row = {}
        for name, (playouts, seed) in budgets.items():
            result = MCRDAgent(playouts=playouts, backend="cpu", seed=seed).search(board)
            row[name] = result.chosen
            if name == "four_times":
                row["four_times_rates"] = result.rates
        rows.append(row)

    def share(a: str, b: str) -> float:
        return float(np.mean([r[a] == r[b] for r in rows]))

    regret = np.array([r["four_times_rates"][r["four_times"]] - r["four_times_rates"][r["budget"]] for r in rows])
    results = {
        "positions": len(rows),
        "budget": args.budget,
        "same_move_budget_two_seeds": share("budget", "budget_other_seed"),
        "same_move_budget_vs_4x": share("budget", "four_times"),
        "same_move_quarter_vs_4x": share("quarter", "four_times"),
        "regret_vs_4x": float(regret.mean()),
        "seconds": round(time.perf_counter() - started, 1),
    }
    for key, value in results.items():
        print(f"{key:28s} {value}")
    write_study("mcrd_convergence", results)
    return results


if __name__ == "__main__":
    main()
