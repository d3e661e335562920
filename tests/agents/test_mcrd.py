"""MCRD: the CPU path, the CUDA kernel under the simulator, and their agreement.

The CUDA part runs ``mcrd_cudasim_check.py`` once in a subprocess (``NUMBA_ENABLE_CUDASIM``
must be set before numba is imported) and checks what it prints.

Statistical comparisons use the binomial bound: a playout scores 0, 1/2 or 1, whose
variance is at most ``p (1 - p)`` for mean ``p``, so two estimates of the same rate from
``n1`` and ``n2`` playouts differ by more than ``4 sqrt(p (1 - p) (1/n1 + 1/n2))`` with
probability about 6e-5 under the normal approximation (``p`` pooled). Every run is seeded,
so a passing comparison stays passing.
"""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from checkers_agents.mcrd import MCRDAgent
from checkers_agents.mcrd.cpu import KingHistory, PlayoutRules, descend
from checkers_agents.mcrd.playout import MAX_REDRAWS, black_points, is_king_cycle
from checkers_agents.mcrd.root import cycle_context
from checkers_agents.search_parts.position import Position
from checkers_env import Board, Game, Rules, UnknownAgentError, agent_kinds, make_agent
from checkers_env.bitboard import square_to_bit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# FEN -> (expected move, playouts); the same table is in mcrd_cudasim_check.py.
OBVIOUS = {
    "B:W5:BK6": ("6-1", 64),  # the king shuts White's last man in: White cannot move
    "B:W17,K18,27:B5,K19,K21,K31": ("21x14x23x32", 120),  # the capture that takes every white piece
    "B:W20,25:B18": ("18-23", 80),  # 18-22 loses the last man at once (25x18)
}
KINGS = "W:WK14,K23:BK6,K11"


def bits(*squares: int) -> int:
    return sum(1 << square_to_bit(s) for s in squares)


def within_binomial(w1: int, n1: int, w2: int, n2: int, sigmas: float = 4.0) -> bool:
    """Whether two doubled win counts estimate the same rate (see the module docstring)."""
    p1, p2 = w1 / (2 * n1), w2 / (2 * n2)
    p = (w1 + w2) / (2 * (n1 + n2))
    return abs(p1 - p2) <= sigmas * math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2)) + 1e-12


# -- the agent and its spec -------------------------------------------------------------


def test_registered_and_spec_round_trips():
    assert "mcrd" in agent_kinds()
    agent = make_agent("mcrd:playouts=500,allocation=halving,backend=cpu,king_weight=1.5,seed=3")
    assert isinstance(agent, MCRDAgent)
    assert (agent.playouts, agent.allocation, agent.king_weight) == (500, "halving", 1.5)
    assert str(make_agent(str(agent))) == str(agent)
    assert str(make_agent("mcrd")) == "mcrd"


@pytest.mark.parametrize(
    "spec",
    ["mcrd:allocation=greedy", "mcrd:backend=tpu", "mcrd:playouts=0", "mcrd:time=-1", "mcrd:launch=0", "mcrd:depth=3"],
)
def test_bad_parameters_are_clear_errors(spec):
    with pytest.raises(UnknownAgentError):
        make_agent(spec)


def test_auto_backend_is_cpu_without_gpu_and_says_so(caplog):
    agent = MCRDAgent(playouts=50, seed=0)
    with caplog.at_level(logging.INFO, logger="checkers_agents.mcrd"):
        agent.select_move(Game())
    assert agent.backend_used == "cpu"
    assert "backend=auto chose cpu" in caplog.text


def test_cuda_without_a_gpu_is_refused_when_the_agent_is_built(monkeypatch):
    from checkers_agents.mcrd import agent as mcrd_agent

    if mcrd_agent.cuda_simulator_enabled():
        pytest.skip("the simulator is on in this process")
    monkeypatch.setattr(mcrd_agent, "gpu_available", lambda: False)  # a machine without a GPU
    with pytest.raises(ValueError, match="backend=cuda needs a CUDA GPU.*use backend=cpu"):
        make_agent("mcrd:backend=cuda")  # refused when built, before any move is asked for
    with pytest.raises(ValueError, match="NUMBA_ENABLE_CUDASIM"):
        MCRDAgent(backend="cuda", playouts=10)


# -- obvious positions, every allocation ----------------------------------------------------


@pytest.mark.parametrize("allocation", ["uniform", "proportional", "halving"])
@pytest.mark.parametrize("fen", list(OBVIOUS))
def test_cpu_finds_the_obvious_move(fen, allocation):
    expected, playouts = OBVIOUS[fen]
    agent = MCRDAgent(playouts=4 * playouts, launch=playouts, allocation=allocation, backend="cpu", seed=1)
    result = agent.search(Board.from_fen(fen))
    assert str(result.move) == expected
    assert result.total_playouts <= 4 * playouts + len(result.moves)


def test_win_counts_are_for_the_side_that_chose_the_child():
    # The mirror of "B:W5:BK6" with White to move: only 27-32 (shutting Black's last man
    # in) wins at once, so the counts must be White's.
    result = MCRDAgent(playouts=400, backend="cpu", seed=2).search(Board.from_fen("W:WK27:B28"))
    assert str(result.move) == "27-32"
    assert result.rates[result.chosen] == 1.0
    assert sorted(result.rates)[-2] < 0.5


# -- the move cap and its adjudication ---------------------------------------------------------

# Black: three men on its back rank; White: two kings far away. No capture is possible
# within one move, so with max_moves=0 every playout is decided by the material count.
MATERIAL = "B:WK29,K30:B1,2,3"


@pytest.mark.parametrize("king_weight, points", [(1.0, 2), (1.5, 1), (2.0, 0)])
def test_cap_is_adjudicated_by_piece_count_with_king_weight(king_weight, points):
    agent = MCRDAgent(playouts=70, backend="cpu", max_moves=0, king_weight=king_weight, seed=0)
    result = agent.search(Board.from_fen(MATERIAL))
    assert result.capped == result.total_playouts
    assert result.plies == 0
    # 3 men against 2 kings: ahead at weight 1, equal (a draw, half a win) at 1.5, behind at 2.
    assert (result.wins == points * result.playouts).all()
    assert (result.draws == (result.playouts if points == 1 else 0)).all()


def test_cap_matters_for_the_counts():
    board = Board.from_fen(MATERIAL)
    short = MCRDAgent(playouts=700, backend="cpu", max_moves=4, seed=0).search(board)
    long = MCRDAgent(playouts=700, backend="cpu", max_moves=150, seed=0).search(board)
    assert short.capped > 0.9 * short.total_playouts
    assert long.capped < short.capped


def test_black_points_on_no_moves_and_material():
    black, white = bits(1, 2), bits(30)
    kings = bits(30)
    # Side to move without moves loses.
    assert black_points(black, white, kings, True, 0, 1.0) == 0
    assert black_points(white, black, kings, False, 0, 1.0) == 2
    # Capped: material, kings weighted.
    assert black_points(black, white, kings, True, 5, 1.0) == 2
    assert black_points(black, white, kings, True, 5, 2.0) == 1
    assert black_points(white, black, kings, False, 5, 3.0) == 0


# -- king-cycle detection ------------------------------------------------------------------------


def test_is_king_cycle_is_the_seeds_test():
    # White king 23 -> 18 (gparent -> parent), Black replies, White king 18 -> 23 undoes it.
    gparent = Board.from_fen("W:WK23:BK6")
    parent = gparent.play("23-18")
    bb = parent.play("6-10")
    for move, expected in (("18-23", True), ("18-22", False), ("18-15", False)):
        child = bb.play(move)
        assert (
            is_king_cycle(
                bb.kings, child.white, child.kings, parent.kings, gparent.kings, gparent.white & gparent.kings
            )
            == expected
        ), move
    # A man move that does not touch the kings is never a cycle.
    assert not is_king_cycle(bits(6), bits(9), bits(6), bits(1), bits(2), bits(3))


def test_redraws_are_bounded_when_every_move_is_a_cycle():
    # Black's lone king on 4 came from 8 two plies ago; its only move, 4-8, undoes that.
    black, white = bits(4), bits(32)
    kings = bits(4, 32)
    gparent_kings = bits(8, 28)
    args = (Position(black, white, kings, True), KingHistory(bits(4, 28), bits(28), gparent_kings, bits(8)))
    points, capped, plies, skips, _ = descend(*args, PlayoutRules(MAX_REDRAWS + 1, 1.0, True), 12345)
    assert skips == MAX_REDRAWS and plies == 1  # skipped MAX_REDRAWS times, then accepted
    points, capped, plies, skips, _ = descend(*args, PlayoutRules(MAX_REDRAWS, 1.0, True), 12345)
    assert skips == MAX_REDRAWS and plies == 0 and capped  # skipped draws count toward the cap
    points, capped, plies, skips, _ = descend(*args, PlayoutRules(1, 1.0, False), 12345)
    assert skips == 0 and plies == 1


def test_cycle_check_changes_the_descents():
    board = Board.from_fen(KINGS)
    on = MCRDAgent(playouts=400, backend="cpu", max_moves=60, seed=4).search(board)
    off = MCRDAgent(playouts=400, backend="cpu", max_moves=60, cycle_check=False, seed=4).search(board)
    assert on.skips > 0 and off.skips == 0
    assert on.plies != off.plies


def test_cycle_context_uses_the_games_previous_position():
    game = Game(start=Board.from_fen("W:WK23:BK6"))
    game.play("23-18")
    board = game.board  # Black to move; the children have White to move
    parent_kings, parent_mover_kings, gparent_kings, gparent_mover_kings = cycle_context(board, game.boards[-2])
    assert parent_kings == board.kings and parent_mover_kings == bits(6)
    assert gparent_kings == bits(23, 6) and gparent_mover_kings == bits(23)
    assert cycle_context(board, None)[2] == board.kings


# -- allocations ---------------------------------------------------------------------------------


def _shuffled_kings(fen: str, shuffle: list[str]) -> Game:
    """A game from ``fen`` whose kings shuffle back and forth along ``shuffle``."""
    game = Game(start=Board.from_fen(fen))
    for move in shuffle:
        game.play(move)
    return game


# White to move first; after these seven plies Black's 6-1 repeats the start a third time.
SHUFFLE = ["27-32", "1-6", "32-27", "6-1", "27-32", "1-6", "32-27"]


def test_the_losing_side_takes_the_repetition_draw():
    # One king against three: every playout child loses most of its playouts, while 6-1
    # draws by threefold repetition; without the exact draw value it is one of four.
    game = _shuffled_kings("W:WK19,K23,K27:BK1", SHUFFLE)
    assert game.repetitions() == 2
    for seed in range(3):
        result = MCRDAgent(playouts=2000, backend="cpu", seed=seed).search(game)
        assert str(result.move) == "6-1"
        assert result.decided == {0: 0.5} and result.playouts[0] == 0
        assert result.rates[0] == 0.5 and max(result.rates[1:]) < 0.5


def test_the_winning_side_avoids_the_repetition_draw():
    game = _shuffled_kings("W:WK27:BK1,K14,K15", SHUFFLE)
    repeat = [str(m) for m in game.legal_moves()].index("6-1")
    result = MCRDAgent(playouts=4000, backend="cpu", seed=0).search(game)
    assert result.decided == {repeat: 0.5}
    assert result.chosen != repeat and result.rates[result.chosen] > 0.5


def test_a_move_that_lets_the_opponent_repeat_is_worth_a_draw_at_most():
    # Black to move, three kings against one: after 6-1 White's 32-27 would make the
    # position of Black's first move a third time. The descents, which know nothing of the
    # game's history, rate 6-1 like every other winning move.
    game = _shuffled_kings("B:WK27:BK1,K14,K15", ["1-6", "27-32", "6-1", "32-27", "1-6", "27-32"])
    repeat = [str(m) for m in game.legal_moves()].index("6-1")
    result = MCRDAgent(playouts=4000, backend="cpu", seed=0).search(game)
    assert result.ceilings == {repeat: 0.5} and not result.decided
    assert result.wins[repeat] > 1.6 * result.playouts[repeat]  # the descents alone: > 80 %
    assert result.rates[repeat] == 0.5 and result.chosen != repeat


def test_a_move_the_opponent_answers_by_winning_is_worth_nothing():
    game = Game(start=Board.from_fen("B:W23:B14"))  # 14-18 is taken by 23x14
    result = MCRDAgent(playouts=200, backend="cpu", seed=0).search(game)
    assert result.ceilings == {1: 0.0} and str(result.move) == "14-17"


def test_a_move_that_wins_outright_is_decided_exactly():
    game = Game(start=Board.from_fen("B:W5:BK6"))  # 6-1 leaves White's man no move
    result = MCRDAgent(playouts=64, backend="cpu", seed=0).search(game)
    assert str(result.move) == "6-1" and result.decided[result.chosen] == 1.0
    assert result.playouts[result.chosen] == 0


def test_uniform_gives_every_child_the_same_count():
    result = MCRDAgent(playouts=7000, launch=2000, backend="cpu", seed=0).search(Board())
    assert (result.playouts == 1000).all() and result.launches == 4


def test_proportional_sends_threads_to_the_winning_child():
    # Rates after the even first launch: 6-1 is 1, the three others about 0. The design
    # document's rule then sends child j the share
    # (p_j + sum_{i != j} (1 - p_i) / (n - 1)) / n: 1/2 to 6-1 and 1/6 to each other child.
    board = Board.from_fen("B:W5:BK6")
    uniform = MCRDAgent(playouts=4000, launch=400, backend="cpu", seed=5).search(board)
    proportional = MCRDAgent(playouts=4000, launch=400, allocation="proportional", backend="cpu", seed=5).search(board)
    assert (uniform.playouts == 1000).all()
    assert proportional.total_playouts == 4000
    later = 4000 - 400  # after the even first launch
    rates = np.array([1.0, 0.0, 0.0, 0.0])
    n = len(rates)
    share = (rates + ((1 - rates).sum() - (1 - rates)) / (n - 1)) / n
    expected = 100 + later * share
    sigma = np.sqrt(later * share * (1 - share))
    assert (np.abs(proportional.playouts - expected) <= 4 * sigma + 0.01 * later).all(), proportional.playouts
    assert str(proportional.move) == "6-1"


def test_halving_spends_the_budget_on_the_survivors():
    result = MCRDAgent(playouts=6000, allocation="halving", backend="cpu", seed=3).search(Board())
    assert result.survivors == [result.chosen]
    assert result.total_playouts <= 6000
    assert result.playouts[result.chosen] == result.playouts.max()
    assert len(set(result.playouts.tolist())) > 1


def test_time_budget_stops_on_time():
    agent = MCRDAgent(time=0.3, launch=512, backend="cpu", seed=0)
    agent.search(Board())  # compile outside the clock
    for allocation in ("uniform", "proportional", "halving"):
        agent.allocation = allocation
        result = agent.search(Board())
        assert result.launches >= 1 and result.total_playouts >= 7
        assert result.seconds < 3.0, (allocation, result.seconds)  # slack for a loaded machine


# -- determinism ---------------------------------------------------------------------------------


def test_same_seed_same_search_whatever_the_thread_count():
    board = Board.from_fen("B:W5:BK6,25")
    threads = numba.get_num_threads()
    try:
        results = []
        for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(n)
            results.append(
                MCRDAgent(playouts=3000, launch=700, allocation="proportional", backend="cpu", seed=8).search(board)
            )
    finally:
        numba.set_num_threads(threads)
    assert (results[0].wins == results[1].wins).all() and (results[0].playouts == results[1].playouts).all()
    assert results[0].chosen == results[1].chosen
    other = MCRDAgent(playouts=3000, launch=700, allocation="proportional", backend="cpu", seed=9).search(board)
    assert not (other.wins == results[0].wins).all()


def test_same_seed_same_moves_in_a_game():
    def moves(seed):
        agent = make_agent(f"mcrd:playouts=300,backend=cpu,seed={seed}")
        game = Game()
        for _ in range(6):
            game.play(agent.select_move(game))
        return [str(m) for m in game.moves]

    assert moves(4) == moves(4)


# -- games ---------------------------------------------------------------------------------------


def test_plays_complete_legal_games_against_random():
    from checkers_env.match import play_game

    mcrd, random = make_agent("mcrd:playouts=300,max_moves=60,backend=cpu"), make_agent("random")
    rng = np.random.default_rng(0)
    for black, white in ((mcrd, random), (random, mcrd)):
        record = play_game(black, white, "", Rules(), rng)  # raises on an illegal move
        assert record.result in ("1-0", "0-1", "1/2-1/2")
        assert record.termination in ("no_moves", "repetition", "no_progress", "max_plies")
        assert record.score(str(mcrd)) == 1.0  # random play does not survive 300 playouts a move


def test_plays_complete_legal_games_against_alphabeta():
    if "alphabeta" not in agent_kinds():
        pytest.skip("the alphabeta kind is not installed")
    from checkers_env.match import play_game

    mcrd, alphabeta = make_agent("mcrd:playouts=300,max_moves=60,backend=cpu"), make_agent("alphabeta:depth=2")
    rng = np.random.default_rng(1)
    for black, white in ((mcrd, alphabeta), (alphabeta, mcrd)):
        record = play_game(black, white, "", Rules(), rng)
        assert record.result in ("1-0", "0-1", "1/2-1/2")


# -- the CUDA kernel under the simulator ---------------------------------------------------------


def run_cudasim() -> dict:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    completed = subprocess.run(
        [sys.executable, str(HERE / "mcrd_cudasim_check.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)


def check_auto_backend_and_states(cudasim):
    assert cudasim["auto_backend"] == "cpu"  # the simulator is not a GPU
    assert cudasim["states_match_host"]  # the device seeding kernel computes seeded_state
    assert cudasim["states_distinct"]  # one state per thread, none all-zero (a dead generator)
    assert cudasim["states_follow_seed"]


def check_obvious_move_and_agreement_with_cpu(cudasim, fen):
    runs = cudasim["obvious"][fen]
    expected, playouts = OBVIOUS[fen]
    assert runs["cuda"]["backend"] == "cuda" and runs["cpu"]["backend"] == "cpu"
    assert runs["cuda"]["move"] == runs["cpu"]["move"] == expected
    assert sum(runs["cuda"]["playouts"]) == playouts
    wins, counts = runs["cuda"]["wins"], runs["cuda"]["playouts"]
    best = runs["cuda"]["moves"].index(expected)
    if fen == "B:W20,25:B18":
        assert wins[1 - best] == 0  # the other move lost every playout
    else:
        assert wins[best] == 2 * counts[best]  # won every playout


def check_win_rates_statistically_equal(cudasim):
    gpu, cpu = cudasim["spread"]["cuda"], cudasim["spread"]["cpu"]
    assert gpu["moves"] == cpu["moves"]
    for w1, n1, w2, n2 in zip(gpu["wins"], gpu["playouts"], cpu["wins"], cpu["playouts"]):
        assert within_binomial(w1, n1, w2, n2), (gpu["wins"], cpu["wins"])
    assert within_binomial(sum(gpu["wins"]), sum(gpu["playouts"]), sum(cpu["wins"]), sum(cpu["playouts"]))
    # The capped share is a binomial rate too (counted doubled to reuse the helper).
    assert within_binomial(2 * gpu["capped"], sum(gpu["playouts"]), 2 * cpu["capped"], sum(cpu["playouts"]))


def check_same_seed_same_counts(cudasim):
    first, again, other = cudasim["determinism"]
    assert first["wins"] == again["wins"] and first["playouts"] == again["playouts"]
    assert first["wins"] != other["wins"]


def check_proportional_allocation(cudasim):
    result = cudasim["proportional"]
    counts = result["playouts"]
    assert sum(counts) == 256 and result["launches"] == 4
    # Even first launch (16 each), then 192 threads with expected shares 1/2, 1/6, 1/6, 1/6.
    expected = [16 + 192 / 2] + [16 + 192 / 6] * 3
    for count, mean in zip(counts, expected):
        share = (mean - 16) / 192
        assert abs(count - mean) <= 4 * math.sqrt(192 * share * (1 - share)), counts
    assert counts[0] > max(counts[1:])


def check_cycle_check(cudasim):
    on, off = cudasim["cycles"]["True"], cudasim["cycles"]["False"]
    assert on["skips"] > 0 and off["skips"] == 0


def test_cuda_kernel_under_the_simulator():
    """One subprocess for every CUDA check (one test, so xdist runs the simulator once)."""
    cudasim = run_cudasim()
    check_auto_backend_and_states(cudasim)
    for fen in OBVIOUS:
        check_obvious_move_and_agreement_with_cpu(cudasim, fen)
    check_win_rates_statistically_equal(cudasim)
    check_same_seed_same_counts(cudasim)
    check_proportional_allocation(cudasim)
    check_cycle_check(cudasim)
    drawn = cudasim["draws"]
    assert drawn["draws"] == drawn["playouts"] and min(drawn["playouts"]) > 0
