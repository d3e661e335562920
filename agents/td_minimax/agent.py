"""``TDMinimaxAgent``: the suite's alpha-beta (``checkers_agents.alphabeta``) with the TD-trained net at the leaves
and exact ties broken along the move generator's order."""

from __future__ import annotations

import os

import numpy as np

from checkers_agents.alphabeta import AlphaBetaAgent
from checkers_agents.search_parts.evaluators import Evaluator
from checkers_env import BLACK, BaseAgent, Board
from checkers_env.agent import file_path_or
from checkers_env.errors import UnknownAgentError

from .net import Net

#: ``weights=untrained``: a net of initial weights (from the agent's seed), named as such.
UNTRAINED = "untrained"
#: The table of a depth-2 search is barely used (only the root stores): keep it small.
TT_BITS = 12


def load_net(weights: str, seed: int | None = None) -> Net:
    """The net of ``weights``: ``zoo``, ``untrained`` (initial weights from ``seed``) or a file.

    Raises:
        WeightsError: the file is missing, corrupt or not a td-minimax net.
    """
    if weights == UNTRAINED:
        return Net.initial(seed=0 if seed is None else int(seed))
    if weights == "zoo":
        from checkers_agents.zoo import zoo_weights

        weights = zoo_weights("td-minimax")
    return Net.load(weights)


def load_evaluator(weights: str, seed: int | None = None) -> Evaluator:
    """The net of ``weights`` (see :func:`load_net`) as the search's leaf evaluator (float32)."""
    return load_net(weights, seed).evaluator(np.float32)


class TDMinimaxAgent(AlphaBetaAgent):
    """The TD-trained minimax net, a TD-Gammon-style learner: alpha-beta search (depth 2 by
    default) with a small net (128 inputs, 40 hidden units, 2 outputs) scoring the leaves,
    trained by self-play with temporal-difference learning.

    The suite's one alpha-beta agent (``checkers_agents.alphabeta.AlphaBetaAgent``) with the
    net as its evaluator: ``td-minimax:weights=W`` plays as
    ``alphabeta:eval=td-minimax,weights=W,depth=2`` does, but breaks exact ties along the
    move generator's order with its own generator (``AlphaBetaAgent.ties_in_order``).

    Args:
        weights: path of a safetensors weights file written by ``checkers train td-minimax``, or
            ``untrained`` (initial weights from ``seed``; the name says so). Required:
            ``zoo:td-minimax`` is the trained agent.
        depth: search depth in plies (complete moves); with ``time``, the least depth searched.
        time: seconds per move; when given, the search deepens iteratively from ``depth``
            while the next iteration is expected to end within the budget.
        quiescence: search on through captures at the leaves, so the net scores only
            positions without a capture pending (a checkers adaptation; ``False`` is the
            plain fixed-depth search of the design document the agent was built from).
        seed: seed for breaking exact ties between equally valued moves.

    Raises:
        UnknownAgentError: no weights given.
        WeightsError: the weights file is missing, corrupt or not a td-minimax net.
    """

    kind = "td-minimax"
    ties_in_order = True
    tt_bits = TT_BITS

    def __init__(
        self,
        weights: file_path_or("zoo", "untrained") | None = None,
        depth: int = 2,
        time: float | None = None,
        quiescence: bool = True,
        seed: int | None = None,
    ):
        BaseAgent.__init__(self, seed=seed)
        self._check_limits(depth, time)
        if weights is None:
            raise UnknownAgentError(
                "td-minimax: give weights=PATH (a net written by `checkers train td-minimax`), "
                "use zoo:td-minimax for the trained agent, or weights=untrained for a net of initial weights"
            )
        self.weights = os.fspath(weights)
        self._start_net(load_net(self.weights, seed), depth, time, quiescence, np.float32)

    @classmethod
    def from_net(
        cls, net: Net, depth: int = 2, time: float | None = None, quiescence: bool = True, seed: int | None = None
    ) -> TDMinimaxAgent:
        """An agent playing with an in-memory net (the trainer's evaluation games); the net
        is shared, not copied. Its spec names no weights file."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, seed=seed)
        agent.weights = None
        agent._start_net(net, depth, time, quiescence)
        return agent

    def _start_net(self, net: Net, depth: int, time: float | None, quiescence: bool, dtype=np.float64) -> None:
        """Search with ``net``: float64 shares its arrays (a trainer's net, updated in place),
        float32 searches a copy (a net read from a file)."""
        self.eval = self.kind
        self.net = net
        self.quiescence = bool(quiescence)
        self._start(net.evaluator(dtype), depth, time)

    def evaluate(self, board: Board) -> tuple[float, float]:
        """The net's ``(how well the side to move is doing, how well the opponent is doing)``."""
        mover, opponent = board.mover_bitboards
        return self.net.evaluate(mover, opponent, board.kings, board.turn == BLACK)
