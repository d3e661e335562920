"""Endgame measures against the 4-piece database: the sample, value keeping, conversion and
calibration, checked on players whose scores are known (a perfect one, a random one)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from checkers_env import BaseAgent, Board, egdb, make_agent
from checkers_env.errors import EndgameDatabaseError
from checkers_evaluation.endgame import (
    PerfectPlayer,
    calibration,
    measure,
    measures_markdown,
    reliability_markdown,
    sample_positions,
    unconverted_markdown,
    value_function,
    write_measures,
)


def test_the_perfect_value_of_a_position_outside_the_database_is_a_database_error(egdb4):
    # The start position has 24 pieces: the database has no value for it, and says so by name
    # (it once failed on None's missing ``value``).
    with pytest.raises(EndgameDatabaseError, match="outside the 4-piece database"):
        PerfectPlayer(egdb4).position_value(Board())


def _pieces(board: Board) -> int:
    return bin(board.black | board.white).count("1")


def test_the_sample_is_fixed_distinct_and_has_exactly_n_pieces(egdb4):
    sample = sample_positions(egdb4, 300, seed=5)
    assert sample == sample_positions(egdb4, 300, seed=5)
    assert sample != sample_positions(egdb4, 300, seed=6)
    assert len({s.board for s in sample}) == 300
    assert all(_pieces(s.board) == 4 and s.probe == egdb4.probe(s.board) for s in sample)
    assert {s.board.turn for s in sample} == {0, 1}  # both colours to move
    assert {s.probe.value for s in sample} == {"win", "loss", "draw"}
    three = sample_positions(egdb4, 50, seed=5, pieces=3)
    assert all(_pieces(s.board) == 3 for s in three)
    assert len(sample_positions(egdb4, 10**6, pieces=2)) == 3488  # every 2-piece position
    with pytest.raises(ValueError, match="pieces must be 2 to 4"):
        sample_positions(egdb4, 10, pieces=5)


def test_complete_pieces_reads_the_folder(egdb_folder, tmp_path):
    assert egdb.complete_pieces(egdb_folder) == 4
    assert egdb.complete_pieces(tmp_path) is None


def test_a_perfect_player_keeps_every_value_and_converts_every_win(egdb4):
    result = measure(PerfectPlayer(egdb4, seed=1), egdb4, positions=300, games=25, margin=0, seed=3, progress=False)
    assert result.won_positions >= 10 and result.drawn_positions >= 10
    assert result.value_keeping_won == result.value_keeping_drawn == result.value_keeping == 1.0
    assert result.games == 25 and result.conversion == 1.0 and result.extra_plies == 0.0
    assert not result.mistakes and not result.unconverted
    # Its value function is the truth.
    assert result.calibration.mse == 0.0
    assert result.calibration.mean_prediction == {"win": 1.0, "draw": 0.0, "loss": -1.0}


def test_random_loses_values_where_it_cannot_keep_them_all(egdb4):
    sample = sample_positions(egdb4, 300, seed=3)
    # The chance that uniformly random moves keep every value of this sample: tiny, so
    # "random scores below 1" holds for any seed, not just this one.
    chance = 1.0
    for board, probe in sample:
        if probe.value != "loss":
            kept = [child.value == probe.value for _, child in egdb4.move_values(board)]
            chance *= sum(kept) / len(kept)
    assert chance < 1e-6
    result = measure("random", egdb4, positions=300, games=25, seed=3, progress=False)
    assert result.value_keeping < 1.0 and len(result.mistakes) == (
        result.won_positions + result.drawn_positions - result.won_kept - result.drawn_kept
    )
    assert result.calibration is None  # no value function


class TruthTeller(BaseAgent):
    """A player whose value function is the database's (and whose moves are random)."""

    kind = "truth-teller"

    def __init__(self, db=None, offset: float = 0.0):
        super().__init__()
        self.db, self.offset = db, offset

    def select_move(self, game):
        moves = game.legal_moves()
        return moves[int(self.rng.integers(len(moves)))]

    def position_value(self, board):
        return {"win": 1.0, "draw": 0.0, "loss": -1.0}[self.db.probe(board).value] - self.offset


def test_calibration_of_the_truth_is_exact_and_of_a_biased_value_is_its_bias(egdb4):
    sample = sample_positions(egdb4, 200, seed=1)
    exact = calibration(TruthTeller(egdb4).position_value, sample)
    assert exact.mse == 0.0
    quiet = [s for s in sample if s.board.has_legal_moves() and not s.board.is_capture_position()]
    assert exact.positions == len(quiet) == sum(exact.counts.values())
    assert sum(b.positions for b in exact.reliability) == len(quiet)
    for b in exact.reliability:
        assert b.mean_prediction == b.mean_truth
    biased = calibration(TruthTeller(egdb4, offset=0.5).position_value, sample)
    assert math.isclose(biased.mse, 0.25)
    assert biased.mean_prediction["draw"] == -0.5
    assert measure(TruthTeller(egdb4), egdb4, positions=50, games=2, progress=False).calibration.mse == 0.0


def test_value_functions_of_the_agents():
    board = Board.from_fen("W:WK18,23,30:BK1,10")
    assert value_function(make_agent("alphabeta:depth=2")) is None  # points, not results
    assert value_function(make_agent("greedy")) is None
    td = make_agent("zoo:td-minimax")
    out0, out1 = td.evaluate(board)
    # the agent's net evaluates in float32 through the search's door (within 1e-5 of float64)
    assert math.isclose(value_function(td)(board), out0 - out1, abs_tol=1e-5)
    assert math.isclose(
        value_function(make_agent("alphabeta:eval=td-minimax,depth=1"))(board), out0 - out1, abs_tol=1e-5
    )
    slow_fast = make_agent("zoo:slow-fast")
    from checkers_agents.slow_fast import white_values

    f = white_values(
        slow_fast.net,
        *(np.array([x], dtype=np.int64) for x in (board.black, board.white, board.kings)),
        np.array([board.turn == 0], dtype=np.int64),
    )[0]
    mover = f if board.turn == 1 else 1.0 - f  # White's value, White to move
    assert math.isclose(value_function(slow_fast)(board), 2 * mover - 1, abs_tol=1e-5)
    value = value_function(make_agent("zoo:mcrd-net"))
    assert -1.0 <= value(board) <= 1.0


def test_reports(egdb4, tmp_path):
    results = [
        measure(spec, egdb4, positions=40, games=3, seed=2, progress=False) for spec in ("random", PerfectPlayer(egdb4))
    ]
    table = measures_markdown(results)
    lines = table.strip().splitlines()
    assert len(lines) == 4 and lines[2].startswith("| random |") and lines[3].startswith("| egdb-perfect")
    assert "100.0 %" in lines[3]
    assert "egdb-perfect" in reliability_markdown(results) and "random" not in reliability_markdown(results)
    ends = unconverted_markdown(results).splitlines()
    assert ends[2].startswith("| random |") and ends[3].endswith("| 0 | 0 | 0 | 0 |")  # perfect: none
    assert sum(int(n) for n in ends[2].strip("| ").split("|")[1:]) == results[0].games - results[0].conversions
    md, js = write_measures(results, tmp_path, command="checkers egdb measure random")
    assert "checkers egdb measure random" in md.read_text() and "the games not won" in md.read_text()
    data = json.loads(js.read_text())
    assert [m["agent"] for m in data["measures"]] == ["random", "egdb-perfect:pieces=4"]
    assert data["measures"][1]["conversion"] == 1.0
