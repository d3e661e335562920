"""How many times numba compiled each kernel: the entries of every index in a numba cache
folder, most first. The suite's cache lives under ``$XDG_CACHE_HOME/checkers-suite/numba-*``
(``checkers_env._numba_cache``). From the repository root, after ``make test`` from a clean
clone with ``XDG_CACHE_HOME=/tmp/ci-cache``:

    python docs/results/compile/compiled_variants.py /tmp/ci-cache/checkers-suite/numba-*
"""
import pickle
import sys
from pathlib import Path

counts = []
for folder in sys.argv[1:]:
    for index in Path(folder).rglob("*.nbi"):
        with open(index, "rb") as file:
            # numba's own index files, which numba itself unpickles: a local cache, never input
            pickle.load(file)  # the version stamp
            _stamp, overloads = pickle.loads(file.read())
        counts.append((len(overloads), f"{index.parent.name.split('_')[0]}/{index.name.split('-')[0]}"))
for count, name in sorted(counts, reverse=True)[:15]:
    print(f"{count:3d}  {name}")
