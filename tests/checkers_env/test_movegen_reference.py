"""The numba move generator agrees with the independent reference generator.

Every check compares the multiset of (path, captured squares, resulting position) of
``Board.legal_moves()`` + ``Board.play`` with ``reference_movegen.legal_moves``, and the
kernel entry points (``count_moves``, ``nth_move``, ``generate_moves_kernel``) with each other.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
import reference_movegen as ref
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from checkers_env import BLACK, WHITE, Board, IllegalMoveError, InvalidPositionError, Move
from checkers_env import bitboard as bb
from checkers_env.movegen import generate_moves_kernel, new_move_buffer

# -- comparison helpers ---------------------------------------------------------------


def kernel_moves(board: Board) -> Counter:
    return Counter(
        (move.path, frozenset(move.captured_squares), ref.board_to_position(board.play(move)))
        for move in board.legal_moves()
    )


def reference_moves(board: Board) -> Counter:
    return Counter(ref.legal_moves(ref.board_to_position(board)))


def check_against_reference(board: Board) -> list[Move]:
    """Assert every agreement for one position; return the kernel's moves."""
    position = ref.board_to_position(board)
    assert ref.position_to_board(position, Board) == board
    moves = board.legal_moves()
    got, want = kernel_moves(board), reference_moves(board)
    if got != want:
        missing = sorted(m[0] for m in want - got)
        extra = sorted(m[0] for m in got - want)
        pytest.fail(
            f"move generator disagrees with the reference in {board.fen()}:\n"
            f"  missing (path): {missing}\n  extra (path): {extra}\n"
            f"  (same paths listed means the captured set or the resulting position differs)"
        )
    mover, opponent = board.mover_bitboards
    black_to_move = board.turn == BLACK
    n = bb.count_moves(mover, opponent, board.kings, black_to_move)
    assert n == len(moves), board.fen()
    assert board.has_legal_moves() == bool(want), board.fen()
    assert board.is_capture_position() == any(captured for _, captured, _ in want), board.fen()

    buffer = new_move_buffer()
    count = generate_moves_kernel(mover, opponent, board.kings, black_to_move, buffer)
    assert count == n, board.fen()
    for k in range(n):
        nth = tuple(int(x) for x in bb.nth_move(mover, opponent, board.kings, black_to_move, k))
        assert nth == tuple(int(x) for x in buffer[k]), f"nth_move({k}) in {board.fen()}"
    assert bb.nth_move(mover, opponent, board.kings, black_to_move, n)[0] == -1
    return moves


def mirrored(position):
    """The same position with colours swapped and the board turned (s -> 33 - s)."""
    black_men, black_kings, white_men, white_kings, side = position

    def turn(squares):
        return frozenset(33 - s for s in squares)

    return (turn(white_men), turn(white_kings), turn(black_men), turn(black_kings), 1 - side)


def position(black_men=(), black_kings=(), white_men=(), white_kings=(), side=BLACK):
    return (
        frozenset(black_men),
        frozenset(black_kings),
        frozenset(white_men),
        frozenset(white_kings),
        int(side),
    )


# -- the reference itself ---------------------------------------------------------------


def test_reference_geometry_follows_the_design_diagram():
    assert ref.square_to_cell(4) == (0, 0)
    assert ref.square_to_cell(1) == (0, 6)
    assert ref.square_to_cell(5) == (1, 7)
    assert ref.square_to_cell(8) == (1, 1)
    assert ref.square_to_cell(29) == (7, 7)
    assert ref.square_to_cell(32) == (7, 1)
    assert sorted(ref.cell_to_square(r, c) for r in range(8) for c in range(8) if (r + c) % 2 == 0) == list(
        range(1, 33)
    )
    start = ref.start_position()
    assert sorted(path for path, _, _ in ref.legal_moves(start)) == [
        (9, 13), (9, 14), (10, 14), (10, 15), (11, 15), (11, 16), (12, 16)
    ]  # fmt: skip
    assert [ref.perft(start, d) for d in range(1, 5)] == [7, 49, 302, 1469]


def test_reference_adapters_round_trip_through_board_and_fen():
    board = Board.from_fen("W:W18,K30,31:B2,K14,15")
    position_ = ref.board_to_position(board)
    assert position_ == position(black_men=[2, 15], black_kings=[14], white_men=[18, 31], white_kings=[30], side=WHITE)
    assert ref.position_to_board(position_, Board) == board
    assert Board.from_fen(ref.position_fen(position_)) == board


# -- positions from random games -----------------------------------------------------------


def random_game_boards(seed: int, games: int, max_plies: int = 200):
    rng = random.Random(seed)
    seen = set()
    for _ in range(games):
        board = Board()
        for _ in range(max_plies):
            if board not in seen:
                seen.add(board)
                yield board
            moves = board.legal_moves()
            if not moves:
                break
            board = board.play(rng.choice(moves))


def test_random_game_positions_agree_with_reference():
    checked = captures = multi = crowned = 0
    for board in random_game_boards(seed=20240501, games=60):
        moves = check_against_reference(board)
        checked += 1
        captures += any(m.is_capture for m in moves)
        multi += any(len(m.path) > 2 for m in moves)
        crowned += bool(board.kings)
    assert checked >= 3000
    # The sample must exercise what it claims to: captures, multi-jumps and kings.
    assert captures >= 300 and multi >= 30 and crowned >= 500, (checked, captures, multi, crowned)


# -- random placements with many kings -----------------------------------------------------


def test_king_heavy_placements_agree_with_reference():
    rng = random.Random(7)
    checked = long_captures = 0
    for _ in range(2500):
        board = ref.position_to_board(ref.random_position(rng), Board)
        moves = check_against_reference(board)
        checked += 1
        long_captures += any(len(m.captured_squares) >= 3 for m in moves)
    assert checked == 2500 and long_captures >= 20, long_captures


def test_board_validation_matches_reference_legality():
    """Board accepts exactly the placements the reference calls legal."""
    rng = random.Random(11)
    accepted = rejected = 0
    for _ in range(1500):
        squares = rng.sample(range(1, 33), rng.randint(0, 28))
        pieces = [set(), set(), set(), set()]
        for square in squares:
            pieces[rng.randrange(4)].add(square)
        candidate = (*map(frozenset, pieces), rng.choice((BLACK, WHITE)))
        if ref.is_legal_position(candidate):
            ref.position_to_board(candidate, Board)
            accepted += 1
        else:
            with pytest.raises(InvalidPositionError):
                ref.position_to_board(candidate, Board)
            rejected += 1
    assert accepted >= 100 and rejected >= 100


_piece = st.sampled_from("bwBWBW")


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(
    placement=st.dictionaries(st.integers(1, 32), _piece, min_size=1, max_size=24),
    side=st.sampled_from((BLACK, WHITE)),
)
def test_hypothesis_placements_agree_with_reference(placement, side):
    pieces = {letter: frozenset(s for s, p in placement.items() if p == letter) for letter in "bBwW"}
    candidate = (pieces["b"], pieces["B"], pieces["w"], pieces["W"], int(side))
    assume(ref.is_legal_position(candidate))
    check_against_reference(ref.position_to_board(candidate, Board))


# -- positions built for the capture rules ---------------------------------------------------

# (description, position, {path: captured squares}) with Black to move; each case is also
# checked with colours swapped and the board turned.
CAPTURE_CASES = [
    (
        "king loops round four men back to its own start square (origin counts as empty)",
        position(black_kings=[11], white_men=[15, 16, 23, 24], white_kings=[29]),
        {
            (11, 20, 27, 18, 11): {15, 16, 23, 24},
            (11, 18, 27, 20, 11): {15, 16, 23, 24},
        },
    ),
    (
        "king captures six after a loop; a shorter sequence may be chosen too",
        position(black_kings=[11], white_men=[6, 7, 15, 16, 23, 24], white_kings=[29]),
        {
            (11, 20, 27, 18, 11, 2, 9): {6, 7, 15, 16, 23, 24},
            (11, 18, 27, 20, 11, 2, 9): {6, 7, 15, 16, 23, 24},
            (11, 2, 9): {6, 7},
        },
    ),
    (
        "a captured piece cannot be jumped twice",
        position(black_kings=[11], white_men=[15], white_kings=[29]),
        {(11, 18): {15}},
    ),
    (
        "a man crowned mid-capture stops although a king could go on",
        position(black_men=[16], white_men=[19, 25, 26]),
        {(16, 23, 30): {19, 26}},
    ),
    (
        "a king crossing the far row keeps capturing",
        position(black_kings=[23], white_men=[17, 25, 26]),
        {(23, 30, 21, 14): {17, 25, 26}},
    ),
    (
        "any capture may be chosen, not only the longest; each is completed",
        position(black_men=[11], white_men=[15, 16, 22]),
        {(11, 20): {16}, (11, 18, 25): {15, 22}},
    ),
    (
        "capture is mandatory even when other pieces could step",
        position(black_men=[1, 2, 3, 11], white_men=[15, 32]),
        {(11, 18): {15}},
    ),
    (
        "men capture forward only, kings backward too",
        position(black_men=[10], black_kings=[19], white_men=[6, 16]),
        {(19, 12): {16}},
    ),
]


@pytest.mark.parametrize("turned", [False, True], ids=["black", "white"])
@pytest.mark.parametrize("case", CAPTURE_CASES, ids=[c[0] for c in CAPTURE_CASES])
def test_built_capture_positions(case, turned):
    _, position_, expected = case
    if turned:
        position_ = mirrored(position_)
        expected = {tuple(33 - s for s in path): {33 - s for s in caps} for path, caps in expected.items()}
    # The reference must find exactly the hand-derived moves ...
    assert {path: set(caps) for path, caps, _ in ref.legal_moves(position_)} == expected
    # ... and so must the kernel, with the same resulting positions.
    board = ref.position_to_board(position_, Board)
    moves = check_against_reference(board)
    assert {m.path: set(m.captured_squares) for m in moves} == expected


def test_crowned_man_becomes_king_and_loop_leaves_king_on_origin():
    board = ref.position_to_board(CAPTURE_CASES[3][1], Board)
    after = board.play("16x23x30")
    assert after.piece_at(30) == "B" and after.piece_at(19) is None and after.piece_at(26) is None
    assert after.piece_at(25) == "w" and after.turn == WHITE

    loop = ref.position_to_board(CAPTURE_CASES[0][1], Board)
    after = loop.play("11x20x27x18x11")
    assert after.piece_at(11) == "B"
    assert after.pieces(WHITE) == [29]


def test_incomplete_capture_is_not_playable():
    board = ref.position_to_board(CAPTURE_CASES[5][1], Board)
    partial = Move.from_pdn("11x18")  # the man must go on to 25
    assert partial not in board.legal_moves()
    with pytest.raises(IllegalMoveError):
        board.play(partial)
    with pytest.raises(IllegalMoveError):
        board.play("11x18")
    with pytest.raises(IllegalMoveError):
        board.play(Move.from_pdn("1-5"))  # a step while a capture is mandatory


def test_side_without_moves_or_pieces():
    for fen in ("B:W9,14:B5", "B:W8,9,11,14:BK4,5", "B:W9:B", "W:W:B1,2"):
        board = Board.from_fen(fen)
        assert board.legal_moves() == [], fen
        assert not board.has_legal_moves(), fen
        check_against_reference(board)
