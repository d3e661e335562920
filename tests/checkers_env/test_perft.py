"""Perft: exact published counts from the start, and agreement with the reference generator."""

from __future__ import annotations

import random

import pytest
import reference_movegen as ref

from checkers_env import WHITE, Board, divide, perft

# docs/design.md §1 (OEIS A133046): complete moves, capture paths counted separately.
START_PERFT = {
    1: 7,
    2: 49,
    3: 302,
    4: 1469,
    5: 7361,
    6: 36768,
    7: 179740,
    8: 845931,
    9: 3963680,
    10: 18391564,
    11: 85242128,
    12: 388623673,
    13: 1766623630,
}


def test_perft_depth_zero_and_bad_depths():
    assert perft(Board(), 0) == 1
    assert perft(Board(), 0, bulk=False) == 1
    with pytest.raises(ValueError):
        perft(Board(), -1)
    with pytest.raises(ValueError):
        divide(Board(), 0)


@pytest.mark.parametrize("depth", range(1, 11))
def test_perft_from_start(depth):
    assert perft(Board(), depth) == START_PERFT[depth]


@pytest.mark.parametrize("depth", range(1, 11))
def test_perft_bulk_and_full_agree(depth):
    assert perft(Board(), depth, bulk=False) == perft(Board(), depth, bulk=True) == START_PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [11, 12, 13])
def test_perft_from_start_deep(depth):
    assert perft(Board(), depth) == START_PERFT[depth]


def test_divide_three_matches_reference_per_move():
    counts = divide(Board(), 3)
    assert sum(counts.values()) == 302
    start = ref.start_position()
    expected = {path: ref.perft(result, 2) for path, _, result in ref.legal_moves(start)}
    assert {move.path: n for move, n in counts.items()} == expected
    assert len(expected) == 7 and sum(expected.values()) == 302


def test_divide_sums_to_perft_and_matches_divide_of_children():
    board = Board().play("11-15").play("23-19").play("8-11").play("22-17")
    counts = divide(board, 4)
    assert sum(counts.values()) == perft(board, 4)
    for move, n in counts.items():
        assert n == perft(board.play(move), 3)


def _random_positions(seed: int, count: int):
    """Positions deep in random games: captures, kings, White to move."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        board = Board()
        for _ in range(rng.randint(20, 90)):
            moves = board.legal_moves()
            if not moves:
                break
            board = board.play(rng.choice(moves))
        if board.legal_moves():
            positions.append(board)
    return positions


def test_perft_matches_reference_in_middle_and_endgames():
    positions = _random_positions(seed=3, count=25)
    positions += [
        Board.from_fen("W:WK5,K6,K7,K8,14,15:BK25,K26,K27,K28,18,19"),
        Board.from_fen("B:WK9,K10,K11,K12,22,23,24:BK1,K2,K3,K30,K31,K32,13"),
        Board.from_fen("B:W15,16,23,24,K29:BK11"),  # the loop capture
    ]
    assert any(board.kings for board in positions) and any(board.turn == WHITE for board in positions)
    for board in positions:
        position = ref.board_to_position(board)
        for depth in (1, 2, 3):
            want = ref.perft(position, depth)
            assert perft(board, depth) == want, (board.fen(), depth)
            assert perft(board, depth, bulk=False) == want, (board.fen(), depth)


@pytest.mark.parametrize(
    "args, error, words",
    [
        (("x", 2), TypeError, "board must be a Board"),
        ((Board(), "2"), TypeError, "depth must be a whole number"),
        ((Board(), 2.0), TypeError, "depth must be a whole number"),
        ((Board(), True), TypeError, "depth must be a whole number"),
        ((Board(), 2, "yes"), TypeError, "bulk must be True or False"),
        ((Board(), -3), ValueError, "depth must be 0 to 40, got -3"),
        ((Board(), 2000), ValueError, "depth must be 0 to 40, got 2000"),  # no RecursionError
    ],
)
def test_perft_names_the_bad_argument(args, error, words):
    with pytest.raises(error, match=words):
        perft(*args)


def test_deep_perft_is_counted_in_slices_that_add_up(monkeypatch):
    import importlib

    perft_module = importlib.import_module("checkers_env.perft")  # the package's ``perft`` is the function

    monkeypatch.setattr(perft_module, "SLICE_DEPTH", 3)  # slices below the second ply at depth 5
    slices = list(perft_module.perft_slices(Board(), 5))
    assert len(slices) == START_PERFT[2]
    assert all(len(path) == 2 for path, _, _ in slices)
    assert sum(count for _, _, count in slices) == START_PERFT[5]
    assert sum(share for _, share, _ in slices) == pytest.approx(1.0)
    assert perft_module.perft(Board(), 6) == START_PERFT[6]
