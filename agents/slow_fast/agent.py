"""The playing agent of the slow/fast learner (``make_agent("slow-fast:weights=PATH")``)."""

from __future__ import annotations

import numpy as np
import torch

from checkers_agents.alphabeta import MAX_DEPTH, Draws, Searcher
from checkers_agents.search_parts.evaluators import RELU, REWARD_MATERIAL_LOG, SIGMOID, Evaluator, mlp
from checkers_env import BaseAgent, Game, Move
from checkers_env.agent import file_path_or
from checkers_env.board import move_from_row
from checkers_env.errors import UnknownAgentError

from .network import ValueNet, load_weights

#: ``weights=untrained``: a network of initial weights (from the agent's seed), named as such.
UNTRAINED = "untrained"
#: A shallow full-width search barely uses the table: keep it small.
TT_BITS = 12


def net_evaluator(net: ValueNet) -> Evaluator:
    """The value network as the search's leaf evaluator, with the design document's material
    reward.

    A leaf is worth ``2 f - 1`` to its side to move (``f``: the network's win probability
    for it), a move its material reward ``0.1 ln(m_B / m_A)`` (for the mover) minus the
    value of where it leads; a side with no move is worth -1 (the reward of a game-ending
    move is the result, not material). The weights are copied out of torch in float32: an
    agent sees the network as it was when it was made.

    Raises:
        ValueError: more than three hidden layers (the search's net interface takes at most three).
    """
    linears = [layer for layer in net.layers if isinstance(layer, torch.nn.Linear)]
    if not 2 <= len(linears) <= 4:
        raise ValueError(f"the search takes nets of one to three hidden layers, got {len(linears) - 1}")
    arrays = [
        (layer.weight.detach().float().numpy().copy(), layer.bias.detach().float().numpy().copy()) for layer in linears
    ]
    w_in = np.ascontiguousarray(arrays[0][0].T)
    middle = arrays[1] if len(arrays) >= 3 else (None, None)
    third = arrays[2] if len(arrays) == 4 else (None, None)
    return mlp(
        w_in,
        arrays[0][1],
        np.ascontiguousarray(arrays[-1][0]),
        arrays[-1][1],
        w_mid=middle[0],
        b_mid=middle[1],
        w_mid2=third[0],
        b_mid2=third[1],
        hidden_activation=RELU,
        output_activation=SIGMOID,
        move_reward=REWARD_MATERIAL_LOG,
        loss=1.0,
        dtype=np.float32,
    )


def load_evaluator(weights: str, seed: int | None = None) -> Evaluator:
    """``alphabeta:eval=slow-fast``: ``weights`` is ``zoo``, ``untrained`` or a file."""
    if weights == "zoo":
        from checkers_agents.zoo import zoo_weights

        weights = zoo_weights("slow-fast")
    return net_evaluator(_network(weights, seed))


def _network(weights: str, seed: int | None) -> ValueNet:
    if weights == UNTRAINED:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0 if seed is None else int(seed))
            net = ValueNet()
        return net.eval()
    return load_weights(weights)


class SlowFastAgent(BaseAgent):
    """The episodic slow/fast reward learner: plays the move whose result its value network
    rates best for the mover (optionally after a shallow full-width search); the network
    learnt from partly searched subtrees of its own games (``checkers train slow-fast``).

    A move's worth is ``R(A, B) + V(B)``: the learner's reward of the move (material ratio, or
    +-1 when it ends the game) plus the network's expected future reward of the position it
    leads to (``V = 2 f - 1``), for the mover. With ``depth > 1`` the positions are searched
    ``depth`` plies deep by the suite's alpha-beta (``checkers_agents.alphabeta``, no quiescence: the
    design's fixed depth) and the leaves' ``R + V`` is backed up by minimax; ties are broken
    with the agent's generator. The game's draw rules are seen as the search sees them: a
    move back into a position of the game since its last capture or man move, or one that
    reaches the no-progress limit, counts as a draw (worth 0).

    Args:
        weights: safetensors file written by ``checkers train slow-fast`` (``zoo:slow-fast`` passes
            its own), or ``untrained`` (a network initialised from ``seed``; the name says
            so). Required.
        depth: plies searched, 1 to 64 (1: the best next position, as the learner was designed).
        seed: seed of the generator that breaks ties (and of an untrained network).

    Raises:
        UnknownAgentError: no weights given.
        WeightsError: the weights file is missing, corrupt or another kind of network.
    """

    kind = "slow-fast"
    #: Seconds any one search may take at most, whatever ``depth`` asks (None: no limit;
    #: ``AlphaBetaAgent.think_limit``).
    think_limit: float | None = None

    def __init__(self, weights: file_path_or("untrained") | None = None, depth: int = 1, seed: int | None = None):
        super().__init__(seed=seed)
        if not 1 <= int(depth) <= MAX_DEPTH:
            raise ValueError(f"slow-fast depth must be from 1 to {MAX_DEPTH}, got {depth}")
        if weights is None:
            raise UnknownAgentError(
                "slow-fast: give weights=PATH (a network written by `checkers train slow-fast`), use "
                "zoo:slow-fast for the trained agent, or weights=untrained for a network of initial weights"
            )
        self.weights = weights
        self.depth = int(depth)
        self.net = _network(weights, seed)
        self._searcher = Searcher(net_evaluator(self.net), tt_bits=TT_BITS, quiescence=False)

    @classmethod
    def from_network(cls, net: ValueNet, depth: int = 1, seed: int | None = None) -> SlowFastAgent:
        """An agent playing an in-memory network (the trainer's evaluation games)."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, seed=seed)
        agent.weights, agent.depth, agent.net = None, int(depth), net
        agent._searcher = Searcher(net_evaluator(net), tt_bits=TT_BITS, quiescence=False)
        return agent

    def _search(self, game: Game, exact: bool):
        board = game.board
        if not board.has_legal_moves():
            raise ValueError(f"{self} has no legal move in {board.fen()}")
        # Under a think limit, a search from depth 1 that the limit can stop.
        limited = self.think_limit is not None
        return self._searcher.search(
            board,
            self.depth,
            self.think_limit,
            draws=Draws.of_game(game),
            first_depth=1 if limited else self.depth,
            root_in_order=True,
            exact_root=exact,
        )

    def move_values(self, game: Game) -> tuple[list[Move], np.ndarray]:
        """The legal moves (in ``generate_moves`` order) and each one's value for the mover."""
        result = self._search(game, exact=True)
        return [move_from_row(row) for row in result.rows], result.root_scores.copy()

    @property
    def evaluator(self):
        """The leaf evaluator of the agent's search (``checkers_agents.alphabeta.Evaluator``):
        its value net, through the search's one evaluator interface."""
        return self._searcher.evaluator

    def select_move(self, game: Game) -> Move:
        result = self._search(game, exact=False)
        best = np.array(result.ties)
        row = int(best[0] if len(best) == 1 else self.rng.choice(best))
        return move_from_row(result.rows[row])

    def policy(self, game: Game, temperature: float = 0.01) -> list[tuple[Move, float]]:
        """Softmax of the moves' values for the mover (``temperature`` on the (0, 1) scale)."""
        moves, worth = self.move_values(game)
        x = worth / (2.0 * temperature)
        p = np.exp(x - x.max())
        p /= p.sum()
        return list(zip(moves, (float(v) for v in p)))


__all__ = ["SlowFastAgent", "load_evaluator", "net_evaluator"]
