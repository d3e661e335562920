"""The outcome net and its self-play data: games are legal and labelled with their exact
results, a game depends on its seed and index only, shards are the same however they are
built, and the net through the search's evaluator interface computes the torch forward pass."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_agents.outcome_net import net as outcome_net
from checkers_agents.outcome_net import selfplay
from checkers_agents.search_parts.endgame_probe import END_EGDB
from checkers_agents.search_parts.evaluators import evaluate
from checkers_env import BLACK, WHITE, Board, Game, make_agent
from checkers_env.errors import ShardError, WeightsError


def boards_of(data, rows):
    return [
        Board(
            int(data["black"][i]),
            int(data["white"][i]),
            int(data["kings"][i]),
            BLACK if data["black_to_move"][i] else WHITE,
        )
        for i in rows
    ]


@pytest.fixture(scope="module")
def games(egdb_folder):
    return selfplay.play_games(8, seed=5, depth=2, random_plies=3, egdb_pieces=4, egdb_folder=str(egdb_folder))


def test_every_position_follows_the_one_before_by_a_legal_move(games):
    for g in games["game_index"]:
        rows = np.flatnonzero(games["game"] == g)
        assert list(games["ply"][rows]) == list(range(len(rows)))
        boards = boards_of(games, rows)
        for before, after in zip(boards, boards[1:]):
            assert after in [before.play(move) for move in before.legal_moves()]


def test_labels_are_the_games_results_exact_where_the_database_ends_them(games, egdb4):
    ends = {END_EGDB: 0, 1: 0}
    for j, g in enumerate(games["game_index"]):
        rows = np.flatnonzero(games["game"] == g)
        last = boards_of(games, rows[-1:])[0]
        result = int(games["game_result"][j])
        mover_result = result if last.turn == BLACK else -result
        if games["game_end"][j] == END_EGDB:
            probe = egdb4.probe(last)
            assert probe is not None
            assert mover_result == {"win": 1, "draw": 0, "loss": -1}[probe.value]
        elif games["game_end"][j] == 1:  # no legal move: the side to move lost
            assert not last.legal_moves() and mover_result == -1
        ends[int(games["game_end"][j])] = ends.get(int(games["game_end"][j]), 0) + 1
        black_view = np.where(games["black_to_move"][rows], games["outcome"][rows], -games["outcome"][rows])
        assert (black_view == result).all()
    assert ends[END_EGDB] > 0  # the database ended some of them


def test_random_plies_are_not_searched_and_the_rest_are(games):
    rows = games["ply"] < 3
    assert np.isnan(games["search"][rows]).all()
    searched = ~rows & np.isfinite(games["search"])
    assert searched.sum() > 0.8 * (~rows).sum()  # all but each game's final position


def test_a_game_depends_on_its_seed_and_index_only():
    whole = selfplay.play_games(4, seed=9, depth=2)
    tail = selfplay.play_games(2, seed=9, depth=2, first_game=2)
    rows = whole["game"] >= 2
    for name in selfplay.SHARD_ARRAYS:
        np.testing.assert_array_equal(whole[name][rows], tail[name])
    other = selfplay.play_games(2, seed=10, depth=2, first_game=2)
    assert len(other["ply"]) != len(tail["ply"]) or (other["black"] != tail["black"]).any()


PARAMS = {"games": 6, "shard_size": 2, "evaluator": "positional", "depth": 2, "random_plies": 2, "egdb_pieces": 0}


def test_shards_are_the_same_from_one_process_two_or_a_resume(tmp_path):
    one = selfplay.generate(tmp_path / "one", PARAMS, seed=3, progress=False)
    two = selfplay.generate(tmp_path / "two", PARAMS, seed=3, workers=2, progress=False)
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]
    one[1].unlink()
    one[2].write_bytes(one[2].read_bytes()[:100])  # a truncated shard is rebuilt
    again = selfplay.generate(tmp_path / "one", PARAMS, seed=3, progress=False)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in two]


def test_shards_from_ray_tasks_are_those_of_a_local_run(tmp_path):
    ray = pytest.importorskip("ray")
    local = selfplay.generate(tmp_path / "local", PARAMS, seed=4, progress=False)
    try:
        remote = selfplay.generate(tmp_path / "ray", PARAMS, seed=4, ray=True, progress=False)
    finally:
        ray.shutdown()
    assert [p.read_bytes() for p in local] == [p.read_bytes() for p in remote]


def test_a_bad_shard_is_refused_naming_the_file(tmp_path):
    path = selfplay.generate(tmp_path, {**PARAMS, "games": 2}, seed=1, progress=False)[0]
    path.write_bytes(b"not a shard")
    with pytest.raises(ShardError, match="shard-00000.npz: corrupt"):
        selfplay.read_shard(path)
    with pytest.raises(ShardError, match="missing"):
        selfplay.read_shard(tmp_path / "shard-00009.npz")


@pytest.mark.parametrize("middle", [0, 8])
def test_the_folded_net_computes_the_torch_forward_pass(middle):
    torch = pytest.importorskip("torch")
    from checkers_env.encoding import input_planes

    net = outcome_net.value_net(hidden=16, middle=middle, seed=2)
    with torch.no_grad():  # weights far from zero, so that ReLUs cut
        for p in net.parameters():
            p.mul_(3.0)
    evaluator = outcome_net.fold(outcome_net.tensors_of(net))
    data = selfplay.play_games(2, seed=1, depth=2)
    black, white, kings, btm = data["black"], data["white"], data["kings"], data["black_to_move"]
    with torch.no_grad():
        z = net(torch.from_numpy(input_planes(black, white, kings, btm))).reshape(-1).double()
    expected = (2 * torch.sigmoid(z) - 1).numpy()
    for i in range(len(black)):
        mover, opponent = (black[i], white[i]) if btm[i] else (white[i], black[i])
        got = evaluate(evaluator, int(mover), int(opponent), int(kings[i]), bool(btm[i]))
        assert got == pytest.approx(expected[i], abs=1e-5)


def test_weights_round_trip_and_play(tmp_path):
    pytest.importorskip("torch")
    tensors = outcome_net.tensors_of(outcome_net.value_net(hidden=8, seed=1))
    path = tmp_path / "net.safetensors"
    outcome_net.save_tensors(path, tensors)
    for name, value in outcome_net.read(path).items():
        np.testing.assert_array_equal(value, tensors[name])
    agent = make_agent(f"alphabeta:eval=outcome-net,weights={path},depth=3")
    assert agent.select_move(Game()) in Game().legal_moves()


def test_a_net_with_pattern_inputs_round_trips_and_plays_and_older_files_read_without_them(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.numpy import save_file

    net = outcome_net.value_net(hidden=8, middle=4, seed=1, patterns=True)
    with torch.no_grad():
        net.blocks.weight.normal_(0.0, 0.1)
    tensors = outcome_net.tensors_of(net)
    assert tensors["blocks.weight"].shape == (21 * 625, 8)
    path = tmp_path / "patterns.safetensors"
    outcome_net.save_tensors(path, tensors)
    read = outcome_net.read(path)
    assert read.keys() == tensors.keys() and outcome_net.has_patterns(read)
    for name, value in read.items():
        np.testing.assert_array_equal(value, tensors[name])
    agent = make_agent(f"alphabeta:eval=outcome-net,weights={path},depth=3")
    assert agent.select_move(Game()) in Game().legal_moves()
    # A file written before pattern inputs existed has no "patterns" entry: a squares net.
    squares = {k: v for k, v in tensors.items() if k != "blocks.weight"}
    save_file(squares, str(path), metadata={"kind": "outcome-net", "format": "1", "hidden": "8", "middle": "4"})
    assert not outcome_net.has_patterns(outcome_net.read(path))
    save_file(
        squares,
        str(path),
        metadata={"kind": "outcome-net", "format": "1", "hidden": "8", "middle": "4", "patterns": "1"},
    )
    with pytest.raises(WeightsError, match=r"does not fit the outcome-net shapes for hidden=8, middle=4, patterns=1"):
        outcome_net.read(path)
    # One written before the block rows could be narrower has no "pattern_units": they feed every unit.
    old = {"kind": "outcome-net", "format": "1", "hidden": "8", "middle": "4", "patterns": "1"}
    save_file(tensors, str(path), metadata=old)
    assert outcome_net.pattern_units_of(outcome_net.read(path)) == 8
    save_file(tensors, str(path), metadata=old | {"pattern_units": "9"})
    with pytest.raises(WeightsError, match=r"patterns\.safetensors.*pattern_units 9 is not between 0 and hidden 8"):
        outcome_net.read(path)


def test_pattern_inputs_that_feed_the_first_units_round_trip_and_play(tmp_path):
    torch = pytest.importorskip("torch")
    net = outcome_net.value_net(hidden=8, middle=4, seed=1, patterns=True, pattern_units=3)
    with torch.no_grad():
        net.blocks.weight.normal_(0.0, 0.1)
    tensors = outcome_net.tensors_of(net)
    path = tmp_path / "narrow.safetensors"
    outcome_net.save_tensors(path, tensors)
    read = outcome_net.read(path)
    assert read["blocks.weight"].shape == (21 * 625, 3) and outcome_net.pattern_units_of(read) == 3
    assert outcome_net.fold(read).w_blocks.shape == (21 * 625, 3)
    agent = make_agent(f"alphabeta:eval=outcome-net,weights={path},depth=3")
    assert agent.select_move(Game()) in Game().legal_moves()
    with pytest.raises(ValueError, match="pattern_units 9 is not between 0 and hidden 8"):
        outcome_net.value_net(hidden=8, patterns=True, pattern_units=9)


def test_a_net_with_phases_round_trips_and_plays_and_one_phase_becomes_several_with_its_values(tmp_path):
    pytest.importorskip("torch")
    net = outcome_net.value_net(hidden=8, middle=4, seed=1, phases=4)
    tensors = outcome_net.tensors_of(net)
    assert tensors["middle.weight"].shape == (16, 8) and tensors["output.weight"].shape == (4, 4)
    assert outcome_net.sizes_of(tensors) == (8, 4) and outcome_net.phases_of(tensors) == 4
    path = tmp_path / "phases.safetensors"
    outcome_net.save_tensors(path, tensors)
    read = outcome_net.read(path)
    for name, value in read.items():
        np.testing.assert_array_equal(value, tensors[name])
    agent = make_agent(f"alphabeta:eval=outcome-net,weights={path},depth=3")
    assert agent.select_move(Game()) in Game().legal_moves()
    # One phase copied into four: the same value for every position.
    single = outcome_net.tensors_of(outcome_net.value_net(hidden=8, middle=4, seed=2))
    copied = outcome_net.with_phases(single, 4)
    assert outcome_net.phases_of(copied) == 4
    data = selfplay.play_games(2, seed=1, depth=2)
    for i in range(0, len(data["black"]), 7):
        btm = bool(data["black_to_move"][i])
        mover, opponent = (data["black"][i], data["white"][i]) if btm else (data["white"][i], data["black"][i])
        position = (int(mover), int(opponent), int(data["kings"][i]), btm)
        assert evaluate(outcome_net.fold(copied), *position) == evaluate(outcome_net.fold(single), *position)
    with pytest.raises(ValueError, match="already has 4 phases"):
        outcome_net.with_phases(copied, 2)
    # The metadata's phases must fit the tensors.
    from safetensors.numpy import save_file

    save_file(tensors, str(path), metadata={"kind": "outcome-net", "format": "1", "hidden": "8", "middle": "4"})
    with pytest.raises(
        WeightsError,
        match="does not fit the outcome-net shapes for hidden=8, middle=4, patterns=0, pattern_units=0, phases=1",
    ):
        outcome_net.read(path)


def test_bad_weights_give_one_clear_error_naming_the_file(tmp_path):
    pytest.importorskip("torch")
    from safetensors.numpy import save_file

    path = tmp_path / "net.safetensors"
    with pytest.raises(WeightsError, match="does not exist"):
        outcome_net.read(path)
    path.write_bytes(b"\x00" * 20)
    with pytest.raises(WeightsError, match="net.safetensors.*corrupt"):
        outcome_net.read(path)
    tensors = outcome_net.tensors_of(outcome_net.value_net(hidden=8, seed=1))
    save_file(tensors, str(path), metadata={"kind": "outcome-net", "format": "1", "hidden": "16", "middle": "0"})
    with pytest.raises(WeightsError, match="does not fit the outcome-net shapes for hidden=16"):
        outcome_net.read(path)
    save_file(tensors, str(path), metadata={"kind": "mcrd-net", "format": "1"})
    with pytest.raises(WeightsError, match="not outcome-net weights"):
        make_agent(f"alphabeta:eval=outcome-net,weights={path}")
