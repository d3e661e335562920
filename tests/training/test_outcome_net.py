"""The outcome-net trainer: a tiny run lowers the loss, a run stopped after a generation
and resumed ends with the weights of an unbroken one, the strength curve is written, and
bad options are refused before a run folder is made."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file

from checkers_agents.outcome_net import net as outcome_net
from checkers_env import Game, make_agent
from checkers_training import outcome_net as trainer
from checkers_training.scaffold import TrainingError

TINY = [
    "--games",
    "6",
    "--shard-size",
    "3",
    "--depth",
    "2",
    "--random-plies",
    "2",
    "--egdb-pieces",
    "0",
    "--hidden",
    "8",
    "--batch-size",
    "32",
    "--workers",
    "1",
    "--no-progress",
    "--no-tensorboard",
]


def run(out: Path, *options: str) -> dict:
    args, given = trainer.parse_args([*TINY, "--out", str(out), "--eval-games", "0", *options])
    return trainer.train(args, given)


def test_a_tiny_run_lowers_the_loss_on_its_data(tmp_path):
    summary = run(tmp_path / "a", "--generations", "1", "--epochs", "30", "--learning-rate", "0.01")
    args, _ = trainer.parse_args([*TINY, "--out", str(tmp_path / "x")])
    black, white, kings, btm, target = trainer._training_data(args, Path(summary["run_dir"]), 0)
    from checkers_env.encoding import input_planes

    inputs = torch.from_numpy(input_planes(black, white, kings, btm))

    def loss(net):
        with torch.no_grad():
            return float(
                torch.nn.functional.binary_cross_entropy_with_logits(net(inputs).reshape(-1), torch.from_numpy(target))
            )

    before = loss(outcome_net.value_net(8, seed=0))
    trained = outcome_net.value_net(8, seed=0)
    weights = outcome_net.read(Path(summary["run_dir"]) / trainer.WEIGHTS)
    trained.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    assert loss(trained) < 0.9 * before
    assert len(target) > 100 and set(np.unique(target)) <= {0.0, 0.5, 1.0}
    # The same positions with TD(lambda) returns: the later searches' values move the targets.
    returns_args, _ = trainer.parse_args([*TINY, "--out", str(tmp_path / "x"), "--target-lambda", "0.8"])
    *_, returns = trainer._training_data(returns_args, Path(summary["run_dir"]), 0)
    assert returns.shape == target.shape and ((returns >= 0.0) & (returns <= 1.0)).all()
    assert not set(np.unique(returns)) <= {0.0, 0.5, 1.0}


def test_a_generation_whose_window_lacks_games_names_the_missing_folder(tmp_path):
    summary = run(tmp_path / "a", "--generations", "2", "--epochs", "1")
    run_dir = Path(summary["run_dir"])
    args, _ = trainer.parse_args([*TINY, "--out", str(tmp_path / "x")])
    with pytest.raises(TrainingError, match=r"gen-2 has no self-play shards of generation 2"):
        trainer._training_data(args, run_dir, 2)  # only generations 0 and 1 were played
    shutil.rmtree(run_dir / "data" / "gen-1")
    (run_dir / "weights-gen0.safetensors").unlink()  # the net that played generation 1
    with pytest.raises(TrainingError, match=r"lacks generation 1's.*weights-gen0.safetensors.*shorter --window"):
        run(tmp_path / "a", "--generations", "3", "--epochs", "1", "--resume")
    assert not (run_dir / "data" / "gen-2").exists()  # stopped before the generation's self-play
    # the error's advice: a shorter window trains generation 2 on its own games alone
    resumed = run(tmp_path / "a", "--generations", "3", "--epochs", "1", "--resume", "--window", "1")
    assert resumed["generations"] == 3
    assert sorted((run_dir / "data" / "gen-2").glob("shard-*.npz"))


def test_a_run_kept_without_its_games_plays_them_again_and_trains_as_an_unbroken_run(tmp_path):
    whole = run(tmp_path / "whole", "--generations", "3", "--gate-games", "0")
    first = Path(run(tmp_path / "kept", "--generations", "2", "--gate-games", "0")["run_dir"])
    played = {p.relative_to(first): p.read_bytes() for p in (first / "data").rglob("shard-*.npz")}
    shutil.rmtree(first / "data")  # the shards are not kept, as in a run folder kept in git
    resumed = run(tmp_path / "kept", "--generations", "3", "--resume")
    assert {p.relative_to(first): p.read_bytes() for p in (first / "data" / "gen-1").rglob("shard-*.npz")} == {
        k: v for k, v in played.items() if k.parts[1] == "gen-1"
    }  # generation 2's window: 1 and 2
    assert not (first / "data" / "gen-0").exists()
    a = load_file(Path(whole["run_dir"]) / trainer.WEIGHTS)
    b = load_file(Path(resumed["run_dir"]) / trainer.WEIGHTS)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])


def test_a_generation_s_games_were_played_by_the_incumbent_its_gate_met():
    gates = [{"generation": 1, "incumbent": 0}, {"generation": 2, "incumbent": 1}, {"generation": 3, "incumbent": 1}]
    assert [trainer._played_by({"gates": gates}, g) for g in range(4)] == [-1, 0, 1, 1]
    assert [trainer._played_by({"gates": []}, g) for g in range(3)] == [-1, 0, 1]  # no gate: the one before


def test_a_resumed_run_ends_with_the_weights_of_an_unbroken_one(tmp_path):
    whole = run(tmp_path / "whole", "--generations", "2")
    first = run(tmp_path / "broken", "--generations", "1")
    assert first["generations"] == 1
    args, given = trainer.parse_args(["--out", first["run_dir"], "--resume", "--generations", "2", "--no-progress"])
    resumed = trainer.train(args, given)
    assert resumed["generations"] == 2
    a = load_file(Path(whole["run_dir"]) / trainer.WEIGHTS)
    b = load_file(Path(resumed["run_dir"]) / trainer.WEIGHTS)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
    # generation 1 played with generation 0's net
    assert (Path(resumed["run_dir"]) / "weights-gen0.safetensors").exists()


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
        "0;150",
        "--eval-opponents",
        "random",
        "--eval-depth",
        "1",
        "--promote",
        "tiny-net",
        "--search",
        "pvs=1, reductions=1",
    )
    curve = json.loads((Path(summary["run_dir"]) / "curve.json").read_text())
    assert [p["generation"] for p in curve] == [0]
    assert set(curve[0]["scores"]) == {"random", "greedy"} and np.isfinite(curve[0]["rating"])
    assert (Path(summary["run_dir"]) / "curve.png").stat().st_size > 1000
    card = json.loads((tmp_path / "zoo" / "tiny-net" / "card.json").read_text())
    assert card["params"] == {"eval": "outcome-net", "time": 0.5, "egdb": 5, "pvs": 1, "reductions": 1}
    assert card["training"]["curve"] == curve and "It searches with pvs=1, reductions=1." in card["description"]
    assert set(summary["evaluations"]) == {"random"}  # the shared end-of-run evaluation


def test_bad_anchors_are_refused_before_a_run_folder_is_made(tmp_path):
    with pytest.raises(TrainingError, match="anchor-ratings"):
        run(tmp_path, "--anchors", "random;greedy", "--anchor-ratings", "0")
    with pytest.raises(TrainingError, match="--anchors: 'nosuchkind'"):
        run(tmp_path, "--anchors", "random;nosuchkind", "--anchor-ratings", "0;0")
    assert not (tmp_path / "outcome-net").exists()


@pytest.mark.parametrize(
    "search, message",
    [
        ("pvs=1,bogus=2", "no parameter 'bogus'"),
        ("time=2", "time is set by the trainer"),
        ("pvs", "'pvs' is not key=value"),
    ],
)
def test_bad_search_parameters_are_refused_before_a_run_folder_is_made(tmp_path, search, message):
    with pytest.raises(TrainingError, match=message):
        run(tmp_path / "r", "--search", search)
    assert not (tmp_path / "r").exists()


def test_old_spellings_of_egdb_pieces_and_ray_still_work(capsys):
    args, given = trainer.parse_args(["--egdb", "3", "--ray", "local"])
    assert (args.egdb_pieces, args.ray) == (3, "local") and "egdb_pieces" in given
    assert capsys.readouterr().err == (
        "checkers: warning: --egdb is deprecated and goes in the next release; use --egdb-pieces\n"
    )
    # --ray [ADDRESS], as everywhere: alone it means a local Ray.
    assert trainer.parse_args(["--ray"])[0].ray == "local"
    assert trainer.parse_args(["--ray", "10.0.0.1:6379"])[0].ray == "10.0.0.1:6379"
    assert trainer.parse_args([])[0].ray == ""


def test_a_run_saved_under_the_old_egdb_name_resumes_with_its_value(tmp_path):
    from checkers_training import scaffold

    run_dir = tmp_path / "old"
    run_dir.mkdir()
    record = {
        "trainer": trainer.TRAINER,
        "run_name": "old",
        "sessions": [],
        "args": {"egdb": 0, "runs": "runs", "run_name": "old", "resume": "", "seed": 1},
    }
    (run_dir / "run.json").write_text(json.dumps(record))
    saved = scaffold.saved_args(trainer.Args(out=str(run_dir), resume=True), trainer.TRAINER)
    assert saved["egdb_pieces"] == 0 and saved["seed"] == 1
    run, args = scaffold.open_run(trainer.TRAINER, trainer.Args(out=str(run_dir), resume=True), {"out", "resume"})
    assert args.egdb_pieces == 0 and args.seed == 1 and run.resumed


def test_a_generation_that_fails_its_gate_does_not_play_the_next_games(tmp_path, monkeypatch):
    from checkers_agents.outcome_net import selfplay

    played_by, gated, specs = [], [], []
    generate = selfplay.generate

    def spy_generate(folder, params, **kwargs):
        played_by.append(Path(params["evaluator"]).name)
        return generate(folder, params, **kwargs)

    def generation(spec: str) -> str:
        return re.search(r"weights-(gen\d+)\.safetensors", spec).group(1)

    def fake_gate(candidate, incumbent, games, folder, **kwargs):
        for spec in (candidate, incumbent):
            make_agent(spec)  # the real gate makes its players from these specs
        gated.append((generation(candidate), generation(incumbent), games))
        specs.extend((candidate, incumbent))
        score = {"gen1": 0.4, "gen2": 0.6}[generation(candidate)]
        return {"wins": 0, "draws": games, "losses": 0, "score": score}

    monkeypatch.setattr(selfplay, "generate", spy_generate)
    monkeypatch.setattr(trainer.scaffold, "gate_match", fake_gate)
    summary = run(
        tmp_path / "g",
        "--generations",
        "3",
        "--gate-games",
        "4",
        "--search-weight",
        "0.3",
        "--search",
        "table_cutoffs=1",
    )
    assert played_by == ["positional", "weights-gen0.safetensors", "weights-gen0.safetensors"]
    assert gated == [("gen1", "gen0", 4), ("gen2", "gen0", 4)]
    assert all("table_cutoffs=1" in spec.split(",") for spec in specs)
    assert [g["promoted"] for g in summary["gates"]] == [False, True] and summary["incumbent"] == 2
    run_dir = Path(summary["run_dir"])
    assert (run_dir / trainer.WEIGHTS).read_bytes() == (run_dir / "weights-gen2.safetensors").read_bytes()


def test_a_run_from_init_weights_plays_trains_on_from_and_gates_against_that_net(tmp_path, monkeypatch):
    from checkers_agents.outcome_net import selfplay

    start = tmp_path / "start.safetensors"
    outcome_net.save_tensors(start, outcome_net.tensors_of(outcome_net.value_net(8, seed=5)))
    played_by, gated = [], []
    generate = selfplay.generate

    def spy_generate(folder, params, **kwargs):
        played_by.append(Path(params["evaluator"]).name)
        return generate(folder, params, **kwargs)

    def fake_gate(candidate, incumbent, games, folder, **kwargs):
        make_agent(incumbent)  # the real gate makes its players from these specs
        gated.append(
            tuple(re.search(r"weights-(gen\d+|init)\.safetensors", spec).group(1) for spec in (candidate, incumbent))
        )
        return {"wins": 0, "draws": games, "losses": 0, "score": 0.4}

    monkeypatch.setattr(selfplay, "generate", spy_generate)
    monkeypatch.setattr(trainer.scaffold, "gate_match", fake_gate)
    # A learning rate of 0: generation 0 is the initial net itself only if training went on from it.
    summary = run(
        tmp_path / "i",
        "--generations",
        "1",
        "--epochs",
        "1",
        "--learning-rate",
        "0",
        "--gate-games",
        "2",
        "--init-weights",
        str(start),
    )
    run_dir = Path(summary["run_dir"])
    assert played_by == [trainer.INITIAL]
    assert gated == [("gen0", "init")]
    for name in (trainer.INITIAL, "weights-gen0.safetensors"):
        got = outcome_net.read(run_dir / name)
        assert all(np.array_equal(got[k], v) for k, v in outcome_net.read(start).items())
    assert summary["incumbent"] == -1 and not summary["gates"][0]["promoted"]
    assert (run_dir / trainer.WEIGHTS).read_bytes() == (run_dir / trainer.INITIAL).read_bytes()


def test_a_pattern_run_goes_on_from_a_squares_net_and_learns_its_block_rows(tmp_path):
    start = tmp_path / "start.safetensors"
    outcome_net.save_tensors(start, outcome_net.tensors_of(outcome_net.value_net(8, seed=5)))
    summary = run(tmp_path / "p", "--generations", "1", "--epochs", "1", "--patterns", "--init-weights", str(start))
    run_dir = Path(summary["run_dir"])
    assert not outcome_net.has_patterns(outcome_net.read(run_dir / trainer.INITIAL))  # its games: the given net's
    trained = outcome_net.read(run_dir / "weights-gen0.safetensors")
    assert outcome_net.has_patterns(trained) and np.count_nonzero(trained["blocks.weight"]) > 100
    # Only the rows of block states its positions had moved from zero.
    assert np.count_nonzero(np.abs(trained["blocks.weight"]).sum(1)) < 21 * 625 // 2
    agent = make_agent(f"alphabeta:eval=outcome-net,weights={run_dir / trainer.WEIGHTS},depth=2")
    assert agent.select_move(Game()) in Game().legal_moves()


def test_pattern_units_make_block_rows_that_feed_the_first_units_only(tmp_path):
    summary = run(tmp_path / "p", "--generations", "1", "--epochs", "1", "--patterns", "--pattern-units", "3")
    trained = outcome_net.read(Path(summary["run_dir"]) / "weights-gen0.safetensors")
    assert trained["blocks.weight"].shape == (21 * 625, 3) and outcome_net.pattern_units_of(trained) == 3
    assert np.count_nonzero(trained["blocks.weight"]) > 30


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--pattern-units", "4"], "give --patterns too"),
        (["--patterns", "--pattern-units", "9"], "--pattern-units: 9 is more than the --hidden 8 units"),
    ],
)
def test_pattern_units_that_do_not_fit_the_net_are_refused_before_a_run_folder_is_made(tmp_path, extra, message):
    with pytest.raises(TrainingError, match=message):
        run(tmp_path / "r", *extra)
    assert not (tmp_path / "r").exists()


def test_a_run_of_phases_goes_on_from_a_one_phase_net_and_its_phases_part(tmp_path):
    start = tmp_path / "start.safetensors"
    outcome_net.save_tensors(start, outcome_net.tensors_of(outcome_net.value_net(8, seed=5)))
    summary = run(tmp_path / "f", "--generations", "1", "--epochs", "2", "--phases", "4", "--init-weights", str(start))
    run_dir = Path(summary["run_dir"])
    initial = outcome_net.read(run_dir / trainer.INITIAL)  # the given net, each phase a copy of its layers
    assert outcome_net.phases_of(initial) == 4
    np.testing.assert_array_equal(initial["output.weight"], np.repeat(outcome_net.read(start)["output.weight"], 4, 0))
    trained = outcome_net.read(run_dir / "weights-gen0.safetensors")["output.weight"]
    moved = np.abs(trained - initial["output.weight"]).max(1)
    assert (moved > 0).all() and len(set(map(tuple, trained))) == 4  # each phase learned from its own positions
    agent = make_agent(f"alphabeta:eval=outcome-net,weights={run_dir / trainer.WEIGHTS},depth=2")
    assert agent.select_move(Game()) in Game().legal_moves()


@pytest.mark.parametrize(
    "init, message",
    [
        ("missing.safetensors", r"--init-weights .*missing\.safetensors"),
        ("patterns", r"a net with pattern inputs, but the run's net has none \(give --patterns\)"),
        ("wide", r"a 16-0 net, but the run's net is 8-0 \(give --hidden 16 --middle 0\)"),
        ("narrow", r"its pattern inputs feed 4 hidden units, but the run's feed 8 \(give --pattern-units 4\)"),
        ("zoo:no-such-net", r"--init-weights zoo:no-such-net: .*no-such-net"),
        ("phases", r"a net of 2 phases, but the run's has 1 \(give --phases 2\)"),
    ],
)
def test_bad_init_weights_are_refused_before_a_run_folder_is_made(tmp_path, init, message):
    from checkers_env.errors import WeightsError

    if init in ("wide", "patterns", "narrow", "phases"):
        net = {
            "wide": lambda: outcome_net.value_net(16, seed=0),
            "phases": lambda: outcome_net.value_net(8, seed=0, phases=2),
        }.get(
            init, lambda: outcome_net.value_net(8, seed=0, patterns=True, pattern_units=4 if init == "narrow" else 0)
        )()
        init = str(tmp_path / f"{init}.safetensors")
        outcome_net.save_tensors(init, outcome_net.tensors_of(net))
    elif not init.startswith("zoo:"):
        init = str(tmp_path / init)
    with pytest.raises(WeightsError, match=message):
        run(
            tmp_path / "runs" / "r",
            "--init-weights",
            init,
            *(["--patterns"] if init.endswith("narrow.safetensors") else []),
        )
    assert not (tmp_path / "runs").exists()


def test_the_gate_match_keeps_every_game_and_resumes(tmp_path):
    from checkers_env import CheckersError
    from checkers_training.games import gate_match

    first = gate_match("greedy", "random", 4, tmp_path, seed=3, progress=False)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
    candidate = [points[r["result"]] if r["black"] == "candidate" else 1 - points[r["result"]] for r in records]
    assert first["wins"] + first["draws"] + first["losses"] == 4
    assert first["score"] == pytest.approx(sum(candidate) / 4)
    assert [r["black"] for r in records] == ["candidate", "incumbent", "candidate", "incumbent"]
    assert (tmp_path / "games.pdn").read_text().count("[Event ") == 4
    # A kill that cut the last line: the cut game is played again, the file stays readable.
    (tmp_path / "games.jsonl").write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])
    again = gate_match("greedy", "random", 4, tmp_path, seed=3, progress=False)
    assert again == first
    assert [json.loads(line)["key"] for line in (tmp_path / "games.jsonl").read_text().splitlines()] == [
        r["key"] for r in records
    ]
    with pytest.raises(CheckersError, match="games_per_pair"):  # a folder holds one match
        gate_match("greedy", "random", 6, tmp_path, seed=3, progress=False)
