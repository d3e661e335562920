"""The playing agent of the slow/fast learner (``make_agent("slow-fast:weights=PATH")``)."""

from __future__ import annotations

import numpy as np
import torch

from checkers_env import BLACK, BaseAgent, Game, Move
from checkers_env.bitboard import BB_SQUARES, bit_to_square
from checkers_env.kernels import MAX_MOVES, generate_moves_kernel, new_move_buffer

from .network import ValueNet, load_weights, white_values
from .search import Positions, grow_forest

#: Mover's-side values closer than this count as equal (ties broken with the agent's generator).
TIE = 1e-9


class SlowFastAgent(BaseAgent):
    """Seed 000's episodic slow/fast reward learner: plays the move whose result its value
    network rates best for the mover (optionally after a shallow full-width search).

    A move's worth is ``R(A, B) + V(B)``: the seed's reward of the move (material ratio, or
    +-1 when it ends the game) plus the network's expected future reward of the position it
    leads to (``V = 2 f - 1``), both from White's view and negated for Black. With
    ``depth > 1`` the positions are searched ``depth`` plies deep, every move, and the
    leaves' ``R + V`` is backed up by minimax; ties are broken with the agent's generator.
    A move back into a position of the game since its last capture or man move counts as
    a draw (worth 0): the agent ahead does not walk into a repetition, the one behind seeks
    it (as ``alphabeta`` does).

    Args:
        weights: safetensors file written by ``training.slow_fast`` (``zoo:slow-fast`` passes
            its own); None plays an untrained network initialised from ``seed``.
        depth: plies searched (1 = one ply, the seed's choice of the best next position).
        seed: seed of the generator that breaks ties (and of an untrained network).
    """

    kind = "slow-fast"

    def __init__(self, weights: str | None = None, depth: int = 1, seed: int | None = None):
        super().__init__(seed=seed)
        if int(depth) < 1:
            raise ValueError(f"slow-fast depth must be at least 1, got {depth}")
        self.weights = weights
        self.depth = int(depth)
        if weights is None:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(0 if seed is None else int(seed))
                self.net = ValueNet()
            self.net.eval()
        else:
            self.net = load_weights(weights)

    @classmethod
    def from_network(cls, net: ValueNet, depth: int = 1, seed: int | None = None) -> SlowFastAgent:
        """An agent playing an in-memory network (the trainer's evaluation games)."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, seed=seed)
        agent.weights, agent.depth, agent.net = None, int(depth), net
        return agent

    def _evaluate(self, black, white, kings, black_to_move):
        return white_values(self.net, black, white, kings, black_to_move)

    def move_values(self, game: Game) -> tuple[list[Move], np.ndarray]:
        """The legal moves (in ``generate_moves`` order) and each one's value for the mover."""
        board = game.board
        roots = Positions.of_boards([board])
        forest, _ = grow_forest(self._evaluate, roots, self.depth, 1.0, MAX_MOVES, 0.0, 1.0, state=1)
        values = forest.minimax_values()
        lo, n = int(forest.child_start[0]), int(forest.child_count[0])
        sign = -1.0 if board.turn == BLACK else 1.0
        worth = sign * (forest.reward[lo : lo + n] + values[lo : lo + n])
        seen = _reversible_history(game)
        p = forest.positions
        for i in range(n):
            c = lo + i
            if (int(p.black[c]), int(p.white[c]), int(p.kings[c]), int(p.black_to_move[c])) in seen:
                worth[i] = 0.0  # heads for a repetition draw: reward 0, nothing after
        return _moves_in_kernel_order(board), worth

    def select_move(self, game: Game) -> Move:
        moves, worth = self.move_values(game)
        if not moves:
            raise ValueError(f"{self} has no legal move in {game.board.fen()}")
        best = np.flatnonzero(worth >= worth.max() - TIE)
        return moves[int(best[0] if len(best) == 1 else self.rng.choice(best))]

    def policy(self, game: Game, temperature: float = 0.01) -> list[tuple[Move, float]]:
        """Softmax of the moves' values for the mover (``temperature`` on the (0, 1) scale)."""
        moves, worth = self.move_values(game)
        x = worth / (2.0 * temperature)
        p = np.exp(x - x.max())
        p /= p.sum()
        return list(zip(moves, (float(v) for v in p)))


def _reversible_history(game: Game) -> set[tuple[int, int, int, int]]:
    """Positions of the game since its last capture or man move (those a move can repeat)."""
    boards, moves = game.boards, game.moves
    seen = set()
    for i in range(len(boards) - 1, -1, -1):
        b = boards[i]
        seen.add((b.black, b.white, b.kings, 1 if b.turn == BLACK else 0))
        if i == 0:
            break
        before, move = boards[i - 1], moves[i - 1]
        if move.is_capture or not before.kings & BB_SQUARES[move.path[0] - 1]:
            break
    return seen


def _moves_in_kernel_order(board) -> list[Move]:
    """The board's legal moves in ``generate_moves`` order (the order of the forest's children)."""
    mover, opponent = board.mover_bitboards
    buffer = new_move_buffer()
    n = generate_moves_kernel(mover, opponent, board.kings, board.turn == BLACK, buffer)
    moves = []
    for frm, _, captured, path, hops in buffer[:n].tolist():
        squares = [bit_to_square(frm)] + [bit_to_square((path >> (5 * i)) & 31) for i in range(hops)]
        moves.append(Move(tuple(squares), captured))
    return moves


__all__ = ["SlowFastAgent"]
