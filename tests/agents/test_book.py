"""The opening book (``checkers_agents.book``) and the alpha-beta's ``book`` switch."""

from __future__ import annotations

import json

import pytest

from checkers_agents.book import (
    DEFAULT_BOOK,
    MIN_MOVE_GAMES,
    MIN_POSITION_GAMES,
    BookError,
    BookMove,
    OpeningBook,
)
from checkers_env import Board, Game, make_agent
from checkers_env.datasets import acf_games


def test_the_shipped_book_is_the_archive_s():
    built = OpeningBook.from_games(acf_games())
    shipped = OpeningBook.default()
    assert built.positions == shipped.positions
    start = shipped.moves(Board())
    assert sum(m.games for m in start) == 4000  # every archive game starts from the start
    assert all(sum(m.games for m in moves) >= MIN_POSITION_GAMES for moves in shipped.positions.values())


def test_plays_a_sound_master_move_and_nothing_elsewhere():
    book = OpeningBook.default()
    move = book.choose(Board())
    assert move in Board().legal_moves() and str(move) in {m.move for m in book.moves(Board())}
    assert book.choose(Board.from_fen("B:W18:B14")) is None  # not a book position


def test_refuses_thin_or_losing_statistics():
    fen = Board().fen()
    thin = OpeningBook({fen: [BookMove("11-15", MIN_MOVE_GAMES - 1, MIN_MOVE_GAMES - 1)]})
    assert thin.choose(Board()) is None  # won every time, but too few games
    losing = OpeningBook({fen: [BookMove("11-15", 40, 6.0)]})
    assert losing.choose(Board()) is None  # 15 % in 40 games
    both = OpeningBook({fen: [BookMove("11-15", 40, 6.0), BookMove("9-13", 40, 22.0), BookMove("10-14", 3, 3.0)]})
    assert str(both.choose(Board())) == "9-13"


def test_save_load_round_trip_and_errors_name_the_file(tmp_path):
    book = OpeningBook({Board().fen(): [BookMove("11-15", 10, 5.5)]})
    path = tmp_path / "book.json"
    book.save(path)
    assert OpeningBook.load(path).positions == book.positions
    with pytest.raises(BookError, match="missing.json"):
        OpeningBook.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(BookError, match="bad.json"):
        OpeningBook.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(BookError, match="not an opening book"):
        OpeningBook.load(tmp_path / "other.json")
    (tmp_path / "broken.json").write_text(
        json.dumps({"format": "checkers-book", "version": 1, "positions": {"x": [["11-15", "many"]]}})
    )
    with pytest.raises(BookError, match="malformed"):
        OpeningBook.load(tmp_path / "broken.json")
    assert DEFAULT_BOOK.exists()


def test_the_agent_plays_from_the_book_then_searches():
    agent = make_agent("alphabeta:depth=3,book=1,seed=1")
    game = Game()
    move = agent.select_move(game)
    assert move == OpeningBook.default().choose(Board()) and agent.last_search is None
    game = Game(Board.from_fen("B:W18,22:B9,14"))
    agent.select_move(game)
    assert agent.last_search is not None and agent.last_search.depth == 3
    assert make_agent("alphabeta:depth=3").book is False


@pytest.mark.timeout(60)  # a named pipe opened for reading would wait for a writer for ever
def test_a_book_path_that_is_not_a_regular_file_is_refused_before_it_is_opened(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(BookError, match="opening book '.*pipe' is a named pipe"):
        OpeningBook.load(tmp_path / "pipe")
    with pytest.raises(BookError, match="opening book '.*' is a folder"):
        OpeningBook.load(tmp_path)
