"""The match loop: adjudication by an endgame database (``play_game(..., adjudicate=db)``), and
forfeits (an agent that raises ``ForfeitError`` loses there)."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env import Board, ForfeitError, Game, Rules, make_agent
from checkers_env.match import ADJUDICATED, FORFEITED, GameRecord, play_game

#: Five pieces, Black to move and forced to capture (14x23): the game enters the 4-piece
#: database at once.
CAPTURE_INTO_FOUR = "B:W18,K30,31:B14,K3"
#: Five kings, no capture in sight: the players walk about before a capture.
FIVE_KINGS = "B:WK26,K30,31:BK1,K3"


def _pieces(board: Board) -> int:
    return bin(board.black | board.white).count("1")


def _result_of(db, board: Board) -> str:
    value = db.probe(board).value
    if value == "draw":
        return "1/2-1/2"
    return "1-0" if (value == "win") == (board.turn == 0) else "0-1"


@pytest.mark.parametrize("fen", [CAPTURE_INTO_FOUR, FIVE_KINGS])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_game_ends_at_its_first_position_in_the_database(egdb4, fen, seed):
    start = Board.from_fen(fen)
    record = play_game(
        make_agent("random"), make_agent("greedy"), start=start, rng=np.random.default_rng(seed), adjudicate=egdb4
    )
    boards = Game(start=start, rules=Rules.without_draws(), moves=record.moves).boards
    if record.termination == ADJUDICATED:
        assert _pieces(boards[-1]) <= 4
        assert all(_pieces(b) == 5 for b in boards[:-1])  # the first position inside, no later
        assert record.result == _result_of(egdb4, boards[-1])
    else:  # the rules ended it first, with five pieces still on the board
        assert all(_pieces(b) == 5 for b in boards)
    if fen == CAPTURE_INTO_FOUR:
        assert record.termination == ADJUDICATED and record.moves == ["14x23"]


def test_the_pdn_says_egdb_and_keeps_the_moves(egdb4):
    record = play_game(
        make_agent("random"),
        make_agent("random"),
        start=Board.from_fen(CAPTURE_INTO_FOUR),
        rng=np.random.default_rng(0),
        adjudicate=egdb4,
    )
    game = record.to_game()
    assert game.headers["Termination"] == "egdb"
    pdn = game.to_pdn()
    assert '[Termination "egdb"]' in pdn and "14x23" in pdn and record.result in pdn
    assert GameRecord.from_dict(record.to_dict()) == record  # the league's JSON line


def test_an_opening_that_enters_the_database_ends_the_game_before_any_agent_moves(egdb4):
    record = play_game(
        make_agent("random"),
        make_agent("random"),
        opening="14x23",
        start=Board.from_fen(CAPTURE_INTO_FOUR),
        adjudicate=egdb4,
    )
    assert record.moves == ["14x23"] and record.termination == ADJUDICATED
    assert record.seconds == {"black": 0.0, "white": 0.0} and record.move_seconds == []


def test_each_chosen_move_keeps_its_time():
    record = play_game(make_agent("greedy"), make_agent("random"), opening="11-15 23-19", rng=np.random.default_rng(1))
    assert len(record.move_seconds) == len(record.moves) - 2  # the opening's moves were not chosen
    black, white = sum(record.move_seconds[::2]), sum(record.move_seconds[1::2])  # Black chose the third
    assert black == pytest.approx(record.seconds["black"], abs=1e-3)
    assert white == pytest.approx(record.seconds["white"], abs=1e-3)


def test_without_a_database_games_go_to_their_end(egdb4):
    start = Board.from_fen(CAPTURE_INTO_FOUR)
    record = play_game(make_agent("greedy"), make_agent("greedy"), start=start, rng=np.random.default_rng(3))
    assert record.termination != ADJUDICATED and len(record.moves) > 1


def test_a_position_the_rules_end_is_not_adjudicated(egdb4):
    # White to move with no legal move: lost under the rules (the database agrees, but the
    # rules come first and say why).
    start = Board.from_fen("W:W5:BK1")
    record = play_game(make_agent("random"), make_agent("random"), start=start, adjudicate=egdb4)
    assert record.termination == "no_moves" and record.result == "1-0"


class _GivesUpAtPly:
    """Plays greedy moves until ``ply``, then raises ``ForfeitError``."""

    name = "gives-up"

    def __init__(self, ply: int):
        self.ply, self.greedy = ply, make_agent("greedy")

    def __str__(self) -> str:
        return self.name

    def select_move(self, game):
        if game.ply >= self.ply:
            raise ForfeitError("lost the thread")
        return self.greedy.select_move(game)

    def reset(self, seed=None):
        self.greedy.reset(seed)


@pytest.mark.parametrize("ply", [0, 1, 6, 7])
def test_an_agent_that_forfeits_loses_there_with_the_reason_on_record(ply):
    quitter, other = _GivesUpAtPly(ply), make_agent("random")
    black, white = (quitter, other) if ply % 2 == 0 else (other, quitter)
    record = play_game(black, white, rng=np.random.default_rng(0))
    side = "black" if ply % 2 == 0 else "white"
    assert (record.result, record.termination, record.plies) == ("0-1" if side == "black" else "1-0", FORFEITED, ply)
    assert record.forfeit == f"{side} (gives-up) forfeited: lost the thread"
    again = GameRecord.from_dict(record.to_dict())
    assert again == record and again.to_game().headers["Forfeit"] == record.forfeit
    assert again.to_game().headers["Termination"] == "forfeit"
    # Records written before forfeits existed read back with none.
    old = record.to_dict()
    del old["forfeit"]
    assert GameRecord.from_dict(old).forfeit == ""
