"""``checkers data``: a bound only the data module knows is a usage error for either kind."""

from __future__ import annotations

import pytest

from checkers_evaluation.cli import main


@pytest.mark.parametrize(
    "kind", [["games", "--games", "1"], ["mcrd", "--positions", "1", "--playouts", "1", "--backend", "cpu"]]
)
def test_a_minimax_depth_past_its_most_is_one_line_and_makes_no_folder(kind, tmp_path, capsys):
    out = tmp_path / "data"
    assert main(["data", *kind, "--minimax-depth", "65", "--out", str(out)]) == 2
    assert capsys.readouterr().err == "checkers: error: minimax_depth must be an integer from 1 to 64, got 65\n"
    assert not out.exists()


def test_the_book_kind_builds_a_searched_book_and_resumes(tmp_path, capsys):
    from checkers_agents.book import OpeningBook
    from checkers_agents.searched_book import ballot_board
    from checkers_env.match import ballot_openings

    out = tmp_path / "book"
    command = ["data", "book", "--agent", "alphabeta:eval=positional", "--depth", "2", "--plies", "2"]
    command += ["--branch-plies", "0", "--ballots", "2", "--workers", "1", "--out", str(out), "--no-progress"]
    assert main(command) == 0
    line = capsys.readouterr().out
    assert line.startswith(f"{out}/book.json: searched book of 2 ballots (2 searched now), 4 positions,")
    book = OpeningBook.load(out / "book.json")
    assert book.built_by["depth"] == 2 and len(book) == 4  # 2 ballots x 2 plies of the line
    for ballot in ballot_openings()[:2]:
        board = ballot_board(ballot)
        assert book.choose(board) in board.legal_moves()
    first = (out / "book.json").read_bytes()
    assert main(command) == 0  # run again: nothing left to search, the same book
    assert "(0 searched now)" in capsys.readouterr().out and (out / "book.json").read_bytes() == first


def test_the_book_kind_refuses_a_spec_that_is_not_an_alpha_beta_s(tmp_path, capsys):
    out = tmp_path / "book"
    command = ["data", "book", "--agent", "random", "--depth", "2", "--plies", "2", "--out", str(out)]
    assert main(command) == 2
    assert "needs an alpha-beta agent's spec" in capsys.readouterr().err and not out.exists()
