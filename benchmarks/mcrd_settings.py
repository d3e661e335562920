"""How good MCRD's moves are under its seed parameters, scored by a deeper search.

    python -m benchmarks.mcrd_settings [--positions 80] [--playouts 200000] [--depth 9]

A 40-game league per setting costs most of an hour here and separates settings only by
about 15 points of score. This scores the moves themselves: for positions from master
games (``checkers_env/data/acf_games.pdn.xz``, as ``mcrd_allocations`` draws them, at least two legal
moves), every legal move is searched by ``alphabeta`` to ``--depth`` (positional
evaluation, a man is 100 points), and each MCRD setting (the move cap ``max_moves`` and
the piece-count ``king_weight`` at the cap) is scored by

* ``mean_loss``: points of the best move minus points of the move chosen (mean, with its
  standard error; a forced win counts as 1000);
* ``best_move_share``: how often it chose a move the deep search rates best;
* ``loses_a_man_share``: how often its choice is worse by 100 points or more;
* ``minus_cap150``: its mean loss minus the shipped setting's on the same positions, with
  the standard error of that paired difference.

Two reference rows are scored the same way: ``two_ply`` (not the design document's method: a
2-ply minimax over MCRD's statistics, every reply of the opponent searched by MCRD with an
equal share of the same playout budget and a move valued by the opponent's best reply),
which asks whether the descents miss replies a search would see; and ``alphabeta_depth4``,
the league's opponent of issue 5's strength goal (``make_agent("alphabeta:depth=4")``),
which shares the judge's positional evaluation and is flattered by it.

``--playouts`` defaults to 200 000: a quarter of what ``mcrd:time=1`` spends here, where
its choices already agree with four times that budget in 93 % of master-game positions
(``mcrd_convergence``). Writes ``benchmarks/results/mcrd_settings.json``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from checkers_agents.alphabeta import Searcher
from checkers_agents.mcrd import MCRDAgent
from checkers_agents.mcrd.root import win_rates
from checkers_env import Game, make_agent

from . import write_study
from .mcrd_allocations import positions

#: Settings compared: the design document's 150-draw cap with kings counted 1 is the shipped
#: one.
SETTINGS = {
    "cap20": {"max_moves": 20},
    "cap40": {"max_moves": 40},
    "cap150": {},
    "cap400": {"max_moves": 400},
    "cap40_king_weight2": {"max_moves": 40, "king_weight": 2.0},
    "cap150_king_weight2": {"king_weight": 2.0},
}
#: Reference rows (not MCRD settings), scored the same way.
REFERENCES = {
    "two_ply": "2-ply minimax over MCRD's statistics at the same playout budget (two_ply_choice)",
    "alphabeta_depth4": "make_agent('alphabeta:depth=4'), the opponent of issue 5's goal",
}
#: Loss given to a move when the deep search finds a forced win elsewhere.
DECIDED_LOSS = 1000


def move_points(board, depth: int, searcher: Searcher) -> np.ndarray:
    """Points of every legal move of ``board`` for its mover, by a search of ``depth`` plies."""
    points = []
    for move in board.legal_moves():
        child = board.play(move)
        if not child.has_legal_moves():
            points.append(DECIDED_LOSS)  # the move wins at once
            continue
        points.append(-searcher.search(child, depth=depth - 1, eval="positional").value)
    return np.array(points, dtype=np.float64)


def two_ply_choice(board, playouts: int, seed: int) -> int:
    """The move of a 2-ply minimax over MCRD's statistics (not the design document's
    method).

    Each child's position is searched by MCRD (the shipped setting) with an equal share of
    ``playouts``, which gives the opponent's win rate after each of its replies; a move is
    worth one minus the best of those, and the best move is played (a move that leaves the
    opponent no move wins).
    """
    moves = board.legal_moves()
    share = max(playouts // len(moves), 1)
    values = []
    for j, move in enumerate(moves):
        child = board.play(move)
        if not child.has_legal_moves():
            values.append(2.0)
            continue
        result = MCRDAgent(playouts=share, backend="cpu", seed=seed * 1000 + j).search(child)
        values.append(1.0 - win_rates(result.wins, result.playouts).max())
    return int(np.argmax(values))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=80)
    parser.add_argument("--playouts", type=int, default=200_000)
    parser.add_argument("--depth", type=int, default=9)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    searcher = Searcher()
    losses = {name: [] for name in (*SETTINGS, *REFERENCES)}
    alphabeta = make_agent("alphabeta:depth=4,seed=0")
    for number, board in enumerate(positions(args.positions, min_moves=2)):
        points = move_points(board, args.depth, searcher)
        choices = {
            name: MCRDAgent(playouts=args.playouts, backend="cpu", seed=number, **params).search(board).chosen
            for name, params in SETTINGS.items()
        }
        choices["two_ply"] = two_ply_choice(board, args.playouts, number)
        choices["alphabeta_depth4"] = board.legal_moves().index(alphabeta.select_move(Game(start=board)))
        for name, chosen in choices.items():
            losses[name].append(min(points.max() - points[chosen], DECIDED_LOSS))
    results = {
        "positions": args.positions,
        "playouts": args.playouts,
        "depth": args.depth,
        "seconds": round(time.perf_counter() - started, 1),
    }
    shipped = np.array(losses["cap150"])
    for name, values in losses.items():
        loss = np.array(values)
        difference = loss - shipped
        results[name] = {
            **({"params": SETTINGS[name]} if name in SETTINGS else {"reference": REFERENCES[name]}),
            "mean_loss": float(loss.mean()),
            "mean_loss_standard_error": float(loss.std(ddof=1) / np.sqrt(len(loss))),
            "best_move_share": float(np.mean(loss == 0)),
            "loses_a_man_share": float(np.mean(loss >= 100)),
            "minus_cap150": float(difference.mean()),
            "minus_cap150_standard_error": float(difference.std(ddof=1) / np.sqrt(len(difference))),
        }
        print(
            f"{name:20s} loss {loss.mean():6.1f} +- {results[name]['mean_loss_standard_error']:5.1f}"
            f"  best move {np.mean(loss == 0):.0%}  loses a man {np.mean(loss >= 100):.0%}"
            f"  minus cap150 {difference.mean():+6.1f} +- {results[name]['minus_cap150_standard_error']:.1f}"
        )
    write_study("mcrd_settings", results)
    return results


if __name__ == "__main__":
    main()
