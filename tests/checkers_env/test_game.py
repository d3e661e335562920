"""Game: the draw rules, the no-moves loss, taking moves back, and the end of a game."""

from __future__ import annotations

import random

import pytest

from checkers_env import BLACK, WHITE, Board, Game, IllegalMoveError, Move, Rules, Termination, read_pdn

# Two lone kings in opposite corners: Black shuffles 1-6-1, White 32-27-32.
KINGS_FEN = "B:WK32:BK1"
SHUFFLE = ["1-6", "32-27", "6-1", "27-32"]  # back to the start after 4 plies


def shuffle(game: Game, plies: int, cycle=SHUFFLE) -> None:
    for ply in range(plies):
        game.play(cycle[ply % len(cycle)])


# -- Rules --------------------------------------------------------------------------------


def test_default_rules_and_without_draws():
    assert Rules() == Rules(repetition=3, no_progress_plies=80, max_plies=400)
    assert Rules.without_draws() == Rules(repetition=None, no_progress_plies=None, max_plies=None)
    assert Game().rules == Rules()


@pytest.mark.parametrize(
    "kwargs",
    [{"repetition": 0}, {"no_progress_plies": -1}, {"max_plies": 0}, {"max_plies": "400"}, {"repetition": 2.5}],
)
def test_rules_reject_bad_values(kwargs):
    with pytest.raises(ValueError):
        Rules(**kwargs)


def test_rules_refuse_a_repetition_below_two():
    # repetition=1 drew every game before its first move (the start has occurred once).
    with pytest.raises(ValueError, match=r"^Rules.repetition must be at least 2 .*, got 1; None turns the rule off$"):
        Rules(repetition=1)
    with pytest.raises(ValueError, match="positive integer"):
        Rules(repetition=True)  # a bool is not a count
    assert Game(rules=Rules(repetition=2)).result == "*"


# -- threefold repetition -------------------------------------------------------------------


def test_threefold_repetition_with_shuffling_kings():
    game = Game(start=Board.from_fen(KINGS_FEN))
    assert game.repetitions() == 1
    shuffle(game, 4)
    assert game.board == game.start and game.repetitions() == 2 and not game.is_over()
    shuffle(game, 3)
    assert not game.is_over() and game.result == "*" and game.termination is None
    game.play("27-32")  # the start position, Black to move, a third time
    assert game.ply == 8 and game.repetitions() == 3
    assert game.is_over()
    assert game.termination == Termination.REPETITION
    assert game.winner is None and game.result == "1/2-1/2"
    assert game.legal_moves() == []


def test_repetition_count_is_configurable():
    game = Game(start=Board.from_fen(KINGS_FEN), rules=Rules(repetition=2))
    shuffle(game, 3)
    assert not game.is_over()
    game.play("27-32")
    assert game.termination == Termination.REPETITION and game.ply == 4


def test_repetitions_need_not_be_consecutive():
    game = Game(start=Board.from_fen(KINGS_FEN))
    shuffle(game, 4)  # the start a second time
    for move in ["1-5", "32-28", "5-1"]:  # another route, each position new
        game.play(move)
        assert game.repetitions() == 1 and not game.is_over()
    game.play("28-32")  # the start a third time
    assert game.ply == 8 and game.termination == Termination.REPETITION


def test_the_side_to_move_is_part_of_the_position():
    black_to_move, white_to_move = Board.from_fen(KINGS_FEN), Board.from_fen("W:WK32:BK1")
    assert black_to_move != white_to_move and hash(black_to_move) != hash(white_to_move)
    game = Game(start=black_to_move)
    shuffle(game, 4)
    assert game.repetitions() == 2


# -- no progress ------------------------------------------------------------------------------

# Kings shuffle in the corners while a man of each side waits: 12 (Black) and 21 (White).
NO_PROGRESS_FEN = "B:WK29,21:BK4,12"
KING_CYCLE = ["4-8", "29-25", "8-4", "25-29"]


def test_no_progress_after_80_quiet_plies():
    game = Game(start=Board.from_fen(NO_PROGRESS_FEN), rules=Rules(repetition=None))
    shuffle(game, 79, KING_CYCLE)
    assert not game.is_over()
    shuffle_next = KING_CYCLE[79 % 4]
    game.play(shuffle_next)
    assert game.ply == 80
    assert game.termination == Termination.NO_PROGRESS
    assert game.winner is None and game.result == "1/2-1/2"


def test_a_man_move_restarts_the_no_progress_count():
    game = Game(start=Board.from_fen(NO_PROGRESS_FEN), rules=Rules(repetition=None))
    shuffle(game, 60, KING_CYCLE)
    game.play("12-16")  # a man move (ply 61)
    game.play("29-25")
    cycle = ["4-8", "25-29", "8-4", "29-25"]
    shuffle(game, 78, cycle)  # plies 63..140: 79 quiet plies since the man move
    assert game.ply == 140 and not game.is_over()
    game.play(cycle[78 % 4])
    assert game.ply == 141 and game.termination == Termination.NO_PROGRESS


def test_a_capture_restarts_the_no_progress_count():
    rules = Rules(repetition=None, no_progress_plies=4, max_plies=None)
    game = Game(start=Board.from_fen("B:WK19,K29:BK1,K11"), rules=rules)
    game.play("1-5")
    game.play("19-15")  # offers the king: Black must take it
    assert [str(m) for m in game.legal_moves()] == ["11x18"]
    game.play("11x18")  # a king captures: quiet count back to 0
    for move in ["29-25", "5-1", "25-29"]:
        game.play(move)
        assert not game.is_over()
    game.play("1-5")  # the 4th quiet ply after the capture
    assert game.termination == Termination.NO_PROGRESS and game.ply == 7


def test_kings_only_under_default_rules_end_by_a_draw_rule():
    game = Game(start=Board.from_fen(NO_PROGRESS_FEN))
    shuffle(game, 8, KING_CYCLE)
    assert game.termination == Termination.REPETITION  # threefold comes first here


# -- max plies ---------------------------------------------------------------------------------


def test_max_plies_cap():
    rng = random.Random(4)
    game = Game(rules=Rules(max_plies=12))
    for _ in range(11):
        game.play(rng.choice(game.legal_moves()))
    assert not game.is_over()
    game.play(rng.choice(game.legal_moves()))
    assert game.termination == Termination.MAX_PLIES
    assert game.winner is None and game.result == "1/2-1/2"
    with pytest.raises(IllegalMoveError):
        game.play(game.board.legal_moves()[0])


def test_a_win_on_the_last_allowed_ply_is_a_win():
    game = Game(start=Board.from_fen("B:W18:B14"), rules=Rules(max_plies=1))
    game.play("14x23")
    assert game.termination == Termination.NO_MOVES
    assert game.winner == BLACK and game.result == "1-0"


def test_without_draws_nothing_ends_a_shuffle():
    game = Game(start=Board.from_fen(KINGS_FEN), rules=Rules.without_draws())
    shuffle(game, 480)
    assert not game.is_over() and game.termination is None and game.result == "*"
    assert game.repetitions() == 121
    assert len(game.legal_moves()) == 2


# -- no legal moves --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fen, winner, result",
    [
        ("B:W8,9,11,14:BK4,5", WHITE, "0-1"),  # Black blocked
        ("W:WK1,5:B6,9,10", BLACK, "1-0"),  # White blocked: 1 and 5 boxed in by Black's men
        ("W:W:B1,2", BLACK, "1-0"),  # White has no pieces
        ("B:W21:B", WHITE, "0-1"),  # Black has no pieces
    ],
)
def test_no_moves_at_the_start_loses(fen, winner, result):
    board = Board.from_fen(fen)
    assert board.legal_moves() == []
    game = Game(start=board)
    assert game.is_over() and game.ply == 0
    assert game.termination == Termination.NO_MOVES
    assert game.winner == winner and game.result == result
    assert game.legal_moves() == []


def test_capturing_the_last_piece_wins():
    game = Game(start=Board.from_fen("B:W18:B14"))
    game.play("14x23")
    assert game.board.pieces(WHITE) == []
    assert game.termination == Termination.NO_MOVES
    assert game.winner == BLACK and game.result == "1-0"


def test_blocking_the_last_moves_wins():
    game = Game(start=Board.from_fen("W:W8,9,14,K16:BK4,5"))
    game.play("16-11")
    assert game.board.pieces(BLACK) == [4, 5]  # Black still has pieces, but no move
    assert game.termination == Termination.NO_MOVES
    assert game.winner == WHITE and game.result == "0-1"


def test_result_of_the_rules_overrides_the_result_tag():
    game = Game(start=Board.from_fen("B:W18:B14"), headers={"Result": "0-1"})
    assert game.result == "0-1"  # unfinished: the tag speaks (resignation, agreement)
    game.play("14x23")
    assert game.result == "1-0"


# -- pop ---------------------------------------------------------------------------------------------


def test_pop_undoes_repetition():
    game = Game(start=Board.from_fen(KINGS_FEN))
    shuffle(game, 8)
    assert game.termination == Termination.REPETITION
    assert game.pop() == Move.from_pdn("27-32")
    assert not game.is_over() and game.termination is None and game.result == "*"
    assert game.ply == 7 and game.repetitions() == 2
    game.play("27-32")
    assert game.termination == Termination.REPETITION and game.repetitions() == 3
    while game.moves:
        game.pop()
    assert game.board == game.start and game.repetitions() == 1 and not game.is_over()
    with pytest.raises(IndexError):
        game.pop()


def test_pop_undoes_no_progress():
    game = Game(start=Board.from_fen(NO_PROGRESS_FEN), rules=Rules(repetition=None))
    shuffle(game, 80, KING_CYCLE)
    assert game.termination == Termination.NO_PROGRESS
    game.pop()
    assert not game.is_over()
    game.play(KING_CYCLE[79 % 4])
    assert game.termination == Termination.NO_PROGRESS
    # Undo back to before the last man move and take a man move instead: counting restarts.
    for _ in range(80):
        game.pop()
    assert game.ply == 0
    game.play("12-16")
    shuffle(game, 79, ["29-25", "4-8", "25-29", "8-4"])
    assert game.ply == 80 and not game.is_over()


def test_pop_undoes_a_no_moves_loss():
    game = Game(start=Board.from_fen("B:W18:B14"))
    game.play("14x23")
    assert game.winner == BLACK
    game.pop()
    assert game.winner is None and not game.is_over() and game.result == "*"
    assert [str(m) for m in game.legal_moves()] == ["14x23"]


def test_pop_then_replay_matches_a_fresh_game():
    rng = random.Random(8)
    game = Game()
    for _ in range(40):
        if game.is_over():
            break
        game.play(rng.choice(game.legal_moves()))
    for _ in range(15):
        game.pop()
    fresh = Game(moves=list(game.moves))
    assert fresh.boards == game.boards
    assert fresh.repetitions() == game.repetitions()
    assert (fresh.termination, fresh.winner, fresh.result) == (game.termination, game.winner, game.result)


# -- after the end ----------------------------------------------------------------------------------


def test_playing_after_the_end_raises():
    game = Game(start=Board.from_fen(KINGS_FEN))
    shuffle(game, 8)
    assert game.is_over()
    legal_on_the_board = game.board.legal_moves()[0]
    for move in (legal_on_the_board, str(legal_on_the_board), "1-6"):
        with pytest.raises(IllegalMoveError, match="over"):
            game.play(move)
    assert game.ply == 8  # nothing was added
    lost = Game(start=Board.from_fen("W:W:B1,2"))
    with pytest.raises(IllegalMoveError):
        lost.play("1-5")


def test_illegal_moves_leave_the_game_unchanged():
    game = Game()
    for move in ("21-17", "11-18", Move.from_pdn("22-18"), Move((11, 15), 1)):
        with pytest.raises(IllegalMoveError):
            game.play(move)
    assert game.ply == 0 and game.board == Board() and game.repetitions() == 1


def test_game_copy_and_pdn_keep_the_end():
    game = Game(start=Board.from_fen(KINGS_FEN), headers={"Event": "shuffle"})
    shuffle(game, 8)
    copy = game.copy()
    assert copy.moves == game.moves and copy.moves is not game.moves
    assert copy.termination == Termination.REPETITION
    (again,) = read_pdn(game.to_pdn())
    assert again.moves == game.moves and again.start == game.start
    assert again.headers["Result"] == "1/2-1/2" and again.headers["Event"] == "shuffle"
    assert again.rules == Rules.without_draws() and not again.is_over()


def test_a_move_of_the_wrong_type_is_a_type_error_naming_it():
    game = Game()
    with pytest.raises(TypeError, match="int 123"):
        game.play(123)
    with pytest.raises(TypeError, match="Move or PDN text"):
        Board().play(None)
    assert game.ply == 0


def test_boards_reached_by_legal_moves_pass_the_position_check():
    """``Board.play`` skips the position check for the board a legal move reaches: over random
    games (crownings and king captures included), each such board is one the checked
    constructor accepts, equal to it, hashed alike, with its side to move a ``Color``."""
    rng = random.Random(11)
    for _ in range(60):
        board = Board()
        for _ in range(200):
            moves = board.legal_moves()
            if not moves:
                break
            board = board.play(rng.choice(moves))
            checked = Board(board.black, board.white, board.kings, board.turn)
            assert checked == board and hash(checked) == hash(board)
            assert type(board.turn) is type(checked.turn) and board.legal_moves() == checked.legal_moves()
