"""The one alpha-beta search of the suite, with swappable leaf evaluators.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("alphabeta:depth=4,eval=material,seed=1")
    >>> move = agent.select_move(Game())
    >>> agent.last_search.depth
    4

Every searching agent is this search and an evaluator: ``alphabeta`` with material or
positional points, ``td-minimax`` with its TD-trained net at depth 2, the slow/fast learner
with its value net and move rewards, and the outcome net. A net of your own goes through the
same evaluator interface (``checkers_agents.search_parts.evaluators.mlp``) once registered
(``register_evaluator``).

Spec strings
------------
``alphabeta:depth=D,time=S,eval=E,weights=W,egdb=P,egdb_folder=DIR,seed=N`` and the switches
below (``checkers agents`` lists every key with its default):

- ``eval``: ``positional`` (default), ``material``, or a learned net: ``td-minimax``,
  ``slow-fast``, ``mcrd-net`` or ``outcome-net``;
- ``weights`` (nets only): ``zoo`` (default: the zoo entry's weights of that name), a
  weights file, or ``untrained`` (initial weights from ``seed``, and the name says so);
- ``egdb``: probe the endgame database of up to ``P`` pieces (0, the default: off; build it
  first with ``checkers egdb build --pieces P``);
- ``time`` (seconds a move), ``bank`` (``time`` as a nominal time a move, savings banked
  for unstable roots), ``game_time`` (a clock for the game), ``partial`` (spend the whole
  time);
- ``table_cutoffs``, ``pvs``, ``reductions``, ``spare_shots``, ``extensions``,
  ``threats``, ``etc``, ``iid``, ``probcut``, ``aspiration``, ``fractional``: pruning and
  extensions, off by default, so that every root value is the exact minimax value of its
  depth;
- ``contempt``: what a draw costs the agent; ``book``: play the opening book's moves.

After a move, ``agent.last_search`` (a ``SearchResult``) holds the depth, the value, the
nodes and the principal variation.

Parts: ``agent`` (``AlphaBetaAgent``), ``evaluator_registry`` (the ``eval=`` names),
``searcher`` (``Searcher``, ``SearchResult``: the driver), ``draws`` (``Draws``, the
game's draw rules), ``clock`` (the time a move takes), ``negamax`` (the numba search of
one depth), ``pruning`` (its switches, ``SearchOptions``), ``deepening`` (iterative
deepening in numba), ``transposition`` (the transposition table and Zobrist keys),
``stack`` (the per-ply stack and working buffers), ``accumulators`` (a net's first-layer
sums kept move by move) and ``selfplay`` (the one self-play kernel). The evaluator
interface and the nets' kernels, which other searches share, are
``checkers_agents.search_parts``'s.

Other packages use the search by the names below: the agent, the driver, the evaluator
registry, and for a learner that plays the search's games in its own kernels (td-minimax's,
the outcome net's and MCRD's data), the self-play kernel's pieces and the memory they take
(``Table``, ``table_for``, ``flat_memory``, ``memory_for``).

How the search works (quiescence, move ordering, the table, the draw rules, the database)
and why each switch is off by default: the documentation's alpha-beta page,
``docs/agents/alphabeta.md``.
"""

from .agent import AlphaBetaAgent
from .draws import Draws
from .evaluator_registry import EVALUATOR_GROUP, HAND_WRITTEN, evaluator_names, make_evaluator, register_evaluator
from .negamax import MAX_DEPTH, search_kernel
from .searcher import DEPTH, Searcher, SearchResult, board_key, memory_for, table_for
from .selfplay import (
    MOVE_NONE,
    MOVE_RANDOM,
    MOVE_SEARCH,
    POLICY_EPSILON,
    POLICY_MIXED,
    POLICY_RANDOM,
    POLICY_SEARCH,
    GameBatch,
    GameRecord,
    MovePolicy,
    SearchSetup,
    advance,
    choose_move,
    empty_record,
    game_over,
    play_games,
    start_game,
)
from .stack import flat_memory, memory_views
from .transposition import TT_BITS, TT_FIELDS, TT_MIN_DEPTH, ZOBRIST, Table, new_table, position_hash

__all__ = [
    "DEPTH",
    "EVALUATOR_GROUP",
    "HAND_WRITTEN",
    "MAX_DEPTH",
    "MOVE_NONE",
    "MOVE_RANDOM",
    "MOVE_SEARCH",
    "POLICY_EPSILON",
    "POLICY_MIXED",
    "POLICY_RANDOM",
    "POLICY_SEARCH",
    "TT_BITS",
    "TT_FIELDS",
    "TT_MIN_DEPTH",
    "ZOBRIST",
    "AlphaBetaAgent",
    "Draws",
    "GameBatch",
    "GameRecord",
    "MovePolicy",
    "SearchResult",
    "SearchSetup",
    "Searcher",
    "Table",
    "new_table",
    "advance",
    "board_key",
    "choose_move",
    "empty_record",
    "evaluator_names",
    "flat_memory",
    "game_over",
    "make_evaluator",
    "memory_for",
    "memory_views",
    "play_games",
    "position_hash",
    "register_evaluator",
    "search_kernel",
    "start_game",
    "table_for",
]
