"""Real games: 4,000 ACF tournament records parse, are legal, and round-trip through PDN."""

from __future__ import annotations

import lzma
import random
import re

import pytest
import reference_movegen as ref

from checkers_env import Board, Game, PdnError, Rules, Termination, read_pdn, write_pdn
from checkers_env.datasets import ACF_GAMES
from checkers_env.game import RESULTS

N_GAMES = 4000


@pytest.fixture(scope="module")
def acf_texts() -> list[str]:
    """The PDN text of each game, split at the tag that opens it."""
    with lzma.open(ACF_GAMES, "rt", encoding="utf-8") as file:
        text = file.read()
    return [chunk for chunk in re.split(r"\n(?=\[Event )", text) if chunk.strip()]


def test_every_game_parses_with_every_move_legal(acf_games, acf_texts):
    assert len(acf_games) == len(acf_texts) == N_GAMES
    for number, game in enumerate(acf_games, start=1):
        assert game.headers["Event"] == f"ACF archive game {number}"
        assert game.headers["GameType"] == "21"
        assert game.headers["Result"] in RESULTS[:3]
        assert game.start == Board()
        assert game.moves, game.headers["Event"]
        assert len(game.boards) == len(game.moves) + 1
    assert sum(len(game.moves) for game in acf_games) > 150_000


def test_moves_in_the_file_are_the_moves_read(acf_games, acf_texts):
    """Every move token of the file (all landings written) is ``str`` of the move read."""
    for game, text in zip(acf_games[:500], acf_texts[:500]):
        body = re.sub(r"\[[^\]]*\]|1/2-1/2|\b1-0\b|\b0-1\b", " ", text)
        tokens = re.findall(r"\b\d+(?:[-x]\d+)+\b", body)
        assert tokens == [str(move) for move in game.moves], game.headers["Event"]


def test_no_position_before_the_last_move_is_decided(acf_games):
    """Human games end by claim: with the draw rules off nothing ends a game early."""
    for game in acf_games:
        assert game.rules == Rules.without_draws()
        for board in game.boards[:-1]:
            assert board.has_legal_moves(), (game.headers["Event"], board.fen())
        assert game.termination is None, game.headers["Event"]
        assert game.result == game.headers["Result"]


def test_sample_of_games_is_legal_under_the_reference_generator(acf_games):
    rng = random.Random(5)
    for game in rng.sample(acf_games, 300):
        position = ref.start_position()
        for move in game.moves:
            replies = {(path, captured): result for path, captured, result in ref.legal_moves(position)}
            key = (move.path, frozenset(move.captured_squares))
            assert key in replies, (game.headers["Event"], str(move), ref.position_fen(position))
            position = replies[key]
        assert position == ref.board_to_position(game.board)


@pytest.mark.slow
def test_all_games_are_legal_under_the_reference_generator(acf_games):
    for game in acf_games:
        position = ref.start_position()
        for move in game.moves:
            replies = {(path, captured): result for path, captured, result in ref.legal_moves(position)}
            key = (move.path, frozenset(move.captured_squares))
            assert key in replies, (game.headers["Event"], str(move), ref.position_fen(position))
            position = replies[key]


def _first_automatic_draw(game: Game, rules: Rules) -> tuple[int, Termination] | None:
    """Ply at which ``rules`` would end the game early, computed from its positions alone."""
    seen: dict[Board, int] = {}
    quiet = 0
    for ply, board in enumerate(game.boards):
        if ply:
            move, before = game.moves[ply - 1], game.boards[ply - 1]
            man_moved = before.piece_at(move.from_square) in ("b", "w")
            quiet = 0 if move.is_capture or man_moved else quiet + 1
        seen[board] = seen.get(board, 0) + 1
        if ply == len(game.moves):
            return None  # the record ends here anyway
        if seen[board] >= rules.repetition:
            return ply, Termination.REPETITION
        if quiet >= rules.no_progress_plies:
            return ply, Termination.NO_PROGRESS
        if ply >= rules.max_plies:
            return ply, Termination.MAX_PLIES
    return None


def test_automatic_draws_would_cut_two_records_short(acf_games):
    """With the default rules, games 483 and 701 repeat a position three times before their
    record ends; ``Game`` stops them there and ``read_pdn`` refuses the later moves."""
    cut = {
        game.headers["Event"]: draw for game in acf_games if (draw := _first_automatic_draw(game, Rules())) is not None
    }
    assert set(cut) == {"ACF archive game 483", "ACF archive game 701"}
    for event, (ply, termination) in cut.items():
        game = acf_games[int(event.split()[-1]) - 1]
        assert termination == Termination.REPETITION
        replay = Game(rules=Rules(), moves=game.moves[:ply])
        assert replay.termination == Termination.REPETITION and replay.result == "1/2-1/2"
        assert replay.repetitions() == 3
        with pytest.raises(PdnError, match=r"line \d+") as info:
            read_pdn(game.to_pdn(), rules=Rules())
        assert info.value.line is not None


def test_to_pdn_round_trips_moves_and_headers(acf_games, tmp_path):
    sample = random.Random(9).sample(acf_games, 200)
    for game in sample:
        text = game.to_pdn()
        (again,) = read_pdn(text)
        assert again.moves == game.moves
        assert again.headers == game.headers, text
        assert again.result == game.result
        assert Game.from_pdn(text).moves == game.moves
    path = tmp_path / "sample.pdn"
    write_pdn(sample, path)
    back = read_pdn(path)
    assert [g.moves for g in back] == [g.moves for g in sample]
    assert [g.headers for g in back] == [g.headers for g in sample]
    assert read_pdn(str(path))[0].moves == sample[0].moves
