"""The searched opening book (``checkers_agents.searched_book``), its file (``checkers_agents.book``,
version 2) and the alpha-beta's ``book_file`` option."""

from __future__ import annotations

import json
import shutil

import pytest

from checkers_agents.alphabeta import AlphaBetaAgent
from checkers_agents.book import BookError, OpeningBook, SearchedMove
from checkers_agents.searched_book import BOOK_FILE, SEARCHED_BOOK, ballot_board, build_book
from checkers_env import Board, Game, make_agent
from checkers_env.errors import ShardError
from checkers_env.match import ballot_openings
from checkers_env.shards import shard_path

SPEC, DEPTH, PLIES, BRANCH = "alphabeta:eval=positional", 2, 3, 1


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    return out, build_book(out, SPEC, DEPTH, PLIES, BRANCH, ballots=2)


def test_every_move_is_legal_and_a_fresh_search_s_best(built):
    out, book = built
    assert book.source == "search" and book.positions == {}
    assert book.built_by == {"agent": SPEC, "depth": DEPTH, "plies": PLIES, "branch_plies": BRANCH, "ballots": 2}
    fresh = AlphaBetaAgent(eval="positional").searcher
    for fen, entry in book.searched.items():
        board = Board.from_fen(fen)
        assert board.parse_move(entry.move) in board.legal_moves()
        result = fresh.search(board, DEPTH)
        assert entry == SearchedMove(str(result.best_moves[0]), result.value, DEPTH)
    assert OpeningBook.load(out / BOOK_FILE).searched == book.searched


def test_the_line_and_the_answers_off_it_are_in_the_book(built):
    _, book = built
    expected = 0
    for ballot in ballot_openings()[:2]:
        board = ballot_board(ballot)
        assert len(board.legal_moves()) > 1
        best = book.choose(board)
        for move in board.legal_moves():  # the first ply is branched: every other move has an answer
            assert move == best or book.choose(board.play(move)) is not None
        expected += len(board.legal_moves())
        for _ in range(PLIES):  # the searcher's own line, both colours
            move = book.choose(board)
            assert move is not None
            board = board.play(move)
        expected += PLIES - 1
        assert book.choose(board) is None  # past the line: the agent searches
    assert len(book) == expected


def test_a_killed_build_resumes_to_the_identical_book(built, tmp_path):
    out, _ = built
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / BOOK_FILE).unlink()
    shard_path(copy, 1).unlink()  # never written
    card = json.loads((copy / "card.json").read_text())
    (copy / "card.json").write_text(json.dumps({**card, "complete": False}))
    data = shard_path(copy, 0).read_bytes()
    shard_path(copy, 0).write_bytes(data[: len(data) // 2])  # cut short by the kill
    build_book(copy, SPEC, DEPTH, PLIES, BRANCH, ballots=2)
    assert (copy / BOOK_FILE).read_bytes() == (out / BOOK_FILE).read_bytes()
    assert shard_path(copy, 0).read_bytes() == shard_path(out, 0).read_bytes()
    assert SEARCHED_BOOK.read_card(copy)["built_now"] == 2
    build_book(copy, SPEC, DEPTH, PLIES, BRANCH, ballots=2)  # finished: nothing to search
    assert SEARCHED_BOOK.read_card(copy)["built_now"] == 0
    with pytest.raises(ShardError, match="other parameters"):
        build_book(copy, SPEC, DEPTH + 1, PLIES, BRANCH, ballots=2)


def test_the_build_refuses_what_it_cannot_search(tmp_path):
    with pytest.raises(ValueError, match="alpha-beta"):
        build_book(tmp_path / "random", "random", 2, 2, ballots=1)
    with pytest.raises(ValueError, match="ballots from 1 to 156"):
        build_book(tmp_path / "many", SPEC, 2, 2, ballots=157)
    assert not (tmp_path / "random").exists() and not (tmp_path / "many").exists()


def _book_file(tmp_path, name, positions, **fields):
    path = tmp_path / name
    head = {"format": "checkers-book", "version": 2, "source": "search", "built_by": {}}
    path.write_text(json.dumps({**head, **fields, "positions": positions}))
    return path


def test_a_bad_searched_book_is_refused_naming_the_file(tmp_path):
    start = Board().fen()
    good = _book_file(tmp_path, "good.json", {start: ["11-15", 12.5, 4]})
    assert OpeningBook.load(good).searched == {start: SearchedMove("11-15", 12.5, 4)}
    for name, positions in [
        ("illegal.json", {start: ["22-18", 0.0, 4]}),  # a White move with Black to move
        ("short.json", {start: ["11-15", 0.0]}),
        ("infinite.json", {start: ["11-15", "inf", 4]}),
        ("negative.json", {start: ["11-15", 0.0, -1]}),
        ("position.json", {"B:W99:B1": ["1-5", 0.0, 4]}),
    ]:
        with pytest.raises(BookError, match=f"{name}: a malformed book entry"):
            OpeningBook.load(_book_file(tmp_path, name, positions))
    with pytest.raises(BookError, match="source.json: a version 2 book of source 'games'"):
        OpeningBook.load(_book_file(tmp_path, "source.json", {}, source="games"))
    with pytest.raises(BookError, match="version 3.json is not an opening book"):
        OpeningBook.load(_book_file(tmp_path, "version 3.json", {}, version=3))


def test_the_agent_plays_the_book_move_in_the_book_and_searches_elsewhere(built, tmp_path):
    out, book = built
    agent = make_agent(f"alphabeta:depth=3,seed=1,book_file={out / BOOK_FILE}")
    assert agent.book_file == str(out / BOOK_FILE) and agent.book is False
    board = ballot_board(ballot_openings()[0])
    # A book move the search would not play: the agent still plays it.
    other = next(m for m in board.legal_moves() if m != book.choose(board))
    forced = OpeningBook(searched={board.fen(): SearchedMove(str(other), 0.0, 1)})
    forced.save(tmp_path / "forced.json")
    forced_agent = make_agent(f"alphabeta:depth=3,book_file={tmp_path / 'forced.json'}")
    assert forced_agent.select_move(Game(board)) == other and forced_agent.last_search is None
    assert agent.select_move(Game(board)) == book.choose(board) and agent.last_search is None
    agent.select_move(Game(Board.from_fen("B:W18,22:B9,14")))
    assert agent.last_search is not None and agent.last_search.depth == 3
    with pytest.raises(BookError, match="missing.json"):
        AlphaBetaAgent(book_file=str(tmp_path / "missing.json"))
    with pytest.raises(ValueError, match="missing.json"):  # make_agent's error names the spec too
        make_agent(f"alphabeta:book_file={tmp_path / 'missing.json'}")
    with pytest.raises(ValueError, match="book .* or book_file, not both"):
        make_agent(f"alphabeta:book=1,book_file={out / BOOK_FILE}")
    with pytest.raises(Exception, match="names a file"):
        make_agent(f"alphabeta:book_file={out / BOOK_FILE}", allow_files=False)
