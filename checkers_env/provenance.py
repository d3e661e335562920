"""Where a file the suite writes came from: the commit of the checkout (zoo cards, training
databases) or, for an installed package, the release."""

from __future__ import annotations

import subprocess
from pathlib import Path

#: The source checkout this package runs from (meaningless for an installed wheel).
REPO_ROOT = Path(__file__).resolve().parents[1]


def git_commit() -> str:
    """The commit of this checkout, with ``-dirty`` if files changed; for an installed package
    (no checkout of this project around it) the release, ``checkers-suite==VERSION``."""
    from checkers_env import __version__

    release = f"checkers-suite=={__version__}"
    if not (REPO_ROOT / "pyproject.toml").is_file() or not (REPO_ROOT / "checkers_env").is_dir():
        return release  # site-packages: a git repository around it would be somebody else's
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
        if head.returncode != 0 or not head.stdout.strip():
            return release
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return release
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


__all__ = ["REPO_ROOT", "git_commit"]
