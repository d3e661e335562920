"""The deep-search step of the positions database (``checkers_training.positions.deep``):
its values are the exact search's of the merged positions, a killed run resumes to the same
bytes, a rerun with other parameters is refused by name, the sample is seeded and of the
asked size, the labels take the deep value where present (the endgame database's over it),
and ``checkers data positions --deep`` runs end to end."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from checkers_agents.alphabeta import Searcher, make_evaluator
from checkers_env import BLACK, Board
from checkers_env.errors import ShardError
from checkers_env.shards import shard_path
from checkers_evaluation.cli import main
from checkers_training import positions
from checkers_training.positions.deep import DEEP, merged_identity

TINY = [
    positions.Stage("positional-d2", 4, depth=2, random_plies=2, shard_size=2),
    positions.Stage("acf", 2, kind="records", shard_size=2),
]


def quiet(out, seed=3) -> positions.Run:
    """The run's settings of the tests: no progress bars."""
    return positions.Run(out, seed=seed, progress=False)


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    """A tiny merged database (built once for the module; tests copy it)."""
    out = tmp_path_factory.mktemp("positions")
    run = quiet(out)
    positions.build_stages(run, TINY)
    positions.merge(run, TINY)
    return out


@pytest.fixture
def db(merged, tmp_path):
    out = tmp_path / "db"
    shutil.copytree(merged, out)
    return out


def shard_bytes(folder):
    return {path.name: path.read_bytes() for path in sorted(folder.glob("shard-*.npz"))}


def test_deep_values_are_the_exact_search_of_the_merged_positions(db):
    card = positions.deep_search(quiet(db), "positional", 2, positions=12, shard_size=5)
    assert card["complete"] and card["positions"] == 12 and card["shard_counts"] == [5, 5, 2]
    data = DEEP.load(positions.deep_folder(db))
    merged = positions.load_positions(db)
    searcher = Searcher(make_evaluator("positional"))
    for row, value in zip(data["row"], data["value"]):
        board = Board(int(merged["mover"][row]), int(merged["opponent"][row]), int(merged["kings"][row]), BLACK)
        assert value == searcher.search(board, 2, None, None).value
    # the labels' deep part: tanh(v / 2s) with the card's scale, NaN where not searched
    expected = np.full(len(merged["mover"]), np.nan)
    expected[data["row"]] = np.tanh(data["value"] / (2 * card["search_scale"]))
    np.testing.assert_array_equal(merged["deep"], expected)
    params = card["params"]
    assert (params["evaluator"], params["depth"], params["sampled"]) == ("positional", 2, True)
    assert params["merged_sha256"] == merged_identity(db)["merged_sha256"]


def test_a_killed_deep_step_resumes_to_the_same_bytes(db):
    first = positions.deep_search(quiet(db), "positional", 2, positions=12, shard_size=5)
    folder = positions.deep_folder(db)
    built = shard_bytes(folder)
    shard_path(folder, 1).unlink()
    shard_path(folder, 2).write_bytes(built["shard-00002.npz"][:40])  # truncated by a kill
    again = positions.deep_search(quiet(db), "positional", 2, positions=12, shard_size=5)
    assert shard_bytes(folder) == built and again["built_now"] == 2
    assert {k: v for k, v in again.items() if k not in ("built_now", "wall_s")} == {
        k: v for k, v in first.items() if k not in ("built_now", "wall_s")
    }


def test_a_rerun_with_other_parameters_is_refused_by_name(db):
    positions.deep_search(quiet(db), "positional", 2, positions=12, shard_size=5)
    with pytest.raises(ShardError, match=r"depth 2 \(now 3\)"):
        positions.deep_search(quiet(db), "positional", 3, positions=12, shard_size=5)
    with pytest.raises(ShardError, match=r"evaluator 'positional' \(now 'material'\)"):
        positions.deep_search(quiet(db), "material", 2, positions=12, shard_size=5)
    with pytest.raises(ShardError, match="another --seed"):
        positions.deep_search(quiet(db, seed=4), "positional", 2, positions=12, shard_size=5)


def test_the_sample_is_seeded_uniform_and_of_the_asked_size(db):
    rows = positions.sample_rows(100, 10, 5)
    assert len(rows) == len(set(rows)) == 10 and list(rows) == sorted(rows) and rows.max() < 100
    np.testing.assert_array_equal(rows, positions.sample_rows(100, 10, 5))
    assert not np.array_equal(rows, positions.sample_rows(100, 10, 6))
    np.testing.assert_array_equal(positions.sample_rows(7, None, 5), np.arange(7))
    np.testing.assert_array_equal(positions.sample_rows(7, 9, 5), np.arange(7))
    card = positions.deep_search(quiet(db), "material", 1, positions=9, shard_size=4)
    size = card["params"]["merged_positions"]
    rows = DEEP.load(positions.deep_folder(db))["row"]
    np.testing.assert_array_equal(rows, positions.sample_rows(size, 9, card["seed"]))
    assert card["seed"] == positions.stage_seed(3, "deep")


def test_all_positions_are_searched_when_the_sample_is_not_smaller(merged, tmp_path):
    out = tmp_path / "db"
    shutil.copytree(merged, out)
    size = len(positions.load_positions(out)["mover"])
    card = positions.deep_search(quiet(out), "material", 1, positions=size + 5, shard_size=size)
    assert card["positions"] == size and not card["params"]["sampled"]
    assert np.isfinite(positions.load_positions(out)["deep"]).sum() >= size - 5  # no move: NaN


def test_labels_take_the_deep_value_where_present_and_the_database_over_it():
    data = {
        "wins": np.array([3, 0, 1, 2]),
        "draws": np.array([1, 2, 0, 0]),
        "losses": np.array([0, 0, 1, 0]),
        "search_sum": np.array([1.2, 0.0, 0.5, 0.0]),
        "searched": np.array([2, 0, 1, 0]),
        "egdb": np.array([positions.NOT_PROBED, positions.NOT_PROBED, -1, positions.NOT_PROBED], dtype=np.int8),
    }
    before = positions.labels(data, 0.5)
    data["deep"] = np.array([np.nan, -0.5, 0.9, 0.2])
    np.testing.assert_allclose(
        positions.labels(data, 0.5), [before[0], 0.5 * 0.0 + 0.5 * -0.5, -1.0, 0.5 * 1.0 + 0.5 * 0.2], rtol=1e-6
    )


def test_no_deep_folder_leaves_the_database_as_it_was_and_a_stale_one_is_refused(db):
    assert "deep" not in positions.load_positions(db)
    positions.deep_search(quiet(db), "material", 1, positions=5, shard_size=5)
    positions.merge(quiet(db), TINY[:1])  # another merge under the deep step
    with pytest.raises(ShardError, match="searched another merged set"):
        positions.load_positions(db)


def test_checkers_data_positions_deep(tmp_path, capsys):
    recipe = tmp_path / "recipe.json"
    recipe.write_text(json.dumps([{"name": "material-d1", "games": 2, "evaluator": "material", "depth": 1}]))
    out = tmp_path / "db"
    common = ["data", "positions", "--recipe", str(recipe), "--out", str(out), "--seed", "2", "--no-progress"]
    deep = ["--deep", "positional", "--deep-depth", "2", "--deep-positions", "6"]
    assert main([*common, *deep]) == 0
    line = capsys.readouterr().out
    assert "merged 1 stages" in line and "deep search (positional, depth 2): 6 of " in line
    card = json.loads((out / "deep" / "card.json").read_text())
    assert card["command"].endswith("--deep-positions 6 --deep-only")
    assert main([*common, *deep, "--deep-only"]) == 0
    assert "(0 shards built now)" in capsys.readouterr().out
    assert main([*common, "--deep", "positional", "--deep-only"]) == 2
    assert "depth 2 (now 8)" in capsys.readouterr().err
    assert main([*common, "--deep-only"]) == 2
    assert "give --deep SPEC" in capsys.readouterr().err
    assert main([*common, *deep, "--stages", "material-d1"]) == 2
    assert "give one of them" in capsys.readouterr().err
