"""The outcome net: the one alpha-beta with a value net trained on the results of its own
self-play games (issue #19).

    >>> from checkers_env import make_agent
    >>> agent = make_agent("alphabeta:eval=outcome-net,weights=untrained,depth=2")
    >>> agent.name
    'alphabeta:depth=2,eval=outcome-net,weights=untrained'

The route (the issue leaves it open): **a network evaluator trained on self-play outcomes**,
as the strong checkers engines train theirs, bootstrapped by the classical search it is to
beat, and played by that same search. Of the field's routes it is the one whose data this
2-core machine makes fastest: the whole self-play game runs in one numba kernel
(:mod:`.selfplay`), 20 to 50 games a second per core at depth 6 against the hundreds of
Python calls per game an AlphaZero-style PUCT loop with a torch net makes per move.

- **Data** (:mod:`.selfplay`): games of the one alpha-beta at a fixed depth from the 156
  ballot openings plus a few random moves (so the games differ and decide), ended exactly
  by the endgame database (#12): a game that reaches 5 pieces ends with the database's
  result, so every label is the result of the play that followed, exact from 5 pieces on.
  Every quiet position is labelled with its game's result from the side to move's view.
- **Net** (:mod:`.net`): 128 mover-frame inputs, one ReLU layer of 32, a sigmoid output;
  it runs inside the search through the evaluator door (no kernel change), and the search
  probes the database below 6 pieces.
- **Generations** (``checkers_training.outcome_net``): generation 0's games are played with
  the positional points; each later generation's with the previous net (the value
  iteration of the self-play engines), the net trained on the newest ``window``
  generations. Each generation is a resumable stage with a point on the strength curve.

**choices**: depth 6 for self-play (the deepest that keeps 20+ games/s per core with the
net: about 90 positions a game); 4 random plies (measured at depth 6, 100 games: 0 random
plies gave 39 % draws, 4 gave 23 %); results only as targets (the search's own root value
is stored in the data, ``search``, for a later ablation); the zoo agent plays at 0.5 s
per move with the 5-piece database (``alphabeta:eval=outcome-net,time=0.5,egdb=5``).

**Ablations** (what each ingredient adds; 40 games each at 0.1 s per move against the
positional search without the database, ``alphabeta:time=0.1``, seed 3, the 156-opening
deck; commands in ``docs/experiments.md``):

=====================================  =========  =======
agent                                  W-D-L      score
=====================================  =========  =======
positional points + the database       17-14-9    60.0 %
the net, no database                   18-16-6    65.0 %
the net + the database (the zoo agent) 21-17-2    73.8 %
=====================================  =========  =======

The zoo agent's 200-game result at 0.5 s per move and its league table are in its card
(``zoo/outcome-net/card.json``) and ``zoo/README.md``.
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
