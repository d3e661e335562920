"""``python -m benchmarks.engine_ab``, the same-run A/B harness: one call of the vector env
against HEAD's worktree, both workers doing the same work (the control's set-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_engine_ab(tmp_path, *arguments: str) -> dict:
    """``python -m benchmarks.engine_ab --ref HEAD`` with ``arguments``, in a worktree under
    ``tmp_path`` removed afterwards; returns the report it wrote."""
    base = tmp_path / "base"
    out = tmp_path / "ab.json"
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "benchmarks.engine_ab", "--ref", "HEAD", "--base", str(base), "--out", str(out)]
            + list(arguments),
            capture_output=True,
            text=True,
            env=environment,
            cwd=ROOT,
            timeout=900,
        )
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return json.loads(out.read_text())


@pytest.mark.slow  # the worktree's kernels compile afresh: a minute or two
def test_engine_ab_runs_one_call_of_a_part_against_head(tmp_path):
    report = run_engine_ab(tmp_path, "--rounds", "2", "--parts", "vector-env", "--calls", "1")
    part = report["parts"]["vector-env"]
    assert report["ref"] == "HEAD" and report["rounds_timed"] == 1
    assert part["work"] == "25600 board-steps in 1 calls"
    assert part["ratio"] > 0 and len(part["reference_s"]) == len(part["current_s"]) == 1


@pytest.mark.slow  # both trees' kernels compile afresh into caches of their own: minutes
def test_engine_ab_asm_finds_the_same_machine_code_in_the_same_kernels(tmp_path):
    code = run_engine_ab(tmp_path, "--asm", "--parts", "alphabeta-material")["machine_code"]["alphabeta-material"]
    # The search kernel and the kernels it calls, compiled alike from the same sources (in a
    # clean clone, as CI runs it; uncommitted changes to a kernel show up here as different).
    assert any(key.startswith("checkers_agents.alphabeta.negamax.search_kernel:") for key in code["same"])
    assert code["different"] == {} and code["only_reference"] == code["only_current"] == []
