"""Where numba keeps the compiled kernels of this project.

numba's on-disk cache checks only the timestamp of the file that defines a kernel, not
the files of the functions it calls, so an agent's kernel that inlines a primitive of
``checkers_env/bitboard.py`` would keep running the old primitive after an edit. Keying
the cache folder on a hash of every source file of ``checkers_env`` and of the packages
that register agent kinds (the entry-point group ``checkers_env.agents``: the suite's
``agents/`` and any plug-in) makes any edit start from a fresh cache. ``NUMBA_CACHE_DIR``,
when set, wins.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import time
from pathlib import Path

KEEP_DAYS = 7


def _packages() -> list[str]:
    """The core and the top-level packages of every registered agent kind."""
    from importlib.metadata import entry_points

    # ``checkers_env.agent.ENTRY_POINT_GROUP``; importing that module would define kernels first.
    names = {entry.value.split(":")[0].split(".")[0] for entry in entry_points(group="checkers_env.agents")}
    return ["checkers_env", *sorted(names - {"checkers_env"})]


def configure_numba_cache() -> None:
    """Point ``numba.config.CACHE_DIR`` at a folder keyed by the sources (call before any
    ``@njit(cache=True)`` function is defined).

    It also turns numba's colouring of its error messages off (unless the user chose): with
    colorama installed (mkdocs-material brings it), each message wraps stdout once more, and
    the many typing errors of the CUDA simulator nest the wrappers until a RecursionError."""
    os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")  # read when numba is imported
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    import numba

    digest = hashlib.sha1()
    for package in _packages():
        # find_spec locates a top-level package without importing it.
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = Path(next(iter(spec.submodule_search_locations)))
        for path in sorted(folder.rglob("*.py")):
            digest.update(package.encode())
            digest.update(path.relative_to(folder).as_posix().encode())
            digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "checkers-suite"
    folder = base / f"numba-{digest.hexdigest()[:16]}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
    except OSError:
        return  # read-only home: numba falls back to its own locations
    numba.config.CACHE_DIR = str(folder)
    _prune(base, keep=folder)


def _prune(base: Path, keep: Path) -> None:
    """Remove cache folders of old source versions not used for ``KEEP_DAYS``."""
    limit = time.time() - KEEP_DAYS * 86400
    for folder in base.glob("numba-*"):
        try:
            if folder != keep and folder.stat().st_mtime < limit:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            pass
