"""The TD-trained minimax net, a TD-Gammon-style learner, adapted to English draughts.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("td-minimax:weights=zoo/td-minimax/weights.safetensors,depth=2")  # doctest: +SKIP
    >>> agent.select_move(Game())  # doctest: +SKIP

The design document describes a TD-Gammon-like learner for another board game. Every
mechanism it names is kept; what is specific to its game is adapted as follows.

Mechanisms of the design document, as implemented here
------------------------------------------------------

1. **Move choice by minimax with alpha-beta pruning, depth 2**: the suite's one alpha-beta
   (``checkers_agents.alphabeta``) with this net as its leaf evaluator. The tree is over *complete*
   moves (a whole capture sequence is one move, as the rules core lists them), negamax
   form, iterative with one move buffer per ply, in numba. ``depth`` is
   configurable (``td-minimax:depth=4``), and ``time`` (seconds per move) deepens iteratively
   from ``depth`` while the next iteration is expected to fit the budget. Checkers
   adaptation: **quiescence** (``quiescence=True``, the default; ``False`` is the design
   document's plain search): a leaf where the side to move must capture is searched on
   through its captures until a quiet position, so the net never scores a position in the
   middle of an exchange (why: ``docs/experiments.md``).
2. **A fully connected feed-forward net with one hidden layer of 40 units and 2 outputs**
   (``net.py``): 128 inputs -> 40 sigmoid units -> 2 sigmoid outputs. The hidden layer uses
   the logistic sigmoid, as TD-Gammon did (the design document does not say; sigmoid keeps
   every unit in (0, 1) like the outputs). Forward pass and backpropagation are numba
   kernels over plain float64 arrays; no torch anywhere in the hot loop.
3. **Inputs from the game state "based on whose turn it is"** (the design document leaves
   them open): 4 x 32 = 128 binary inputs, one per dark square for each of own men, own
   kings, opponent men and opponent kings, *in the mover's frame* -- the board turned so
   that the side to move plays upwards (bit ``b`` for Black, ``31 - b`` for White, the half
   turn of docs/design.md §2). So one net plays both colours and the side to move is
   implicit: "own" is always the side to move. No extra hand-made features: material,
   mobility and the like must be learnt from the squares.
4. **Two outputs in (0, 1): how well the current player is doing, and how well the
   opponent is doing.** The search scores a leaf ``out[0] - out[1]`` from the leaf's side to
   move (in (-1, 1)) and negates it up the tree.
5. **Terminal positions are scored exactly, not by the net**: a side to move with no legal
   move (no pieces, or all blocked) has lost; such a node ``ply`` plies below the root is
   worth ``-(2 - 0.01 * ply)`` to its side to move, outside the net's range so a forced win
   always beats any evaluation, and a win sooner beats a win later.
6. **Self-play training** (``learn.py``: the suite's one self-play loop,
   ``checkers_agents.alphabeta.selfplay``, with a learning step after each searched move;
   driven by ``training/td_minimax.py``): the same net plays both sides. Each turn the side to move picks its best move by the search; then one
   backpropagation step with the current position as input (mover's view) and, as target,
   the net's outputs for the chosen position *seen from the same player*. The chosen
   position has the opponent to move, so the net sees it from the opponent's chair and
   outputs (opponent's, mover's): the two outputs are swapped to make the target. (The
   target is the net's output on the chosen position itself, not the minimax value of the
   search, exactly as the design document says; TD-Leaf would use the latter.)
7. **Two end-of-game corrections**: on the final position, the winner's view towards
   {1, 0}, then the loser's view towards {0, 1}; on a draw both towards {0, 0}. "View" means
   the inputs built with that player as "own" (the loser's view is the final position as
   it is, loser to move; the winner's view is the same board turned to the winner's frame).
8. **Two learning rates**: in-game 0.005 for the per-move steps, after-game 0.01 for the
   final corrections (plain SGD on the squared error through both sigmoid layers).
9. **At least 500,000 games** are suggested; the trainer's default is 500,000.
10. **The curriculum** (``--curriculum``): the design document's game is won "by a path"
    (completing one), and also when the opponent runs out of pieces or of board
    locations; "for the first half of the games a win only counted if it was completed by
    a path", the other wins being scored {0, 0}. Checkers has no path: its two ways to win
    are the document's *other* two, capturing every piece (the opponent is out of pieces)
    and blockade (the opponent has pieces but no square to move to, the nearest thing to
    running out of board locations). Taken literally, no win would count in the first
    half. The mapping kept here is the curriculum's idea, one way of winning first and
    every way after: the path's role is given to *capturing every piece*, the plain way to
    win, and blockade stays uncounted, as the document's out-of-locations win was. For the
    first half of the games (``--curriculum-fraction``, default 0.5) a win by blockade is
    scored as a draw -- both end-of-game corrections go towards {0, 0} and the search
    scores a blocked side to move as 0 instead of a loss; in the second half every win
    counts. **Default: off** (``--curriculum`` is not given, and ``zoo:td-minimax`` was
    trained without it), unlike the document, which always used its curriculum: in
    checkers it changes few targets (blockade wins are about 10 % of self-play wins) and
    two 30,000-game runs identical but for it scored alike (``docs/experiments.md``).

Checkers adaptations beyond the design document
-----------------------------------------------

- **Draw rules.** Training games end as the suite's default ``Rules`` say, decided by the
  core's ``game_state`` as every game is: threefold repetition, 80 plies without a capture
  or a man move, and 400 plies are draws (scored {0, 0} by the final corrections). The net
  does not see the history; the search does, as every search of the suite: a position
  reached by king moves that repeats one of the game since its last progress, or that
  completes the quiet plies of the no-progress rule, scores 0 (a draw), so a side that
  thinks it is ahead stops shuffling.
- **Ties** between exactly equal root values are broken uniformly at random by the agent's
  seeded generator, along the move generator's order (the design document is silent; without
  it self-play would be fully deterministic for a given net).
- **Exploration** (none in the design document): every training game opens with
  ``--random-plies`` random plies (default 10) and ``--epsilon`` plays a uniformly random
  move with that probability; positions before such moves are not learnt from (their
  "chosen" position is not the net's choice). The design document's self-play as written
  does not learn in checkers (the game has no dice, so one net plays nearly the same game
  over and over, almost always a draw): ``--random-plies 0`` is that plain self-play.
  Figures in ``docs/experiments.md``.
- **Weights** are saved as safetensors under torch ``nn.Linear`` names
  (``hidden.weight [40, 128]``, ``hidden.bias``, ``output.weight [2, 40]``, ``output.bias``),
  float64, with the format and input layout in the metadata; a missing, truncated, corrupt
  or mismatched file raises the suite's ``WeightsError``.

Parts: ``net.py`` (forward, backprop, files, the net as an evaluator), ``learn.py`` (one
self-play training game, searching with ``checkers_agents.alphabeta``'s kernel), ``agent.py``
(``TDMinimaxAgent``, kind ``td-minimax``). The inputs come from ``checkers_env.encoding``.
"""

from .agent import TDMinimaxAgent, load_evaluator, load_net
from .net import NUM_HIDDEN, NUM_INPUTS, Net, WeightsError

__all__ = [
    "NUM_HIDDEN", "NUM_INPUTS", "Net", "TDMinimaxAgent", "WeightsError", "load_evaluator", "load_net",
]
