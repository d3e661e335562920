"""The alpha-beta search's per-ply stack and working buffers: the stack's fields, the
pruning's tries and the float values of every ply, killers, history, the move lists and
their ordering, and the net's scratch and first-layer sums, all as views of two flat
arrays.

``checkers_agents.alphabeta.negamax`` reads and writes all of it; callers allocate it once
(:func:`flat_memory`) and hand it to every search, with the transposition table
(``checkers_agents.alphabeta.transposition``).
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba.extending import register_jitable

from checkers_agents.search_parts.evaluators import MAX_ACTIVE
from checkers_env.movegen import MAX_MOVES, MOVE_FIELDS

from .transposition import next_generation

#: Plies the stack holds: the nominal depth plus quiescence (each capture removes a piece,
#: so capture sequences add at most 24 plies); deeper nodes are evaluated statically.
MAX_PLY = 128

# -- stack fields -------------------------------------------------------------------------------

(
    S_MOVER,
    S_OPPONENT,
    S_KINGS,
    S_SIDE,  # 1 when Black is to move
    S_HASH,
    S_DEPTH,
    S_BEST_INDEX,
    S_INDEX,
    S_COUNT,
    S_REVERSIBLE,  # every move from the root to here was a king's non-capture
    S_CAPTURES,  # the node's moves are captures
    S_QUIET,  # plies since the last capture or man move, the game's included
    S_ORDERED,  # the node's moves are searched best-ordered (else in generate_moves order)
) = range(13)
STACK_FIELDS = 13

# Fields per ply of the pruning's tries (``pruning``; a table of their own, so that the
# exact search's stack rows stay as short as they were).
(
    T_STAGE,  # how the current move is searched: STAGE_FIRST, STAGE_FULL_DEPTH, STAGE_FULL
    T_SCOUT,  # the current move is searched with a null window above alpha
    T_REDUCED,  # the current move is searched one ply shallower
    T_PASS,  # the node's own search: PASS_NONE, or a first pass (PASS_IID, ...), PASS_DONE
    T_DEPTH,  # during a first pass: the node's own depth, restored after it
    T_HALVES,  # with ``fractional``: the half ply of extension the node carries (0 or 1)
    T_PRINCIPAL,  # with ``fractional``: the node is on the principal variation (1) or not
) = range(7)
TRY_FIELDS = 7
#: The search of one move at a node (``T_STAGE``): first try (possibly reduced and with a
#: null window), again at full depth after a reduced search beat alpha, again with the
#: node's full window after a null-window search fell inside it.
STAGE_FIRST, STAGE_FULL_DEPTH, STAGE_FULL = 0, 1, 2
#: The search of a node itself (``T_PASS``): none but its own; a first, shallower pass
#: of internal iterative deepening, whose best move the table then holds; a first
#: ProbCut pass, shallower and above the window, whose value may stand for the node's;
#: its own search after a first pass.
PASS_NONE, PASS_IID, PASS_PROBCUT, PASS_DONE = 0, 1, 2, 3

# Float fields per ply.
V_ALPHA, V_BETA, V_BEST, V_ORIGINAL_ALPHA, V_REWARD = range(5)
VALUE_FIELDS = 5

# -- the search's memory (named tuples: numba takes them as typed tuples) -----------------------

#: The search's working memory (see ``search_kernel``), views of flat arrays
#: (:func:`memory_views`).
SearchMemory = namedtuple(
    "SearchMemory",
    "killers history_scores moves order_scores order_index stack active values root_scores scratch accumulators tries",
)
#: The search's memory as flat arrays (:func:`flat_memory`): ``ints``, ``int64``; ``floats``,
#: ``float64``; ``net_floats``, the net's scratch (``2 * width``) in its dtype; and
#: ``accumulators``, the first-layer sums of both views at every ply (``[MAX_PLY, 2, H1]``
#: of the net's dtype), or None for a search that sums them fresh at every leaf. None is a
#: type of its own to numba: the kernel compiled for it has none of the sums' code. A few
#: arrays cross from Python into numba faster than a dozen (each is unboxed on every call).
FlatMemory = namedtuple("FlatMemory", "ints floats net_floats width accumulators")


@numba.njit(cache=True, inline="always")
def begin_search(generation, table, killers, history_scores):
    """What every new search does to the memory of the last one: the next generation of
    its :data:`~checkers_agents.alphabeta.transposition.Table` (1-255; the table is wiped
    when it wraps, so no entry of an earlier search passes for this one's), no killers,
    history halved. Returns the generation."""
    generation = next_generation(generation, table)
    killers[:] = 0
    flat = history_scores.reshape(-1)  # one contiguous loop (vectorised)
    for i in range(flat.shape[0]):
        flat[i] >>= 1
    return generation


@register_jitable
def memory_sizes(width):
    """``(int64 count, float64 count, net count)`` of the search's flat buffers in
    :func:`memory_views`'s layout (a plain function in Python, compiled into a numba caller)."""
    ints = MAX_PLY * 2 + 2 * 32 * 32 + MAX_PLY * MAX_MOVES * MOVE_FIELDS + 2 * MAX_PLY * MAX_MOVES
    ints += MAX_PLY * STACK_FIELDS + MAX_ACTIVE + MAX_PLY * TRY_FIELDS
    return ints, MAX_PLY * VALUE_FIELDS + MAX_MOVES, 2 * width


@register_jitable
def flat_memory(width=1, dtype=np.float64, first_width=None):
    """A search's memory for a net of ``width`` (``Evaluator.width``; 1 for the hand-written
    kinds) and weights of ``dtype``, keeping the first-layer sums of every ply when
    ``first_width`` (the net's ``H1``) is given: the search then updates them move by move
    instead of summing them at every leaf. Killers and history are zero; the other buffers,
    which a search writes before it reads them, are left unset (a plain function in Python,
    compiled into a numba caller)."""
    ints, floats, net_floats = memory_sizes(width)
    # ``first_width is None`` is settled when numba compiles this for its caller's types.
    if first_width is None:
        accumulators = None
    else:
        accumulators = np.empty((MAX_PLY, 2, first_width), dtype)
    memory = FlatMemory(
        np.empty(ints, np.int64), np.empty(floats, np.float64), np.empty(net_floats, dtype), width, accumulators
    )
    memory.ints[: MAX_PLY * 2 + 2 * 32 * 32] = 0  # the killers and history, first in the layout
    return memory


@numba.njit(cache=True, inline="always")
def memory_views(flat):
    """The search's buffers as views of a :data:`FlatMemory` (``flat_memory``): the
    :data:`SearchMemory` that :func:`search_kernel` takes (``accumulators`` as they are:
    ``[MAX_PLY, 2, H1]`` or None)."""
    ints, floats, width = flat.ints, flat.floats, flat.width
    a = 0
    killers = ints[a : a + MAX_PLY * 2].reshape((MAX_PLY, 2))
    a += MAX_PLY * 2
    history_scores = ints[a : a + 2 * 32 * 32].reshape((2, 32, 32))
    a += 2 * 32 * 32
    moves = ints[a : a + MAX_PLY * MAX_MOVES * MOVE_FIELDS].reshape((MAX_PLY, MAX_MOVES, MOVE_FIELDS))
    a += MAX_PLY * MAX_MOVES * MOVE_FIELDS
    order_scores = ints[a : a + MAX_PLY * MAX_MOVES].reshape((MAX_PLY, MAX_MOVES))
    a += MAX_PLY * MAX_MOVES
    order_index = ints[a : a + MAX_PLY * MAX_MOVES].reshape((MAX_PLY, MAX_MOVES))
    a += MAX_PLY * MAX_MOVES
    stack = ints[a : a + MAX_PLY * STACK_FIELDS].reshape((MAX_PLY, STACK_FIELDS))
    a += MAX_PLY * STACK_FIELDS
    active = ints[a : a + MAX_ACTIVE]
    a += MAX_ACTIVE
    tries = ints[a : a + MAX_PLY * TRY_FIELDS].reshape((MAX_PLY, TRY_FIELDS))
    values = floats[: MAX_PLY * VALUE_FIELDS].reshape((MAX_PLY, VALUE_FIELDS))
    b = MAX_PLY * VALUE_FIELDS
    root_scores = floats[b : b + MAX_MOVES]
    scratch = flat.net_floats[: 2 * width]
    # By name: twelve arrays, several of one type, where a slip in order would type-check.
    return SearchMemory(
        killers=killers,
        history_scores=history_scores,
        moves=moves,
        order_scores=order_scores,
        order_index=order_index,
        stack=stack,
        active=active,
        values=values,
        root_scores=root_scores,
        scratch=scratch,
        accumulators=flat.accumulators,
        tries=tries,
    )


__all__ = [
    "FlatMemory",
    "MAX_PLY",
    "PASS_DONE",
    "PASS_IID",
    "PASS_NONE",
    "PASS_PROBCUT",
    "STACK_FIELDS",
    "STAGE_FIRST",
    "STAGE_FULL",
    "STAGE_FULL_DEPTH",
    "S_BEST_INDEX",
    "S_CAPTURES",
    "S_COUNT",
    "S_DEPTH",
    "S_HASH",
    "S_INDEX",
    "S_KINGS",
    "S_MOVER",
    "S_OPPONENT",
    "S_ORDERED",
    "S_QUIET",
    "S_REVERSIBLE",
    "S_SIDE",
    "SearchMemory",
    "TRY_FIELDS",
    "T_DEPTH",
    "T_HALVES",
    "T_PASS",
    "T_PRINCIPAL",
    "T_REDUCED",
    "T_SCOUT",
    "T_STAGE",
    "VALUE_FIELDS",
    "V_ALPHA",
    "V_BEST",
    "V_BETA",
    "V_ORIGINAL_ALPHA",
    "V_REWARD",
    "begin_search",
    "flat_memory",
    "memory_sizes",
    "memory_views",
]
