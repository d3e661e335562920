"""AlphaZero for checkers: a policy-value net and tree search, learned from zero by self-play.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("alphazero:weights=untrained,simulations=16")
    >>> agent.select_move(Game()) in Game().legal_moves()
    True

The policy is over the 128 hop actions of ``Checkers-v0``, so a multi-jump is several tree
levels with the same side to move. The search is Gumbel AlphaZero's (sequential halving at
the root, completed Q-values) by default and AlphaZero's PUCT with ``search=puct``, in numba,
many trees at once with their leaves evaluated as one batch; the game ends where the rules
end it, with the game's history.

Spec strings: ``alphazero:weights=W,simulations=N,time=S,search=gumbel|puct,egdb=P,seed=N``
and the search's constants (``considered``, ``c_puct``, ``c_puct_base``,
``prior_temperature``, ``fpu_reduction``), ``through_forced`` and ``widen`` (two rules below
the root, on by default) and ``reuse`` (PUCT starts from the subtree of its last search);
``checkers agents`` lists every key with its default. ``zoo:alphazero`` plays as its card
says. ``agent.last_search`` holds the simulations, the value and the principal variation.

The parts (each module's docstring gives its details):

- ``net.py``: the policy-value net, torch to train and numba to search;
- ``tree.py``: the tree in preallocated arrays, and Gumbel AlphaZero's rules (PUCT's as the
  option);
- ``search.py``: the search kernels, many trees at once with their leaves as one batch;
- ``selfplay.py``: self-play games into shards (``checkers_env.shards``);
- ``agent.py``: the ``alphazero`` agent kind;
- ``checkers_training.alphazero``: ``checkers train alphazero``.

Each choice where the papers leave the design open, and what it measured to: the
documentation's AlphaZero page, ``docs/agents/alphazero.md``.
"""

from .agent import AlphaZeroAgent, AlphaZeroSearch

__all__ = ["AlphaZeroAgent", "AlphaZeroSearch"]
