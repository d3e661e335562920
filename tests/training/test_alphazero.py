"""The AlphaZero trainer: a tiny run lowers its losses, a run stopped after a generation and
resumed ends with the weights of an unbroken one, the curve is written and promoted, and
bad files give one clear error naming them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file

from checkers_agents.alphazero import net as az_net
from checkers_agents.alphazero import selfplay
from checkers_agents.search_parts.endgame_probe import END_EGDB
from checkers_env.errors import EndgameDatabaseError, ShardError, WeightsError
from checkers_training import alphazero as trainer
from checkers_training import scaffold
from checkers_training.checkpoints import CHECKPOINT
from checkers_training.scaffold import TrainingError

TINY = [
    "--games",
    "6",
    "--shard-size",
    "3",
    "--simulations",
    "8",
    "--slots",
    "3",
    "--hidden",
    "16",
    "--middle",
    "8",
    "--batch-size",
    "64",
    "--workers",
    "1",
    "--no-progress",
    "--no-tensorboard",
]


def run(out: Path, *options: str) -> dict:
    args, given = trainer.parse_args([*TINY, "--out", str(out), "--eval-games", "0", *options])
    return trainer.train(args, given)


def _losses(weights: dict[str, np.ndarray] | None, data: dict) -> tuple[float, float]:
    net = az_net.policy_value_net(16, 8, seed=0)
    if weights is not None:
        net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    with torch.no_grad():
        policy, value = trainer.losses(net, *trainer.training_batch(data, np.arange(len(data["own"]))))
    return float(policy), float(value)


def test_a_tiny_run_lowers_its_losses_on_its_data(tmp_path):
    summary = run(tmp_path / "a", "--generations", "1", "--epochs", "40", "--learning-rate", "0.01")
    folder = Path(summary["run_dir"])
    data = selfplay.load_shards(sorted((folder / "data" / "gen-0").glob("shard-*.npz")))
    assert len(data["own"]) > 200
    before = _losses(None, data)
    after = _losses(load_file(folder / trainer.WEIGHTS), data)
    assert after[0] < 0.9 * before[0] and after[1] < 0.9 * before[1]


def test_the_value_target_mixes_the_result_with_the_root_value_by_the_share(tmp_path):
    summary = run(tmp_path / "a", "--generations", "1", "--root-value-share", "0.25")
    data = selfplay.load_shards(sorted((Path(summary["run_dir"]) / "data" / "gen-0").glob("shard-*.npz")))
    rows = np.arange(len(data["own"]))
    assert np.any(data["search"] != data["outcome"])  # else the mix could not show
    target = trainer.training_batch(data, rows, 0.25)[3].numpy()
    np.testing.assert_allclose(target, 0.75 * data["outcome"] + 0.25 * data["search"], rtol=1e-6)
    np.testing.assert_array_equal(trainer.training_batch(data, rows)[3].numpy(), data["outcome"])
    np.testing.assert_allclose(trainer.training_batch(data, rows, 1.0)[3].numpy(), data["search"])
    with pytest.raises(TrainingError, match="--root-value-share: must be 0.0 to 1.0"):
        trainer.parse_args([*TINY, "--out", str(tmp_path / "b"), "--root-value-share", "1.5"])


def test_the_summary_gives_the_device_and_the_speeds_of_self_play_and_training(tmp_path):
    summary = run(tmp_path / "a", "--generations", "2", "--device", "cpu")
    assert summary["device"] == "cpu"
    folder = Path(summary["run_dir"])
    net = az_net.policy_value_net(16, 8)
    state = scaffold.load_checkpoint(folder / CHECKPOINT, net=net, optimizer=torch.optim.AdamW(net.parameters()))
    played = [
        len(selfplay.load_shards(sorted((folder / "data" / f"gen-{g}").glob("shard-*.npz")))["own"]) for g in range(2)
    ]
    assert state["played"] == sum(played)
    # two epochs a generation; generation 1's window holds both generations' decisions
    assert state["trained"] == 2 * played[0] + 2 * sum(played)
    assert summary["selfplay_decisions_per_s"] == pytest.approx(state["played"] / state["selfplay_s"], rel=1e-3)
    assert summary["train_samples_per_s"] == pytest.approx(state["trained"] / state["train_s"], rel=1e-3)


@pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a GPU here")
def test_device_cuda_without_a_gpu_is_refused_naming_the_option(tmp_path):
    with pytest.raises(TrainingError, match="--device cuda: torch sees no GPU"):
        run(tmp_path / "a", "--generations", "1", "--device", "cuda")
    assert not (tmp_path / "a").exists()
    # --device is a session option: a resume may name another (a GPU run goes on on a CPU)
    first = run(tmp_path / "b", "--generations", "1")
    args, given = trainer.parse_args(
        ["--out", first["run_dir"], "--resume", "--generations", "2", "--device", "cuda", "--no-progress"]
    )
    with pytest.raises(TrainingError, match="--device cuda"):
        trainer.train(args, given)
    args, given = trainer.parse_args(
        ["--out", first["run_dir"], "--resume", "--generations", "2", "--device", "cpu", "--no-progress"]
    )
    assert trainer.train(args, given)["generations"] == 2


def test_a_resumed_run_ends_with_the_weights_of_an_unbroken_one(tmp_path):
    whole = run(tmp_path / "whole", "--generations", "2")
    first = run(tmp_path / "broken", "--generations", "1")
    args, given = trainer.parse_args(["--out", first["run_dir"], "--resume", "--generations", "2", "--no-progress"])
    resumed = trainer.train(args, given)
    assert resumed["generations"] == 2
    a = load_file(Path(whole["run_dir"]) / trainer.WEIGHTS)
    b = load_file(Path(resumed["run_dir"]) / trainer.WEIGHTS)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
    # generation 1 played with generation 0's net, the first with the initial weights
    assert (Path(resumed["run_dir"]) / "weights-gen0.safetensors").exists()
    assert (Path(resumed["run_dir"]) / trainer.INITIAL).exists()


def test_the_strength_curve_is_written_and_promoted(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path / "zoo"))
    summary = run(
        tmp_path / "c",
        "--generations",
        "1",
        "--eval-games",
        "2",
        "--anchors",
        "random;greedy",
        "--anchor-ratings",
        "0;53",
        "--eval-opponents",
        "random",
        "--eval-simulations",
        "4",
        "--promote",
        "tiny-az",
    )
    curve = json.loads((Path(summary["run_dir"]) / "curve.json").read_text())
    assert [p["generation"] for p in curve] == [0] and np.isfinite(curve[0]["rating"])
    assert (Path(summary["run_dir"]) / "curve.png").stat().st_size > 1000
    card = json.loads((tmp_path / "zoo" / "tiny-az" / "card.json").read_text())
    assert card["kind"] == "alphazero" and card["params"] == {"time": 0.5}
    assert card["training"]["curve"] == curve
    from checkers_env import Game, make_agent

    agent = make_agent("zoo:tiny-az,time=0.05")
    assert agent.select_move(Game()) in Game().legal_moves()


def test_bad_anchors_are_refused_before_a_run_folder_is_made(tmp_path):
    with pytest.raises(TrainingError, match="anchor-ratings"):
        run(tmp_path / "d", "--anchors", "random;greedy", "--anchor-ratings", "0")
    assert not (tmp_path / "d").exists()


def test_egdb_pieces_ends_self_play_games_at_the_database_and_needs_it_built(tmp_path, monkeypatch, egdb_folder):
    monkeypatch.setenv("CHECKERS_EGDB", str(tmp_path / "none"))
    with pytest.raises(EndgameDatabaseError, match="4"):
        run(tmp_path / "d", "--generations", "1", "--egdb-pieces", "4")
    assert not (tmp_path / "d").exists()
    monkeypatch.setenv("CHECKERS_EGDB", str(egdb_folder))
    summary = run(tmp_path / "a", "--generations", "1", "--egdb-pieces", "4", "--games", "8", "--shard-size", "8")
    shard = selfplay.read_shard(Path(summary["run_dir"]) / "data" / "gen-0" / "shard-00000.npz")
    assert (shard["game_end"] == END_EGDB).any()


def test_a_truncated_shard_is_an_error_naming_it_and_is_played_again(tmp_path):
    summary = run(tmp_path / "e", "--generations", "1")
    shard = Path(summary["run_dir"]) / "data" / "gen-0" / "shard-00001.npz"
    whole = shard.read_bytes()
    shard.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ShardError, match="shard-00001.npz.*corrupt or truncated"):
        selfplay.read_shard(shard)
    args, given = trainer.parse_args(["--out", summary["run_dir"], "--resume", "--generations", "2", "--no-progress"])
    trainer.train(args, given)
    assert shard.read_bytes() == whole  # the same games, played again


def test_a_checkpoint_of_another_shape_is_an_error_naming_it(tmp_path):
    summary = run(tmp_path / "f", "--generations", "1")
    record = json.loads((Path(summary["run_dir"]) / "run.json").read_text())
    record["args"]["hidden"] = 32  # the saved checkpoint holds a 16-unit net
    (Path(summary["run_dir"]) / "run.json").write_text(json.dumps(record))
    args, given = trainer.parse_args(["--out", summary["run_dir"], "--resume", "--generations", "2", "--no-progress"])
    with pytest.raises(WeightsError, match="checkpoint.pt.*does not match"):
        trainer.train(args, given)


def test_a_run_goes_on_from_given_weights_and_resumes_to_the_same_net(tmp_path):
    first = Path(run(tmp_path / "first", "--generations", "1")["run_dir"]) / trainer.WEIGHTS
    whole = run(tmp_path / "whole", "--generations", "1", "--seed", "3", "--init-weights", str(first))
    folder = Path(whole["run_dir"])
    start, given = load_file(folder / trainer.INITIAL), load_file(first)
    for name in given:  # generation 0 played with the given net, not with one drawn from --seed
        np.testing.assert_array_equal(start[name], given[name])
    # killed before its first checkpoint: the resume trains on from the given net too
    broken = Path(
        run(tmp_path / "broken", "--generations", "1", "--seed", "3", "--init-weights", str(first))["run_dir"]
    )
    for written in [broken / CHECKPOINT, *broken.glob("weights-gen*.safetensors"), broken / trainer.WEIGHTS]:
        written.unlink()
    args, given_options = trainer.parse_args(["--out", str(broken), "--resume", "--no-progress"])
    trainer.train(args, given_options)
    a, b = load_file(folder / trainer.WEIGHTS), load_file(broken / trainer.WEIGHTS)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
    assert any(not np.array_equal(a[name], given[name]) for name in a)  # and it trained


def test_init_weights_of_another_shape_or_kind_are_refused_naming_the_file(tmp_path):
    first = Path(run(tmp_path / "first", "--generations", "1")["run_dir"]) / trainer.WEIGHTS
    with pytest.raises(
        WeightsError, match=r"weights.safetensors: a 16-8 net, but the run's net is 32-8 \(give --hidden 16"
    ):
        run(tmp_path / "wide", "--hidden", "32", "--init-weights", str(first))
    assert not (tmp_path / "wide").exists()
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a net")
    with pytest.raises(WeightsError, match="bad.safetensors"):
        run(tmp_path / "bad", "--init-weights", str(bad))
    assert not (tmp_path / "bad").exists()


def test_a_stage_from_the_zoo_net_keeps_the_earlier_stages_on_its_card(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path / "zoo"))
    stage1 = run(tmp_path / "s1", "--generations", "1", "--promote", "alphazero")
    card_file = tmp_path / "zoo" / "alphazero" / "card.json"
    card = json.loads(card_file.read_text())
    card["measures"] = {"vs_anchor": {"score": 0.5}}
    card_file.write_text(json.dumps(card))
    stage2 = run(tmp_path / "s2", "--generations", "1", "--init-weights", "zoo", "--promote", "alphazero")
    start = load_file(Path(stage2["run_dir"]) / trainer.INITIAL)
    given = load_file(Path(stage1["run_dir"]) / trainer.WEIGHTS)
    assert all(np.array_equal(start[name], given[name]) for name in given)
    card = json.loads((tmp_path / "zoo" / "alphazero" / "card.json").read_text())
    assert card["training"]["init_weights"] == "zoo"
    assert [stage["run"] for stage in card["training"]["earlier_stages"]] == ["s1"]
    assert card["training"]["earlier_stages"][0]["measures"] == {"vs_anchor": {"score": 0.5}}
    assert "in 2 stages" in card["description"]
    stage3 = run(tmp_path / "s3", "--generations", "1", "--init-weights", "zoo", "--promote", "alphazero")
    card = json.loads((tmp_path / "zoo" / "alphazero" / "card.json").read_text())
    assert [stage["run"] for stage in card["training"]["earlier_stages"]] == ["s1", "s2"]
    assert card["training"]["run"] == Path(stage3["run_dir"]).name == "s3"


def test_a_run_promoted_again_after_it_went_on_counts_its_time_once(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path / "zoo"))
    card_file = tmp_path / "zoo" / "alphazero" / "card.json"
    run(tmp_path / "s1", "--generations", "1", "--promote", "alphazero")
    stage2 = run(tmp_path / "s2", "--generations", "1", "--init-weights", "zoo", "--promote", "alphazero")
    card = json.loads(card_file.read_text())
    card["measures"] = {"vs_anchor": {"score": 0.6}}
    card["training"]["init_weights"] = "zoo (s1's net)"
    card_file.write_text(json.dumps(card))
    args, given = trainer.parse_args(
        ["--out", stage2["run_dir"], "--resume", "--generations", "2", "--no-progress", "--promote", "alphazero"]
    )
    trainer.train(args, given)
    card = json.loads(card_file.read_text())
    stages = card["training"]["earlier_stages"]
    assert [stage["run"] for stage in stages] == ["s1", "s2"]
    assert "wall_time_s" in stages[0] and "wall_time_s" not in stages[1]
    assert stages[1]["measures"] == {"vs_anchor": {"score": 0.6}} and "continued" in stages[1]
    assert stages[1]["budget"].startswith("1 x ") and card["training"]["budget"].startswith("2 x ")
    assert card["training"]["run"] == "s2" and card["training"]["init_weights"] == "zoo (s1's net)"
    assert "measures" not in card
