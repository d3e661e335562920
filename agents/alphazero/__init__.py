"""AlphaZero for checkers: a policy-value net and tree search, learned from zero by self-play.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("alphazero:weights=untrained,simulations=16")
    >>> agent.select_move(Game()) in Game().legal_moves()
    True

The map (each part's docstring gives its details):

- ``net.py``: the policy-value net (torch to train, numba to search);
- ``tree.py``: the tree in preallocated arrays and the rules of Gumbel AlphaZero and PUCT;
- ``search.py``: the search kernels, many trees at once with their leaves as one batch;
- ``selfplay.py``: self-play games into shards (``checkers_env.shards``);
- ``agent.py``: the ``alphazero`` agent kind;
- ``training/alphazero.py``: ``checkers train alphazero``.
"""

from .agent import AlphaZeroAgent, AlphaZeroSearch

__all__ = ["AlphaZeroAgent", "AlphaZeroSearch"]
