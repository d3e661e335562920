"""Every CUDA path of the suite on the card, against the CPU path, in one command.

    make gpu-check            # or: python -m benchmarks.gpu_check [--tiny] [--out PATH]

On a machine with an NVIDIA GPU that numba can use, in one run:

* **speed**: plain MCRD playouts per second on the GPU (``mcrd.cuda.CudaRunner``, launches
  of ``launch`` threads from the 7 children of the start position, as the agent plays
  them) and on the CPU (``mcrd.cpu.CpuRunner``, every numba thread), and their ratio;
* **search time**: one whole ``MCRDAgent(backend="cuda").search`` per playout budget
  (200, 20,000 and a million), in milliseconds: the fixed cost of a search beside its
  playouts;
* **agreement**: the same position searched with the same seed and budget on both backends.
  The two backends draw different random numbers (xoroshiro128p per GPU thread, xorshift64
  per CPU playout), so what they promise is agreement in distribution, not identical
  counts: every child's mean score (a win 1, a draw 0.5) and the share of capped playouts
  must agree within ``SIGMAS`` standard errors. What each backend promises exactly is
  checked too: the GPU run again with the same seed gives identical counts;
* **data**: part of an MCRD training database (``checkers_agents.mcrd.data.generate``, kind
  ``mcrd``) labelled on the GPU, checked (count, card, values in [-1, 1], every position's
  budget spent), and the same part on the CPU for the time ratio;
* **guided descents**: not built for the GPU (the guide runs on the CPU backend only);
  recorded as such;
* **the JAX env** (``checkers_env.jax``, when the ``jax`` extra and a JAX that sees the GPU
  are installed): random games through it on the card and through the numba vector env
  agree step by step (``checkers_env.jax.truth.side_by_side``), and ``bench_jax_env``'s
  table of hops per second on the card from 1 game to ``JAX_SIZES[-1]`` (the numba vector
  env on the CPU beside it up to 65,536 games), with the goal of 10^8 hops per second.
  Without JAX or a GPU for it, the section says which.

It writes ``benchmarks/results/gpu.json`` (or ``--out``: the machine, the device, every
figure and a pass/fail per check) and prints a table; the exit status is 1 when a check
fails. Without a GPU it says so in one line and exits 0. ``--tiny`` runs tiny sizes, for
numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), which the test suite runs.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from . import RESULTS_DIR, machine_info

#: Standard errors within which the two backends' rates must agree (per child, about one
#: false alarm in 16,000 children when they do agree).
SIGMAS = 4.0
#: A middlegame position (White to move, 10 pieces each) whose children win at different rates.
AGREEMENT_FEN = "W:W21,22,23,24,25,26,27,28,30,31:B1,2,3,5,6,7,9,10,11,14"
#: Batch sizes of the JAX env's table on the card (the largest that fits ends it) and its goal.
JAX_SIZES = (1, 256, 4096, 65_536, 1_048_576, 4_194_304, 16_777_216)
JAX_GOAL_STEPS_PER_S = 1e8
#: Few pieces, short playouts: the simulator runs Python per thread.
TINY_AGREEMENT_FEN = "B:W5:BK6,25"


class Sizes:
    """How much work each part does."""

    def __init__(self, tiny: bool):
        self.tiny = tiny
        self.seconds = 0.0 if tiny else 2.0  # per speed measurement (at least one launch)
        self.gpu_launch = 56 if tiny else 262_144
        self.cpu_launch = 56 if tiny else 16_384
        self.agreement_fen = TINY_AGREEMENT_FEN if tiny else AGREEMENT_FEN
        self.agreement_playouts = 480 if tiny else 1_400_000
        self.search_budgets = (14, 56) if tiny else (200, 20_000, 1_000_000)
        self.search_repeats = 1 if tiny else 20
        self.data = (
            dict(positions=2, playouts=12, selfplay_fraction=0.0)
            if tiny
            else dict(positions=64, playouts=20_000, selfplay_fraction=0.5, selfplay_playouts=200)
        )


def gpu_state() -> tuple[str, str]:
    """``(state, words)``: ``gpu`` (a CUDA GPU numba can use; words: its name),
    ``simulator`` (``NUMBA_ENABLE_CUDASIM=1``), ``none`` (no NVIDIA GPU) or ``unusable``
    (the driver sees a GPU, numba cannot use it; words: why)."""
    from checkers_agents.mcrd.agent import cuda_simulator_enabled, gpu_available

    if cuda_simulator_enabled():
        return "simulator", "numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): no timing means anything"
    if gpu_available():
        from numba import cuda

        name = cuda.get_current_device().name
        return "gpu", name.decode() if isinstance(name, bytes) else str(name)
    listed = _nvidia_smi_gpus()
    if not listed:
        return "none", "no NVIDIA GPU here (nvidia-smi lists none and numba finds none)"
    return "unusable", (
        f"nvidia-smi lists {listed[0]!r} but numba cannot use it: pip install 'checkers-suite[gpu]' "
        "(numba-cuda) and check the driver"
    )


def _nvidia_smi_gpus() -> list[str]:
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in listed.stdout.splitlines() if line.startswith("GPU")]


def speed(sizes: Sizes) -> dict:
    """Plain MCRD playouts per second, GPU against CPU, from the start position's children."""
    import numba

    from checkers_agents.mcrd.root import cycle_context, make_children
    from checkers_env import Board

    from .bench_mcrd import cpu_rate, cuda_rate

    board = Board()
    children, context = make_children(board), cycle_context(board, None)
    gpu = cuda_rate(children, context, seconds=sizes.seconds, launch=sizes.gpu_launch, repeats=1 if sizes.tiny else 3)
    cpu_rate(children, context, seconds=0.0, launch=sizes.cpu_launch)  # compile
    cpu = max(
        cpu_rate(children, context, seconds=sizes.seconds, launch=sizes.cpu_launch)[0]
        for _ in range(1 if sizes.tiny else 3)
    )
    return {
        "gpu_playouts_per_s": gpu,
        "cpu_playouts_per_s": cpu,
        "cpu_threads": numba.get_num_threads(),
        "gpu_launch": sizes.gpu_launch,
        "gpu_over_cpu": gpu / cpu,
    }


def search_times(sizes: Sizes) -> dict:
    """Milliseconds of one whole ``MCRDAgent(backend="cuda").search`` of the start position
    per playout budget: the search's fixed cost (children, device buffers, random states)
    next to its playouts."""
    from checkers_agents.mcrd import MCRDAgent
    from checkers_env import Board

    out = {}
    for playouts in sizes.search_budgets:
        agent = MCRDAgent(playouts=playouts, backend="cuda", seed=1)
        agent.search(Board())  # compile
        began = time.perf_counter()
        for _ in range(sizes.search_repeats):
            agent.search(Board())
        out[str(playouts)] = 1000 * (time.perf_counter() - began) / sizes.search_repeats
    return out


def score_z(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """The z of the difference between two children's mean scores (a win 1, a draw 0.5),
    each given as ``(wins, draws, playouts)`` with doubled wins as the runners count them;
    the variance is the pooled one, as under the hypothesis that both draw from one
    distribution (0 when the means are equal and nothing varies)."""

    def moments(wins, draws, playouts):
        won = (wins - draws) / 2
        return (won + draws / 2) / playouts, (won + draws / 4) / playouts

    (mean_a, _), (mean_b, _) = moments(*a), moments(*b)
    mean, square = moments(a[0] + b[0], a[1] + b[1], a[2] + b[2])
    spread = math.sqrt(max(square - mean * mean, 0.0) * (1 / a[2] + 1 / b[2]))
    if spread == 0.0:
        return 0.0 if mean_a == mean_b else math.inf
    return (mean_a - mean_b) / spread


def agreement(sizes: Sizes) -> dict:
    """The same search on both backends (same seed, same budget) agrees in distribution, and
    the GPU's own promise holds: the same seed gives the same counts."""
    from checkers_agents.mcrd import MCRDAgent
    from checkers_env import Board

    board = Board.from_fen(sizes.agreement_fen)
    n = len(board.legal_moves())
    launch = sizes.agreement_playouts if sizes.tiny else min(sizes.gpu_launch, sizes.agreement_playouts)

    def search(backend: str):
        options = {"launch": launch} if backend == "cuda" else {}
        return MCRDAgent(playouts=sizes.agreement_playouts, backend=backend, seed=7, **options).search(board)

    gpu, again, cpu = search("cuda"), search("cuda"), search("cpu")
    children = []
    for j in range(n):
        z = score_z(
            (int(gpu.wins[j]), int(gpu.draws[j]), int(gpu.playouts[j])),
            (int(cpu.wins[j]), int(cpu.draws[j]), int(cpu.playouts[j])),
        )
        children.append(
            {
                "move": str(gpu.moves[j]),
                "gpu_score": gpu.wins[j] / (2 * gpu.playouts[j]),
                "cpu_score": cpu.wins[j] / (2 * cpu.playouts[j]),
                "z": z,
                "agree": abs(z) <= SIGMAS,
            }
        )
    # The capped share is a rate: a capped playout counts as a "win" with no draws.
    capped_z = score_z((2 * gpu.capped, 0, gpu.total_playouts), (2 * cpu.capped, 0, cpu.total_playouts))
    return {
        "fen": sizes.agreement_fen,
        "playouts_per_backend": int(gpu.total_playouts),
        "children": children,
        "scores_agree": all(child["agree"] for child in children),
        "capped_share_gpu": gpu.capped / gpu.total_playouts,
        "capped_share_cpu": cpu.capped / cpu.total_playouts,
        "capped_z": capped_z,
        "capped_agree": abs(capped_z) <= SIGMAS,
        "gpu_same_seed_same_counts": bool((gpu.wins == again.wins).all() and (gpu.playouts == again.playouts).all()),
        "mean_plies_gpu": gpu.plies / gpu.total_playouts,
        "mean_plies_cpu": cpu.plies / cpu.total_playouts,
    }


def data(sizes: Sizes, folder: Path) -> dict:
    """Part of an MCRD database labelled on the GPU, checked; the same part on the CPU."""
    import numpy as np

    from checkers_agents.mcrd.data import generate, load_mcrd_data, mcrd_params

    out: dict = {"positions": sizes.data["positions"], "playouts": sizes.data["playouts"]}
    for backend in ("cuda", "cpu"):  # compile both backends' kernels before either is timed
        warm = dict(sizes.data, positions=2, playouts=sizes.data["playouts"] // 100 or 1)
        generate(folder / f"warm-{backend}", "mcrd", mcrd_params(shard_size=2, backend=backend, **warm), progress=False)
    for backend in ("cuda", "cpu"):
        params = mcrd_params(shard_size=sizes.data["positions"], backend=backend, **sizes.data)
        started = time.perf_counter()
        card = generate(folder / backend, "mcrd", params, seed=3, progress=False)
        out[f"{backend}_s"] = time.perf_counter() - started
        if backend == "cuda":
            arrays = load_mcrd_data(folder / backend)
            budgets = arrays["playouts"].sum(axis=1)
            out["gpu_checks"] = {
                "card_backend_cuda": card["params"]["backend"] == "cuda",
                "positions": int(len(arrays["value"])) == sizes.data["positions"],
                "values_in_range": bool(np.all(np.abs(arrays["value"]) <= 1.0)),
                # every child of a position gets max(budget // n, 1) playouts (uniform)
                "budget_spent": bool(
                    np.all(budgets >= np.minimum(arrays["budget"], arrays["n_children"]))
                    and np.all(budgets <= np.maximum(arrays["budget"], arrays["n_children"]))
                ),
            }
    out["gpu_over_cpu_time"] = out["cuda_s"] / out["cpu_s"]
    return out


def jax_env(sizes: Sizes) -> dict | str:
    """The JAX env on the card: agreement with the numba vector env, and the speed table
    (``bench_jax_env.table``). A string when it cannot run: what is missing."""
    from checkers_env.errors import MissingDependencyError

    try:
        import jax

        from checkers_env.jax.truth import side_by_side
    except ModuleNotFoundError as error:
        return f"not run: {error.name} is not installed (pip install 'checkers-suite[jax]')"
    except MissingDependencyError as error:  # JAX without the rest of the extra (pgx)
        return f"not run: {error}"
    if jax.default_backend() != "gpu" and not sizes.tiny:
        return f"not run: JAX sees no GPU (its backend is {jax.default_backend()})"
    from . import bench_jax_env

    games, steps = (16, 20) if sizes.tiny else (4096, 250)
    agreement_ = side_by_side(num_games=games, steps=steps, seed=11)
    if sizes.tiny:
        bench_jax_env.SECONDS, bench_jax_env.REPEATS = 0.05, 1
    rows = bench_jax_env.table((1, 16) if sizes.tiny else JAX_SIZES, numba_up_to=65_536)
    best = max((row.get("jax_steps_per_s", 0.0) for row in rows.values()), default=0.0)
    return {
        "device": str(jax.devices()[0]),
        "jax_version": jax.__version__,
        "agreement": agreement_,
        "table": rows,
        "best_steps_per_s": best,
        "goal_steps_per_s": JAX_GOAL_STEPS_PER_S,
        "goal_met": best >= JAX_GOAL_STEPS_PER_S,
    }


def checks_of(results: dict) -> dict[str, bool]:
    """The pass/fail of each check in ``results``."""
    agreement_ = results["agreement"]
    checks = {
        "gpu_playouts_per_s_positive": results["speed"]["gpu_playouts_per_s"] > 0,
        "cpu_gpu_scores_agree": agreement_["scores_agree"],
        "cpu_gpu_capped_share_agrees": agreement_["capped_agree"],
        "gpu_same_seed_same_counts": agreement_["gpu_same_seed_same_counts"],
    }
    checks.update({f"data_{name}": ok for name, ok in results["data"]["gpu_checks"].items()})
    if isinstance(results["jax_env"], dict):
        checks["jax_env_agrees_with_numba"] = results["jax_env"]["agreement"]["mismatches"] == 0
    return checks


def table(results: dict) -> str:
    """The figures and checks as a plain text table."""
    speed_, agreement_, data_ = results["speed"], results["agreement"], results["data"]
    rows = [
        ("device", results["device"]),
        ("plain MCRD playouts/s, GPU", f"{speed_['gpu_playouts_per_s']:,.0f}"),
        (f"plain MCRD playouts/s, CPU ({speed_['cpu_threads']} threads)", f"{speed_['cpu_playouts_per_s']:,.0f}"),
        ("GPU / CPU", f"{speed_['gpu_over_cpu']:.2f}x"),
        *((f"one search of {int(budget):,} playouts, ms", f"{ms:.2f}") for budget, ms in results["search_ms"].items()),
        ("agreement position", agreement_["fen"]),
        ("playouts per backend", f"{agreement_['playouts_per_backend']:,}"),
        ("largest |z| of a child's score", f"{max(abs(c['z']) for c in agreement_['children']):.2f} (<= {SIGMAS})"),
        ("capped share GPU / CPU", f"{agreement_['capped_share_gpu']:.4f} / {agreement_['capped_share_cpu']:.4f}"),
        ("MCRD database, positions x playouts", f"{data_['positions']} x {data_['playouts']:,}"),
        ("database seconds GPU / CPU", f"{data_['cuda_s']:.2f} / {data_['cpu_s']:.2f}"),
        ("guided descents on the GPU", results["guided_descents"]),
    ]
    jax_ = results["jax_env"]
    if isinstance(jax_, dict):
        rows.append(("JAX env device", jax_["device"]))
        for size, row in jax_["table"].items():
            figure = row["error"] if "error" in row else f"{row['jax_steps_per_s']:,.0f}"
            rows.append((f"JAX env hops/s, {size[1:]} games", figure))
        rows.append(("JAX env best / goal", f"{jax_['best_steps_per_s']:,.0f} / {jax_['goal_steps_per_s']:,.0f}"))
    else:
        rows.append(("JAX env", jax_))
    rows += [(f"check {name}", "pass" if ok else "FAIL") for name, ok in results["checks"].items()]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:{width}s}  {value}" for name, value in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="tiny sizes (for numba's CUDA simulator in the tests)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "gpu.json", help="the JSON file to write")
    args = parser.parse_args(argv)
    state, words = gpu_state()
    if state == "none":
        print(f"gpu-check: {words}; nothing to check")
        return 0
    if state == "unusable":
        print(f"gpu-check: {words}", file=sys.stderr)
        return 1
    if state == "simulator":
        if not args.tiny:
            parser.error("under NUMBA_ENABLE_CUDASIM=1 only --tiny sizes are practical")
        warnings.simplefilter("ignore", RuntimeWarning)  # the simulator's NumPy scalars overflow by design
    sizes = Sizes(args.tiny)
    began = time.perf_counter()
    results: dict = {"device": words, "simulator": state == "simulator", "tiny": args.tiny}
    results["speed"] = speed(sizes)
    results["search_ms"] = search_times(sizes)
    results["agreement"] = agreement(sizes)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as folder:
        results["data"] = data(sizes, Path(folder))
    results["guided_descents"] = "not built: the guide runs on the CPU backend only"
    results["jax_env"] = jax_env(sizes)
    results["checks"] = checks_of(results)
    record = {
        "benchmark": "gpu_check",
        "machine": machine_info(),
        "seconds": round(time.perf_counter() - began, 3),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, default=lambda value: value.item()) + "\n")
    print(table(results))
    print(f"wrote {args.out}")
    return 0 if all(results["checks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
