"""How sharply a guided ply of MCRD prefers the net's best move, by softmax temperature.

    python -m benchmarks.mcrd_guide_temperature [--games 60] [--guide zoo:mcrd-net]

Over the positions of uniformly random games (the kind of positions a descent walks through;
at least two legal moves), a guided ply's sample of ``DEFAULT_GUIDE_SAMPLE`` moves (all when
fewer) is valued by the guide as the descent values it (the moving side's worth, minus the
net's value of the child), and for each temperature the probability that the softmax picks
the best valued move of the sample is averaged:

* ``uniform_p_best``: the same without a net (one over the sample size), the floor;
* ``p_best_at_<t>``: the mean probability of the sample's best move at temperature ``t``;
* ``gap_best_second_median`` / ``_mean``: how far apart the net values the best two moves.

It shows what a temperature means for a given net (the values' scale is the net's), and so
grounds ``guide_temperature``'s default. Writes ``benchmarks/results/mcrd_guide_temperature.json``.
"""

from __future__ import annotations

import argparse

import numpy as np

from . import write_study

TEMPERATURES = (0.01, 0.03, 0.05, 0.1, 0.2, 0.3)


def main(argv: list[str] | None = None) -> dict:
    from checkers_agents.mcrd.agent import load_guide
    from checkers_agents.mcrd.guided import DEFAULT_GUIDE_SAMPLE
    from checkers_agents.search_parts.evaluators import evaluate_kernel
    from checkers_env import BLACK, Game

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--guide", default="zoo:mcrd-net")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    guide = load_guide(args.guide)
    rng = np.random.default_rng(args.seed)
    gaps, uniform = [], []
    p_best: dict[float, list[float]] = {t: [] for t in TEMPERATURES}
    for _ in range(args.games):
        game = Game()
        while not game.is_over():
            moves = game.legal_moves()
            if len(moves) >= 2:
                sample = rng.choice(len(moves), size=min(DEFAULT_GUIDE_SAMPLE, len(moves)), replace=False)
                worths = []
                for i in sample:
                    child = game.board.play(moves[i])
                    mover, opponent = child.mover_bitboards
                    worths.append(
                        -evaluate_kernel(
                            mover,
                            opponent,
                            child.kings,
                            child.turn == BLACK,
                            guide.kind,
                            guide.net,
                            guide.net_functions,
                            guide.width,
                        )
                    )
                worths = np.array(worths)
                ranked = np.sort(worths)[::-1]
                gaps.append(ranked[0] - ranked[1])
                uniform.append(1.0 / len(worths))
                for t in TEMPERATURES:
                    weights = np.exp((worths - worths.max()) / t)
                    p_best[t].append(weights.max() / weights.sum())
            game.play(moves[int(rng.integers(len(moves)))])
    results = {
        "guide": args.guide,
        "games": args.games,
        "seed": args.seed,
        "sample": DEFAULT_GUIDE_SAMPLE,
        "positions": len(gaps),
        "uniform_p_best": float(np.mean(uniform)),
        "gap_best_second_median": float(np.median(gaps)),
        "gap_best_second_mean": float(np.mean(gaps)),
    }
    results.update({f"p_best_at_{t}": float(np.mean(p)) for t, p in p_best.items()})
    print(
        "\n".join(
            f"   {key:28s} {value if isinstance(value, (int, str)) else f'{value:.3f}'}"
            for key, value in results.items()
        )
    )
    write_study("mcrd_guide_temperature", results)
    return results


if __name__ == "__main__":
    main()
