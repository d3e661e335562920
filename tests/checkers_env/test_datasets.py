"""Game records as arrays: the env's encoding, hop actions that replay, a split by game."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env.board import move_from_row
from checkers_env.datasets import ACF_GAMES, game_dataset, positions_of_games
from checkers_env.env import move_from_hops
from checkers_env.errors import PdnError
from checkers_env.pdn import read_pdn, write_pdn


@pytest.fixture(scope="module")
def twelve(tmp_path_factory, acf_games):
    """The first 12 ACF games in a file of their own."""
    path = tmp_path_factory.mktemp("pdn") / "twelve.pdn"
    write_pdn(acf_games[:12], path)
    return path


@pytest.fixture(scope="module")
def split(twelve):
    return game_dataset([twelve], validation=0.25, seed=3)


def test_rows_are_what_the_env_sees_and_replay_each_move(twelve):
    games = read_pdn(twelve)
    data = positions_of_games(games)
    assert len(data) >= sum(g.ply for g in games)  # a row per hop, at least one per move
    row = 0
    for game_id, game in enumerate(games):
        for ply, (board, move) in enumerate(zip(game.boards, game.moves)):
            seen = []

            def replay(observation, mask, seen=seen, first=row):
                at = first + len(seen)
                assert np.array_equal(data.observations[at].astype(np.float32), observation)
                assert np.array_equal(data.action_masks[at], mask)
                seen.append(at)
                return int(data.actions[at])

            assert move_from_hops(board, replay) == move  # the env's own hop kernel agrees
            for at in seen:
                assert data.game_ids[at] == game_id and data.plies[at] == ply
                assert move_from_row(data.moves[at]) == move and data.side_to_move[at] == int(board.turn)
            assert list(data.hop_index[seen]) == list(range(len(seen)))
            assert list(data.move_actions[seen[0]][: len(seen)]) == list(data.actions[seen])
            row += len(seen)
    assert row == len(data)


def test_split_is_by_game_and_seeded(split, twelve):
    assert split.games == 12
    train, validation = set(split.train.game_ids), set(split.validation.game_ids)
    assert len(validation) == 3 and not train & validation and len(train | validation) == 12
    again = game_dataset(twelve, validation=0.25, seed=3)
    assert np.array_equal(again.validation.game_ids, split.validation.game_ids)
    other = game_dataset(twelve, validation=0.25, seed=4, max_games=12)
    assert set(other.validation.game_ids) != validation


def test_results_are_from_the_side_to_move(split, twelve):
    games = read_pdn(twelve)
    data = split.train
    for row in range(0, len(data), 17):
        result = games[data.game_ids[row]].result
        black_value = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[result]
        assert data.results[row] == (black_value if data.side_to_move[row] == 0 else -black_value)


def test_torch_dataset(split):
    torch = pytest.importorskip("torch")
    dataset = split.validation.to_torch()
    assert len(dataset) == len(split.validation)
    item = dataset[0]
    assert item["observation"].dtype == torch.float32 and item["observation"].shape == (5, 8, 8)
    assert bool(item["action_mask"][item["action"]])
    batch = next(iter(torch.utils.data.DataLoader(dataset, batch_size=4)))
    assert batch["observation"].shape == (4, 5, 8, 8)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="validation"):
        game_dataset([ACF_GAMES], validation=1.0)
    with pytest.raises(ValueError, match="max_games"):
        game_dataset([ACF_GAMES], max_games=0)  # both refused before a file is read


def test_reading_stops_at_max_games_and_errors_name_the_file(tmp_path):
    """The files are read game by game: a fault after the games asked for is never reached,
    and one before them names its file."""
    path = tmp_path / "three.pdn"
    path.write_text('[Event "a"]\n1. 11-15 23-19 *\n\n[Event "b"]\n1. 9-13 22-18 *\n\n[Event "c"]\n1. 22-18 *\n')
    split = game_dataset(path, validation=0.5, max_games=2)
    assert split.games == 2 and len(split.train) + len(split.validation) == 4
    with pytest.raises(PdnError, match=rf"^{path}: line 8: move 1 '22-18'"):
        game_dataset(path)
