"""One rulebook: the same seeded random games end the same way, for the same reason, at the
same ply, whether played through ``Game``, ``Checkers-v0`` or a trainer's self-play loop
(td-minimax's ``play_training_game_from``, slow-fast's ``generate_games``; ppo trains on
``Checkers-v0``).

The games start from the start position and from king endgames (so that repetition and
no-progress draws occur, not only wins), under several draw rules. The moves are those of
td-minimax's random opening plies (``random_below`` over ``generate_moves`` order), replayed
in ``Game``; the env is driven by their hops and by a scripted external opponent, and
slow-fast's games are steered onto the same positions by their evaluator.
"""

from __future__ import annotations

import random
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

from checkers_agents.search_parts.position import Position
from checkers_agents.slow_fast import lookahead as slow_fast_kernels
from checkers_agents.slow_fast.episodes import Positions, generate_games
from checkers_agents.td_minimax import Net
from checkers_agents.td_minimax.learn import (
    R_PLIES,
    R_TERMINATION,
    R_WINNER,
    RESULT_FIELDS,
    play_training_game_from,
    training_game,
)
from checkers_env import Board, Game, Rules, game_state
from checkers_env.board import move_from_row, square_row_col
from checkers_env.movegen import generate_moves_kernel, new_move_buffer, random_below, seed_state

RULES = (
    Rules(),
    Rules(repetition=3, no_progress_plies=40, max_plies=120),
    Rules(repetition=2, no_progress_plies=12, max_plies=100),
    Rules(repetition=None, no_progress_plies=6, max_plies=90),
    Rules(repetition=3, no_progress_plies=None, max_plies=60),
    Rules(repetition=None, no_progress_plies=None, max_plies=30),
)
RESULTS = {-1: "1/2-1/2", 0: "1-0", 1: "0-1"}


def _king_endgame(rng: random.Random) -> Board:
    """One or two kings a side, either side to move."""
    squares = rng.sample(range(1, 33), 6)
    black, white = squares[: rng.randint(1, 2)], squares[3 : 3 + rng.randint(1, 2)]
    kings = lambda side: ",".join(f"K{s}" for s in side)  # noqa: E731
    return Board.from_fen(f"{rng.choice('BW')}:W{kings(white)}:B{kings(black)}")


def _cases() -> list[tuple[Board, Rules, int]]:
    rng = random.Random(15)
    cases = []
    for rules in RULES:
        for _ in range(3):
            cases.append((Board(), rules, rng.randrange(1, 2**31)))
        for _ in range(10):
            board = _king_endgame(rng)
            if board.legal_moves():
                cases.append((board, rules, rng.randrange(1, 2**31)))
    return cases


CASES = _cases()


def random_game(start: Board, rules: Rules, seed: int) -> Game:
    """The seeded random game in ``Game``: td-minimax's random plies, move for move (the
    ``k``-th move in ``generate_moves`` order; ``Board.legal_moves`` sorts them by path)."""
    game = Game(start=start, rules=rules)
    rng = seed_state(seed, 0)
    buffer = new_move_buffer()
    while not game.is_over():
        mover, opponent = game.board.mover_bitboards
        n = generate_moves_kernel(mover, opponent, game.board.kings, game.board.turn == 0, buffer)
        rng, k = random_below(rng, n)
        game.play(move_from_row(buffer[k]))
    return game


def ending(termination, winner, plies) -> tuple[str, int, int]:
    return str(termination), int(winner), int(plies)


def game_ending(game: Game) -> tuple[str, int, int]:
    return ending(game.termination, -1 if game.winner is None else int(game.winner), game.ply)


# -- Checkers-v0 ---------------------------------------------------------------------------


def hop_actions(move, color: int) -> list[int]:
    """The actions (mover's frame, docs/design.md §2) that play ``move`` hop by hop."""
    actions = []
    for a, b in zip(move.path, move.path[1:]):
        (ra, ca), (rb, cb) = square_row_col(a), square_row_col(b)
        if color == game_state.COLOR_WHITE:  # the half turn
            ra, ca, rb, cb = 7 - ra, 7 - ca, 7 - rb, 7 - cb
        k = a - 1 if color == game_state.COLOR_BLACK else 32 - a
        actions.append(4 * k + (0 if rb > ra else 2) + (0 if cb < ca else 1))
    return actions


class Scripted:
    """An external opponent that plays a recorded game's moves."""

    name = "scripted"

    def __init__(self, moves):
        self.moves = moves

    def select_move(self, game: Game):
        return self.moves[game.ply]

    def reset(self, seed: int | None = None) -> None:
        pass


def env_ending(game: Game) -> tuple[str, int, int]:
    """Replay ``game`` in ``Checkers-v0``: the learner plays the side to move at the start,
    the scripted opponent the other."""
    learner = int(game.start.turn)
    env = gym.make(
        "Checkers-v0",
        opponent=Scripted(game.moves),
        agent_color=("black", "white")[learner],
        rules=game.rules,
        max_plies=game.rules.max_plies,
    )
    env.reset(options={"fen": game.start.fen()})
    raw = env.unwrapped
    done, info = False, {}
    while not done:
        move = game.moves[len(raw.moves)]
        for action in hop_actions(move, learner):
            _, _, terminated, truncated, info = env.step(action)
            assert not info.get("illegal_action"), (game.start.fen(), str(move))
        done = terminated or truncated
        assert truncated == (info["termination"] == "max_plies")
    winner = {"1-0": 0, "0-1": 1, "1/2-1/2": -1}[info["result"]]
    return ending(info["termination"], winner, len(raw.moves))


# -- the trainers' self-play loops --------------------------------------------------------


def td_minimax_ending(start: Board, rules: Rules, seed: int) -> tuple[str, int, int]:
    """td-minimax's training game with random plies only (then no search chooses a move)."""
    net = Net.initial(seed=0)
    result = np.zeros(RESULT_FIELDS, dtype=np.int64)
    play_training_game_from(
        Position(*start.mover_bitboards, start.kings, start.turn == 0),
        *net.arrays,
        training_game(
            1,
            False,
            0.1,
            0.1,
            True,
            0.0,
            1 << 30,
            rules.max_plies or 0,
            rules.no_progress_plies or 0,
            rules.repetition or 0,
        ),
        seed_state(seed, 0),
        result,
    )
    return ending(game_state.END_NAMES[result[R_TERMINATION]], result[R_WINNER], result[R_PLIES])


def slow_fast_ending(game: Game) -> tuple[str, int, int]:
    """slow-fast's generated game, steered onto ``game``'s positions: with no noise it
    plays the child its evaluator values best for the mover (White's value ``f``), so the
    evaluator values the recorded next position above every other child, even above a
    child that wins at once (whose value is exact, 1 or 0, whatever the evaluator says: so
    a recorded winning move ties with any other and may differ from it; the end is the
    same)."""
    boards = game.boards
    ply = [0]

    def evaluate(black, white, kings, black_to_move):
        target = boards[ply[0] + 1]
        white_moved = target.turn == 0
        is_target = (black == target.black) & (white == target.white) & (kings == target.kings)
        ply[0] += 1
        return np.where(is_target, 2.0 if white_moved else -1.0, 0.5)

    rules = game.rules
    played, _ = generate_games(
        evaluate,
        1,
        0.0,
        rules.max_plies,
        rules.no_progress_plies or 0,
        7,
        rules.repetition or 0,
        start=Positions.of_boards([game.start]),
    )
    length = int(played.lengths[0])
    outcome = int(played.outcome[0])
    last = length if outcome == slow_fast_kernels.DRAW else length - 1  # a winning last move may differ
    for t in range(last + 1):  # it played the recorded game
        assert (played.black[0, t], played.white[0, t], played.kings[0, t]) == (
            boards[t].black,
            boards[t].white,
            boards[t].kings,
        ), (game.start.fen(), t)
    end = int(played.termination[0])
    winner = {slow_fast_kernels.WHITE_WINS: 1, slow_fast_kernels.BLACK_WINS: 0, slow_fast_kernels.DRAW: -1}[outcome]
    return ending(game_state.END_NAMES[end], winner, length)


# -- the test ------------------------------------------------------------------------------


def test_the_cases_reach_every_ending():
    ends = Counter(str(random_game(*case).termination) for case in CASES)
    assert ends["no_moves"] >= 5 and ends["repetition"] >= 5 and ends["no_progress"] >= 5, ends
    assert ends["max_plies"] >= 3, ends


@pytest.mark.parametrize("start, rules, seed", CASES, ids=lambda x: x.fen() if isinstance(x, Board) else None)
def test_same_game_same_ending_everywhere(start, rules, seed):
    game = random_game(start, rules, seed)
    expected = game_ending(game)
    assert RESULTS[expected[1]] == game.result
    assert env_ending(game) == expected, "Checkers-v0"
    assert td_minimax_ending(start, rules, seed) == expected, "td-minimax play_training_game"
    assert slow_fast_ending(game) == expected, "slow-fast generate_games"


def test_game_pop_restores_the_game_state():
    """``Game.pop`` steps back the keys and counts the end decision reads."""
    game = random_game(Board.from_fen("W:WK1,K2:BK31,K32"), Rules(repetition=3, no_progress_plies=40), 5)
    assert game.termination is not None
    moves = list(game.moves)
    for _ in range(6):
        game.pop()
    assert not game.is_over()
    for move in moves[len(game.moves) :]:
        game.play(move)
    assert game_ending(game) == game_ending(random_game(game.start, game.rules, 5))
    assert game.positions_since_progress()[-1] == game.board
    if game.termination == "repetition":
        assert game.repetitions() == 3
