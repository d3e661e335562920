"""PDN reading memory: the peak memory of reading a file of N games, for two N, game by game
(``iter_pdn``) and whole (``read_pdn``, the list of every game), and the ratio of the two
peaks of each reader (large N over small N).

Reading game by game holds one block of the file and one game at a time, so its peak
should not grow with N (a ratio near 1); the list reader keeps every game, so its peak grows
with N. The files repeat the ACF archive's games. Each reading runs in a fresh process and
its memory is the growth of that process's peak resident set (``ru_maxrss``) over the
reading, after the imports and the kernels' first call.
"""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
import tempfile
from pathlib import Path

from checkers_env.datasets import ACF_GAMES

#: Games in the two files.
GAMES = (1_000, 20_000)

#: The reading, in a process of its own: prints its games, seconds and peak growth (MB).
_CHILD = """
import json, resource, sys, time
from checkers_env.pdn import iter_pdn, read_pdn

path, reader = sys.argv[1], sys.argv[2]
read_pdn("1. 11-15 *")  # the imports and the kernels' first call, outside the figure
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
if reader == "iter_pdn":
    games = sum(1 for _ in iter_pdn(path))
else:
    games = len(read_pdn(path))
seconds = time.perf_counter() - started
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB on Linux
print(json.dumps({"games": games, "seconds": round(seconds, 1), "peak_growth_mb": round(grown / 1024, 1)}))
"""


def run() -> dict:
    results: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        paths = {count: _games_file(Path(folder) / f"games_{count}.pdn", count) for count in GAMES}
        for reader in ("iter_pdn", "read_pdn"):
            figures = {f"games_{count}": _measure(paths[count], reader) for count in GAMES}
            small, large = (figures[f"games_{count}"]["peak_growth_mb"] for count in GAMES)
            figures["file_mb"] = {f"games_{count}": round(paths[count].stat().st_size / 2**20, 1) for count in GAMES}
            figures[f"peak_ratio_{GAMES[1]}_over_{GAMES[0]}"] = round(large / max(small, 0.1), 2)
            results[reader] = figures
    return results


def _games_file(path: Path, count: int) -> Path:
    """A PDN file of ``count`` games: the ACF archive's games, repeated as needed."""
    with lzma.open(ACF_GAMES, "rt", encoding="utf-8") as archive:
        games = archive.read().strip().split("\n\n[")
    texts = [games[0]] + ["[" + game for game in games[1:]]
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(texts[index % len(texts)] + "\n\n" for index in range(count))
    return path


def _measure(path: Path, reader: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), reader], capture_output=True, text=True, check=True, timeout=1800
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
