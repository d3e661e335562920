"""The SVG picture of a board, its notebook reprs, and that the env's pixels are the same drawing."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from checkers_env import Board, Game, svg
from checkers_env.rendering import board_image

SVG = "{http://www.w3.org/2000/svg}"


def _parse(picture: str) -> ET.Element:
    return ET.fromstring(picture)


def _squares(root: ET.Element) -> dict[int, ET.Element]:
    return {int(e.get("data-square")): e for e in root.iter(f"{SVG}rect") if e.get("data-square")}


def test_the_start_position_has_32_numbered_squares_and_24_pieces():
    root = _parse(svg.board(Board(), size=200))
    assert root.get("width") == "200" and root.get("height") == "200"
    assert sorted(_squares(root)) == list(range(1, 33))
    numbers = [e.text for e in root.iter(f"{SVG}text")]
    assert sorted(map(int, numbers)) == list(range(1, 33))
    bodies = [e for e in root.iter(f"{SVG}circle") if e.get("fill") in ("#222222", "#fafaf5")]
    assert len(bodies) == 24
    black = {int(e.get("data-square")) for e in bodies if "black" in e.get("class")}
    assert black == set(range(1, 13))


def test_numbers_can_be_left_out():
    assert "<text" not in svg.board(Board(), numbers=False)


def test_square_positions_follow_the_design_diagram_and_flip():
    # Seen from Black, square 4 is a1 (bottom left) and 29 h8 (top right); from White the half turn.
    assert svg.square_position(4) == (0, 7)
    assert svg.square_position(29) == (7, 0)
    assert svg.square_position(4, flipped=True) == (7, 0)
    assert svg.square_position(29, flipped=True) == (0, 7)
    root = _parse(svg.board(Board(), flipped=True))
    assert _squares(root)[4].get("x") == str(7 * 45) and _squares(root)[4].get("y") == "0"


def test_last_move_marked_squares_and_arrows():
    board = Board.from_fen("B:W14,23:B9")
    move = board.legal_moves()[0]
    root = _parse(svg.board(board, last_move=move, marked=[5], arrows=[move, (9, 13)]))
    squares = _squares(root)
    for square in move.path:
        assert "last" in squares[square].get("class")
    assert "marked" in squares[5].get("class")
    assert len([p for p in root.iter(f"{SVG}polygon")]) == 2 * 3  # shaft and head per hop


def test_kings_have_a_crown():
    root = _parse(svg.board(Board.from_fen("W:WK30:BK3")))
    crowns = [e for e in root.iter(f"{SVG}circle") if "crown" in (e.get("class") or "")]
    assert sorted(int(e.get("data-square")) for e in crowns) == [3, 30]


def test_bad_size_is_refused():
    with pytest.raises(ValueError, match="size"):
        svg.board(Board(), size=0)


def test_notebook_reprs():
    board = Board()
    assert board._repr_svg_().startswith("<svg")
    game = Game()
    for text in ("11-15", "23-19", "8-11"):
        game.play(text)
    page = game._repr_html_()
    assert "1. 11-15 23-19 2. 8-11" in page and "<svg" in page and "white to move" in page
    assert 'class="square last"' in game._repr_svg_()
    assert svg.board(board)._repr_svg_() == str(svg.board(board))


def test_game_from_white_to_move_numbers_its_first_move():
    game = Game(start=Board.from_fen("W:W21:B1"))
    game.play("21-17")
    assert "1. ... 21-17" in game._repr_html_()


def test_env_pixels_are_the_svg_shapes_painted():
    board = Board.from_fen("B:W18,K30:B9,K3")
    move = board.legal_moves()[0]
    image = board_image(board, move, square_pixels=20)
    again = svg.rasterise(svg.board_shapes(board, numbers=False, last_move=move), 20)
    assert np.array_equal(image, again)
    # The pixel at each piece's centre has the SVG's fill of its body or crown.
    x, y = svg.square_position(9)
    assert tuple(image[y * 20 + 10 - 5, x * 20 + 10]) == svg.BLACK_PIECE


def test_arrows_are_painted_in_pixels():
    board = Board()
    plain = svg.board_pixels(board, 20)
    with_arrow = svg.board_pixels(board, 20, arrows=[(11, 15)])
    changed = np.any(plain != with_arrow, axis=2)
    assert changed.sum() > 20
