"""The speed suite: ``python -m benchmarks`` (or ``make bench``).

Every module ``benchmarks/bench_<name>.py`` is one benchmark. It defines ``run() -> dict``
returning its measurements, with the unit in each key (``perft10_nodes_per_s``,
``compile_cold_s``); values are numbers, strings, or nested dicts of the same. The runner
imports every such module (or those named on its command line), calls ``run()``, prints a
summary table, and writes ``benchmarks/results/<name>.json``:

    {"benchmark": "<name>", "machine": {...}, "seconds": <wall time of run()>, "results": {...}}

``machine`` (see ``machine_info``) says where and on what code the figures were taken: CPU
count and model, platform, Python, numpy and numba versions, date, git commit. Speed is
measured here, never in timed unit tests (docs/design.md §4).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

#: The folder of this package; results go to ``RESULTS_DIR``.
PACKAGE_DIR = Path(__file__).resolve().parent
RESULTS_DIR = PACKAGE_DIR / "results"
REPO_ROOT = PACKAGE_DIR.parent


def write_study(name: str, results: dict) -> Path:
    """Write a study's results (a ``python -m benchmarks.<name>`` script outside the
    suite, such as ``mcrd_allocations``) to ``RESULTS_DIR/<name>.json``; returns the path."""
    out = RESULTS_DIR / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out.relative_to(REPO_ROOT)}")
    return out


def available() -> list[str]:
    """Names of the benchmarks present (``bench_core.py`` is ``core``), sorted."""
    return sorted(path.stem.removeprefix("bench_") for path in PACKAGE_DIR.glob("bench_*.py"))


def machine_info() -> dict:
    """Where the figures were measured: hardware, software versions, date and commit."""
    info = {
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "git_commit": _git("rev-parse", "HEAD"),
    }
    status = _git("status", "--porcelain", "--untracked-files=no")
    info["git_dirty"] = None if status is None else bool(status)
    try:
        import numba

        info["numba_threads"] = numba.config.NUMBA_NUM_THREADS
    except ImportError:
        pass
    return info


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


__all__ = ["PACKAGE_DIR", "REPO_ROOT", "RESULTS_DIR", "available", "machine_info"]
