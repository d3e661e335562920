"""``make gpu-check`` (``python -m benchmarks.gpu_check``): under numba's CUDA simulator with
tiny sizes it runs every CUDA path and writes its JSON; without a GPU it says so in one line
and exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_gpu_check(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.gpu_check", *args],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=300,
    )


def test_gpu_check_under_the_simulator_runs_every_cuda_path(tmp_path):
    out = tmp_path / "results" / "gpu.json"
    completed = run_gpu_check("--tiny", "--out", str(out), NUMBA_ENABLE_CUDASIM="1")
    assert completed.returncode == 0, completed.stderr[-4000:]
    record = json.loads(out.read_text())
    assert record["benchmark"] == "gpu_check" and record["machine"]["cpu_count"] >= 1
    results = record["results"]
    assert results["simulator"] is True and results["tiny"] is True
    assert results["checks"] and all(results["checks"].values()), results["checks"]
    speed = results["speed"]
    assert speed["gpu_playouts_per_s"] > 0 and speed["cpu_playouts_per_s"] > 0
    assert set(results["search_ms"]) == {"14", "56"} and all(ms > 0 for ms in results["search_ms"].values())
    assert "one search of 56 playouts, ms" in completed.stdout
    agreement = results["agreement"]
    assert agreement["playouts_per_backend"] == 480 and len(agreement["children"]) == 6
    assert agreement["gpu_same_seed_same_counts"] and agreement["scores_agree"]
    assert all(abs(child["z"]) <= 4.0 for child in agreement["children"])
    data = results["data"]
    assert data["positions"] == 2 and data["cuda_s"] > 0 and data["cpu_s"] > 0
    assert set(data["gpu_checks"]) == {"card_backend_cuda", "positions", "values_in_range", "budget_spent"}
    assert "CPU backend only" in results["guided_descents"]
    jax_env = results["jax_env"]  # the test extra installs JAX: on the CPU here, tiny sizes
    assert jax_env["agreement"]["mismatches"] == 0 and jax_env["agreement"]["steps"] > 0
    assert set(jax_env["table"]) == {"n1", "n16"} and jax_env["table"]["n16"]["jax_steps_per_s"] > 0
    assert results["checks"]["jax_env_agrees_with_numba"] and "JAX env hops/s, 16 games" in completed.stdout
    # The table names every check.
    for name in results["checks"]:
        assert f"check {name}" in completed.stdout
    assert f"wrote {out}" in completed.stdout


def test_gpu_check_without_a_gpu_says_so_in_one_line_and_exits_0(tmp_path):
    out = tmp_path / "gpu.json"
    # No nvidia-smi on the PATH and no device visible to numba: a machine without a GPU.
    completed = run_gpu_check(
        "--out", str(out), PATH=str(Path(sys.executable).parent), CUDA_VISIBLE_DEVICES="", NUMBA_ENABLE_CUDASIM="0"
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert completed.stdout.count("\n") == 1 and "no NVIDIA GPU" in completed.stdout
    assert not out.exists()


def test_gpu_check_refuses_bad_options_before_any_work(tmp_path):
    out = tmp_path / "gpu.json"
    completed = run_gpu_check("--tiny", "--bogus", "--out", str(out), NUMBA_ENABLE_CUDASIM="1")
    assert completed.returncode == 2 and "--bogus" in completed.stderr
    completed = run_gpu_check("--out", str(out), NUMBA_ENABLE_CUDASIM="1")  # full sizes under the simulator
    assert completed.returncode == 2 and "--tiny" in completed.stderr
    assert not out.exists()
