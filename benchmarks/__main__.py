"""Run the benchmarks: ``python -m benchmarks [NAME ...] [--list] [--no-save]``.

Runs every ``benchmarks/bench_*.py`` (or only the named ones), prints a summary table and
writes ``benchmarks/results/<name>.json`` for each (see the package docstring). A benchmark
that fails is reported with its error and the others still run; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
import traceback

from . import RESULTS_DIR, available, machine_info


def main(argv: list[str] | None = None) -> int:
    names = available()
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"benchmarks to run (default all: {', '.join(names)})")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--no-save", dest="save", action="store_false", help="do not write JSON results")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(names))
        return 0
    unknown = [name.removeprefix("bench_") for name in args.names if name.removeprefix("bench_") not in names]
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)} (have: {', '.join(names)})")
    selected = [name.removeprefix("bench_") for name in args.names] or names
    if not selected:
        print("no benchmarks/bench_*.py found", file=sys.stderr)
        return 1

    machine = machine_info()
    commit = (machine["git_commit"] or "unknown")[:10] + ("+dirty" if machine.get("git_dirty") else "")
    print(
        f"benchmarks on {machine['cpu_count']} CPUs ({machine['cpu_model']}), Python {machine['python']}, "
        f"numba {machine['numba']}, commit {commit}, {machine['date']}"
    )
    failed = []
    summary: list[tuple[str, str, object]] = []
    for name in selected:
        print(f"\n== {name}", flush=True)
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"benchmarks.bench_{name}")
            results = module.run()
            if not isinstance(results, dict):
                raise TypeError(f"bench_{name}.run() returned {type(results).__name__}, not a dict")
        except Exception:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            failed.append(name)
            summary.append((name, "FAILED", "see the traceback above"))
            continue
        seconds = time.perf_counter() - started
        for key, value in _flatten(results):
            summary.append((name, key, value))
        if args.save:
            path = _save(name, machine, seconds, results)
            print(f"   wrote {path} ({seconds:.1f} s)")

    _print_table(summary)
    if failed:
        print(f"\nFAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _flatten(results: dict, prefix: str = ""):
    for key, value in results.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _save(name: str, machine: dict, seconds: float, results: dict):
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    record = {"benchmark": name, "machine": machine, "seconds": round(seconds, 3), "results": results}
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(record, indent=2, default=str) + "\n")
    temporary.replace(path)  # a run killed halfway leaves the previous results intact
    return path.relative_to(RESULTS_DIR.parent.parent)


def _format(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def _print_table(rows: list[tuple[str, str, object]]) -> None:
    if not rows:
        return
    cells = [(bench, key, _format(value)) for bench, key, value in rows]
    widths = [max(len(row[i]) for row in cells + [("benchmark", "measurement", "value")]) for i in range(3)]
    print("\nSummary")
    header = ("benchmark", "measurement", "value")
    print(f"{header[0]:<{widths[0]}}  {header[1]:<{widths[1]}}  {header[2]:>{widths[2]}}")
    print(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * widths[2]}")
    for bench, key, value in cells:
        print(f"{bench:<{widths[0]}}  {key:<{widths[1]}}  {value:>{widths[2]}}")


if __name__ == "__main__":
    sys.exit(main())
