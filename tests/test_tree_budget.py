"""The laboratory stays apart from the product: the experiments' records (``docs/results``,
``benchmarks/results``) are a small share of what a clone carries.

A run keeps its summaries under docs/results; its games, weights and scripts live in the
repository's history (docs/results/README.md says how to get them back). The documentation's
pages and pictures, and the data the package ships, are the product's, not the laboratory's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

#: The most of the tracked bytes that the laboratory's records may hold.
LABORATORY_SHARE = 0.15
#: Where the laboratory keeps its records.
LABORATORY = ("docs/results/", "benchmarks/results/")
#: Files that belong in history or the zoo, never under docs/.
NOT_IN_DOCS = (".safetensors", ".pt", ".jsonl")


def tracked_sizes(root: Path) -> dict[str, int]:
    """Each tracked file's size on disk in bytes, by its path relative to ``root``."""
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
        pytest.skip("not in a git checkout")
    sizes = {}
    for name in listing.decode("utf-8", "surrogateescape").split("\0"):
        path = root / name
        # A file deleted but not yet committed counts nothing.
        if name and path.is_file() and not path.is_symlink():
            sizes[name] = path.stat().st_size
    return sizes


def test_the_laboratory_holds_at_most_its_share_of_the_tracked_bytes():
    sizes = tracked_sizes(REPO_ROOT)
    total = sum(sizes.values())
    records = sum(size for name, size in sizes.items() if name.startswith(LABORATORY))
    assert total > 0 and records > 0
    assert records <= LABORATORY_SHARE * total, (
        f"the laboratory's records hold {records:,} of the {total:,} tracked bytes ({records / total:.1%}), "
        f"over {LABORATORY_SHARE:.0%}: keep a run's summaries and leave its games and weights to history "
        f"(docs/results/README.md)"
    )


def test_docs_hold_no_weights_or_resume_files():
    sizes = tracked_sizes(REPO_ROOT)
    misplaced = sorted(name for name in sizes if name.startswith("docs/") and name.endswith(NOT_IN_DOCS))
    assert misplaced == [], "weights and league resume files belong in the zoo or in history, not docs/"
