"""The outcome net: the one alpha-beta with a value net trained on the results of its own
self-play games.

    >>> from checkers_env import make_agent
    >>> agent = make_agent("alphabeta:eval=outcome-net,weights=untrained,depth=2")
    >>> agent.name
    'alphabeta:depth=2,eval=outcome-net,weights=untrained'

The route: **a network evaluator trained on self-play outcomes**, as the strong checkers
engines train theirs, bootstrapped by the classical search it is to beat, and played by
that same search. Self-play data is cheap here because the whole game runs in one numba
kernel (:mod:`.selfplay`), with no Python call per move.

- **Data** (:mod:`.selfplay`): games of the one alpha-beta at a fixed depth from the 156
  ballot openings plus a few random moves (so the games differ and decide), ended exactly
  by the endgame database: a game that reaches 5 pieces ends with the database's result,
  so every label is the result of the play that followed, exact from 5 pieces on. Every
  quiet position is labelled with its game's result from the side to move's view.
- **Net** (:mod:`.net`): 128 mover-frame inputs (and optionally the pattern inputs of 21
  blocks of four squares), one ReLU layer of 32, a sigmoid output;
  it runs inside the search through the evaluator interface (no kernel change), and the search
  probes the database below 6 pieces.
- **Generations** (``checkers_training.outcome_net``): generation 0's games are played with
  the positional points; each later generation's with the previous net (the value
  iteration of the self-play engines), the net trained on the newest ``window``
  generations. Each generation is a resumable stage with a point on the strength curve.

**choices**: depth 6 for self-play (the deepest that keeps about 20 games/s per core with
the net); 4 random plies after the ballot opening (fewer gave many more draws); results
only as targets (the search's own root value is stored in the data, ``search``); the zoo
agent plays at 0.5 s per move with the 5-piece database
(``alphabeta:eval=outcome-net,time=0.5,egdb=5``). The measurements behind these choices and
the ablations (net, database, both) are in ``docs/experiments.md``; the zoo agent's results
are in its card (``zoo/outcome-net/card.json``).
"""

from .net import KIND, fold, load_evaluator, read, save_tensors, tensors_of, value_net
from .selfplay import END_EGDB, SelfPlayDataError, generate, load_shards, play_games

__all__ = [
    "END_EGDB",
    "KIND",
    "SelfPlayDataError",
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
