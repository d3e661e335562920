"""``TDMinimaxAgent``: the suite's alpha-beta (``checkers_agents.alphabeta``) with the TD-trained net at the leaves."""

from __future__ import annotations

import os
from pathlib import Path

from checkers_agents.alphabeta import MAX_DEPTH, Draws, Evaluator, Searcher
from checkers_agents.alphabeta.negamax import pick_tied
from checkers_env import BLACK, BaseAgent, Board, Game, Move
from checkers_env.agent import file_path_or
from checkers_env.board import move_from_row
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
    """The net of ``weights`` (see :func:`load_net`) as the search's leaf evaluator."""
    return load_net(weights, seed).evaluator()


class TDMinimaxAgent(BaseAgent):
    """The TD-trained minimax net, a TD-Gammon-style learner: alpha-beta search (depth 2 by
    default) with a small net (128 inputs, 40 hidden units, 2 outputs) scoring the leaves,
    trained by self-play with temporal-difference learning.

    The suite's one alpha-beta search (``checkers_agents.alphabeta``) with the net as its evaluator:
    ``td-minimax:weights=W`` plays as ``alphabeta:eval=td-minimax,weights=W,depth=2`` does,
    but breaks exact ties along the move generator's order with its own generator.

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

    def __init__(
        self,
        weights: file_path_or("zoo", "untrained") | None = None,
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
        if weights is None:
            raise UnknownAgentError(
                "td-minimax: give weights=PATH (a net written by `checkers train td-minimax`), "
                "use zoo:td-minimax for the trained agent, or weights=untrained for a net of initial weights"
            )
        self.weights = os.fspath(weights)
        self.depth = depth
        self.time = time
        self.quiescence = bool(quiescence)
        self.net = load_net(self.weights, seed)
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
        self._searcher = Searcher(self.net.evaluator(), tt_bits=TT_BITS, quiescence=self.quiescence)
        self._rng_state = self._fresh_rng_state()
        self.last_search: dict = {}

    def _fresh_rng_state(self) -> int:
        return int(self.rng.integers(1, 2**62))

    @property
    def evaluator(self):
        """The leaf evaluator of the agent's search (``checkers_agents.alphabeta.Evaluator``):
        its net, through the search's one door."""
        return self._searcher.evaluator

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._rng_state = self._fresh_rng_state()

    def evaluate(self, board: Board) -> tuple[float, float]:
        """The net's ``(how well the side to move is doing, how well the opponent is doing)``."""
        mover, opponent = board.mover_bitboards
        return self.net.evaluate(mover, opponent, board.kings, board.turn == BLACK)

    def select_move(self, game: Game | Board) -> Move:
        """The move the search prefers under the game's draw rules (see ``checkers_agents.alphabeta``)."""
        board = game.board if isinstance(game, Game) else game
        searcher = self._searcher
        if self.time is None:
            # One kernel call (search and tie-break), no result object: the per-move cost
            # the old search had.
            row, self._rng_state, value, nodes = searcher.pick_row(board, self.depth, Draws.of_game(game),
                                                                   self._rng_state)
            if row < 0:
                raise ValueError(f"{self} has no legal move in {board.fen()}")
            self.last_search = {"depth": self.depth, "value": value, "nodes": nodes}
            return move_from_row(searcher.moves[0, row])
        else:
            if not board.has_legal_moves():
                raise ValueError(f"{self} has no legal move in {board.fen()}")
            result = searcher.search(board, MAX_DEPTH, self.time, Draws.of_game(game), first_depth=self.depth,
                                     root_in_order=True)
            depth, nodes, scores, rows = result.depth, result.nodes, result.root_scores, result.rows
            count = len(rows)
        row, self._rng_state = pick_tied(scores, count, self._rng_state)
        self.last_search = {"depth": depth, "value": float(scores[row]), "nodes": nodes}
        return move_from_row(rows[row])
