"""FEN and PDN move text: round trips, the accepted forms, and clear errors for the rest."""

from __future__ import annotations

import os
import random

import pytest
import reference_movegen as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkers_env import (
    BLACK,
    WHITE,
    AmbiguousMoveError,
    Board,
    CheckersError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    PdnError,
    read_pdn,
)

START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
LOOP_FEN = "B:W15,16,23,24,K29:BK11"  # a black king that captures round a loop
TWO_ROUTES_FEN = "B:W15,16,23,24:B11"  # a black man with two routes from 11 to 27


def test_errors_are_value_errors():
    for error in (InvalidFenError, InvalidMoveError, IllegalMoveError, AmbiguousMoveError, PdnError):
        assert issubclass(error, CheckersError) and issubclass(error, ValueError)
    assert issubclass(AmbiguousMoveError, IllegalMoveError)
    assert issubclass(InvalidFenError, InvalidPositionError)


# -- FEN --------------------------------------------------------------------------------


def _random_boards(count: int, seed: int):
    rng = random.Random(seed)
    boards = [ref.position_to_board(ref.random_position(rng), Board) for _ in range(count)]
    board = Board()
    while len(boards) < 2 * count:  # and positions from random games
        moves = board.legal_moves()
        board = board.play(rng.choice(moves)) if moves else Board()
        boards.append(board)
    return boards


def test_fen_round_trips_on_random_positions():
    for board in _random_boards(600, seed=1):
        fen = board.fen()
        assert Board.from_fen(fen) == board
        # The text itself is canonical: side to move, White's list, Black's list, ascending.
        assert fen == ref.position_fen(ref.board_to_position(board))
        assert eval(repr(board), {"Board": Board}) == board


def test_start_fen():
    assert Board().fen() == START_FEN
    assert Board.from_fen(START_FEN) == Board()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("B:W21-32:B1-12", Board()),
        ("W:W21-32:B1-12", Board(turn=WHITE)),
        ("B:B1-12:W21-32", Board()),  # lists in either order
        ('"B:W21-32:B1-12"', Board()),  # quoted, as in a [FEN] tag value
        ("B:W21-32:B1-12.", Board()),  # the final period of PDN 2.x FEN
        ("  B:W21-24,25-32:B1-4,5,6,7-12  ", Board()),
        ("B:W 21, 22 :B 1", Board.from_squares(black=(1,), white=(21, 22))),
        ("W:WK1,K2,18:BK31,9", Board.from_squares((9, 31), (1, 2, 18), (1, 2, 31), WHITE)),
        ("B:W:B1", Board.from_squares(black=(1,))),  # a side with no pieces
        ("B:W18,K5:BK29-32", Board.from_squares((29, 30, 31, 32), (5, 18), (5, 29, 30, 31, 32))),
    ],
)
def test_fen_accepted_forms(text, expected):
    assert Board.from_fen(text) == expected


def _assert_raises_quoting(error_type, call, text):
    """``call(text)`` raises ``error_type`` and the message quotes ``text``."""
    with pytest.raises(error_type) as info:
        call(text)
    assert repr(text) in str(info.value), str(info.value)
    return info.value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "B",
        "B:W21",
        "B:W21:B1:W22",
        "X:W21:B1",  # wrong side letter
        "b:W21:B1",
        "B:X21:B1",  # wrong list letter
        "B:W21:W22",  # two lists for White
        "B:W0:B1",  # square 0
        "B:W21:B33",  # square 33
        "B:W21:B1-33",
        "B:W21,21:B1",  # listed twice
        "B:W21:B1,K1",
        "B:W21:B21",  # a square for both sides
        "B:W5-12:B9",
        "B:W1:B9",  # a white man on its crowning row (Black's back rank)
        "W:W21:B30",  # a black man on its crowning row
        "B:W18,K5:B29-32",  # black men on 29-32 must be kings
        "B:W13-32:B1",  # 20 white pieces
        "B:W21:B1-13",  # 13 black pieces
        "B:W21-19:B1",  # range backwards
        "B:Wx:B1",
        "B:WK:B1",
        "B:W21;22:B1",
        "B:W-21:B1",
        "B:W21-:B1",
        "B:W+21:B1",
        "B:W21:B\u0661",  # a non-ASCII digit is no PDN square
    ],
)
def test_bad_fen_raises_invalid_fen_error_quoting_it(text):
    _assert_raises_quoting(InvalidFenError, Board.from_fen, text)


@pytest.mark.parametrize("value", [None, 21, b"B:W21:B1", ["B", "W21", "B1"]])
def test_fen_of_wrong_type(value):
    with pytest.raises(InvalidFenError):
        Board.from_fen(value)


def test_fen_with_a_huge_number_raises_invalid_fen_error():
    """Python refuses int() of > 4300 digits with a bare ValueError; the parser must not."""
    text = "B:W21:B" + "9" * 5000
    with pytest.raises(InvalidFenError):
        Board.from_fen(text)


# -- move text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fen, text, full",
    [
        (START_FEN, "11-15", "11-15"),
        (START_FEN, "11:15", "11-15"),  # ':' as a separator
        (START_FEN, " 11 - 15 ", "11-15"),
        (START_FEN, "11-15!?", "11-15"),
        ("B:W14,23:B9", "9x18x27", "9x18x27"),
        ("B:W14,23:B9", "9x27", "9x18x27"),  # short form: unambiguous
        ("B:W14,23:B9", "9:27", "9x18x27"),
        ("B:W14,23:B9", "9:18:27", "9x18x27"),
        (TWO_ROUTES_FEN, "11x20x27", "11x20x27"),
        (TWO_ROUTES_FEN, "11x18x27", "11x18x27"),
        (LOOP_FEN, "11x20x27x18x11", "11x20x27x18x11"),
        (LOOP_FEN, "11x20x27x11", "11x20x27x18x11"),  # a subset of landings that fits one path
        ("W:W22:B18", "22x15", "22x15"),
        ("W:WK1:B5,6", "1x10", "1x10"),  # a white king captures "backward"
    ],
)
def test_parse_move_forms(fen, text, full):
    board = Board.from_fen(fen)
    move = board.parse_move(text)
    assert str(move) == full
    assert move == Move.from_pdn(full)
    assert move in board.legal_moves()


@pytest.mark.parametrize(
    "fen, text, fits",
    [
        (TWO_ROUTES_FEN, "11x27", {"11x20x27", "11x18x27"}),
        (TWO_ROUTES_FEN, "11:27", {"11x20x27", "11x18x27"}),
        (LOOP_FEN, "11x11", {"11x20x27x18x11", "11x18x27x20x11"}),
        (LOOP_FEN, "11x27x11", {"11x20x27x18x11", "11x18x27x20x11"}),
        (LOOP_FEN, "11x20x11", {"11x20x27x18x11", "11x18x27x20x11"}),
    ],
)
def test_ambiguous_short_capture(fen, text, fits):
    board = Board.from_fen(fen)
    error = _assert_raises_quoting(AmbiguousMoveError, board.parse_move, text)
    message = str(error)
    assert board.fen() in message
    assert all(path in message for path in fits)
    assert isinstance(error, IllegalMoveError)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "11",
        "11-",
        "-15",
        "11--15",
        "11-15-19",  # a step has two squares
        "11x15-19",  # mixed separators
        "11-15x",
        "0-4",  # square 0
        "33-29",  # square 33
        "11 15",
        "eleven-fifteen",
        "11-15 12-16",
        "11-15#",
        "\u0661\u0661-\u0661\u0665",  # non-ASCII digits are not PDN
        "9" * 5000 + "-1",  # int() refuses > 4300 digits: must still be InvalidMoveError
    ],
)
def test_bad_move_text_raises_invalid_move_error(text):
    _assert_raises_quoting(InvalidMoveError, Board().parse_move, text)
    _assert_raises_quoting(InvalidMoveError, Move.from_pdn, text)


@pytest.mark.parametrize(
    "text",
    ["11-18", "11x19", "11x16", "9x27x18", "11x15"],
)
def test_move_from_pdn_checks_geometry(text):
    _assert_raises_quoting(InvalidMoveError, Move.from_pdn, text)


@pytest.mark.parametrize(
    "fen, text",
    [
        (START_FEN, "21-17"),  # White's man, Black to move
        (START_FEN, "4-8"),  # own piece in the way
        (START_FEN, "1-5"),  # blocked
        (START_FEN, "15-19"),  # empty square
        (START_FEN, "11x18"),  # no capture here
        (START_FEN, "12-17"),  # well-formed text, but no such step
        ("B:W14,23:B9,1", "1-6"),  # capture is mandatory
        ("B:W14,23:B9", "9x18"),  # a capture must be completed
        ("B:W14,23:B9", "9-13"),
        ("W:W22:B18", "18x25"),  # Black's piece, White to move
        ("B:W14:B18", "18x9"),  # a man cannot capture backward
    ],
)
def test_illegal_move_raises_illegal_move_error(fen, text):
    board = Board.from_fen(fen)
    error = _assert_raises_quoting(IllegalMoveError, board.parse_move, text)
    assert not isinstance(error, AmbiguousMoveError)
    assert board.fen() in str(error)
    with pytest.raises(IllegalMoveError):
        board.play(text)


@pytest.mark.parametrize("value", [None, 1115, b"11-15", ("11", "15")])
def test_parse_move_of_wrong_type(value):
    with pytest.raises(InvalidMoveError):
        Board().parse_move(value)


def test_move_str_and_repr_round_trip():
    seen_capture = seen_multi = 0
    for board in _random_boards(300, seed=2):
        for move in board.legal_moves():
            assert eval(repr(move), {"Move": Move}) == move
            assert Move.from_pdn(str(move)) == move
            assert board.parse_move(str(move)) == move
            separator = "x" if move.captured else "-"
            assert str(move) == separator.join(map(str, move.path))
            seen_capture += move.is_capture
            seen_multi += len(move.path) > 2
    assert seen_capture > 100 and seen_multi > 10


# -- PDN game text ------------------------------------------------------------------------------

_TAGS = '[Event "test"]\n[Result "*"]\n'


@pytest.mark.parametrize(
    "text, line",
    [
        ("", None),  # no game
        ("   \n\n", None),
        ('[Event "test"]\n\n1. 11-15 23-19\n', 3),  # truncated: no result
        ('[Event "test"]\n', 1),  # tags only
        ('[Event "test"]\n[Result "2-1"]\n1. 11-15 *\n', 3),  # unknown result tag
        ('[Event "test"]\n[Result "1-0"]\n1. 11-15 0-1\n', 3),  # result disagrees with the tag
        ('[Event "test"]\n1. 11-15 23-19 3-0\n', 2),  # no such result (nor move)
        ('[Event "test"]\n1. 11-15 23-19 1-O\n', 2),
        ('[Event "test"]\n\n1. 11-15 23-19\n2. 15-19 *\n', 4),  # illegal: 19 is occupied
        ('[Event "test"]\n\n1. 11-15 23-19\n2. 8-11 22x15\n*\n', 4),  # no piece can jump there
        ('[Event "test"]\n[FEN "' + TWO_ROUTES_FEN + '"]\n1. 11x27 *\n', 3),  # ambiguous
        ('[Event "test"]\n[FEN "B:W21:B33"]\n1. 11-15 *\n', 3),  # bad FEN tag
        ('[Event "test"]\n[GameType "20"]\n1. 32-28 *\n', 3),  # international draughts
        ('[Event "test]\n1. 11-15 *\n', 1),  # malformed tag
        ('[Event "test"]\n1. 11-15 {a comment never closed\n*\n', 2),
        ('[Event "test"]\n1. 11-15 (23-19 *\n', 2),  # variation never closed
        ('[Event "test"]\n1. 11-15 23-19) *\n', 2),
        ('[Event "test"]\n1. 11-15 hello *\n', 2),
        ('[Event "test"]\n1. \u0661\u0661-\u0661\u0665 *\n', 2),  # non-ASCII digits
        ('[Event "test"]\n\n1. ' + "9" * 5000 + "-1 *\n", 3),  # int() refuses > 4300 digits
        ('[Event "test"]\n1. 11-15 *\n[Event "two"]\n1. 9-14\n', 4),  # second game truncated
        ('[Event "test"]\n1. 11-15\n[Event "two"]\n1. 9-14 *\n', 3),  # first game truncated
    ],
)
def test_bad_pdn_raises_pdn_error_with_line(text, line):
    with pytest.raises(PdnError) as info:
        read_pdn(text)
    assert info.value.line == line, str(info.value)
    if line is not None:
        assert str(info.value).startswith(f"line {line}:")


def test_illegal_and_ambiguous_moves_in_pdn_name_the_move():
    with pytest.raises(PdnError, match=r"line 4: move 2 '15-19'") as info:
        read_pdn('[Event "test"]\n\n1. 11-15 23-19\n2. 15-19 *\n')
    assert "illegal" in str(info.value)
    with pytest.raises(PdnError, match=r"line 3: move 1 '11x27'.*ambiguous") as info:
        read_pdn('[Event "test"]\n[FEN "' + TWO_ROUTES_FEN + '"]\n1. 11x27 *\n')


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe\x00[\x00E\x00v\x00",  # UTF-16 with a BOM
        b"\x80\x81\x82",
        b'[Event "caf\xe9"]\n1. 11-15 *\n',  # Latin-1, not UTF-8
        bytes(range(256)),
    ],
)
def test_pdn_garbage_bytes(data):
    with pytest.raises(PdnError):
        read_pdn(data)


def test_pdn_accepted_forms():
    text = (
        "% a line comment\n"
        '[Event "forms"]\n[Black "A \\"quoted\\" name"]\n[Result "1-0"]\n\n'
        "1. 11-15 {opening} 23-19 $1 2. 8-11! 22-17?! (2... 22-18 *) 3. 9-13 17-14\n"
        "4. 10x17 21x14 1-0\n"
        '[Event "second"]\n1. 9:14 22-18 2-0\n'
        '[Event "third"][FEN "W:W21:B1"]\n1... 21-17 *\n'
    )
    first, second, third = read_pdn(text)
    assert [str(m) for m in first.moves] == [
        "11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"
    ]  # fmt: skip
    assert first.headers["Black"] == 'A "quoted" name' and first.result == "1-0"
    assert [str(m) for m in second.moves] == ["9-14", "22-18"] and second.result == "1-0"
    assert third.start == Board.from_fen("W:W21:B1") and third.board.turn == BLACK
    assert [str(m) for m in third.moves] == ["21-17"] and third.result == "*"
    again = read_pdn(first.to_pdn() + "\n" + third.to_pdn())
    assert again[0].moves == first.moves and again[1].moves == third.moves
    assert again[1].start == third.start


def test_pdn_wrong_types_and_paths(tmp_path):
    with pytest.raises(PdnError):
        read_pdn(None)
    with pytest.raises(PdnError):
        read_pdn(12)
    with pytest.raises(FileNotFoundError):
        read_pdn(str(tmp_path / "missing.pdn"))
    with pytest.raises(FileNotFoundError):
        read_pdn(tmp_path / "missing.pdn")


def test_pdn_text_with_a_nul_byte_that_looks_like_a_file_name():
    """A one-line string ending in .pdn is taken for a path; with a NUL byte in it,
    ``Path.read_bytes`` raises a bare ``ValueError('embedded null byte')``, which is neither
    the documented ``FileNotFoundError`` nor a ``PdnError``."""
    with pytest.raises((PdnError, FileNotFoundError)):
        read_pdn("nul\x00byte.pdn")


# -- fuzzing ----------------------------------------------------------------------------------

_PDN_PIECES = list('BWK0123456789,:-x .*"\n[]{}()/!?$%\\') + [
    "1-0", "0-1", "1/2-1/2", "11-15", "23-19", "22x15", '[Event "e"]', '[FEN "', '[Result "',
    '[GameType "', "B:W21,22:B1,K2", "1.", "2...", "\u0661",
]  # fmt: skip
_notation_text = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(_PDN_PIECES), max_size=30).map("".join),
)
_FUZZ = settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))


def _only_checkers_errors(call, text):
    try:
        call(text)
    except CheckersError:
        pass


@_FUZZ
@given(_notation_text)
def test_fuzz_from_fen(text):
    _only_checkers_errors(Board.from_fen, text)


@_FUZZ
@given(_notation_text)
def test_fuzz_parse_move(text):
    _only_checkers_errors(Board().parse_move, text)
    _only_checkers_errors(Board.from_fen(LOOP_FEN).parse_move, text)
    _only_checkers_errors(Move.from_pdn, text)


@_FUZZ
@given(_notation_text)
def test_fuzz_read_pdn_text(text):
    if "\n" not in text and (text.strip().lower().endswith(".pdn") or os.path.exists(text)):
        text += "\n"  # one line ending in .pdn or naming a file is read as a path (documented)
    _only_checkers_errors(read_pdn, text)


@_FUZZ
@given(st.binary(max_size=80))
def test_fuzz_read_pdn_bytes(data):
    _only_checkers_errors(read_pdn, data)


# -- agent spec strings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, words",
    [
        ("alphabeta:depth=3,depth=4", "parameter 'depth' is given twice"),
        ("greedy:seed=1, seed=2", "parameter 'seed' is given twice"),
        ("random:seed=abc", "is not a whole number"),
        ("alphabeta:time=soon", "is not a number"),
    ],
)
def test_bad_agent_specs_are_one_clear_line(spec, words):
    from checkers_env import UnknownAgentError, make_agent

    with pytest.raises(UnknownAgentError) as caught:
        make_agent(spec)
    message = str(caught.value)
    assert words in message and spec.split(":")[0] in message
    assert "|" not in message and "None" not in message and "\n" not in message  # no Python annotations


def test_pdn_keeps_the_stated_result_and_warns_where_the_position_disagrees():
    # White's last man is captured, so the position says Black won; the file says 0-1.
    game = read_pdn('[Event "typo"]\n[FEN "B:W18:B14"]\n1. 14x23 0-1\n')[0]
    assert game.result == "0-1" and game.headers["Result"] == "0-1"
    assert len(game.warnings) == 1
    assert "states 0-1" in game.warnings[0] and "gives 1-0" in game.warnings[0] and "line 3" in game.warnings[0]
    assert "0-1" in game.to_pdn().splitlines()[-1]  # written back as the file said
    copy = game.copy()
    assert copy.result == "0-1" and copy.warnings == game.warnings and copy.moves == game.moves
    copy.warnings.append("own")
    assert len(game.warnings) == 1
    game.pop()  # once the moves change, the rules decide again
    assert game.result == "*" or game.result == game.headers["Result"]
    agreeing = read_pdn('[FEN "B:W18:B14"]\n1. 14x23 1-0\n')[0]
    assert agreeing.result == "1-0" and agreeing.warnings == []


# -- reading files: byte order mark, game by game, compressed, what a path names -----------

TWO_GAMES = '[Event "one"]\n1. 11-15 23-19 1-0\n\n[Event "two"]\n1. 11-15 23-19\n2. 15-19 *\n'


@pytest.mark.parametrize("lenient", [False, True])
def test_a_utf8_byte_order_mark_is_skipped_in_both_modes(tmp_path, lenient):
    path = tmp_path / "bom.pdn"
    path.write_bytes(b"\xef\xbb\xbf" + TWO_GAMES.split("\n\n")[0].encode() + b"\n")
    for source in (path, str(path), path.read_bytes(), path.read_text(encoding="utf-8")):
        (game,) = read_pdn(source, lenient=lenient)
        assert game.headers["Event"] == "one" and [str(m) for m in game.moves] == ["11-15", "23-19"]
        assert game.warnings == (["line 1: byte order mark dropped"] if lenient else [])


def test_iter_pdn_yields_each_game_before_reading_the_next(tmp_path):
    """The second game's illegal move is raised only when the iteration reaches it, after
    the first game, and the error names the file and the line."""
    from checkers_env.pdn import iter_pdn

    path = tmp_path / "two.pdn"
    path.write_text(TWO_GAMES, encoding="utf-8")
    games = iter_pdn(path)
    first = next(games)
    assert first.headers["Event"] == "one" and first.result == "1-0"
    with pytest.raises(PdnError, match=r"move 2 '15-19'") as info:
        next(games)
    assert info.value.line == 6 and info.value.path == str(path)
    assert str(info.value).startswith(f"{path}: line 6: move 2 '15-19'")


def test_iter_pdn_reads_an_open_file_a_block_at_a_time():
    """After the first game of the 1.8 MB archive, the reader has read a block, not the file."""
    import lzma

    from checkers_env.datasets import ACF_GAMES
    from checkers_env.pdn import iter_pdn

    size = len(lzma.decompress(ACF_GAMES.read_bytes()))
    with lzma.open(ACF_GAMES, "rb") as handle:
        games = iter_pdn(handle)
        first = next(games)
        assert 0 < handle.tell() < 200_000 < size
    assert first.headers["Event"] == "ACF archive game 1" and len(first.moves) == 52 and first.result == "1/2-1/2"


def test_games_split_anywhere_between_lines_read_the_same(monkeypatch):
    """Tags and comments that run over several lines, and whitespace, read the same however
    the text is cut into blocks (here: every line a block)."""
    from checkers_env import pdn_source

    text = (
        '[Event\n  "split tag"]\n[Black "b"\n]\n1. 11-15 {a comment\nover\n\nlines} 23-19\n\n\n'
        "2. 8-11 (2... 22-18\n*) 22-17 1-0\n{unclosed\n"
    )
    whole = [(g.headers, g.moves, g.result, g.warnings) for g in read_pdn(text, lenient=True)]
    with pytest.raises(PdnError, match="line 13: comment '{' is never closed"):
        read_pdn(text)
    monkeypatch.setattr(pdn_source, "BLOCK_BYTES", 1)
    assert [(g.headers, g.moves, g.result, g.warnings) for g in read_pdn(text, lenient=True)] == whole
    with pytest.raises(PdnError, match="line 13: comment '{' is never closed"):
        read_pdn(text)
    assert whole[0][0] == {"Event": "split tag", "Black": "b", "Result": "1-0"} and len(whole[0][1]) == 4


@pytest.mark.parametrize("suffix, compress", [(".pdn.gz", "gzip"), (".pdn.xz", "lzma")])
def test_compressed_files_are_read_as_they_are(tmp_path, suffix, compress):
    import importlib

    path = tmp_path / f"games{suffix}"
    path.write_bytes(importlib.import_module(compress).compress(TWO_GAMES.split("\n\n")[0].encode()))
    for source in (path, str(path)):
        (game,) = read_pdn(source)
        assert [str(m) for m in game.moves] == ["11-15", "23-19"] and game.result == "1-0"
    path.write_bytes(b"not compressed at all")
    with pytest.raises(PdnError, match=f"cannot read PDN file '.*games{suffix}'"):
        read_pdn(path)


@pytest.mark.timeout(30)  # reading a named pipe would wait for a writer for ever
def test_a_path_that_names_no_regular_file_is_refused_by_name(tmp_path):
    pipe = tmp_path / "pipe.pdn"
    os.mkfifo(pipe)
    for source in (pipe, str(pipe)):
        with pytest.raises(PdnError, match=r"PDN file '.*pipe.pdn' is a named pipe \(FIFO\), not a regular file"):
            read_pdn(source)
    with pytest.raises(PdnError, match="PDN file '.*' is a folder, not a file"):
        read_pdn(tmp_path)


def test_bytes_that_are_not_utf8_in_a_file_name_the_file_and_line(tmp_path):
    path = tmp_path / "latin1.pdn"
    path.write_bytes(b'[Event "one"]\n[Site "Paris"]\n[Black "Ren\xe9"]\n1. 11-15 *\n')
    with pytest.raises(PdnError, match=r"latin1.pdn: line 3: not UTF-8 text: byte 0xe9 at column 12"):
        read_pdn(path)
