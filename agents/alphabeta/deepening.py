"""Iterative deepening over the one search kernel, in numba: :func:`search_iteration` (one
iteration, in its aspiration window), :func:`deepen` (the iterations
of a search already begun), :func:`search_to_depth` (a whole search in one call, the move
picked too), :func:`search_from_python` (the same for a caller in Python) and
:func:`pick_tied` (the best root move, exact ties broken on a xorshift stream).
"""

from __future__ import annotations

import numba
import numpy as np

from checkers_agents.search_parts.endgame_probe import EndgameProbe
from checkers_agents.search_parts.evaluators import Valuation
from checkers_agents.search_parts.position import Position
from checkers_env.movegen import keep_best

from .negamax import DrawRules, search_kernel
from .pruning import OPEN, SearchOptions, aspiration_width, named_pruning
from .stack import V_ALPHA, V_BETA, FlatMemory, begin_search, memory_views
from .transposition import Table

#: The node limit of a search without one. Passed as an ``int64``: a constant would be
#: typed as a literal and compile the search a second time.
NO_NODE_LIMIT = 1 << 62


@numba.njit(cache=True)
def pick_tied(root_scores, count, rng):
    """The row of the best root move, exact ties broken uniformly along ``generate_moves``
    order by a reservoir draw on the xorshift state ``rng``; returns ``(row, rng)``.

    ``root_scores`` must be exact wherever a move is not below the best of the moves
    before it (``search_kernel`` with ``options.root_in_order``)."""
    value = root_scores[0]
    best = 0
    ties = 1
    for i in range(1, count):
        value, best, ties, rng = keep_best(root_scores[i], i, value, best, ties, rng)
    return best, rng


@numba.njit(cache=True)
def search_iteration(
    position, depth, node_limit, options, valuation, net, draw_rules, generation, table, memory, egdb, previous
):
    """One iteration of iterative deepening: :func:`search_kernel` at ``depth``, within an
    aspiration window of half-width ``options.pruning.more.aspiration`` around ``previous`` (the
    iteration before's value; NaN for none) when there is one, searched again with the
    side it fell out of open. Arguments and returns as :func:`search_kernel`'s (the nodes
    of every try)."""
    width = aspiration_width(options.pruning)
    if width <= 0.0:
        return search_kernel(
            position, depth, node_limit, options, valuation, net, draw_rules, generation, table, memory, egdb
        )
    alpha, beta = -OPEN, OPEN
    if abs(previous) < valuation.win_bound:  # not NaN, not a forced result
        alpha, beta = previous - width, previous + width
    nodes = 0
    while True:
        memory.values[0, V_ALPHA] = alpha
        memory.values[0, V_BETA] = beta
        value, best, count, used, aborted = search_kernel(
            position, depth, node_limit - nodes, options, valuation, net, draw_rules, generation, table, memory, egdb
        )
        nodes += used
        if aborted or count == 0:
            return value, best, count, nodes, aborted
        if value >= beta:
            beta = OPEN
        elif value - valuation.tie_margin < alpha:
            # Below: the moves within the margin of the best may be bounds, not values.
            alpha = -OPEN
        else:
            return value, best, count, nodes, False


@numba.njit(cache=True, inline="always")
def deepen(position, first_depth, depth, options, valuation, net, draw_rules, generation, table, memory, egdb):
    """Iterative deepening from ``first_depth`` to ``depth`` in the memory of a search the
    caller began (:func:`begin_search`, or a new table generation only), stopping early at
    a forced result within the nominal depth, as ``Searcher.search`` does. Arguments as
    :func:`search_kernel`'s; ``moves[0]`` and ``root_scores`` hold the last iteration's
    root.

    Returns:
        ``(value, depth_reached, root_moves, nodes)``.
    """
    nodes = 0
    value = 0.0
    previous = np.nan
    count = 0
    reached = first_depth
    for d in range(first_depth, depth + 1):
        value, _best, count, used, _aborted = search_iteration(
            position,
            d,
            np.int64(NO_NODE_LIMIT),
            options,
            valuation,
            net,
            draw_rules,
            generation,
            table,
            memory,
            egdb,
            previous,
        )
        previous = value
        nodes += used
        reached = d
        if count == 0 or (
            abs(value) > valuation.win_bound and abs(value) >= valuation.loss - valuation.loss_per_ply * d
        ):
            break
    return value, reached, count, nodes


@numba.njit(cache=True)
def search_to_depth(
    position, first_depth, depth, options, valuation, net, draw_rules, generation, table, flat, egdb, rng
):
    """A whole search without a time limit in one call: :func:`begin_search`, then
    :func:`deepen` from ``first_depth`` to ``depth``. Arguments as :func:`search_kernel`'s,
    the memory as :data:`FlatMemory`; ``moves[0]`` and ``root_scores`` hold the last
    iteration's root. With a nonzero xorshift state ``rng`` it also picks the move
    (:func:`pick_tied`, for a search ``options.root_in_order``): an agent's move in one call.

    Returns:
        ``(value, depth_reached, root_moves, nodes, generation, row, rng)``: ``row`` is the
        picked move's row of ``moves[0]`` (-1 without ``rng`` or without a legal move).
    """
    memory = memory_views(flat)
    generation = begin_search(generation, table, memory.killers, memory.history_scores)
    value, reached, count, nodes = deepen(
        position, first_depth, depth, options, valuation, net, draw_rules, generation, table, memory, egdb
    )
    row = -1
    if rng != 0 and count > 0:
        row, rng = pick_tied(memory.root_scores, count, rng)
    return value, reached, count, nodes, generation, row, rng


@numba.njit(cache=True)
def search_from_python(
    position, first_depth, depth, options, valuation, net, draw_rules, generation, table, flat, egdb, rng
):
    """:func:`search_to_depth` for a caller in Python (an agent's move, one call): the
    bundles come as plain tuples of their fields, in order (``tuple(bundle)``), and are
    named here. Numba's dispatcher types a plain tuple in C on every call, a named tuple in
    Python: tens of microseconds per call, a few percent of a shallow search."""
    return search_to_depth(
        Position(*position),
        first_depth,
        depth,
        SearchOptions(options[0], named_pruning(options[1])),
        Valuation(*valuation),
        net,
        DrawRules(*draw_rules),
        generation,
        Table(*table),
        FlatMemory(*flat),
        EndgameProbe(*egdb),
        rng,
    )


__all__ = ["NO_NODE_LIMIT", "deepen", "pick_tied", "search_from_python", "search_iteration", "search_to_depth"]
