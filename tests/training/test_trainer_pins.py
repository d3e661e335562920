"""What the seed trainers produce is pinned: a short run of each with a fixed seed gives
weights with a known checksum, so that a rebuild cannot change training without a test
saying so. The golden moves pin the agents; these pin the trainers (td-minimax, slow/fast,
the MCRD CNN with its data generator).

When a change means to alter what a trainer learns, run this file with
``CHECKERS_PRINT_PINS=1`` and put the printed checksums here, saying why in the commit.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from safetensors.numpy import load_file

from checkers_training import mcrd_net, slow_fast, td_minimax


def weights_checksum(path: Path) -> str:
    """sha256 over every tensor's name, dtype, shape and bytes, in name order (the file's
    metadata, which holds times and the commit, is left out)."""
    digest = hashlib.sha256()
    for name, array in sorted(load_file(str(path)).items()):
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()[:16]


def check(trainer: str, path: Path, pinned: str) -> None:
    found = weights_checksum(path)
    if os.environ.get("CHECKERS_PRINT_PINS"):
        print(f"{trainer}: {found}")
    assert found == pinned, f"{trainer} now learns other weights ({found}, pinned {pinned})"


def test_td_minimax_learns_the_pinned_weights(tmp_path):
    run = tmp_path / "td-minimax"
    td_minimax.main(
        ["--games", "60", "--seed", "3", "--eval-games", "0", "--out", str(run), "--no-progress", "--no-tensorboard"]
    )
    check("td-minimax", run / "checkpoint.safetensors", "a23ed27694e05421")


def test_slow_fast_learns_the_pinned_weights(tmp_path):
    run = tmp_path / "slow-fast"
    options = ["--episodes-per-set", "2", "--sets", "2", "--tactical-games", "6", "--endgame-trees", "6"]
    options += ["--endgame-max-batches", "2", "--max-game-plies", "80", "--no-progress-plies", "30"]
    options += ["--subtree-depth", "2", "--buffer-capacity", "300", "--hidden", "16", "--batch-size", "32"]
    slow_fast.main([*options, "--eval-games", "0", "--seed", "3", "--out", str(run), "--no-progress"])
    check("slow-fast", run / "weights.safetensors", "312ca098da8723b7")


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_mcrd_cnn_learns_the_pinned_weights_from_its_pinned_data(tmp_path):
    from checkers_agents.mcrd.data import generate, mcrd_params

    data = tmp_path / "mcrd"
    generate(
        data, "mcrd", mcrd_params(24, 32, shard_size=12, backend="cpu", selfplay_playouts=8), seed=3, progress=False
    )
    run = tmp_path / "run"
    options = ["--data", str(data), "--held-out", str(data), "--steps", "30", "--batch-size", "16", "--seed", "3"]
    mcrd_net.main([*options, "--eval-games", "0", "--out", str(run), "--no-progress", "--no-tensorboard"])
    check("mcrd-net", run / "weights.safetensors", "7bac60f2e118ce83")
