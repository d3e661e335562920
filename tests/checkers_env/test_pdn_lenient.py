"""Lenient PDN reading: each file of ``tests/data/pdn_quirks`` holds one quirk of PDN as old
programs write it; each is read to the right moves, with every repair reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkers_env import PdnError, read_pdn
from checkers_env.datasets import ACF_GAMES

QUIRKS = Path(__file__).resolve().parents[1] / "data" / "pdn_quirks"

OPENING = ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"]

# file -> one (Event, moves, result, error, warnings) per game
EXPECTED = {
    "x_for_step.pdn": [
        (
            "x written for a step",
            OPENING[:4],
            "*",
            None,
            [
                "line 4: move 1 '11x15' is written with 'x' but is a step; read as 11-15",
                "line 4: move 2 '8x11' is written with 'x' but is a step; read as 8-11",
            ],
        ),
    ],
    "dash_for_capture.pdn": [
        (
            "- written for a capture",
            OPENING,
            "1-0",
            None,
            [
                "line 5: move 4 '10-17' is written with '-' but is a capture; read as 10x17",
                "line 5: move 4 '21-14' is written with '-' but is a capture; read as 21x14",
            ],
        ),
    ],
    "short_capture.pdn": [
        ("first and last squares only", ["14x23x32"], "1-0", None, []),  # PDN allows it
        (
            "first and last squares only, with -",
            ["14x23x32"],
            "1-0",
            None,
            [
                "line 11: move 1 '14-32' is written with '-' but is a capture; read as 14x23x32",
            ],
        ),
    ],
    "tags.pdn": [
        (
            "lower-case tags",
            OPENING[:2],
            "0-1",
            None,
            [
                "line 1: tag [event] read as [Event]",
                "line 2: tag [white] read as [White]",
                "line 3: tag [result] read as [Result]",
                "line 5: tag '[Site Glasgow]' has no quotes; read as [Site \"Glasgow\"]",
            ],
        ),
    ],
    "comments_variations_nags.pdn": [
        (
            "annotations",
            OPENING,
            "1/2-1/2",
            None,
            [
                "line 6: skipped '!': not PDN",  # marks are PDN only attached to their move
                "line 6: skipped '?': not PDN",
            ],
        ),
    ],
    "move_numbers.pdn": [
        ("move numbers", OPENING[:5], "*", None, ["line 3: move number '2..' read as 2."]),
    ],
    "crlf.pdn": [
        ("CRLF", OPENING[:4], "1-0", None, []),
        ("CR only", ["9-13"], "*", None, []),
    ],
    "latin1.pdn": [
        (
            "Championnat de l'Aisne",
            OPENING[:2],
            "1/2-1/2",
            None,
            [
                "line 2: bytes that are not UTF-8, read as Latin-1",
                "line 3: bytes that are not UTF-8, read as Latin-1",
                "line 5: bytes that are not UTF-8, read as Latin-1",
                "line 5: result '\u00bd-\u00bd' read as 1/2-1/2",
            ],
        ),
    ],
    "fen_setup.pdn": [
        ("FEN with SetUp", ["22-17", "14x21"], "1-0", None, []),
        ("FEN without SetUp", ["22-18", "14x23"], "1-0", None, []),
    ],
    "no_blank_line.pdn": [
        ("one", OPENING[:2], "1-0", None, []),
        ("two", ["9-13", "22-18"], "0-1", None, []),
        (
            "three",
            ["10-14", "24-20"],
            "1/2-1/2",
            None,
            [
                "line 7: the game has no result before the tag '[Event \"four\"]'; ending it with 1/2-1/2",
            ],
        ),
        ("four", ["12-16"], "*", None, []),
    ],
    "result_placement.pdn": [
        (
            "result only in the tag",
            OPENING[:2],
            "1-0",
            None,
            [
                "line 6: the game has no result before the tag '[Event \"result only after the moves\"]';"
                " ending it with 1-0",
            ],
        ),
        ("result only after the moves", OPENING[:2], "0-1", None, []),
        (
            "tag and moves disagree",
            OPENING[:2],
            "1-0",
            None,
            [
                "line 13: result '0-1' after the moves disagrees with the tag [Result '1-0']; keeping 1-0",
            ],
        ),
        (
            "unknown result tag",
            OPENING[:1],
            "*",
            None,
            [
                "line 16: unknown result '1:0' in the Result tag; dropped",
            ],
        ),
    ],
    "stray_text.pdn": [
        (
            "stray",
            OPENING[:3],
            "1-0",
            None,
            [
                "line 1: skipped 'Games of the club, copied from the old program': not PDN",
                "line 5: skipped '...': not PDN",
                "line 5: skipped 'White resigns': not PDN",
                "line 6: skipped 'end of file': not PDN (after the last game)",
            ],
        ),
    ],
    "illegal_move.pdn": [
        (
            "illegal move",
            OPENING[:2],
            "0-1",
            "line 4: move 2 '15-19': no legal move fits in B:W19,21,22,24,25,26,27,28,29,30,31,32:"
            "B1,2,3,4,5,6,7,8,9,10,12,15; legal moves: 7-11, 8-11, 9-13, 9-14, 10-14, 12-16, 15-18"
            " (2 later moves of the game skipped)",
            [],
        ),
        (
            "bad FEN",
            [],
            "*",
            "line 9: bad FEN 'B:W21:B33': square 33 is not between 1 and 32 (1 later move of the game skipped)",
            [],
        ),
        ("read on", ["9-13", "22-18"], "*", None, []),
    ],
}


def test_every_quirk_file_is_tested():
    assert sorted(p.name for p in QUIRKS.glob("*.pdn")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_quirk_reads_leniently_with_every_repair_reported(name):
    games = read_pdn(QUIRKS / name, lenient=True)
    read = [(g.headers.get("Event"), [str(m) for m in g.moves], g.result, g.error, g.warnings) for g in games]
    assert read == EXPECTED[name]
    for game in games:
        assert game.headers["Result"] == game.result


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_strict_mode_refuses_each_quirk_with_its_line(name):
    """Strict mode keeps today's behaviour: the first departure from PDN is a PdnError
    that names the line; a file without a departure (CRLF, FEN without SetUp) reads the
    same in both modes."""
    try:
        strict = read_pdn(QUIRKS / name)
    except PdnError as error:
        assert error.line is not None or "UTF-8" in str(error)
        return
    lenient = read_pdn(QUIRKS / name, lenient=True)
    assert [g.moves for g in strict] == [g.moves for g in lenient]
    assert all(not g.warnings for g in lenient)


def test_standard_forms_read_the_same_in_both_modes():
    strict, lenient = read_pdn(QUIRKS / "fen_setup.pdn"), read_pdn(QUIRKS / "fen_setup.pdn", lenient=True)
    assert [g.moves for g in strict] == [g.moves for g in lenient]
    assert [g.start for g in strict] == [g.start for g in lenient]


def test_ambiguous_move_and_move_after_the_end_are_errors_on_the_game():
    two_routes = "B:W15,16,23,24:B11"  # a black man with two routes from 11 to 27
    text = f'[FEN "{two_routes}"]\n1. 11x27 *\n[FEN "B:W18:B14"]\n1. 14x23 22-18 1-0\n'
    ambiguous, over = read_pdn(text, lenient=True)
    assert ambiguous.moves == [] and "ambiguous" in ambiguous.error and ambiguous.error.startswith("line 2:")
    assert [str(m) for m in over.moves] == ["14x23"]
    assert over.error.startswith("line 4: move 1 '22-18': the game is over")


def test_no_game_and_bad_types_are_errors_in_lenient_mode_too():
    with pytest.raises(PdnError, match="no game found.*skipped 'hello'"):
        read_pdn("hello\n", lenient=True)
    with pytest.raises(PdnError):
        read_pdn(12, lenient=True)


def test_unclosed_variation_and_stray_parenthesis_are_warnings():
    game, second = read_pdn('1. 11-15 ) (23-19 24-20\n[Event "b"]\n1. 9-13 *', lenient=True)
    assert [str(m) for m in game.moves] == ["11-15"] and game.result == "*"
    assert game.warnings == [
        "line 1: skipped ')': it closes no variation",
        "line 2: a variation '(' is never closed before the tag '[Event \"b\"]'; it ends here",
        "line 2: the game has no result before the tag '[Event \"b\"]'; ending it with *",
    ]
    assert [str(m) for m in second.moves] == ["9-13"] and second.warnings == []


def test_acf_archive_reads_leniently_without_a_repair(acf_games):
    strict = acf_games
    lenient = read_pdn(ACF_GAMES, lenient=True)
    assert len(lenient) == 4000
    assert all(not g.warnings and g.error is None for g in lenient)
    assert [g.moves for g in lenient] == [g.moves for g in strict]
    assert [g.result for g in lenient] == [g.result for g in strict]


def test_each_quirk_reads_the_same_a_line_at_a_time(monkeypatch):
    """Game by game reading gives what a read of the whole file gives, repairs and their lines
    included, even with every line a block of its own."""
    from checkers_env import pdn_source

    def summary(path):
        return [(g.headers, g.moves, g.result, g.warnings, g.error) for g in read_pdn(path, lenient=True)]

    whole = {path.name: summary(path) for path in sorted(QUIRKS.glob("*.pdn"))}
    monkeypatch.setattr(pdn_source, "BLOCK_BYTES", 1)
    assert {path.name: summary(path) for path in sorted(QUIRKS.glob("*.pdn"))} == whole


def test_text_between_games_warns_on_the_next_game_when_read_game_by_game():
    from checkers_env.pdn import iter_pdn

    games = iter_pdn('[Event "a"]\n1. 11-15 *\nstray\n[Event "b"]\n1. 9-13 *\nmore\n', lenient=True)
    first = next(games)
    assert first.warnings == []
    second = next(games)
    assert second.warnings == [
        "line 3: skipped 'stray': not PDN",
        "line 6: skipped 'more': not PDN (after the last game)",
    ]
    assert next(games, None) is None
