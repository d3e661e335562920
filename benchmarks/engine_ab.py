"""Whether the engine's kernels kept their speed: this tree against a git revision's, in one
run, on one thread.

    python -m benchmarks.engine_ab [--ref 0e0ea13] [--base /tmp/ab-base] [--rounds 5] [--parts ...]

The revision is checked out as a ``git worktree`` (``--base``, made when missing) and its
packages imported through symbolic links under their installed names, in a worker process
of its own; this tree runs in a second worker. Both workers run with ``NUMBA_NUM_THREADS=1``
and are asked for the same measurement alternately, part by part, round by round (the order
of the two swapped every round), so that the drift of a shared machine hits both alike.
Round 0 is warm-up (compilation or the numba cache). Each part is a fixed piece of work
through the public API both trees share:

- ``alphabeta-<eval>``: ``Searcher.search`` of 12 positions (a few times over) at a fixed
  depth, each from an empty table, with the evaluator ``<eval>`` (material, positional,
  and the zoo nets of td-minimax, slow-fast, mcrd-net and outcome-net): nodes/s;
- ``mcrd``: ``MCRDAgent(backend="cpu").search`` of four positions: playouts/s;
- ``selfplay-mcrd``: ``mcrd.data.play_pseudo_random_games``: games/s;
- ``selfplay-outcome-net``: ``outcome_net.selfplay.play_games`` (positional, depth 3): games/s;
- ``selfplay-td``: ``td_minimax.learn.play_training_game`` (depth 2): games/s;
- ``vector-env``: ``gym.make_vec("Checkers-v0", 256)`` steps with random legal actions:
  board-steps/s;
- ``egdb-build``: ``checkers_env.egdb.build`` of the 4-piece database into a fresh folder.

Both trees must produce the same work (node counts, playout counts, games' plies), or the
comparison stops; with ``--rates`` it goes on and compares work per second instead (a
change of arithmetic, such as float32 nets, may cut other nodes). Reports per part the
ratio of the revision's time to this tree's (above 1: this tree is faster; with ``--rates``,
this tree's work per second over the revision's), over all timed rounds, with the per-round
ratios' median and range (``--cpu``: timed by each worker thread's CPU time, steadier than
the wall clock on a busy machine). Writes ``benchmarks/results/engine_ab.json``, or
``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
#: Installed package name -> folder of the tree (as ``pyproject.toml`` maps them).
PACKAGES = {
    "checkers_env": "checkers_env",
    "checkers_agents": "agents",
    "checkers_training": "training",
    "checkers_evaluation": "evaluation",
    "checkers_zoo": "zoo",
}
EVALS = ("material", "positional", "td-minimax", "slow-fast", "mcrd-net", "outcome-net")
#: Depth of the alpha-beta part per evaluator, and how many times its positions are searched
#: (a few tenths of a second of search each).
DEPTHS = {"material": 9, "positional": 9, "td-minimax": 7, "slow-fast": 5, "mcrd-net": 4, "outcome-net": 6}
REPEATS = {"material": 6, "positional": 6, "td-minimax": 6, "slow-fast": 1, "mcrd-net": 4, "outcome-net": 12}
PARTS = tuple(f"alphabeta-{e}" for e in EVALS) + (
    "mcrd",
    "selfplay-mcrd",
    "selfplay-outcome-net",
    "selfplay-td",
    "vector-env",
    "egdb-build",
)


# -- the worker: runs in either tree ---------------------------------------------------------


def _positions(count: int, seed: int):
    import random

    from checkers_env import Game, Rules

    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        game = Game(rules=Rules.without_draws())
        for _ in range(rng.randrange(4, 40)):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        if len(game.legal_moves()) > 1:
            boards.append(game.board)
    return boards


def _alphabeta(eval_name: str):
    from checkers_agents.alphabeta import Searcher, make_evaluator

    searcher = Searcher(make_evaluator(eval_name))
    boards = _positions(12, seed=5) * REPEATS[eval_name]
    depth = DEPTHS[eval_name]

    def work():
        nodes = 0
        for board in boards:
            searcher.clear()
            nodes += searcher.search(board, depth=depth).nodes
        return nodes, "nodes"

    return work


def _mcrd():
    from checkers_agents.mcrd import MCRDAgent

    boards = _positions(4, seed=7)

    def work():
        playouts = 0
        for i, board in enumerate(boards):
            agent = MCRDAgent(playouts=40000, backend="cpu", seed=i + 1)
            result = agent.search(board)
            playouts += int(sum(result.playouts))
        return playouts, "playouts"

    return work


def _selfplay_mcrd():
    from checkers_agents.mcrd.data import play_pseudo_random_games

    def work():
        games = play_pseudo_random_games(800, seed=3)
        return int(games["game_length"].sum()), "plies"

    return work


def _selfplay_outcome():
    from checkers_agents.outcome_net.selfplay import play_games

    def work():
        games = play_games(60, seed=5, depth=3, random_plies=4)
        return int(games["game_length"].sum()), "plies"

    return work


def _selfplay_td():
    import numpy as np

    from checkers_agents.td_minimax import Net, learn

    start = Net.initial(seed=1)
    settings = (2, True, 0.005, 0.01, True, 0.0, 10, 400, 80, 3)

    def work():
        plies = 0
        for g in range(400):
            net = start.copy()
            result = np.zeros(learn.RESULT_FIELDS, np.int64)
            if hasattr(learn, "training_game"):
                learn.play_training_game(*net.arrays, learn.training_game(*settings), 1000 + g, result)
            else:
                learn.play_training_game(*net.arrays, *settings, 1000 + g, result)
            plies += int(result[learn.R_PLIES])
        return plies, "plies"

    return work


def _vector_env():
    import gymnasium as gym
    import numpy as np

    import checkers_env  # noqa: F401  (registers Checkers-v0)

    envs = gym.make_vec("Checkers-v0", num_envs=256, vectorization_mode="vector_entry_point")

    def work():
        envs.reset(seed=0)
        rng = np.random.default_rng(0)
        checksum = 0
        for _ in range(2000):
            masks = envs.unwrapped.action_masks() if hasattr(envs, "unwrapped") else envs.action_masks()
            scores = rng.random(masks.shape) * masks
            actions = scores.argmax(axis=1).astype(np.int64)
            _, rewards, terminated, _, _ = envs.step(actions)
            checksum += int(terminated.sum())
        return checksum, "episodes ended"

    return work


def _egdb_build():
    import tempfile

    from checkers_env import egdb

    def work():
        with tempfile.TemporaryDirectory() as folder:
            return egdb.build(4, folder, progress=False).positions, "positions"

    return work


def _work(part: str):
    if part.startswith("alphabeta-"):
        return _alphabeta(part[len("alphabeta-") :])
    return {
        "mcrd": _mcrd,
        "selfplay-mcrd": _selfplay_mcrd,
        "selfplay-outcome-net": _selfplay_outcome,
        "selfplay-td": _selfplay_td,
        "vector-env": _vector_env,
        "egdb-build": _egdb_build,
    }[part]()


def worker() -> None:
    """Answer ``part`` lines on stdin with one JSON line: seconds and the work's count."""
    cache = {}
    for line in sys.stdin:
        part = line.strip()
        if not part:
            continue
        try:
            if part not in cache:
                cache[part] = _work(part)
            clock = time.thread_time if os.environ.get("ENGINE_AB_CLOCK") == "cpu" else time.perf_counter
            started = clock()
            count, unit = cache[part]()
            seconds = clock() - started
            reply = {"seconds": seconds, "count": count, "unit": unit}
        except Exception as error:  # reported to the parent, which stops
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


# -- the parent -----------------------------------------------------------------------------------


def base_tree(ref: str, base: Path) -> Path:
    """A worktree of ``ref`` at ``base`` (made when missing) and a folder of links that
    imports its packages under their installed names; returns that folder."""
    if not (base / "checkers_env").is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", str(base), ref], cwd=REPO_ROOT, check=True)
    links = Path(tempfile.mkdtemp(prefix="engine-ab-"))
    for name, folder in PACKAGES.items():
        (links / name).symlink_to(base / folder)
    return links


def _start(links: Path | None, cpu: bool = False) -> subprocess.Popen:
    """A worker of this tree (``links`` None) or of the tree whose packages ``links`` holds.

    The reference's worker runs outside this tree, whose ``checkers_env`` folder would
    otherwise come first on the path; it finds the worker's code through ``REPO_ROOT``,
    after the links."""
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1", ENGINE_AB_CLOCK="cpu" if cpu else "wall")
    env.pop("PYTHONPATH", None)
    if links is not None:
        env["PYTHONPATH"] = f"{links}{os.pathsep}{REPO_ROOT}"
    return subprocess.Popen(
        [sys.executable, "-c", "from benchmarks.engine_ab import worker; worker()"],
        cwd=REPO_ROOT if links is None else links,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _ask(process: subprocess.Popen, part: str) -> dict:
    process.stdin.write(part + "\n")
    process.stdin.flush()
    reply = json.loads(process.stdout.readline())
    if "error" in reply:
        raise SystemExit(f"{part}: {reply['error']}")
    return reply


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="0e0ea13", help="git revision to compare against")
    parser.add_argument("--base", default="/tmp/ab-base", help="worktree of the revision (made when missing)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, the first one warm-up")
    parser.add_argument("--parts", nargs="*", default=list(PARTS), choices=PARTS)
    parser.add_argument(
        "--rates",
        action="store_true",
        help="compare work per second when the trees do different work, instead of stopping",
    )
    parser.add_argument(
        "--cpu", action="store_true", help="time each part by the worker thread's CPU time instead of the wall clock"
    )
    parser.add_argument("--out", default=None, help="JSON file to write (default benchmarks/results/engine_ab.json)")
    args = parser.parse_args(argv)
    if args.rounds < 2:
        parser.error(f"--rounds must be at least 2 (the first is warm-up), got {args.rounds}")
    links = base_tree(args.ref, Path(args.base))
    workers = {"reference": _start(links, args.cpu), "current": _start(None, args.cpu)}
    times = {part: {"reference": [], "current": []} for part in args.parts}
    try:
        for r in range(args.rounds):
            for part in args.parts:
                order = ("reference", "current") if r % 2 else ("current", "reference")
                replies = {name: _ask(workers[name], part) for name in order}
                if replies["reference"]["count"] != replies["current"]["count"] and not args.rates:
                    raise SystemExit(f"{part}: the trees did different work: {replies}")
                print(
                    f"round {r} {part}: "
                    + ", ".join(f"{name} {replies[name]['seconds']:.3f} s" for name in ("reference", "current")),
                    flush=True,
                )
                if r > 0:
                    for name in replies:
                        # Time per unit of the current tree's work (the same unless --rates).
                        scale = replies["current"]["count"] / replies[name]["count"]
                        times[part][name].append(replies[name]["seconds"] * scale)
                    times[part]["count"] = replies["current"]["count"]
                    times[part]["reference_count"] = replies["reference"]["count"]
                    times[part]["unit"] = replies["current"]["unit"]
    finally:
        for process in workers.values():
            process.stdin.close()
            process.wait()
    results = {}
    for part, t in times.items():
        per_round = sorted(a / b for a, b in zip(t["reference"], t["current"]))
        results[part] = {
            "ratio": sum(t["reference"]) / sum(t["current"]),
            "median_round_ratio": per_round[len(per_round) // 2],
            "min_round_ratio": per_round[0],
            "max_round_ratio": per_round[-1],
            "reference_s": t["reference"],
            "current_s": t["current"],
            "work": f"{t['count']} {t['unit']}",
        }
        if t["reference_count"] != t["count"]:
            results[part]["reference_work"] = f"{t['reference_count']} {t['unit']} (times scaled to this tree's work)"
    report = {
        "ref": args.ref,
        "threads": 1,
        "rounds_timed": args.rounds - 1,
        "clock": "thread CPU time" if args.cpu else "wall",
        "parts": results,
    }
    out = Path(args.out) if args.out else REPO_ROOT / "benchmarks" / "results" / "engine_ab.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    for part, figures in results.items():
        print(
            f"{part:24s} ratio {figures['ratio']:.3f} (rounds {figures['min_round_ratio']:.3f}"
            f"-{figures['max_round_ratio']:.3f})"
        )
    print(f"wrote {out}")
    return report


if __name__ == "__main__":
    main()
