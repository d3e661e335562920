"""A pytest plugin that logs numba's compile events of each test worker, and a summary of
them: which kernels the suite compiles, for how long (less the kernels compiled inside
them), and how much both workers compiled alike. From the repository root:

    rm -f /tmp/compilelog-*.jsonl
    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=docs/results/compile \\
        .venv/bin/python -m pytest -q -n 2 --dist loadfile -p compile_log
    python docs/results/compile/compile_log.py

Compiles in the tests' own child processes are not logged.
"""
import collections
import glob
import json
import os
import time

LOG = "/tmp/compilelog-{}.jsonl"


def pytest_configure(config):
    from numba.core import event

    out = open(LOG.format(os.environ.get("PYTEST_XDIST_WORKER", "main")), "a", buffering=1)
    starts = {}

    class Log(event.Listener):
        def on_start(self, ev):
            starts[id(ev.data)] = time.time()

        def on_end(self, ev):
            d = ev.data.get("dispatcher")
            name = f"{d.py_func.__module__}.{d.py_func.__qualname__}" if d is not None else "?"
            out.write(json.dumps({"name": name, "start": starts.pop(id(ev.data), None), "end": time.time(),
                                  "args": str(ev.data.get("args"))[:200]}) + "\n")

    event.register("numba:compile", Log())


def summary() -> None:
    by_worker = collections.defaultdict(list)
    for path in glob.glob(LOG.format("gw*")):
        for line in open(path):
            by_worker[path].append(json.loads(line))
    for rows in by_worker.values():
        for r in rows:  # its time less the compiles directly inside it
            inner = [q for q in rows if q is not r and r["start"] <= q["start"] and q["end"] <= r["end"]]
            direct = [q for q in inner if not any(p is not q and p["start"] <= q["start"] and q["end"] <= p["end"]
                                                  for p in inner)]
            r["own"] = r["end"] - r["start"] - sum(q["end"] - q["start"] for q in direct)
    print("compile seconds per worker:", [round(sum(r["own"] for r in rows)) for rows in by_worker.values()])
    total, count = collections.Counter(), collections.Counter()
    alike = collections.defaultdict(list)
    for path, rows in by_worker.items():
        for r in rows:
            total[r["name"]] += r["own"]
            count[r["name"]] += 1
            alike[(r["name"], r["args"])].append((path, r["own"]))
    for name, seconds in total.most_common(25):
        print(f"{seconds:7.1f} s {count[name]:3d}x {name}")
    both = sum(min(s for _, s in rows) for rows in alike.values() if len({p for p, _ in rows}) > 1)
    print("compiled alike by both workers (the smaller copies):", round(both), "s")


if __name__ == "__main__":
    summary()
