"""Whether a change to the environments' kernels made them faster: this tree's batch kernel
against a git revision's, in one process.

    python -m benchmarks.env_ab [--ref HEAD] [--boards 4096] [--rounds 40] [--self-play] [--threads 1]

On a shared machine the speed of a core drifts by more than most changes are worth, so
timing two versions in two runs (or two processes) decides little. Here the ``checkers_env``
package of ``--ref`` is extracted (``git archive``) under another name and imported beside
this tree's; each version steps its own copy of the same boards, and the two are called
alternately, call by call, with the same actions (random legal hops), so that drift hits
both alike. After every call the two must hold the same masks and board states: a change
that alters what the kernel does stops the comparison. Each round is ten calls of each;
the first two rounds are warm-up. The reference is compiled afresh each run (about a
minute), this tree's kernels come from numba's cache.

Reports ``ratio`` (the reference's kernel time over this tree's: above 1 means this tree
is faster) over all timed rounds, and the median and quartiles of the per-round ratios
(their spread is the noise left). Writes ``benchmarks/results/env_ab.json``.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tarfile
import tempfile
import time
import types
import warnings
from io import BytesIO
from pathlib import Path

import numba
import numpy as np

from . import REPO_ROOT, machine_info, write_study
from .bench_env import pick_legal


def reference_package(ref: str, into: Path) -> str:
    """Extract ``checkers_env`` at git revision ``ref`` into ``into`` as an importable
    package of another name; returns that name."""
    try:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", ref, "checkers_env"],
            cwd=REPO_ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise SystemExit(f"cannot read checkers_env at git revision {ref!r}: {error}") from None
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)
    name = "checkers_env_reference"
    (into / "checkers_env").rename(into / name)
    return name


class _Boards:
    """One version's kernel with its own copy of the boards."""

    def __init__(self, core, template, observations: bool):
        self.core = core
        self.observations = observations
        n = template.num_envs
        self.state, self.moves, self.positions, self.last = core.new_batch(
            n, core.history_for(template._rules), last_moves=0
        )
        self.masks = np.zeros((n, core.NUM_ACTIONS), dtype=np.int8)
        self.words = core.mask_words(self.masks)
        self.planes = np.zeros((n, core.NUM_PLANES, 8, 8), dtype=np.float32)
        self.rewards = np.zeros(n)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.ends = np.zeros((getattr(core, "ENDS_FIELDS", 0), n), dtype=np.int8)
        self.finals = np.zeros((0, core.NUM_PLANES, 8, 8), dtype=np.float32)
        self.template = template
        seeds = np.arange(1, n + 1, dtype=np.int64) * 7919
        boards = (np.ones(n, dtype=np.bool_),) if hasattr(core, "ENDS_FIELDS") else ()  # resets chosen boards
        core.vector_reset(
            self.state,
            self.moves,
            self.positions,
            self.last,
            *boards,
            seeds,
            template._start,
            template._color_mode,
            template._kind,
            template._rules,
            self.planes,
            self.words,
        )

    def step(self, actions) -> float:
        t = self.template
        core = self.core
        if hasattr(core, "ENDS_FIELDS"):  # ends as one record, final observations apart
            arguments = (
                self.state,
                self.moves,
                self.positions,
                self.last,
                actions,
                core.episode_settings(t._start, t._color_mode, t._kind, 0, self.observations),
                t._rules,
                self.planes,
                self.words,
                self.rewards,
                self.ends,
                self.finals,
            )
        elif hasattr(core, "episode_settings"):  # the settings as one record
            arguments = (
                self.state,
                self.moves,
                self.positions,
                self.last,
                actions,
                core.episode_settings(t._start, t._color_mode, t._kind, 0, self.observations),
                t._rules,
                self.planes,
                self.words,
                self.rewards,
                self.terminated,
                self.truncated,
            )
        else:
            arguments = (
                self.state,
                self.moves,
                self.positions,
                self.last,
                actions,
                t._start,
                t._color_mode,
                t._kind,
                0,
                t._rules,
                self.planes,
                self.words,
                self.rewards,
                self.terminated,
                self.truncated,
                self.observations,
            )
        started = time.perf_counter()
        core.vector_step(*arguments)
        return time.perf_counter() - started


def compare(reference, current, template, rounds: int, observations: bool = False) -> dict:
    """Alternate the two kernels for ``rounds`` rounds of ten calls; returns the figures.

    The board states must agree on the position and the game's progress (the columns up
    to ``S_WINNER``); the columns after it are bookkeeping that a change may drop."""
    compared = current.S_WINNER + 1
    versions = {
        "reference": _Boards(reference, template, observations),
        "current": _Boards(current, template, observations),
    }
    rng = np.array([0x2545F4914F6CDD1D], dtype=np.int64)
    actions = np.zeros(template.num_envs, dtype=np.int64)
    totals = {"reference": 0.0, "current": 0.0}
    ratios = []
    for r in range(rounds):
        spent = {"reference": 0.0, "current": 0.0}
        for _ in range(10):
            pick_legal(versions["reference"].masks, rng, actions)
            for name in ("reference", "current") if r % 2 else ("current", "reference"):
                spent[name] += versions[name].step(actions)
            a, b = versions["reference"], versions["current"]
            if not (
                np.array_equal(a.masks, b.masks)
                and np.array_equal(a.state[:, :compared], b.state[:, :compared])
                and np.array_equal(a.planes, b.planes)
            ):
                raise SystemExit("the two kernels disagree (masks or board states): the change alters behaviour")
        if r >= 2:
            totals["reference"] += spent["reference"]
            totals["current"] += spent["current"]
            ratios.append(spent["reference"] / spent["current"])
    steps = 10 * (rounds - 2) * template.num_envs
    return {
        "reference_board_steps_per_s": steps / totals["reference"],
        "current_board_steps_per_s": steps / totals["current"],
        "ratio": totals["reference"] / totals["current"],
        "round_ratio_median": float(np.median(ratios)),
        "round_ratio_quartiles": [float(np.quantile(ratios, 0.25)), float(np.quantile(ratios, 0.75))],
    }


def _one_namespace(*modules):
    """The public names of several modules as one object (the state machine and the batch
    step, which older trees kept in one module)."""
    names = {}
    for module in modules:
        names.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    return types.SimpleNamespace(**names)


def _kernels_of(name: str, folder: Path):
    """The reference tree's env kernels under one name, whatever its modules were called:
    ``env_machine`` with ``batch_step``, ``env_kernels`` or, earlier, ``env_core``."""
    if (folder / name / "env_machine.py").exists():
        return _one_namespace(
            importlib.import_module(f"{name}.env_machine"), importlib.import_module(f"{name}.batch_step")
        )
    module = "env_kernels" if (folder / name / "env_kernels.py").exists() else "env_core"
    return importlib.import_module(f"{name}.{module}")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="HEAD", help="git revision to compare against")
    parser.add_argument("--boards", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--self-play", action="store_true", help="the self_play=True kernel")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--observations", action="store_true", help="write the observation planes too")
    args = parser.parse_args(argv)
    if args.rounds < 3:
        parser.error("--rounds must be at least 3 (two are warm-up)")

    import gymnasium as gym

    import checkers_env  # noqa: F401  (registers Checkers-v0)
    from checkers_env import batch_step, env_machine

    template = gym.make_vec(
        "Checkers-v0",
        num_envs=args.boards,
        vectorization_mode="vector_entry_point",
        self_play=args.self_play,
    ).unwrapped
    with tempfile.TemporaryDirectory() as folder:
        name = reference_package(args.ref, Path(folder))
        sys.path.insert(0, folder)
        try:
            with warnings.catch_warnings():  # its __init__ registers Checkers-v0 again
                warnings.simplefilter("ignore")
                reference = _kernels_of(name, Path(folder))
        finally:
            sys.path.remove(folder)
        threads = numba.get_num_threads()
        numba.set_num_threads(args.threads)
        try:
            figures = compare(
                reference, _one_namespace(env_machine, batch_step), template, args.rounds, args.observations
            )
        finally:
            numba.set_num_threads(threads)
    results = {
        "benchmark": "env_ab",
        "machine": machine_info(),
        "settings": {
            "ref": args.ref,
            "boards": args.boards,
            "rounds": args.rounds,
            "self_play": args.self_play,
            "threads": args.threads,
            "observations": args.observations,
        },
        "results": figures,
    }
    print(
        f"{args.ref}: {figures['reference_board_steps_per_s'] / 1e6:.2f} M board-steps/s, "
        f"this tree: {figures['current_board_steps_per_s'] / 1e6:.2f} M; ratio {figures['ratio']:.3f} "
        f"(rounds: median {figures['round_ratio_median']:.3f}, quartiles "
        f"{figures['round_ratio_quartiles'][0]:.3f}-{figures['round_ratio_quartiles'][1]:.3f})"
    )
    write_study("env_ab", results)
    return results


if __name__ == "__main__":
    main()
