"""The mover's frame encodings against their definition by square numbers
(docs/design.md §2)."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env import BLACK, Board, Game
from checkers_env.bitboard import square_to_bit
from checkers_env.encoding import (
    BLOCK_STATES,
    BLOCKS,
    FRAME_CELL,
    NUM_INPUTS,
    PATTERN_INPUTS,
    active_inputs,
    block_inputs,
    board_planes,
    half_turn,
    input_planes,
    pattern_inputs,
    write_planes,
)


def random_boards(count: int, seed: int = 0) -> list[Board]:
    rng = np.random.default_rng(seed)
    boards = []
    game = Game()
    while len(boards) < count:
        if game.is_over() or game.ply > 120:
            game = Game()
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
        boards.append(game.board)
    return boards


def frame_index(square: int, viewer) -> int:
    """docs/design.md §2: k = s - 1 for Black, 32 - s for White."""
    return square - 1 if viewer == BLACK else 32 - square


def expected_planes(board: Board, viewer) -> np.ndarray:
    planes = np.zeros((5, 8, 8), dtype=np.float32)
    for square in range(1, 33):
        piece = board.piece_at(square)
        if piece is None:
            continue
        k = frame_index(square, viewer)
        row = k // 4
        column = 2 * (3 - k % 4) + row % 2  # square 4r+1 of the frame is the rightmost
        own = (piece.lower() == "b") == (viewer == BLACK)
        planes[(0 if own else 2) + piece.isupper(), row, column] = 1.0
    return planes


def expected_inputs(board: Board) -> set[int]:
    viewer = board.turn
    active = set()
    for square in range(1, 33):
        piece = board.piece_at(square)
        if piece is None:
            continue
        bit = square_to_bit(square)
        frame = bit if viewer == BLACK else 31 - bit
        own = (piece.lower() == "b") == (viewer == BLACK)
        active.add(32 * ((0 if own else 2) + piece.isupper()) + frame)
    return active


def test_half_turn_is_the_bit_reversal():
    rng = np.random.default_rng(1)
    for x in rng.integers(0, 2**32, size=200):
        x = int(x)
        assert half_turn(x) == int(f"{x:032b}"[::-1], 2)


def test_frame_cells_are_the_dark_squares_once():
    cells = sorted(int(c) for c in FRAME_CELL)
    assert len(set(cells)) == 32
    assert all((c // 8 + c % 8) % 2 == 0 for c in cells)


@pytest.mark.parametrize("viewer_is_mover", [True, False])
def test_planes_match_the_square_definition(viewer_is_mover):
    out = np.empty((5, 8, 8), dtype=np.float32)
    for board in random_boards(300):
        viewer = board.turn if viewer_is_mover else board.turn.opponent
        own, opponent = (board.black, board.white) if viewer == BLACK else (board.white, board.black)
        write_planes(own, opponent, board.kings, viewer == BLACK, -1, out)
        np.testing.assert_array_equal(out, expected_planes(board, viewer), err_msg=board.fen())


def test_continuing_piece_is_marked_in_the_viewers_frame():
    out = np.empty((5, 8, 8), dtype=np.float32)
    board = Board.from_fen("W:W18:B14,K23")
    own, opponent = board.white, board.black
    write_planes(own, opponent, board.kings, False, square_to_bit(18), out)
    k = frame_index(18, board.turn)
    assert out[4].sum() == 1 and out[4, k // 4, 2 * (3 - k % 4) + (k // 4) % 2] == 1
    assert out[0, k // 4, 2 * (3 - k % 4) + (k // 4) % 2] == 1


def test_sparse_and_dense_net_inputs_agree_with_the_definition():
    boards = random_boards(300, seed=2)
    dense = input_planes(
        np.array([b.black for b in boards], np.int64),
        np.array([b.white for b in boards], np.int64),
        np.array([b.kings for b in boards], np.int64),
        np.array([b.turn == BLACK for b in boards], np.int8),
    )
    assert dense.shape == (300, NUM_INPUTS)
    active = np.empty(32, dtype=np.int64)
    for board, row in zip(boards, dense):
        own, opponent = board.mover_bitboards
        n = active_inputs(own, opponent, board.kings, board.turn == BLACK, active)
        assert set(active[:n].tolist()) == expected_inputs(board) == set(np.flatnonzero(row).tolist())


def expected_patterns(board: Board) -> list[int]:
    """The pattern inputs by their definition: for each window two rows high and four
    columns wide at columns 0, 2 or 4 of the viewer's planes (rows 0-1 first, left to
    right), its four dark squares read row by row, left to right, as base-5 digits
    (empty 0, own man 1, own king 2, opponent man 3, opponent king 4)."""
    viewer = board.turn
    digit = {}
    for square in range(1, 33):
        k = frame_index(square, viewer)
        row = k // 4
        column = 2 * (3 - k % 4) + row % 2
        piece = board.piece_at(square)
        value = 0
        if piece is not None:
            own = (piece.lower() == "b") == (viewer == BLACK)
            value = (1 if own else 3) + piece.isupper()
        digit[row, column] = value
    inputs = []
    for row in range(7):
        for left in (0, 2, 4):
            cells = sorted(cell for cell in digit if cell[0] in (row, row + 1) and left <= cell[1] < left + 4)
            assert len(cells) == 4
            state = sum(digit[cell] * 5**k for k, cell in enumerate(cells))
            inputs.append(NUM_INPUTS + BLOCK_STATES * len(inputs) + state)
    return inputs


def test_pattern_inputs_sparse_and_batched_agree_with_their_definition():
    boards = random_boards(400, seed=6)
    assert any(b.kings & b.black for b in boards) and any(b.kings & b.white for b in boards)
    batched = block_inputs(
        np.array([b.black for b in boards], np.int64),
        np.array([b.white for b in boards], np.int64),
        np.array([b.kings for b in boards], np.int64),
        np.array([b.turn == BLACK for b in boards], np.int8),
    )
    assert batched.shape == (400, BLOCKS) == (400, 21)
    active = np.full(56, -1, dtype=np.int64)
    seen = set()
    for board, row in zip(boards, batched):
        own, opponent = board.mover_bitboards
        assert pattern_inputs(own, opponent, board.kings, board.turn == BLACK, active, 3) == 3 + BLOCKS
        expected = expected_patterns(board)
        assert active[3 : 3 + BLOCKS].tolist() == expected == (NUM_INPUTS + row).tolist()
        seen.update(expected)
    assert all(NUM_INPUTS <= i < NUM_INPUTS + PATTERN_INPUTS for i in seen) and len(seen) > 300


def test_board_planes_are_own_opponent_and_kings_in_the_movers_frame():
    boards = random_boards(300, seed=3)
    planes = board_planes(
        np.array([b.black for b in boards], np.int64),
        np.array([b.white for b in boards], np.int64),
        np.array([b.kings for b in boards], np.int64),
        np.array([b.turn == BLACK for b in boards], np.int8),
    )
    assert planes.shape == (300, 3, 8, 8) and planes.dtype == np.float32
    for board, got in zip(boards, planes):
        four = expected_planes(board, board.turn)
        expected = np.stack([four[0] + four[1], four[2] + four[3], four[1] + four[3]])
        np.testing.assert_array_equal(got, expected, err_msg=board.fen())
    assert planes[:, 2].sum() > 0  # the sample has kings
