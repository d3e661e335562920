"""The MCRD training data (``checkers_agents.mcrd.data``): pseudo-random games and their
interpolated labels, the MCRD-labelled database, shards, resuming, workers, Ray, errors."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from checkers_agents.alphabeta import Draws, Searcher
from checkers_agents.mcrd.data import (
    MOVE_MINIMAX,
    MOVE_NONE,
    games_params,
    generate,
    interpolated_values,
    load_mcrd_data,
    mcrd_params,
    play_pseudo_random_games,
    shard_path,
    torch_dataset,
)
from checkers_agents.search_parts.evaluators import MATERIAL
from checkers_env import BLACK, WHITE, Board, Game
from checkers_env.bitboard import apply_move
from checkers_env.errors import ShardError
from checkers_env.movegen import CAPTURED, FROM, TO, generate_moves, new_move_buffer, random_below, seed_state

MCRD_PARAMS = dict(positions=6, playouts=128, shard_size=3, backend="cpu", selfplay_playouts=8, per_game=3)


def _board(data, i) -> Board:
    return Board(
        int(data["black"][i]),
        int(data["white"][i]),
        int(data["kings"][i]),
        BLACK if data["black_to_move"][i] else WHITE,
    )


def _replay(data, game):
    """The positions of game ``game`` as a ``Game``, one ``(game before the move, move kind,
    board after)`` per move, and the finished game."""
    rows = np.flatnonzero(data["game"] == game)
    played = Game()
    steps = []
    for a, b in zip(rows[:-1], rows[1:]):
        after = _board(data, b)
        move = next(m for m in played.board.legal_moves() if played.board.play(m) == after)
        steps.append((played.copy(), int(data["move_kind"][a]), after))
        played.play(move)
    return steps, played


# -- labels ----------------------------------------------------------------------------------


def test_interpolated_labels_of_a_hand_made_game():
    # A game of 4 plies that White wins (Black to move at the end, with no move): Black's
    # labels go 0, -1/4, -1/2, -3/4, -1; the mover's view negates White's plies.
    values = interpolated_values(np.arange(5), np.full(5, 4), np.full(5, -1), np.array([1, 0, 1, 0, 1]))
    assert values.dtype == np.float32
    assert values.tolist() == [0.0, 0.25, -0.5, 0.75, -1.0]
    # A real one-ply game: Black's man on 14 must take White's last man on 18.
    data = play_pseudo_random_games(1, seed=3, start=Board.from_fen("B:W18:B14"))
    assert data["game_length"].tolist() == [1] and data["game_result"].tolist() == [1]
    assert data["value"].tolist() == [0.0, -1.0]  # Black to move 0; then White to move, lost
    assert data["move_kind"].tolist()[-1] == MOVE_NONE


def test_labels_follow_the_game_results():
    data = play_pseudo_random_games(20, seed=5)
    black_view = np.where(data["black_to_move"], data["value"], -data["value"])
    expected = (data["result"] * data["ply"] / data["length"]).astype(np.float32)
    assert np.array_equal(black_view, expected)
    assert np.all(np.abs(data["value"]) <= 1)
    assert set(np.unique(data["game"])) == set(range(20))


# -- the mixture ------------------------------------------------------------------------------


def test_rate_one_plays_a_material_minimax_best_move_and_games_end_by_the_rules():
    depth = 2
    data = play_pseudo_random_games(3, seed=11, minimax_rate=1.0, minimax_depth=depth)
    searcher = Searcher(MATERIAL)
    checked = 0
    for g in range(3):
        steps, played = _replay(data, g)
        assert played.is_over() and len(played.moves) == data["game_length"][g]
        for before, kind, after in steps:
            assert kind == MOVE_MINIMAX
            assert not before.is_over()
            result = searcher.search(before.board, depth, Draws.of_game(before), first_depth=depth)
            assert after in {before.board.play(m) for m in result.best_moves}
            checked += 1
    assert checked > 50


def test_rate_zero_is_the_uniform_stream():
    seed = 7
    data = play_pseudo_random_games(2, seed=seed, minimax_rate=0.0)
    buffer = new_move_buffer()
    for g in range(2):
        rows = np.flatnonzero(data["game"] == g)
        rng = seed_state(seed, g)
        mover, opponent, kings, black = Board().black, Board().white, 0, True
        for a, b in zip(rows[:-1], rows[1:]):
            assert data["move_kind"][a] == 0
            n = generate_moves(mover, opponent, kings, black, buffer)
            rng, _ = random_below(rng, 1 << 30)
            rng, k = random_below(rng, n)
            m, o, kings = apply_move(mover, opponent, kings, black, buffer[k, FROM], buffer[k, TO], buffer[k, CAPTURED])
            mover, opponent, black = o, m, not black
            assert (data["black"][b], data["white"][b], data["kings"][b]) == (
                (mover, opponent, kings) if black else (opponent, mover, kings)
            )
        _, played = _replay(data, g)
        assert played.is_over()


def test_rate_zero_first_moves_are_uniform():
    data = play_pseudo_random_games(700, seed=2, minimax_rate=0.0, rules=None)
    firsts = data["ply"] == 1
    _, counts = np.unique(data["black"][firsts], return_counts=True)
    assert len(counts) == 7
    chi2 = float(((counts - 100.0) ** 2 / 100.0).sum())
    assert chi2 < 22.46  # 6 degrees of freedom, p = 0.001


# -- the databases ----------------------------------------------------------------------------


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("shard-*.npz"))}


def test_games_database_round_trips_and_resumes_identically(tmp_path):
    params = games_params(5, shard_size=2)
    card = generate(tmp_path / "db", "interpolated", params, seed=4, progress=False)
    assert card["complete"] and card["shards"] == 3 and card["games"] == 5
    data = load_mcrd_data(tmp_path / "db")
    direct = play_pseudo_random_games(5, seed=4)
    for name, array in direct.items():
        assert np.array_equal(data[name], array), name
    assert card["positions"] == len(direct["value"])
    before = _files(tmp_path / "db")
    shard_path(tmp_path / "db", 1).unlink()
    (tmp_path / "db" / "shard-00002.npz.x1.tmp").write_bytes(b"partial")
    shard_path(tmp_path / "db", 2).write_bytes(before["shard-00002.npz"][:100])  # truncated by a kill
    card = generate(tmp_path / "db", "interpolated", params, seed=4, progress=False)
    assert card["built_now"] == 2
    assert _files(tmp_path / "db") == before
    assert not list((tmp_path / "db").glob("*.tmp"))
    with pytest.raises(ShardError, match="other parameters"):
        generate(tmp_path / "db", "interpolated", games_params(6, shard_size=2), seed=4, progress=False)


@pytest.fixture(scope="module")
def mcrd_db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mcrd") / "db"
    generate(folder, "mcrd", mcrd_params(**MCRD_PARAMS), seed=9, progress=False)
    return folder


def test_mcrd_labels_are_consistent(mcrd_db):
    data = load_mcrd_data(mcrd_db)
    n = len(data["value"])
    # Two shards of 3, each round(3 * 0.5) = 2 self-play positions and 1 pseudo-random one.
    assert n == 6 and sorted(data["source"].tolist()) == [0, 0, 1, 1, 1, 1]
    for i in range(n):
        c = int(data["n_children"][i])
        board = _board(data, i)
        moves = board.legal_moves()
        assert c == len(moves) > 0
        paths = [tuple(int(s) for s in row if s) for row in data["move_path"][i, :c]]
        assert paths == [m.path for m in moves]
        wins, draws, losses, playouts = (data[k][i, :c] for k in ("wins", "draws", "losses", "playouts"))
        assert np.array_equal((wins - draws) // 2 + draws + losses, playouts)
        assert np.all(losses >= 0) and not data["playouts"][i, c:].any()
        chosen = int(data["chosen"][i])
        rate = wins[chosen] / (2 * playouts[chosen])
        assert data["value"][i] == np.float32(2 * rate - 1)
        assert -1 <= data["value"][i] <= 1
        assert wins[chosen] / playouts[chosen] == max(wins / playouts)
    assert np.all(data["budget"] == MCRD_PARAMS["playouts"])


def test_mcrd_workers_give_the_same_bytes(mcrd_db, tmp_path):
    generate(tmp_path / "w2", "mcrd", mcrd_params(**MCRD_PARAMS), seed=9, workers=2, progress=False)
    assert _files(tmp_path / "w2") == _files(mcrd_db)


def test_ray_gives_the_same_data(tmp_path):
    ray = pytest.importorskip("ray")
    params = games_params(4, shard_size=2)
    generate(tmp_path / "local", "interpolated", params, seed=1, progress=False)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        generate(tmp_path / "ray", "interpolated", params, seed=1, ray=True, progress=False)
    finally:
        ray.shutdown()
    assert _files(tmp_path / "ray") == _files(tmp_path / "local")


def test_torch_dataset(mcrd_db):
    dataset = torch_dataset(mcrd_db)
    planes, values = dataset.tensors
    assert tuple(planes.shape) == (6, 3, 8, 8) and tuple(values.shape) == (6,)
    data = load_mcrd_data(mcrd_db)
    own = np.where(data["black_to_move"], data["black"], data["white"])
    assert [int(planes[i, 0].sum()) for i in range(6)] == [bin(int(b)).count("1") for b in own]


# -- errors -----------------------------------------------------------------------------------


def _copy_db(source, target):
    target.mkdir()
    for path in source.iterdir():
        (target / path.name).write_bytes(path.read_bytes())
    return target


def test_broken_databases_give_one_clear_error(mcrd_db, tmp_path):
    shard = "shard-00001.npz"
    corrupt = _copy_db(mcrd_db, tmp_path / "corrupt")
    raw = bytearray((corrupt / shard).read_bytes())
    raw[200:260] = b"\xff" * 60
    (corrupt / shard).write_bytes(bytes(raw))
    truncated = _copy_db(mcrd_db, tmp_path / "truncated")
    (truncated / shard).write_bytes(raw[: len(raw) // 2])
    version = _copy_db(mcrd_db, tmp_path / "version")
    with np.load(version / shard) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["format_version"] = np.int64(99)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    (version / shard).write_bytes(buffer.getvalue())
    for folder, message in (
        (corrupt, "corrupt or truncated"),
        (truncated, "corrupt or truncated"),
        (version, "format version 99"),
    ):
        with pytest.raises(ShardError, match=message) as caught:
            load_mcrd_data(folder)
        assert str(folder / shard) in str(caught.value) and "\n" not in str(caught.value)
    counts = _copy_db(mcrd_db, tmp_path / "counts")
    card = json.loads((counts / "card.json").read_text())
    card["shard_counts"][0] += 1
    (counts / "card.json").write_text(json.dumps(card))
    with pytest.raises(ShardError, match="the card says"):
        load_mcrd_data(counts)
    old = _copy_db(mcrd_db, tmp_path / "old")
    card["format_version"] = 0
    (old / "card.json").write_text(json.dumps(card))
    with pytest.raises(ShardError, match="card of format version 0"):
        load_mcrd_data(old)
    (old / "card.json").unlink()
    with pytest.raises(ShardError, match="missing card"):
        load_mcrd_data(old)


# -- the command line -----------------------------------------------------------------------------


def test_cli_data_games_and_bad_values(tmp_path, capsys):
    from checkers_evaluation.cli import main

    out = tmp_path / "games"
    assert main(["data", "games", "--games", "3", "--out", str(out), "--seed", "2", "--no-progress"]) == 0
    assert "3 games" in capsys.readouterr().out
    assert load_mcrd_data(out)["game_index"].tolist() == [0, 1, 2]
    assert main(["data", "games", "--games", "0", "--out", str(out)]) == 2
    assert (
        main(["data", "mcrd", "--positions", "2", "--playouts", "8", "--out", str(out), "--minimax-rate", "1.5"]) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("checkers data") for line in err)
