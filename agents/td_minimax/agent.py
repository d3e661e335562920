"""``TDMinimaxAgent``: alpha-beta over complete moves with the TD-trained net at the leaves."""

from __future__ import annotations

import os
import time as _time
from pathlib import Path

import numpy as np

from checkers_env import BLACK, BaseAgent, Board, Game, Move, bit_to_square
from checkers_env.bitboard import BB_SQUARES

from .net import Net, WeightsError
from .search import MAX_DEPTH, search

#: The zoo's trained net, used when no ``weights`` are given.
ZOO_WEIGHTS = Path(__file__).resolve().parents[2] / "zoo" / "td-minimax" / "weights.safetensors"


class TDMinimaxAgent(BaseAgent):
    """Alpha-beta minimax (depth 2 by default) with a TD-trained 128-40-2 net scoring the leaves (seed 002).

    Args:
        weights: path of a safetensors weights file written by ``training.td_minimax``
            (default: the zoo's ``zoo/td-minimax/weights.safetensors``).
        depth: search depth in plies (complete moves); with ``time``, the least depth searched.
        time: seconds per move; when given, the search deepens iteratively from ``depth``
            while the next iteration is expected to end within the budget (a soft limit:
            an iteration that has started is finished).
        quiescence: search on through captures at the leaves, so the net scores only
            positions without a capture pending (a checkers adaptation; ``False`` is the
            seed's plain fixed-depth search).
        seed: seed for breaking exact ties between equally valued moves.

    Raises:
        WeightsError: the weights file is missing, corrupt or not a td-minimax net.
    """

    kind = "td-minimax"

    def __init__(
        self,
        weights: str | None = None,
        depth: int = 2,
        time: float | None = None,
        quiescence: bool = True,
        seed: int | None = None,
    ):
        super().__init__(seed=seed)
        if not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"td-minimax: depth must be an integer from 1 to {MAX_DEPTH}, got {depth!r}")
        if time is not None and not (isinstance(time, (int, float)) and time > 0):
            raise ValueError(f"td-minimax: time must be a positive number of seconds, got {time!r}")
        self.weights = None if weights is None else os.fspath(weights)
        self.depth = depth
        self.time = time
        self.quiescence = bool(quiescence)
        if weights is None:
            if not ZOO_WEIGHTS.exists():
                raise WeightsError(
                    f"td-minimax: no trained weights at {str(ZOO_WEIGHTS)!r}; train a net with "
                    "`python -m training.td_minimax` and pass weights=PATH"
                )
            self.net = Net.load(ZOO_WEIGHTS)
        else:
            self.net = Net.load(weights)
        self._setup()

    @classmethod
    def from_net(
        cls, net: Net, depth: int = 2, time: float | None = None, quiescence: bool = True, seed: int | None = None
    ) -> TDMinimaxAgent:
        """An agent playing with an in-memory net (the trainer's evaluation games); the net
        is shared, not copied. Its spec names no weights file."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, seed=seed)
        agent.weights, agent.depth, agent.time, agent.quiescence, agent.net = None, depth, time, quiescence, net
        agent._setup()
        return agent

    def _setup(self) -> None:
        self._rng_state = self._fresh_rng_state()
        self.last_search: dict = {}

    def _fresh_rng_state(self) -> int:
        return int(self.rng.integers(1, 2**62))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._rng_state = self._fresh_rng_state()

    def evaluate(self, board: Board) -> tuple[float, float]:
        """The net's ``(how well the side to move is doing, how well the opponent is doing)``."""
        mover, opponent = board.mover_bitboards
        return self.net.evaluate(mover, opponent, board.kings, board.turn == BLACK)

    def select_move(self, game: Game | Board) -> Move:
        """The move the search prefers; given a ``Game``, moves that repeat a position of
        the game or end it by the no-progress rule are scored as draws."""
        board = game.board if isinstance(game, Game) else game
        history, quiet, no_progress = _draw_context(game)
        mover, opponent = board.mover_bitboards
        black = board.turn == BLACK
        started = _time.perf_counter()
        depth = self.depth
        previous = None
        while True:
            t0 = _time.perf_counter()
            index, value, self._rng_state, nodes, moves = search(
                mover, opponent, board.kings, black, depth, self.quiescence, *self.net.arrays, 1.0, self._rng_state,
                history, len(history), quiet, no_progress,
            )
            spent = _time.perf_counter() - t0
            if index < 0:
                raise ValueError(f"{self} has no legal move in {board.fen()}")
            if self.time is None or depth >= MAX_DEPTH:
                break
            # Expect the next iteration to cost this one times the last growth (or 8).
            growth = max(2.0, spent / previous) if previous else 8.0
            if _time.perf_counter() - started + spent * growth > self.time:
                break
            previous = max(spent, 1e-6)
            depth += 1
        self.last_search = {"depth": depth, "value": float(value), "nodes": int(nodes)}
        frm, _to, captured, path, hops = (int(x) for x in moves[index])
        squares = [bit_to_square(frm)] + [bit_to_square((path >> (5 * i)) & 31) for i in range(hops)]
        return Move(tuple(squares), captured)


def _draw_context(game: Game | Board) -> tuple[np.ndarray, int, int]:
    """``(positions since the last capture or man move, as int64 rows (black, white, kings,
    black to move); plies since then; the no-progress limit or 0)`` for the search."""
    if not isinstance(game, Game):
        board = game
        return np.array([[board.black, board.white, board.kings, int(board.turn == BLACK)]], dtype=np.int64), 0, 0
    boards, moves = game.boards, game.moves
    quiet = 0
    for i in range(len(moves) - 1, -1, -1):
        before = boards[i]
        if moves[i].is_capture or not before.kings & BB_SQUARES[moves[i].path[0] - 1]:
            break
        quiet += 1
    rows = [[b.black, b.white, b.kings, int(b.turn == BLACK)] for b in boards[len(boards) - 1 - quiet:]]
    limit = game.rules.no_progress_plies or 0
    return np.array(rows, dtype=np.int64), quiet, limit
