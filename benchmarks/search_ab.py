"""Whether the one alpha-beta search kept the speed of the searches it replaced, and the
AlphaZero agent its own: this tree's ``alphabeta``, ``td-minimax`` and ``alphazero`` against
a git revision's, in one process.

    python -m benchmarks.search_ab [--ref 98b05fd] [--rounds 12] [--part alphabeta|td|train|alphazero|all]

As ``benchmarks.env_ab`` does for the env: the revision's ``agents/alphabeta.py`` (or
package), ``agents/td_minimax`` and ``agents/alphazero`` are extracted (``git archive``)
under another package name and imported beside this tree's (the rules core is this tree's
for both); the two versions are called alternately on the same positions, so that the
drift of a shared core hits both alike, and must agree (the same values, best moves and node counts for
``alphabeta``; the same moves for ``td-minimax``; the same games and weights for the
trainer's kernel), or the comparison stops. Each round times one pass of each; the first
round is warm-up. The reference's numba cache lives under the system's temporary folder
(compiled once per revision).

Parts:

- ``alphabeta``: the positions and deep depths of ``bench_alphabeta`` (both evaluations),
  each search from an empty table;
- ``td``: ``td-minimax`` at depth 2 with the zoo net choosing a move by ``select_move(game)``,
  as a user calls it, in 40 games of 4-60 random plies under the default rules (each
  agent computes the game's draw context itself), 25 times per round (a round of five took 3 ms: host noise decided it);
- ``train``: the self-play trainer's kernel, 32 games per round, each from the same
  net and seed for both (zoo net, 10 random opening plies, default draw rules). The
  search now sees the draw rules below the root too, so a game may take another course:
  ``ratio`` times only the games both kernels play identically (same moves, result and
  weights: like with like) and counts the others; ``all_games_per_search_ratio`` is the
  time per searched move over every game of rounds 1 on, agreeing or not.

- ``alphazero``: the agent with the zoo's net and PUCT at a fixed number of simulations
  (``ALPHAZERO_SETTINGS``, each search from a fresh tree) choosing a move in 40 games of
  4-60 random plies; both must choose the same moves and search the same visits at the
  root. The settings are given to the reference's agent too, so a revision before an
  option they name cannot be the reference; ``all`` leaves the part out for a revision
  without the agent.

Reports ``ratio`` (the reference's time over this tree's: above 1 means this tree is
faster) per part and the median and quartiles of the per-round ratios. Writes
``benchmarks/results/search_ab.json`` (``search_ab_PART.json`` for one part).
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np

from . import REPO_ROOT, machine_info, write_study

DEFAULT_REF = "98b05fd"
PACKAGE = "agents_reference"


def reference_agents(ref: str) -> Path:
    """Extract ``agents/alphabeta*``, ``agents/td_minimax`` and ``agents/alphazero`` at ``ref``
    as the package ``agents_reference`` into a folder kept per revision (its numba cache
    survives); returns it."""
    sha = subprocess.run(["git", "rev-parse", ref], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    folder = Path(tempfile.gettempdir()) / f"checkers_search_ab_v2_{sha.stdout.strip()[:12]}"
    target = folder / PACKAGE
    if target.exists():
        return folder
    listed = subprocess.run(
        ["git", "ls-tree", "--name-only", ref, "agents/"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    paths = [p for p in listed if p.startswith("agents/alphabeta") or p in ("agents/td_minimax", "agents/alphazero")]
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref, *paths], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    staging = Path(tempfile.mkdtemp(dir=folder.parent if folder.parent.exists() else None))
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(staging, filter="data")
        else:
            tar.extractall(staging)
    (staging / "agents" / "__init__.py").write_text("")
    folder.mkdir(parents=True, exist_ok=True)
    (staging / "agents").rename(target)
    return folder


def _import(folder: Path, module: str):
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(f"{PACKAGE}.{module}")
    finally:
        sys.path.remove(str(folder))


def _summary(times: dict, rounds: int) -> dict:
    ref = np.array(times["reference"][1:])
    cur = np.array(times["current"][1:])
    ratios = ref / cur
    return {
        "reference_s": float(ref.sum()),
        "current_s": float(cur.sum()),
        "ratio": float(ref.sum() / cur.sum()),
        "round_ratio_median": float(np.median(ratios)),
        "round_ratio_quartiles": [float(np.quantile(ratios, 0.25)), float(np.quantile(ratios, 0.75))],
        "rounds": rounds,
    }


def compare_alphabeta(folder: Path, rounds: int) -> dict:
    from checkers_agents.alphabeta import Searcher
    from checkers_agents.search_parts.evaluators import MATERIAL, POSITIONAL
    from checkers_env import Board

    from .bench_alphabeta import POSITIONS

    old = _import(folder, "alphabeta")
    old_searcher = old.Searcher()
    new = {"material": Searcher(MATERIAL), "positional": Searcher(POSITIONAL)}
    jobs = [(Board.from_fen(fen), depths[-1], e) for _, fen, depths in POSITIONS for e in ("material", "positional")]
    times = {"reference": [], "current": []}
    for r in range(rounds):
        spent = {"reference": 0.0, "current": 0.0}
        for board, depth, eval_name in jobs:
            results = {}
            for name in ("reference", "current") if r % 2 else ("current", "reference"):
                searcher = old_searcher if name == "reference" else new[eval_name]
                searcher.clear()
                started = time.perf_counter()
                if name == "reference":
                    results[name] = searcher.search(board, depth, eval=eval_name)
                else:
                    results[name] = searcher.search(board, depth)
                spent[name] += time.perf_counter() - started
            a, b = results["reference"], results["current"]
            if (a.value, a.best_moves, a.nodes, a.depth) != (b.value, b.best_moves, b.nodes, b.depth):
                raise SystemExit(f"alphabeta disagrees on {board.fen()} depth {depth} {eval_name}: {a} / {b}")
        for name in spent:
            times[name].append(spent[name])
    return _summary(times, rounds)


def _zoo_net():
    from checkers_agents.td_minimax import load_net

    return load_net("zoo")


def _games(count: int, seed: int):
    """``count`` games of 4-60 random plies under the default rules, not over (as
    ``bench_td_minimax._positions`` draws its boards, but kept as games: the agents see
    each game's history, as a user's ``select_move(game)`` does)."""
    import random

    from checkers_env import Game

    rng = random.Random(seed)
    games = []
    while len(games) < count:
        game = Game()
        for _ in range(rng.randrange(4, 60)):
            moves = game.legal_moves()
            if not moves or game.is_over():
                break
            game.play(rng.choice(moves))
        if game.legal_moves():
            games.append(game)
    return games


def compare_td(folder: Path, rounds: int) -> dict:
    from checkers_agents.td_minimax import TDMinimaxAgent

    old = _import(folder, "td_minimax")
    net = _zoo_net()
    games = _games(40, seed=4)
    agents = {
        "reference": old.TDMinimaxAgent.from_net(old.Net(*net.copy().arrays), depth=2, seed=0),
        "current": TDMinimaxAgent.from_net(net, depth=2, seed=0),
    }
    times = {"reference": [], "current": []}
    for r in range(rounds):
        spent = {"reference": 0.0, "current": 0.0}
        for game in games * 25:
            moves = {}
            for name in ("reference", "current") if r % 2 else ("current", "reference"):
                started = time.perf_counter()
                moves[name] = agents[name].select_move(game)
                spent[name] += time.perf_counter() - started
            if moves["reference"] != moves["current"]:
                raise SystemExit(f"td-minimax disagrees on {game.board.fen()}: {moves}")
        for name in spent:
            times[name].append(spent[name])
    return _summary(times, rounds)


def compare_train(folder: Path, rounds: int, games: int = 32) -> dict:
    from checkers_agents.td_minimax import learn

    old = _import(folder, "td_minimax.learn")
    net = _zoo_net()

    def current(w1, b1, w2, b2, *settings_rng_result):
        *settings, rng, result = settings_rng_result
        return learn.play_training_game(w1, b1, w2, b2, learn.training_game(*settings), rng, result)

    kernels = {"reference": old.play_training_game, "current": current}
    times = {"reference": [], "current": []}
    # Every game, agreeing or not: time and searched moves (the searches' count), for the
    # time per searched move over the same seeds.
    all_time = {"reference": 0.0, "current": 0.0}
    all_searches = {"reference": 0, "current": 0}
    differing = 0
    for r in range(rounds):
        spent = {"reference": 0.0, "current": 0.0}
        for g in range(games):
            seed = 0x1E3779B97F4A7C15 + 7919 * (r * games + g)
            outcome = {}
            took = {}
            for name in ("reference", "current") if (r + g) % 2 else ("current", "reference"):
                copy = net.copy()
                result = np.zeros(learn.RESULT_FIELDS, dtype=np.int64)
                started = time.perf_counter()
                rng, loss = kernels[name](*copy.arrays, 2, True, 0.005, 0.01, True, 0.0, 10, 400, 80, 3, seed, result)
                took[name] = time.perf_counter() - started
                outcome[name] = (rng, result[: learn.R_STEPS + 1].tolist(), copy.arrays)
                if r > 0:
                    all_time[name] += took[name]
                    all_searches[name] += int(result[learn.R_STEPS])
            a, b = outcome["reference"], outcome["current"]
            if a[0] == b[0] and a[1] == b[1] and all(np.array_equal(x, y) for x, y in zip(a[2], b[2])):
                for name in spent:
                    spent[name] += took[name]
            elif r > 0:
                # The search now sees repetitions and the no-progress rule below the root
                # too: a game may take another course. Not in the paired times.
                differing += 1
        for name in spent:
            times[name].append(spent[name])
    summary = _summary(times, rounds)
    summary["games_timed"] = (rounds - 1) * games - differing
    summary["games_differing_by_draw_rules"] = differing
    per_search = {name: all_time[name] / max(all_searches[name], 1) for name in all_time}
    summary["all_games_us_per_searched_move"] = {name: 1e6 * v for name, v in per_search.items()}
    summary["all_games_per_search_ratio"] = per_search["reference"] / per_search["current"]
    return summary


#: The agent's parameters in the ``alphazero`` part (this tree's and the reference's).
ALPHAZERO_SETTINGS = {"weights": "zoo", "simulations": 4000, "search": "puct", "reuse": False}


def compare_alphazero(folder: Path, rounds: int) -> dict:
    from checkers_agents.alphazero.agent import AlphaZeroAgent

    if not (folder / PACKAGE / "alphazero").exists():
        raise SystemExit("alphazero: the reference revision has no agents/alphazero")
    old = _import(folder, "alphazero.agent")
    agents = {"reference": old.AlphaZeroAgent(**ALPHAZERO_SETTINGS), "current": AlphaZeroAgent(**ALPHAZERO_SETTINGS)}
    games = _games(40, seed=4)
    times = {"reference": [], "current": []}
    for r in range(rounds):
        spent = {"reference": 0.0, "current": 0.0}
        for game in games:
            seen = {}
            for name in ("reference", "current") if r % 2 else ("current", "reference"):
                agent = agents[name]
                started = time.perf_counter()
                move = agent.select_move(game)
                spent[name] += time.perf_counter() - started
                children = int(agent.tree.children[0, 0])
                seen[name] = (move, agent.tree.visits[0, 1 : 1 + children].tolist())
            if seen["reference"] != seen["current"]:
                raise SystemExit(f"alphazero disagrees on {game.board.fen()}: {seen}")
        for name in spent:
            times[name].append(spent[name])
    summary = _summary(times, rounds)
    summary["settings"] = ALPHAZERO_SETTINGS
    summary["simulations_per_s"] = {
        name: ALPHAZERO_SETTINGS["simulations"] * len(games) * (rounds - 1) / sum(times[name][1:]) for name in times
    }
    return summary


PARTS = {"alphabeta": compare_alphabeta, "td": compare_td, "train": compare_train, "alphazero": compare_alphazero}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default=DEFAULT_REF, help="git revision to compare against")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all")
    args = parser.parse_args(argv)
    if args.rounds < 2:
        parser.error("--rounds must be at least 2 (one is warm-up)")
    folder = reference_agents(args.ref)
    figures = {}
    for name, compare in PARTS.items():
        if args.part == "all" and name == "alphazero" and not (folder / PACKAGE / "alphazero").exists():
            print(f"alphazero: {args.ref} has no agents/alphazero, left out", flush=True)
            continue
        if args.part in (name, "all"):
            figures[name] = compare(folder, args.rounds)
            f = figures[name]
            if "all_games_per_search_ratio" in f:
                print(
                    f"{name}: {f['games_timed']} identical games timed, {f['games_differing_by_draw_rules']} "
                    f"differing; all games, time per searched move: ratio {f['all_games_per_search_ratio']:.3f}"
                )
            print(
                f"{name}: {args.ref} {f['reference_s']:.2f} s, this tree {f['current_s']:.2f} s; ratio {f['ratio']:.3f} "
                f"(rounds: median {f['round_ratio_median']:.3f}, quartiles "
                f"{f['round_ratio_quartiles'][0]:.3f}-{f['round_ratio_quartiles'][1]:.3f})",
                flush=True,
            )
    results = {
        "benchmark": "search_ab",
        "machine": machine_info(),
        "settings": {"ref": args.ref, "rounds": args.rounds, "part": args.part},
        "results": figures,
    }
    write_study("search_ab" if args.part == "all" else f"search_ab_{args.part}", results)
    return results


if __name__ == "__main__":
    main()
