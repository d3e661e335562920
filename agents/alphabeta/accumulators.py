"""The search's first-layer sums, kept move by move or not at all.

A search's memory holds them (``accumulators``, ``[MAX_PLY, 2, H1]``: the squares' sums in
both colours' frames at every ply, ``net_layers.child_sums``; a leaf adds a pattern net's
block rows, ``net_layers.block_sums``) or None (its leaves sum their first layer fresh).
The functions here take either: numba compiles each for the type it is given and settles
``accumulators is None`` then, so a search without kept sums runs a kernel with none of
their code (no test per node, no arithmetic), the way ``net is None`` gives the
hand-written evaluations a kernel without the net's.
"""

from __future__ import annotations

import numba

from checkers_agents.search_parts.net_layers import block_sums, child_sums, move_sums, root_sums
from checkers_env.movegen import CAPTURED, FROM, TO

from .stack import S_INDEX, S_KINGS


@numba.njit(cache=True, inline="always")
def arriving_move(moves, order_index, stack, ply):
    """The move that reached the node at ``ply``, its parent's current move: ``(from, to,
    captured, the parent's kings)``, what a child's sums are updated by; ``(0, 0, 0, 0)``
    at the root, which no move reached."""
    if ply == 0:
        return 0, 0, 0, 0
    p = ply - 1
    mi = order_index[p, stack[p, S_INDEX] - 1]
    return moves[p, mi, FROM], moves[p, mi, TO], moves[p, mi, CAPTURED], stack[p, S_KINGS]


# ``keep_node_sums`` runs at every node searched on and ``leaf_sums`` at every leaf the net
# scores, so they take no more than they read: a call passes each array as a dozen words,
# and the move lists, the order and the node stack, which only give the arriving move, are
# read by the caller instead.


@numba.njit(cache=True)
def keep_root_sums(accumulators, black, white, kings, w_in, b_in, active):
    """The root's sums in both frames (``net_layers.root_sums``), when they are kept."""
    if accumulators is None:
        return
    root_sums(accumulators, black, white, kings, w_in, b_in, active)


@numba.njit(cache=True)
def keep_node_sums(accumulators, ply, w_in, black_moved, arrival, kings):
    """A node below the root that is searched on: its sums in both frames from its
    parent's and ``arrival``, the move that reached it (:func:`arriving_move`), when they
    are kept; ``kings``: the node's."""
    if accumulators is None:
        return
    if ply > 0:
        frm, to, captured, parent_kings = arrival
        child_sums(accumulators, ply, w_in, black_moved, frm, to, captured, parent_kings, kings)


@numba.njit(cache=True)
def leaf_sums(accumulators, ply, scratch, w_in, w_blocks, black_to_move, arrival, mover, opponent, kings):
    """A leaf's first-layer sums in its side to move's frame into ``scratch[:H1]``: its
    squares' from its parent's and ``arrival``, the move that reached it
    (:func:`arriving_move`), then its blocks' rows if the net has pattern inputs
    (``w_blocks``, ``Evaluator.net[6]``). Returns whether it wrote them: False when the
    sums are not kept (or at the root), and the leaf sums them fresh."""
    if accumulators is None:
        return False
    if ply == 0:
        return False
    frm, to, captured, parent_kings = arrival
    move_sums(
        accumulators[ply - 1, 0 if black_to_move else 1],
        scratch,
        w_in,
        black_to_move,
        not black_to_move,
        frm,
        to,
        captured,
        parent_kings,
        kings,
    )
    block_sums(scratch, w_blocks, mover, opponent, kings, black_to_move)
    return True


__all__ = ["arriving_move", "keep_node_sums", "keep_root_sums", "leaf_sums"]
