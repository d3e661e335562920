"""``checkers train outcome-net --positions DIR``: every generation trains on a database of
quiet positions besides its own games, each distinct position once with the target its counts
give; a position in the mover's frame gives the net the inputs of its real colour; a bad
database is refused before any work; a resume keeps the run's database."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from checkers_agents.outcome_net import net as outcome_net
from checkers_agents.outcome_net import selfplay
from checkers_agents.outcome_net.quiet import quiet_mask
from checkers_training import outcome_net as trainer
from checkers_training import positions
from checkers_training.positions.examples import positions_part
from checkers_training.positions.merging import half_turn
from checkers_training.scaffold import TrainingError

TINY = (
    "--games 4 --shard-size 2 --depth 2 --random-plies 2 --egdb-pieces 0 --hidden 8 --batch-size 32 "
    "--workers 1 --eval-games 0 --no-progress --no-tensorboard"
).split()
RECIPE = [
    positions.Stage("positional-d2", 4, depth=2, random_plies=2, shard_size=2),
    positions.Stage("acf", 2, kind="records", shard_size=2),
]
BUILT_BY = "checkers data positions --out DB --recipe tiny.json --seed 5"


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> Path:
    """A tiny positions database (self-play and records stages, merged, no endgame database)."""
    out = tmp_path_factory.mktemp("positions")
    settings = positions.Run(out, seed=5, command=BUILT_BY, progress=False)
    positions.build_stages(settings, RECIPE)
    positions.merge(settings, RECIPE)
    return out


def run(out: Path, *options: str) -> dict:
    args, given = trainer.parse_args([*TINY, "--out", str(out), *options])
    return trainer.train(args, given)


def test_a_generation_trains_on_its_games_and_the_database_with_the_database_s_targets(database, tmp_path):
    summary = run(tmp_path / "run", "--generations", "1", "--search-weight", "0.25", "--positions", str(database))
    run_dir = Path(summary["run_dir"])
    data = positions.load_positions(database)
    card = json.loads((database / "merged" / "card.json").read_text())
    assert summary["positions"] == {"folder": str(database), "distinct": card["positions"], "command": BUILT_BY}
    assert f"--positions {database}" in json.loads((run_dir / "run.json").read_text())["sessions"][0]["command"]

    args, _ = trainer.parse_args([*TINY, "--out", str(run_dir), "--search-weight", "0.25"])
    own = trainer._training_data(args, run_dir, 0)
    args.positions = str(database)
    black, white, kings, btm, target = trainer._training_data(args, run_dir, 0)
    n, m = len(own[-1]), card["positions"]
    assert len(target) == n + m and m > 50
    # one Adam step a minibatch of both sources, two epochs: the database was trained on
    assert summary["steps"] == 2 * math.ceil((n + m) / 32)
    for mine, theirs in zip((black, white, kings, btm, target), own):
        np.testing.assert_array_equal(mine[:n], theirs)
    np.testing.assert_array_equal(black[n:], data["mover"])
    np.testing.assert_array_equal(white[n:], data["opponent"])
    np.testing.assert_array_equal(kings[n:], data["kings"])
    assert btm[n:].all()
    # one position's target by hand: a probability, as the self-play targets are
    games = data["wins"] + data["draws"] + data["losses"]
    k = int(np.flatnonzero((data["searched"] > 0) & (data["wins"] != data["losses"]))[0])
    result = (data["wins"][k] - data["losses"][k]) / games[k]
    search = data["search_sum"][k] / data["searched"][k]
    assert target[n + k] == pytest.approx((0.75 * result + 0.25 * search + 1.0) / 2.0, abs=1e-6)
    assert ((target >= 0.0) & (target <= 1.0)).all()
    # the same run resumed keeps its database, and cannot be given another
    with pytest.raises(TrainingError, match=r"--positions .* would change the run"):
        run(run_dir, "--resume", "--positions", str(tmp_path))
    assert run(run_dir, "--resume")["positions"] == summary["positions"]


def test_a_position_in_its_mover_s_frame_gives_the_inputs_of_its_real_colour():
    game = selfplay.play_games(1, 11, 2, "positional", 2, 0)
    quiet = quiet_mask(game["black"], game["white"], game["kings"], game["black_to_move"])
    white_moves = np.flatnonzero(quiet & ~game["black_to_move"] & (game["ply"] > 8))
    assert len(white_moves) > 3
    black, white, kings = (game[name][white_moves] for name in ("black", "white", "kings"))
    real = outcome_net.batch_inputs(black, white, kings, game["black_to_move"][white_moves], patterns=True)
    # the merge's key: the mover's pieces as Black, the board turned half a circle
    table = positions.position_table({name: game[name][white_moves] for name in selfplay.SHARD_ARRAYS}, 1.0)
    np.testing.assert_array_equal(table["mover"], half_turn(white))
    turned = outcome_net.batch_inputs(
        table["mover"], table["opponent"], table["kings"], np.ones(len(white_moves), dtype=bool), patterns=True
    )
    for a, b in zip(real, turned):
        assert a.shape == b.shape and bool((a == b).all())


def test_a_bad_positions_folder_is_refused_before_any_work(database, tmp_path):
    out = tmp_path / "run"
    unfinished = tmp_path / "unfinished"
    (unfinished / "merged").mkdir(parents=True)
    card = json.loads((database / "merged" / "card.json").read_text())
    (unfinished / "merged" / "card.json").write_text(json.dumps({**card, "complete": False}))
    (tmp_path / "empty").mkdir()
    cases = [
        (tmp_path / "nowhere", "no such folder"),
        (tmp_path / "empty", "not a merged positions database: .*missing card"),
        (database / "stages" / "acf", ".*kind 'positions-stage', not a merged positions database"),
        (unfinished, ".*did not finish"),
    ]
    for folder, fault in cases:
        with pytest.raises(TrainingError, match=f"--positions {re.escape(str(folder))}: {fault}"):
            run(out, "--positions", str(folder))
        assert not out.exists(), folder


def test_positions_deep_only_trains_on_the_deep_step_s_positions_alone(database, tmp_path):
    import shutil

    db = tmp_path / "db"
    shutil.copytree(database, db)
    with pytest.raises(TrainingError, match="--positions-deep-only: .* has no finished deep step"):
        positions_part(str(db), 0.5, deep_only=True)
    with pytest.raises(TrainingError, match="--positions-deep-only: needs --positions"):
        trainer.parse_args([*TINY, "--out", str(tmp_path / "run"), "--positions-deep-only"])

    positions.deep_search(positions.Run(db, seed=5, progress=False), "positional", 2, positions=20, shard_size=8)
    data = positions.load_positions(db)
    searched = np.flatnonzero(~np.isnan(data["deep"]))
    assert 0 < len(searched) <= 20 < len(data["deep"])
    black, white, kings, btm, target = positions_part(str(db), 0.5, deep_only=True)
    np.testing.assert_array_equal(black, data["mover"][searched])
    np.testing.assert_array_equal(white, data["opponent"][searched])
    np.testing.assert_array_equal(kings, data["kings"][searched])
    assert btm.all()
    everything = positions_part(str(db), 0.5)
    np.testing.assert_array_equal(target, everything[-1][searched])
