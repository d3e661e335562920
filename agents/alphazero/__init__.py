"""AlphaZero for checkers: a policy-value net and tree search, learned from zero by self-play.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("alphazero:weights=untrained,simulations=16")
    >>> agent.select_move(Game()) in Game().legal_moves()
    True

The parts (each module's docstring gives its details):

- ``net.py``: the policy-value net, torch to train and numba to search;
- ``tree.py``: the tree in preallocated arrays, and Gumbel AlphaZero's rules (PUCT's as the
  option);
- ``search.py``: the search kernels, many trees at once with their leaves as one batch;
- ``selfplay.py``: self-play games into shards (``checkers_env.shards``);
- ``agent.py``: the ``alphazero`` agent kind;
- ``checkers_training.alphazero``: ``checkers train alphazero``.

The choices, each a **choice** where the papers leave it open:

Actions
    **choice** the policy is over the 128 hop actions of ``Checkers-v0`` (``4 * k + d`` in
    the mover's frame), so a multi-jump is several tree levels with the same side to move.
    Why not complete moves: a complete move has no fixed index (a king's capture can take
    many paths), so a policy over moves needs a variable-size head or a move encoder,
    while the hop space is fixed, small, the one the envs, PPO and pgx-style learners
    already use, and its logits come out of one linear layer. The cost is extra levels for
    captures, and captures are mostly forced: a decision with one legal hop is played
    without a search (in play and in self-play, where it is not kept as a target). Values
    are stored for the side that chose a node and flipped on the way up only where the
    side to move changes (``tree.py``).

Search
    Gumbel AlphaZero (Danihelka et al., ICLR 2022) by default: ``considered`` = 16 hops
    sampled at the root (Gumbel-top-k), sequential halving over them, completed Q-values
    with the mixed value, ``c_visit`` = 50 and ``c_scale`` = 0.1 (the reference
    implementation's defaults, DeepMind's mctx), the deterministic rule below the root.
    **choice** PUCT (``search=puct``, ``c_puct`` = 1.25, an unvisited hop valued at its
    parent's net value) as the option. Gumbel's rules improve the policy with few
    simulations, so self-play keeps them; at the tens of thousands of simulations a
    decision of a clock PUCT plays better (measured head to head with the same net), and
    the zoo's card plays ``search=puct``. The constants are parameters (``c_visit``,
    ``c_scale``, ``c_puct``). The game ends by the core's game state (no move,
    threefold repetition, no progress, the move cap), the history of the game included;
    a game end is valued exactly (-1 for the side with no move, 0 a draw), never by the net.
    A tree holds at most 16 nodes per simulation; past that it stops growing and the
    search goes on.
PUCT's prior temperature (``prior_temperature``, 1 by default)
    **choice** Leela Chess Zero's policy softmax temperature as an option of PUCT: the prior
    is ``softmax(logits / prior_temperature)``; above 1 the visits spread over more hops, so
    a reply the policy thinks unlikely is searched sooner. The net learns its policy from
    Gumbel's improved policy at self-play's few hundred simulations, and a search of
    thousands played better with it flattened (head to head, ``docs/experiments.md``). The
    default is the papers' PUCT; the zoo's card sets its own temperature. Its companion,
    Leela's first-play urgency (``fpu_reduction``: an unvisited hop valued that much below
    its node's net value, times the square root of the prior its visited siblings hold),
    narrows the search instead, and is off. AlphaZero's growing weight (``c_puct_base``:
    ``c_puct`` plus ``log((1 + N + base) / base)`` at a node whose hops hold ``N`` visits)
    is an option too, off by default; the zoo's card sets AlphaZero's base, 19,652.
Tree reuse (``reuse``, on by default; PUCT only)
    **choice** as AlphaZero did, a PUCT search starts from the subtree of the agent's last
    search that the moves played since reached (its move and the reply), with that
    subtree's visits and values (``tree.reroot``), and adds its own simulations to them;
    only when the game is the one searched, continued (same start, rules and moves), so
    the kept nodes saw the same history. Gumbel's root always starts fresh: sequential
    halving schedules its visits from zero. Self-play (Gumbel, 64 simulations) never reuses.

Two additions below the root, **choices** of this suite, on in play and measured in
``docs/experiments.md``:

Forced hops played through (``through_forced``, on by default)
    A descent that reaches a position whose side to move has exactly one legal hop plays
    that hop and goes on, without asking the net; it stops for the net only at a position
    with a choice (or a game end). Self-play keeps only decisions with a choice, so these
    are the only positions the net's value was ever trained on; a forced capture is also
    the most misleading position to value, with material about to change hands.
Widening (``widen=4`` by default)
    Below the root, once a node has ``widen`` visits per legal hop, its unvisited hops get
    their first visit (the highest logit first) before the deterministic rule goes on.
    The net's prior is learned from self-play, where a sacrifice that sets up a shot is
    rare, so the rule alone would leave such a reply unvisited even in a well-searched
    node; one visit lets its value be seen. The root keeps the papers' schedule.

Endgame database (``egdb=P``, off by default; play only)
    **choice** a position the database holds, reached below the root between two moves
    (never inside a multi-jump), is a known end like a game end: its exact win, draw or
    loss is backed up as 1, 0 or -1 and the descent stops there (``search.known_end``). A
    root it holds is not searched: the agent plays the first of the database's best moves
    by distance, as the alpha-beta agents do (a win's values know no distance, so inside
    the database only the database's own order makes progress). Self-play's search never
    uses it: the net learns from zero.

Self-play's endgames (``selfplay.self_play(egdb_pieces=P)``, ``--egdb-pieces`` of the trainer; off by default)
    **choice** a self-play game may end at its first position between moves that the
    database holds, with the database's result, instead of being played out by the search:
    the endgames cost nothing, and every earlier decision's value target is the result of
    play that is perfect from there. No decision inside the database is kept, and the
    policy targets stay the search's own.

Batches
    ``search.run_simulations`` steps many trees at once: every live tree descends to a leaf,
    the leaves of all the trees are evaluated as one batch, then each is expanded and backed
    up. Self-play runs ``slots`` games so (64 by default). On the CPU an evaluation is a few
    microseconds through the net's sparse first layer in numba, so the batch is evaluated
    row by row there; ``search.descend_all`` and ``search.expand_all`` let any other
    evaluator (a torch net on a device, the exact oracle of the tests) take the batch
    between the two steps.

Budgets
    ``simulations`` (default 64 to play, 32 in self-play) after the root's evaluation.
    **choice** with ``time=S`` the agent sets each decision's simulations from its measured
    speed (the time left, rounded down to three significant bits so that few visit
    schedules are built; 20,000 simulations a second assumed before a search of at least
    128 simulations has measured it, each such search then averaged in; the kernels are
    compiled when the agent is made, so that no clock pays for it) and stops at the deadline;
    the move is then chosen among the hops the halving kept, as the schedule's end would.

From zero
    Generation 0 plays with the initial weights of the net drawn from the run's seed; no
    human game or evaluation by hand enters the training targets, and no endgame database
    enters the search (the policy target is the search's improved policy
    ``softmax(logits + sigma(q))``, the value target the game's result, which the database
    decides only in games that ``--egdb-pieces`` ends). **choice** games start from the initial position with 4
    random moves (a uniformly random legal hop at a time), and the search's own Gumbel noise explores after them.

What these choices measured to is in ``docs/experiments.md`` and ``zoo/alphazero/card.json``.
"""

from .agent import AlphaZeroAgent, AlphaZeroSearch

__all__ = ["AlphaZeroAgent", "AlphaZeroSearch"]
