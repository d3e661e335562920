"""The MCRD CNN trainer: a tiny run lowers the loss, resumes to the same weights as an
unbroken run, reports the held-out error, promotes a playable zoo agent, and refuses bad
databases before making a run folder."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file

from checkers_agents.mcrd import net
from checkers_agents.mcrd.data import games_params, generate, mcrd_params, torch_dataset
from checkers_agents.mcrd.net import CNN
from checkers_env import Game, make_agent
from checkers_env.errors import ShardError
from checkers_training import mcrd_net
from checkers_training.scaffold import TrainingError


@pytest.fixture(scope="module")
def databases(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("databases")
    generate(root / "games", "interpolated", games_params(6, shard_size=3), seed=1, progress=False)
    params = mcrd_params(48, 64, shard_size=24, backend="cpu", selfplay_playouts=16)
    generate(root / "mcrd", "mcrd", params, seed=2, progress=False)
    generate(root / "held-out", "mcrd", params, seed=3, progress=False)
    return root


def run(databases: Path, out: Path, *options: str) -> dict:
    argv = [
        "--data",
        str(databases / "mcrd"),
        "--held-out",
        str(databases / "held-out"),
        "--out",
        str(out),
        "--eval-games",
        "0",
        "--no-progress",
        "--no-tensorboard",
        "--checkpoint-every",
        "10",
        *options,
    ]
    args, given = mcrd_net.parse_args(argv)
    return mcrd_net.train(args, given)


def test_a_tiny_run_lowers_the_loss_on_its_data(databases, tmp_path):
    summary = run(databases, tmp_path / "a", "--steps", "150", "--learning-rate", "0.01")
    planes, values = torch_dataset(databases / "mcrd").tensors
    torch.manual_seed(0)  # the run's seed: its initial net
    before = mcrd_net.mean_squared_error(CNN(), planes, values)
    after = mcrd_net.mean_squared_error(CNN.load(Path(summary["run_dir"]) / mcrd_net.WEIGHTS), planes, values)
    assert after < 0.8 * before, (before, after)
    assert summary["steps"] == 150 and summary["examples_seen"] == 150 * 256
    assert summary["labels"] == "mcrd" and summary["positions"] == 48
    assert 0 <= summary["held_out_mse"] < 4


def test_a_tiny_conv_local_run_lowers_the_loss_and_its_file_says_its_architecture(databases, tmp_path):
    summary = run(
        databases,
        tmp_path / "c",
        "--steps",
        "150",
        "--learning-rate",
        "0.01",
        "--architecture",
        "conv-local",
        "--channels",
        "3",
        "--hidden",
        "2",
    )
    planes, values = torch_dataset(databases / "mcrd").tensors
    torch.manual_seed(0)  # the run's seed: its initial net
    before = mcrd_net.mean_squared_error(CNN(3, 2, "conv-local"), planes, values)
    trained = CNN.load(Path(summary["run_dir"]) / mcrd_net.WEIGHTS)
    assert (trained.architecture, trained.channels, trained.hidden_units) == ("conv-local", 3, 2)
    after = mcrd_net.mean_squared_error(trained, planes, values)
    assert after < 0.8 * before, (before, after)
    assert summary["held_out_mse"] == pytest.approx(
        mcrd_net.mean_squared_error(trained, *torch_dataset(databases / "held-out").tensors), rel=1e-6
    )


def test_sizes_of_zero_are_the_architecture_defaults():
    for architecture, sizes in (("conv-dense", (8, 32)), ("conv-local", net.SIZES["conv-local"])):
        args, _ = mcrd_net.parse_args(["--data", "d", "--architecture", architecture])
        assert mcrd_net.sizes(args) == sizes
    args, _ = mcrd_net.parse_args(["--data", "d", "--architecture", "conv-local", "--hidden", "3"])
    assert mcrd_net.sizes(args) == (net.SIZES["conv-local"][0], 3)


def test_a_resumed_run_ends_with_the_weights_of_an_unbroken_one(databases, tmp_path):
    whole = run(databases, tmp_path / "whole", "--steps", "40")
    first = run(databases, tmp_path / "broken", "--steps", "20")
    assert first["steps"] == 20
    args, given = mcrd_net.parse_args(["--out", first["run_dir"], "--resume", "--steps", "40", "--no-progress"])
    resumed = mcrd_net.train(args, given)
    assert resumed["steps"] == 40
    # Tensors, not file bytes: safetensors writes its metadata in no fixed order.
    a = load_file(Path(whole["run_dir"]) / mcrd_net.WEIGHTS)
    b = load_file(Path(resumed["run_dir"]) / mcrd_net.WEIGHTS)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_interpolated_labels_train_too_and_the_held_out_error_is_on_mcrd_labels(databases, tmp_path):
    summary = run(databases, tmp_path / "i", "--steps", "10", "--data", str(databases / "games"))
    assert summary["labels"] == "interpolated"
    net = CNN.load(Path(summary["run_dir"]) / mcrd_net.WEIGHTS)
    planes, values = torch_dataset(databases / "held-out").tensors
    assert summary["held_out_mse"] == pytest.approx(mcrd_net.mean_squared_error(net, planes, values), rel=1e-6)


def test_promotion_writes_a_zoo_agent_that_plays(databases, tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path / "zoo"))
    run(databases, tmp_path / "p", "--steps", "5", "--promote", "tiny-net", "--eval-depth", "2")
    agent = make_agent("zoo:tiny-net")
    game = Game()
    assert agent.select_move(game) in game.legal_moves()
    assert agent.depth == 2 and agent.eval == "mcrd-net"


def test_bad_databases_are_refused_before_a_run_folder_is_made(databases, tmp_path):
    with pytest.raises(TrainingError, match="--data"):
        mcrd_net.train(*mcrd_net.parse_args(["--out", str(tmp_path / "r")]))
    truncated = tmp_path / "truncated"
    truncated.mkdir()
    for path in (databases / "mcrd").iterdir():
        (truncated / path.name).write_bytes(path.read_bytes())
    shard = sorted(truncated.glob("shard-*.npz"))[0]
    shard.write_bytes(shard.read_bytes()[:100])
    with pytest.raises(ShardError, match=shard.name):
        run(databases, tmp_path / "runs" / "r", "--data", str(truncated))
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("name", ["games", "mcrd"])
def test_the_recorded_data_command_rebuilds_the_same_database(databases, tmp_path, name):
    from checkers_agents.mcrd.data import command, read_card, shard_path
    from checkers_evaluation.cli import main as checkers

    folder = tmp_path / name
    words = shlex.split(command(read_card(databases / name), folder))
    assert words[:2] == ["checkers", "data"]
    assert checkers([*words[1:], "--no-progress"]) == 0
    card = read_card(folder)
    for k in range(card["shards"]):
        assert shard_path(folder, k).read_bytes() == shard_path(databases / name, k).read_bytes()
