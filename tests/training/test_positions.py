"""The database of diverse quiet positions (``checkers_training.positions``): stages build
resumably to the same bytes, the merge counts each position from its mover's view, the
records stage reads real games, the endgame database re-scores, bad recipes are refused by
name, and ``checkers data positions`` runs end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

from checkers_agents.outcome_net import selfplay
from checkers_agents.outcome_net.quiet import quiet_mask
from checkers_env import Board
from checkers_env.datasets import ACF_GAMES
from checkers_env.pdn import iter_pdn
from checkers_env.shards import shard_path
from checkers_evaluation.cli import main
from checkers_training import positions
from checkers_training.positions.merging import egdb_values, half_turn

TINY = [
    positions.Stage("positional-d2", 5, depth=2, random_plies=2, shard_size=2),
    positions.Stage("acf", 3, kind="records", shard_size=2),
]


def shard_bytes(folder):
    return {path.name: path.read_bytes() for path in sorted(folder.glob("shard-*.npz"))}


def test_a_stage_killed_after_its_shards_rebuilds_the_same_bytes_and_the_merge_is_the_same(tmp_path):
    run = positions.Run(tmp_path, seed=7, progress=False)
    positions.build_stages(run, TINY)
    first = {stage.name: shard_bytes(positions.stage_folder(tmp_path, stage.name)) for stage in TINY}
    assert [len(first[stage.name]) for stage in TINY] == [3, 2]
    card = positions.merge(run, TINY)
    merged = shard_bytes(tmp_path / "merged")
    for stage in TINY:  # a kill: one shard of each stage lost, and the merge's
        shard_path(positions.stage_folder(tmp_path, stage.name), 1).unlink()
    shard_path(tmp_path / "merged", 0).unlink()
    positions.build_stages(run, TINY)
    assert {stage.name: shard_bytes(positions.stage_folder(tmp_path, stage.name)) for stage in TINY} == first
    assert positions.merge(run, TINY) == card
    assert shard_bytes(tmp_path / "merged") == merged
    assert card["stages"]["positional-d2"]["games"] == 5 and card["stages"]["acf"]["games"] == 3
    assert card["positions"] == len(positions.load_positions(tmp_path)["mover"]) > 0
    # another seed is another run: its stages play other games
    other = positions.build_stages(positions.Run(tmp_path / "other", seed=8, progress=False), TINY[:1])
    assert other[0]["seed"] != positions.stage_seed(7, "positional-d2")


def test_a_stage_searches_with_the_zoo_net_it_names():
    # Same games, streams and depth: only the evaluator differs, so the search values must.
    net = positions.play_stage_games(2, 0, 0, "zoo:td-minimax", 1, 2)
    hand = positions.play_stage_games(2, 0, 0, "positional", 1, 2)
    assert len(net["black"]) > 0 and np.isfinite(net["search"]).any()
    searched = np.isfinite(net["search"][:4]) & np.isfinite(hand["search"][:4])
    assert searched.any() and not np.array_equal(net["search"][:4][searched], hand["search"][:4][searched])


def twin(black, white, kings, black_to_move):
    """The same position for the other colour: colours swapped, board turned half a circle."""
    return half_turn(white), half_turn(black), half_turn(kings), ~black_to_move


def test_the_merge_counts_a_position_and_its_colour_twin_as_one_from_the_movers_view():
    game = selfplay.play_games(1, 3, 0, "positional", 2, 4)
    quiet = quiet_mask(game["black"], game["white"], game["kings"], game["black_to_move"])
    k = int(np.flatnonzero(quiet & game["black_to_move"] & (game["ply"] > 6))[0])
    b, w, kings = (np.uint32(game[name][k]) for name in ("black", "white", "kings"))
    tb, tw, tk, _ = twin(np.array([b]), np.array([w]), np.array([kings]), np.array([True]))
    capture = Board.from_fen("B:W18:B14")  # Black must jump 14x23: not quiet
    data = {
        "black": np.array([b, tb[0], b, capture.black], dtype=np.int64),
        "white": np.array([w, tw[0], w, capture.white], dtype=np.int64),
        "kings": np.array([kings, tk[0], kings, 0], dtype=np.int64),
        "black_to_move": np.array([True, False, True, True]),
        "outcome": np.array([1, -1, 0, 1], dtype=np.int8),  # each from its side to move's view
        "search": np.array([30.0, np.nan, -10.0, 5.0], dtype=np.float32),
    }
    table = positions.stage_table(data, scale=20.0)
    assert len(table["mover"]) == 1  # the capture position is dropped, the twin merged
    assert (table["mover"][0], table["opponent"][0], table["kings"][0]) == (b, w, kings)
    assert (table["wins"][0], table["draws"][0], table["losses"][0]) == (1, 1, 1)
    assert table["searched"][0] == 2
    assert table["search_sum"][0] == pytest.approx(np.tanh(30 / 40) + np.tanh(-10 / 40))
    assert table["sources"][0] == 1
    # two stages that saw it: sources add up, counts too
    both = positions.merge_table({name: np.concatenate([table[name], table[name]]) for name in table})
    assert both["sources"][0] == 2 and both["wins"][0] == 2


def test_labels_mix_results_and_searches_and_the_database_overrides():
    data = {
        "wins": np.array([3, 0, 1]),
        "draws": np.array([1, 2, 0]),
        "losses": np.array([0, 0, 1]),
        "search_sum": np.array([1.2, 0.0, 0.5]),
        "searched": np.array([2, 0, 1]),
        "egdb": np.array([positions.NOT_PROBED, positions.NOT_PROBED, -1], dtype=np.int8),
    }
    np.testing.assert_allclose(positions.labels(data, 0.25), [0.75 * 0.75 + 0.25 * 0.6, 0.0, -1.0], rtol=1e-6)
    np.testing.assert_allclose(positions.labels(data, 0.0)[:2], [0.75, 0.0])
    with pytest.raises(ValueError, match="search_weight"):
        positions.labels(data, 1.5)


def test_the_records_stage_reads_acf_games_with_their_results():
    games = positions.read_record_games(None, 1, 3)
    read = [game for _, game in zip(range(4), iter_pdn(ACF_GAMES))][1:]
    assert len(games["black"]) == sum(len(game.boards) for game in read)
    assert list(games["game_index"]) == [1, 2, 3] and np.isnan(games["search"]).all()
    value = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[read[0].headers["Result"]]
    first = games["game"] == 1
    np.testing.assert_array_equal(games["outcome"][first], np.where(games["black_to_move"][first], value, -value))
    assert (games["black"][0], games["white"][0], games["black_to_move"][0]) == (Board().black, Board().white, True)
    with pytest.raises(positions.RecipeError, match="4000 games"):
        positions.read_record_games(None, 3999, 2)


def test_the_endgame_database_rescores_the_positions_it_holds(tmp_path):
    from checkers_env import egdb

    egdb.build(3, tmp_path, progress=False)
    database = egdb.EndgameDatabase.open(3, tmp_path)
    boards = [Board.from_fen(fen) for fen in ("B:W27:B1,K2", "W:W27:B1,K2", "W:WK20:BK11,12", "B:W21,22:B1,2")]
    data = {
        "black": np.array([b.black for b in boards], dtype=np.int64),
        "white": np.array([b.white for b in boards], dtype=np.int64),
        "kings": np.array([b.kings for b in boards], dtype=np.int64),
        "black_to_move": np.array([b.turn == 0 for b in boards]),
        "outcome": np.zeros(len(boards), dtype=np.int8),
        "search": np.full(len(boards), np.nan, dtype=np.float32),
    }
    table = positions.position_table(data, 1.0)
    assert len(table["mover"]) == len(boards)  # all quiet
    got = egdb_values(table, 3, tmp_path)
    wdl = {"win": 1, "draw": 0, "loss": -1}
    assert list(got[:3]) == [wdl[database.probe(b).value] for b in boards[:3]]
    assert got[3] == positions.NOT_PROBED  # four pieces: outside the 3-piece database
    assert (egdb_values(table, 0) == positions.NOT_PROBED).all()


def test_a_stage_with_a_database_that_is_not_there_fails_before_playing(tmp_path):
    from checkers_env.errors import EndgameDatabaseError

    stage = positions.Stage("with-egdb", 2, depth=1, egdb_pieces=3)
    with pytest.raises(EndgameDatabaseError, match="checkers egdb build"):
        run = positions.Run(tmp_path / "out", egdb_folder=str(tmp_path / "no-egdb"), progress=False)
        positions.build_stages(run, [stage])
    assert not (tmp_path / "out").exists()


def write_recipe(tmp_path, stages) -> str:
    path = tmp_path / "recipe.json"
    path.write_text(json.dumps({"stages": stages}))
    return str(path)


@pytest.mark.parametrize(
    ("stage", "message"),
    [
        ({"name": "a", "games": 2, "evaluator": "nonsense"}, "evaluator 'nonsense' is not material, positional"),
        ({"name": "a", "games": -3}, "games must be a whole number from 1"),
        ({"name": "a", "games": 2, "depht": 4}, "unknown keys ['depht']"),
        ({"name": "a", "games": 2, "kind": "movies"}, "kind must be one of selfplay, records"),
        ({"name": "../up", "games": 2}, "a name must be a plain folder name"),
        ({"name": "a", "games": 2, "evaluator": "zoo:ppo"}, "zoo entry 'ppo' is no net evaluator"),
        ({"name": "a", "games": 5000, "kind": "records"}, "the ACF archive holds 4000 games"),
        ({"games": 2}, "has no 'name'"),
    ],
)
def test_a_bad_recipe_is_refused_naming_the_stage_and_the_fault(tmp_path, stage, message):
    with pytest.raises(positions.RecipeError) as caught:
        positions.read_recipe(write_recipe(tmp_path, [stage]))
    assert message in str(caught.value)


def test_two_stages_of_one_name_are_refused(tmp_path):
    with pytest.raises(positions.RecipeError, match="a second stage of that name"):
        positions.read_recipe(write_recipe(tmp_path, [{"name": "a", "games": 1}, {"name": "a", "games": 2}]))


def test_the_diverse_recipe_splits_its_games_over_many_players():
    recipe = positions.diverse_recipe(100_000, egdb_pieces=5)
    assert sum(stage.games for stage in recipe) == 100_000
    assert len({stage.evaluator for stage in recipe if stage.kind == "selfplay"}) >= 8
    assert recipe[-1].kind == "records" and recipe[-1].games == 4000  # the archive's games at most
    assert all(stage.egdb_pieces == 5 for stage in recipe if stage.kind == "selfplay")
    small = positions.diverse_recipe(2100)
    assert sum(stage.games for stage in small) == 2100 and small[-1].games == 100  # 1 of 21 by weight
    assert min(stage.games for stage in positions.diverse_recipe(21)) == 1
    with pytest.raises(positions.RecipeError, match="20 games are too few for its 18 stages"):
        positions.diverse_recipe(20)


def test_checkers_data_positions_builds_some_stages_then_merges(tmp_path, capsys):
    recipe = write_recipe(
        tmp_path,
        [
            {"name": "material-d1", "games": 3, "evaluator": "material", "depth": 1},
            {"name": "acf", "kind": "records", "games": 2},
        ],
    )
    out = tmp_path / "db"
    common = ["data", "positions", "--recipe", recipe, "--out", str(out), "--seed", "4", "--no-progress"]
    assert main([*common, "--stages", "acf"]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: 1 stages built (2 games, ")
    assert not (out / "merged").exists()
    assert main([*common, "--merge-only"]) == 0
    line = capsys.readouterr().out
    assert "merged 1 stages" in line and "1 stages missing (material-d1)" in line
    assert main(common) == 0
    line = capsys.readouterr().out
    assert "2 stages built (5 games, " in line and "merged 2 stages" in line and "missing" not in line
    card = json.loads((out / "merged" / "card.json").read_text())
    assert card["seed"] == 4 and card["command"].startswith("checkers data positions --recipe")
    assert card["positions"] == len(positions.load_positions(out)["mover"])
    assert main([*common, "--games", "10"]) == 2
    assert "a recipe file states each stage's games" in capsys.readouterr().err
    assert main([*common, "--stages", "nope"]) == 2
    assert "no stage nope in the recipe" in capsys.readouterr().err
