"""The first move of ``benchmarks.bench_first_move``'s agent kinds, compiled cold and
loaded warm, by this tree and by an earlier revision, in one run (the revision's packages
imported through links under their installed names, as ``benchmarks.engine_ab`` does).
From the repository root:

    git worktree add --detach /tmp/wt-old 6b1b650
    python docs/results/compile/first_move_ab.py /tmp/wt-old
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from benchmarks.bench_first_move import _FIRST_MOVES, KINDS  # noqa: E402
from benchmarks.engine_ab import PACKAGES  # noqa: E402

links = Path(tempfile.mkdtemp(prefix="first-move-ab-"))
for name, folder in PACKAGES.items():
    (links / name).symlink_to(Path(sys.argv[1]).resolve() / folder)
for tree, path in (("this tree", ROOT), ("revision", links)):
    with tempfile.TemporaryDirectory() as cache:
        for temperature in ("cold", "warm"):
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(path))
            done = subprocess.run([sys.executable, "-c", _FIRST_MOVES, json.dumps(KINDS)], cwd=path, env=env,
                                  capture_output=True, text=True, check=True)
            times = json.loads(done.stdout.strip().splitlines()[-1])
            print(tree, temperature, {k: round(v, 1) for k, v in times.items()}, "total",
                  round(sum(times.values()), 1), flush=True)
