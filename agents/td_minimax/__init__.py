"""The TD-trained minimax net of seed 002, adapted to English draughts.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("td-minimax:weights=zoo/td-minimax/weights.safetensors,depth=2")  # doctest: +SKIP
    >>> agent.select_move(Game())  # doctest: +SKIP

The seed describes a TD-Gammon-like learner for another board game. Every mechanism it
names is kept; what is specific to its game is adapted as follows.

Mechanisms of the seed, as implemented here
-------------------------------------------

1. **Move choice by minimax with alpha-beta pruning, depth 2** (``search.py``). The tree is
   over *complete* moves (a whole capture sequence is one move, as the rules core lists
   them), negamax form, iterative with one move buffer per ply, in numba. ``depth`` is
   configurable (``td-minimax:depth=4``), and ``time`` (seconds per move) deepens iteratively
   from ``depth`` while the next iteration is expected to fit the budget. Checkers
   adaptation: **quiescence** (``quiescence=True``, the default; ``False`` is the seed's
   plain search): a leaf where the side to move must capture is searched on through its
   captures until a quiet position, so the net never scores a position in the middle of
   an exchange. Measured: with a hand-made material net, depth 2 scores 0.25 against
   ``alphabeta:depth=2,eval=material`` (which has quiescence) without it and 0.50 with it.
2. **A fully connected feed-forward net with one hidden layer of 40 units and 2 outputs**
   (``net.py``): 128 inputs -> 40 sigmoid units -> 2 sigmoid outputs. The hidden layer uses
   the logistic sigmoid, as TD-Gammon did (the seed does not say; sigmoid keeps every unit
   in (0, 1) like the outputs). Forward pass and backpropagation are numba kernels over
   plain float64 arrays; no torch anywhere in the hot loop.
3. **Inputs from the game state "based on whose turn it is"** (the seed leaves them open):
   4 x 32 = 128 binary inputs, one per dark square for each of own men, own kings, opponent
   men and opponent kings, *in the mover's frame* -- the board turned so that the side to
   move plays upwards (bit ``b`` for Black, ``31 - b`` for White, the half turn of
   DESIGN §5). So one net plays both colours and the side to move is implicit: "own" is
   always the side to move. No extra hand-made features: material, mobility and the like
   must be learnt from the squares.
4. **Two outputs in (0, 1): how well the current player is doing, and how well the
   opponent is doing.** The search scores a leaf ``out[0] - out[1]`` from the leaf's side to
   move (in (-1, 1)) and negates it up the tree.
5. **Terminal positions are scored exactly, not by the net**: a side to move with no legal
   move (no pieces, or all blocked) has lost; such a node ``ply`` plies below the root is
   worth ``-(2 - 0.01 * ply)`` to its side to move, outside the net's range so a forced win
   always beats any evaluation, and a win sooner beats a win later.
6. **Self-play training** (``learn.py``, driven by ``training/td_minimax.py``): the same net
   plays both sides. Each turn the side to move picks its best move by the search; then one
   backpropagation step with the current position as input (mover's view) and, as target,
   the net's outputs for the chosen position *seen from the same player*. The chosen
   position has the opponent to move, so the net sees it from the opponent's chair and
   outputs (opponent's, mover's): the two outputs are swapped to make the target. (The
   target is the net's output on the chosen position itself, not the minimax value of the
   search, exactly as the seed says; TD-Leaf would use the latter.)
7. **Two end-of-game corrections**: on the final position, the winner's view towards
   {1, 0}, then the loser's view towards {0, 1}; on a draw both towards {0, 0}. "View" means
   the inputs built with that player as "own" (the loser's view is the final position as
   it is, loser to move; the winner's view is the same board turned to the winner's frame).
8. **Two learning rates**: in-game 0.005 for the per-move steps, after-game 0.01 for the
   final corrections (plain SGD on the squared error through both sigmoid layers).
9. **At least 500,000 games** are suggested; the trainer's default is 500,000.
10. **The curriculum** (``--curriculum``): in the seed's game the "real" win is completing
    a path, and for the first half of training wins by the opponent running out of pieces
    or of board locations count as {0, 0}. In checkers a game is won in one of two ways:
    by *capturing every piece* of the opponent, or by *blockade* (the opponent still has
    pieces but none can move). The checkers curriculum: for the first half of the games
    (``--curriculum-fraction``, default 0.5) only wins by capturing every piece count; a
    win by blockade is scored as a draw -- both end-of-game corrections go towards {0, 0}
    and the search scores a blocked side-to-move as 0 instead of a loss. In the second half
    every win counts. The idea carried over: first learn the plain way of winning
    (material), then the subtle one (restricting the opponent's mobility). Measured: it
    does not help. Two 30,000-game runs, identical but for ``--curriculum`` (seed 2, 10
    random opening plies, quiescence), then a league of 100 games per pair (3-move ballot,
    colours swapped): with the curriculum 29 % against ``alphabeta:depth=2,eval=material``,
    without 29.5 %; head to head 48.5 : 51.5; both 100 % against ``greedy``. Blockade wins
    are about 10 % of the wins in self-play, so the curriculum changes few targets.

Checkers adaptations beyond the seed
------------------------------------

- **Draw rules.** Training games end as the suite's default ``Rules`` say: threefold
  repetition, 80 plies without a capture or a man move, and 400 plies are draws (scored
  {0, 0} by the final corrections). The search does not see repetition or the move
  counters (the net does not either).
- **Ties** between exactly equal root values are broken uniformly at random by the agent's
  seeded generator (the seed is silent; without it self-play would be fully deterministic
  for a given net).
- **Draws in the search.** At the root, a move into a position that already occurred in
  the game (since the last capture or man move), or one that completes the 80 quiet plies,
  scores 0 (a draw), as engines score repetitions: a side that thinks it is ahead stops
  shuffling. Measured with 10 random opening plies, after 40k games: 0.83 against
  ``greedy`` without it, 0.98 with it (100 games each).
- **Exploration** (none in the seed) is off by default. ``--epsilon`` plays a uniformly random
  move with that probability and ``--random-plies N`` opens every game with N random plies;
  positions before such moves are not learnt from (their "chosen" position is not the
  net's choice). Measured: the seed's self-play as written (no exploration) does not learn
  in checkers. The game is deterministic (no dice, unlike TD-Gammon), so the same net
  plays nearly the same game over and over; 98-100 % of the games were draws by
  repetition (with or without the repetition rule in the search), the {0, 0} targets
  washed every evaluation towards 0, and after 20-40k games the net scored about 0.2
  against ``random`` (a randomly initialised net can dislike its own material, and
  nothing corrects it). With 10 random opening plies
  (``--random-plies 10``) the same 40k games reached 0.98 against ``greedy``. The zoo net is
  trained with ``--random-plies 10``; the option stays off by default, as the seed has none.
- **Weights** are saved as safetensors under torch ``nn.Linear`` names
  (``hidden.weight [40, 128]``, ``hidden.bias``, ``output.weight [2, 40]``, ``output.bias``),
  float64, with the format and input layout in the metadata; a missing or corrupt file
  raises :class:`WeightsError` (a ``ValueError``).

Parts: ``net.py`` (inputs, forward, backprop, files), ``search.py`` (alpha-beta),
``learn.py`` (one self-play training game), ``agent.py`` (``TDMinimaxAgent``, kind
``td-minimax``).
"""

from .agent import ZOO_WEIGHTS, TDMinimaxAgent, load_evaluator, load_net
from .net import NUM_HIDDEN, NUM_INPUTS, Net, WeightsError

__all__ = [
    "NUM_HIDDEN", "NUM_INPUTS", "Net", "TDMinimaxAgent", "WeightsError", "ZOO_WEIGHTS", "load_evaluator", "load_net",
]
