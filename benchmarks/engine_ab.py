"""Whether the engine's kernels kept their speed: this tree against a git revision's, in one
run, on one thread. The project's one same-run A/B harness.

    python -m benchmarks.engine_ab [--ref HEAD~1] [--rounds 5] [--parts ...] [--cpu] [--pin CPU|none]
        [--pairs K] [--calls N]

The revision is checked out as a ``git worktree`` (``--base``, default a folder per
revision under the system's temporary folder, made when missing) and its packages imported
through symbolic links under their installed names, in a worker process of its own; this
tree runs in a second worker. A revision's code imports itself by those names, so the two
trees cannot share one process. What keeps the two workers' figures comparable:

- every part is cut into calls (a search of one position, a few games, a hundred env
  steps), and the parent asks the two workers for each call in turn, the first of the pair
  swapped call by call and round by round: each round's ratio comes from adjacent timings,
  and the drift of a shared machine hits both alike;
- both workers are pinned to the same CPU (``--pin``, default the last one this process
  may use; ``none`` leaves them free) and run with ``NUMBA_NUM_THREADS=1``; only one of them
  works at a time;
- ``--pairs K`` runs K fresh pairs of workers in turn (each with its warm-up round), and
  pools their rounds: a pair keeps a bias of its own through all its rounds (the
  experiments' kernels page gives its size), which only fresh processes average out;
  ``pair_ratios`` in the results shows it;
- ``--ref HEAD`` (a clean tree) is the control: the same code against itself, whose ratio
  is the bias left between the workers.

Round 0 is warm-up (compilation or the numba cache). Each part is a fixed piece of work
through the public API both trees share:

- ``alphabeta-<eval>``: ``Searcher.search`` of 12 positions (a few times over) at a fixed
  depth, each from an empty table, with the evaluator ``<eval>`` (material, positional,
  and the zoo nets of td-minimax, slow-fast, mcrd-net and outcome-net): nodes, and each
  search's value and best moves must agree;
- ``alphabeta-pruned-<eval>``: the same with ``table_cutoffs``, ``pvs`` and ``reductions``
  (the zoo's pruning) for the positional evaluation and the outcome net, a few plies deeper,
  and for ``outcome-net-4``: the outcome net with ``zoo:outcome-net-4``'s weights, whose
  second hidden layer (128 x 32) the first zoo net lacks;
- ``mcrd``: ``MCRDAgent(backend="cpu").search`` of four positions: playouts;
- ``selfplay-mcrd``: ``mcrd.data.play_pseudo_random_games``: plies;
- ``selfplay-outcome-net``: ``outcome_net.selfplay.play_games`` (positional, depth 3): plies;
- ``selfplay-td``: ``td_minimax.learn.play_training_game`` (depth 2), the self-play
  trainer's kernel: plies, and each game's result and weights must agree;
- ``td-select``: ``TDMinimaxAgent`` at depth 2 with the zoo net, ``select_move(game)`` in
  40 games of 4-60 random plies, as a user calls it: moves;
- ``alphazero``: ``AlphaZeroAgent`` with the zoo net and PUCT at a fixed number of
  simulations (``ALPHAZERO_SETTINGS``, each search from a fresh tree) choosing a move in 12
  such games: the moves and the root's visits must agree;
- ``vector-env``: ``gym.make_vec("Checkers-v0", 256)`` steps with random legal actions:
  board-steps;
- ``env-batch``, ``env-batch-self-play``: the same at 4096 boards (the batch kernel's
  share of a step is then nearly all of it), against the in-kernel random opponent and in
  self-play; observations, masks and rewards must agree;
- ``egdb-build``: ``checkers_env.egdb.build`` of the 4-piece database into a fresh folder
  (one call per round).

Both trees must do the same work (the counts and a digest of what each call produced), or
the comparison stops; with ``--rates`` it goes on and compares work per second instead (a
change of arithmetic, such as float32 nets, may cut other nodes). Reports per part the
ratio of the revision's time to this tree's (above 1: this tree is faster; with
``--rates``, this tree's work per second over the revision's), over all timed rounds, with
the per-round ratios' median and range (``--cpu``: timed by each worker thread's CPU time,
steadier than the wall clock on a busy machine). Writes
``benchmarks/results/engine_ab.json``, or ``--out``.

``--asm`` times nothing: each worker, with a numba cache of its own that starts empty,
makes the parts' first calls and reports the machine code of every kernel it compiled (an
MD5 of ``inspect_asm`` with the symbols' mangled names taken out, and its length in lines),
keyed by module, function and the signature's place in the order of compilation. The
report says which kernels are the same code byte for byte in both trees: a change that
leaves a kernel's code alone cannot have moved its speed, whatever a timed run says.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
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
REPEATS = {
    "material": 6,
    "positional": 6,
    "td-minimax": 6,
    "slow-fast": 5,
    "mcrd-net": 4,
    "outcome-net": 12,
    "outcome-net-4": 10,
}
#: The AlphaZero agent's parameters in the ``alphazero`` part (both trees'): a revision
#: before an option they name cannot be the reference.
ALPHAZERO_SETTINGS = {"weights": "zoo", "simulations": 4000, "search": "puct", "reuse": False}
#: The evaluators searched again with the zoo's pruning (``table_cutoffs``, ``pvs`` and
#: ``reductions``, as ``zoo:outcome-net-3`` plays), at these depths: the pruned search's
#: per-node work (the switches' tests) that the exact search's kernel compiles away.
PRUNED_DEPTHS = {"positional": 13, "outcome-net": 12, "outcome-net-4": 12}
#: Parts named after a zoo entry: the registered evaluator its weights load into.
ZOO_NET_EVALUATORS = {"outcome-net-4": "outcome-net"}
PARTS = (
    tuple(f"alphabeta-{e}" for e in EVALS)
    + tuple(f"alphabeta-pruned-{e}" for e in PRUNED_DEPTHS)
    + (
        "mcrd",
        "selfplay-mcrd",
        "selfplay-outcome-net",
        "selfplay-td",
        "td-select",
        "alphazero",
        "vector-env",
        "env-batch",
        "env-batch-self-play",
        "egdb-build",
    )
)


# -- the worker: runs in either tree ---------------------------------------------------------
#
# A part is (unit, calls): each call does a piece of the part's work and returns how much
# work it did and something that shows what it produced (hashed into the reply's digest).


def _digest(*things) -> str:
    """A short hash of numbers, strings and arrays (by their bytes)."""
    h = hashlib.sha1()
    for thing in things:
        h.update(thing.tobytes() if hasattr(thing, "tobytes") else repr(thing).encode())
    return h.hexdigest()[:16]


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


def _games(count: int, seed: int):
    """``count`` games of 4-60 random plies under the default rules, not over, kept as
    games (the agents see each game's history, as a user's ``select_move(game)`` does)."""
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


def _alphabeta(eval_name: str, pruned: bool = False):
    from checkers_agents.alphabeta import Searcher, make_evaluator

    if eval_name in ZOO_NET_EVALUATORS:
        from checkers_agents.zoo import zoo_weights

        evaluator = make_evaluator(ZOO_NET_EVALUATORS[eval_name], str(zoo_weights(eval_name)))
    else:
        evaluator = make_evaluator(eval_name)
    if pruned:
        searcher = Searcher(evaluator, table_cutoffs=True, pvs=True, reductions=True)
        depth = PRUNED_DEPTHS[eval_name]
    else:
        searcher = Searcher(evaluator)
        depth = DEPTHS[eval_name]

    def call(board):
        def run():
            searcher.clear()
            result = searcher.search(board, depth=depth)
            return result.nodes, _digest(result.value, [str(m) for m in result.best_moves])

        return run

    return "nodes", [call(board) for board in _positions(12, seed=5) * REPEATS[eval_name]]


def _mcrd():
    from checkers_agents.mcrd import MCRDAgent

    def call(i, board):
        def run():
            result = MCRDAgent(playouts=40000, backend="cpu", seed=i + 1).search(board)
            return int(sum(result.playouts)), _digest(result.playouts)

        return run

    return "playouts", [call(i, board) for i, board in enumerate(_positions(4, seed=7))]


def _selfplay_mcrd():
    from checkers_agents.mcrd.data import play_pseudo_random_games

    def call(first):
        def run():
            games = play_pseudo_random_games(100, seed=3, first_game=first)
            return int(games["game_length"].sum()), _digest(games["game_length"])

        return run

    return "plies", [call(first) for first in range(0, 800, 100)]


def _selfplay_outcome():
    from checkers_agents.outcome_net.selfplay import play_games

    def call(first):
        def run():
            games = play_games(10, seed=5, first_game=first, depth=3, random_plies=4)
            return int(games["game_length"].sum()), _digest(games["game_length"])

        return run

    return "plies", [call(first) for first in range(0, 60, 10)]


def _selfplay_td():
    import numpy as np

    from checkers_agents.td_minimax import Net, learn

    start = Net.initial(seed=1)
    settings = (2, True, 0.005, 0.01, True, 0.0, 10, 400, 80, 3)

    def call(first):
        def run():
            plies = 0
            seen = []
            for g in range(first, first + 20):
                net = start.copy()
                result = np.zeros(learn.RESULT_FIELDS, np.int64)
                if hasattr(learn, "training_game"):
                    learn.play_training_game(*net.arrays, learn.training_game(*settings), 1000 + g, result)
                else:
                    learn.play_training_game(*net.arrays, *settings, 1000 + g, result)
                plies += int(result[learn.R_PLIES])
                seen += [result[: learn.R_PLIES + 1], *net.arrays]
            return plies, _digest(*seen)

        return run

    return "plies", [call(first) for first in range(0, 400, 20)]


def _td_select():
    from checkers_agents.td_minimax import TDMinimaxAgent, load_net

    agent = TDMinimaxAgent.from_net(load_net("zoo"), depth=2, seed=0)

    def call(game):
        def run():
            moves = [str(agent.select_move(game)) for _ in range(25)]
            return len(moves), _digest(moves)

        return run

    return "moves", [call(game) for game in _games(40, seed=4)]


def _alphazero():
    from checkers_agents.alphazero.agent import AlphaZeroAgent

    agent = AlphaZeroAgent(**ALPHAZERO_SETTINGS)

    def call(game):
        def run():
            move = agent.select_move(game)
            children = int(agent.tree.children[0, 0])
            return ALPHAZERO_SETTINGS["simulations"], _digest(str(move), agent.tree.visits[0, 1 : 1 + children])

        return run

    return "simulations", [call(game) for game in _games(12, seed=4)]


def _vector_env(boards: int, steps: int, **options):
    import gymnasium as gym
    import numpy as np

    import checkers_env  # noqa: F401  (registers Checkers-v0)

    envs = gym.make_vec("Checkers-v0", num_envs=boards, vectorization_mode="vector_entry_point", **options)
    rng = None

    def run(first: bool):
        nonlocal rng
        if first:  # every round plays the same steps from the same boards
            envs.reset(seed=0)
            rng = np.random.default_rng(0)
        ended = 0
        for _ in range(steps):
            masks = envs.unwrapped.action_masks() if hasattr(envs, "unwrapped") else envs.action_masks()
            actions = (rng.random(masks.shape) * masks).argmax(axis=1).astype(np.int64)
            observations, rewards, terminated, _, _ = envs.step(actions)
            ended += int(terminated.sum())
        return boards * steps, _digest(ended, masks, observations, rewards)

    calls = 2000 * 256 // (boards * steps)
    return "board-steps", [lambda i=i: run(i == 0) for i in range(calls)]


def _egdb_build():
    from checkers_env import egdb

    def run():
        with tempfile.TemporaryDirectory() as folder:
            return egdb.build(4, folder, progress=False).positions, ""

    return "positions", [run]


def _part(part: str):
    if part.startswith("alphabeta-pruned-"):
        return _alphabeta(part[len("alphabeta-pruned-") :], pruned=True)
    if part.startswith("alphabeta-"):
        return _alphabeta(part[len("alphabeta-") :])
    return {
        "mcrd": _mcrd,
        "selfplay-mcrd": _selfplay_mcrd,
        "selfplay-outcome-net": _selfplay_outcome,
        "selfplay-td": _selfplay_td,
        "td-select": _td_select,
        "alphazero": _alphazero,
        "vector-env": lambda: _vector_env(256, 100),
        "env-batch": lambda: _vector_env(4096, 10),
        "env-batch-self-play": lambda: _vector_env(4096, 10, self_play=True),
        "egdb-build": _egdb_build,
    }[part]()


def _machine_code() -> dict:
    """``{"module.function:k": {"md5", "lines"}}`` for the k-th signature of every numba
    kernel of the project's packages this process compiled (not loaded from a cache, whose
    kernels list no signatures)."""
    import re

    from numba.core.registry import CPUDispatcher

    code = {}
    for module_name, module in sorted(sys.modules.items()):
        if module is None or module_name.split(".")[0] not in PACKAGES:
            continue
        for name, function in sorted(vars(module).items()):
            if not isinstance(function, CPUDispatcher) or function.py_func.__module__ != module_name:
                continue
            for k, signature in enumerate(function.signatures):
                # Mangled names hold the module's path and a unique id: the code is the rest.
                asm = re.sub(r"_ZN[\w$.]+", "_ZN", function.inspect_asm(signature))
                code[f"{module_name}.{name}:{k}"] = {
                    "md5": hashlib.md5(asm.encode()).hexdigest(),
                    "lines": asm.count("\n"),
                }
    return code


def worker() -> None:
    """Answer requests on stdin, one JSON line each: ``{"part": p}`` with the part's unit
    and number of calls, ``{"part": p, "call": i}`` with the call's seconds, work and digest."""
    cpus = os.environ.get("ENGINE_AB_CPUS")
    if cpus:
        os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
    clock = time.thread_time if os.environ.get("ENGINE_AB_CLOCK") == "cpu" else time.perf_counter
    parts = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            if request["part"] not in parts:
                parts[request["part"]] = _part(request["part"])
            unit, calls = parts[request["part"]]
            if request.get("asm"):
                calls[0]()
                reply = {"code": _machine_code()}
            elif "call" not in request:
                reply = {"unit": unit, "calls": len(calls)}
            else:
                started = clock()
                count, digest = calls[request["call"]]()
                reply = {"seconds": clock() - started, "count": count, "digest": digest}
        except Exception as error:  # reported to the parent, which stops
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


# -- the parent -----------------------------------------------------------------------------------


def base_tree(ref: str, base: Path | None) -> tuple[Path, Path]:
    """A worktree of ``ref`` at ``base`` (default a folder per revision; made when missing)
    and a folder of links that imports its packages under their installed names; returns
    the worktree and the links."""
    sha = subprocess.run(
        ["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    if sha.returncode:
        raise SystemExit(f"no git revision {ref!r}: {sha.stderr.strip()}")
    sha = sha.stdout.strip()
    base = base or Path(tempfile.gettempdir()) / f"engine-ab-{sha[:12]}"
    if not (base / "checkers_env").is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", str(base), sha], cwd=REPO_ROOT, check=True)
    checked_out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=base, capture_output=True, text=True).stdout
    if checked_out.strip() != sha:
        raise SystemExit(f"{base} holds {checked_out.strip()[:12]}, not {ref} ({sha[:12]}): give another --base")
    links = Path(tempfile.mkdtemp(prefix="engine-ab-"))
    for name, folder in PACKAGES.items():
        (links / name).symlink_to(base / folder)
    return base, links


def _start(links: Path | None, cpu: bool, pin: str, cache: Path | None = None) -> subprocess.Popen:
    """A worker of this tree (``links`` None) or of the tree whose packages ``links`` holds.

    The reference's worker runs outside this tree, whose ``checkers_env`` folder would
    otherwise come first on the path; it finds the worker's code through ``REPO_ROOT``,
    after the links. ``cache``: a numba cache folder of its own (``--asm``)."""
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1", ENGINE_AB_CLOCK="cpu" if cpu else "wall")
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("PYTHONPATH", None)
    env.pop("ENGINE_AB_CPUS", None)
    if pin != "none":
        env["ENGINE_AB_CPUS"] = pin
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


def _ask(process: subprocess.Popen, part: str, call: int | None = None, asm: bool = False) -> dict:
    request = {"part": part} if call is None else {"part": part, "call": call}
    if asm:
        request["asm"] = True
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    if not line:
        raise SystemExit(f"{part}: a worker ended (exit status {process.wait()})")
    reply = json.loads(line)
    if "error" in reply:
        raise SystemExit(f"{part}: {reply['error']}")
    return reply


def _round(workers: dict, part: str, calls: int, r: int, rates: bool) -> dict:
    """One round of ``part``: each call asked of both workers in turn, the first swapped
    call by call and round by round; returns each worker's seconds and work."""
    spent = {name: {"seconds": 0.0, "count": 0} for name in workers}
    for i in range(calls):
        order = ("reference", "current") if (r + i) % 2 else ("current", "reference")
        replies = {name: _ask(workers[name], part, i) for name in order}
        a, b = replies["reference"], replies["current"]
        if (a["count"], a["digest"]) != (b["count"], b["digest"]) and not rates:
            raise SystemExit(f"{part} call {i}: the trees did different work: {replies}")
        for name, reply in replies.items():
            spent[name]["seconds"] += reply["seconds"]
            spent[name]["count"] += reply["count"]
    return spent


def default_pin() -> str:
    """The last CPU this process may use (both workers share it)."""
    return str(max(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else "none"


def _measure(args, links: Path, times: dict, pair: int) -> None:
    """``args.rounds`` rounds of a fresh pair of workers, the first one warm-up; adds the
    timed rounds to ``times``."""
    workers = {"reference": _start(links, args.cpu, args.pin), "current": _start(None, args.cpu, args.pin)}
    try:
        for r in range(args.rounds):
            for part in args.parts:
                shapes = {name: _ask(workers[name], part) for name in workers}
                if shapes["reference"] != shapes["current"]:
                    raise SystemExit(f"{part}: the trees cut the part differently: {shapes}")
                calls = min(shapes["current"]["calls"], args.calls or shapes["current"]["calls"])
                spent = _round(workers, part, calls, r, args.rates)
                print(
                    f"pair {pair} round {r} {part}: "
                    + ", ".join(f"{name} {spent[name]['seconds']:.3f} s" for name in ("reference", "current")),
                    flush=True,
                )
                if r > 0:
                    for name in spent:
                        # Time per unit of the current tree's work (the same unless --rates).
                        scale = spent["current"]["count"] / spent[name]["count"]
                        times[part][name].append(spent[name]["seconds"] * scale)
                    times[part].setdefault("pair", []).append(pair)
                    times[part]["count"] = spent["current"]["count"]
                    times[part]["reference_count"] = spent["reference"]["count"]
                    times[part]["unit"] = shapes["current"]["unit"]
                    times[part]["calls"] = calls
    finally:
        for process in workers.values():
            process.stdin.close()
            process.wait()


def compare_code(args, links: Path) -> dict:
    """``--asm``: each part's kernels in both trees, the same machine code or not."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="engine-ab-cache-") as caches:
        workers = {
            "reference": _start(links, False, args.pin, Path(caches) / "reference"),
            "current": _start(None, False, args.pin, Path(caches) / "current"),
        }
        try:
            for part in args.parts:
                code = {name: _ask(workers[name], part, asm=True)["code"] for name in workers}
                reference, current = code["reference"], code["current"]
                results[part] = {
                    "same": sorted(k for k in current if reference.get(k) == current[k]),
                    "different": {
                        k: {"reference_lines": reference[k]["lines"], "current_lines": current[k]["lines"]}
                        for k in sorted(current)
                        if k in reference and reference[k] != current[k]
                    },
                    "only_reference": sorted(set(reference) - set(current)),
                    "only_current": sorted(set(current) - set(reference)),
                }
                r = results[part]
                print(
                    f"{part:24s} same {len(r['same'])}, different {len(r['different'])}"
                    + "".join(
                        f"\n    {k}: {v['reference_lines']} -> {v['current_lines']} lines"
                        for k, v in r["different"].items()
                    )
                    + (f"\n    only in the revision: {', '.join(r['only_reference'])}" if r["only_reference"] else "")
                    + (f"\n    only in this tree: {', '.join(r['only_current'])}" if r["only_current"] else ""),
                    flush=True,
                )
        finally:
            for process in workers.values():
                process.stdin.close()
                process.wait()
    return results


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD", help="git revision to compare against (HEAD: the control)")
    parser.add_argument(
        "--base", default=None, help="worktree of the revision (default per revision; made when missing)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds, the first one warm-up")
    parser.add_argument("--parts", nargs="*", default=list(PARTS), choices=PARTS)
    parser.add_argument(
        "--rates",
        action="store_true",
        help="compare work per second when the trees do different work, instead of stopping",
    )
    parser.add_argument(
        "--cpu", action="store_true", help="time each call by the worker thread's CPU time instead of the wall clock"
    )
    parser.add_argument("--pin", default=default_pin(), help="CPUs both workers run on, as 1 or 0,1; none: unpinned")
    parser.add_argument(
        "--calls", type=int, default=None, help="time only each part's first CALLS calls (a quick look)"
    )
    parser.add_argument(
        "--pairs", type=int, default=1, help="fresh pairs of workers in turn, each with its warm-up and --rounds - 1"
    )
    parser.add_argument(
        "--asm", action="store_true", help="compare the kernels' machine code instead of timing them (no rounds)"
    )
    parser.add_argument("--out", default=None, help="JSON file to write (default benchmarks/results/engine_ab.json)")
    args = parser.parse_args(argv)
    if args.rounds < 2:
        parser.error(f"--rounds must be at least 2 (the first is warm-up), got {args.rounds}")
    if args.pairs < 1:
        parser.error(f"--pairs must be at least 1, got {args.pairs}")
    if args.calls is not None and args.calls < 1:
        parser.error(f"--calls must be at least 1, got {args.calls}")
    base, links = base_tree(args.ref, Path(args.base) if args.base else None)
    out = Path(args.out) if args.out else REPO_ROOT / "benchmarks" / "results" / "engine_ab.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.asm:
        try:
            report = {"ref": args.ref, "base": str(base), "machine_code": compare_code(args, links)}
        finally:
            shutil.rmtree(links)
        out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {out}")
        return report
    times = {part: {"reference": [], "current": []} for part in args.parts}
    try:
        for pair in range(args.pairs):
            _measure(args, links, times, pair)
    finally:
        shutil.rmtree(links)  # the links only; the worktree stays, with its numba cache
    results = {}
    for part, t in times.items():
        per_round = sorted(a / b for a, b in zip(t["reference"], t["current"]))
        results[part] = {
            "ratio": sum(t["reference"]) / sum(t["current"]),
            "median_round_ratio": per_round[len(per_round) // 2],
            "min_round_ratio": per_round[0],
            "max_round_ratio": per_round[-1],
            "pair_ratios": [
                sum(a for a, p in zip(t["reference"], t["pair"]) if p == pair)
                / sum(b for b, p in zip(t["current"], t["pair"]) if p == pair)
                for pair in range(args.pairs)
            ],
            "reference_s": t["reference"],
            "current_s": t["current"],
            "work": f"{t['count']} {t['unit']} in {t['calls']} calls",
        }
        if t["reference_count"] != t["count"]:
            results[part]["reference_work"] = f"{t['reference_count']} {t['unit']} (times scaled to this tree's work)"
    report = {
        "ref": args.ref,
        "base": str(base),
        "threads": 1,
        "pinned_to": args.pin,
        "pairs": args.pairs,
        "rounds_timed": args.pairs * (args.rounds - 1),
        "clock": "thread CPU time" if args.cpu else "wall",
        "parts": results,
    }
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
