"""The outcome net: the one alpha-beta with a value net trained on the results of its own
self-play games.

    >>> from checkers_env import make_agent
    >>> agent = make_agent("alphabeta:eval=outcome-net,weights=untrained,depth=2")
    >>> agent.name
    'alphabeta:depth=2,eval=outcome-net,weights=untrained'

A network evaluator trained on self-play outcomes, bootstrapped by the classical search it
is to beat, and played by that same search (``alphabeta:eval=outcome-net``, the zoo's
``outcome-net`` to ``outcome-net-4``).

- **Data** (:mod:`.selfplay`): games of the one alpha-beta at a fixed depth from the ballot
  openings plus a few random moves, ended exactly by the endgame database; every quiet
  position is labelled with its game's result from the side to move's view
  (``play_games``, ``generate``, ``load_shards``).
- **Net** (:mod:`.net`): mover-frame square inputs (and optionally pattern inputs of blocks
  of four squares), one or two ReLU layers, a sigmoid output, run inside the search through
  the evaluator interface (``value_net``, ``fold``, ``read``, ``load_evaluator``).
- **Generations** (``checkers_training.outcome_net``, ``checkers train outcome-net``): each
  generation's games are played with the previous net, and each is a resumable stage with a
  point on the strength curve.

The choices (depth, random plies, targets, gates) and the measurements behind them: the
documentation's outcome-net page, ``docs/agents/outcome-net.md``.
"""

from .net import KIND, fold, load_evaluator, read, save_tensors, tensors_of, value_net
from .selfplay import generate, load_shards, play_games

__all__ = [
    "KIND",
    "fold",
    "generate",
    "load_evaluator",
    "load_shards",
    "play_games",
    "read",
    "save_tensors",
    "tensors_of",
    "value_net",
]
