"""The search as numba kernels: many trees at once, their leaves evaluated as one batch.

Each tree searches from the position of one env row (``checkers_env.env_machine``'s rows:
the board, the hops of a capture in progress, the plies played and the keys of the
positions since the last progress), so a descent plays its hops with the envs' own
``hop`` and the game ends where the rules end it (the core's game state: no move,
threefold repetition, no progress, the move cap), never by a rule of the search's own.

A simulation step (:func:`run_simulations`) descends every live tree to a leaf (a node no
evaluation has expanded) or to a game end, evaluates the leaves of all the trees as one
batch through the net (:func:`checkers_agents.alphazero.net.forward`), then expands each
leaf (a child per legal hop, with the net's logit) and backs its value up. A game end is
backed up at once with its exact value (-1 for the side to move with no move, 0 a draw).
With ``through_forced``, a descent plays a hop that is the only legal one on
(:func:`expand_forced`) and stops for the net only where the side to move has a choice.
With an endgame database in the settings, a position it holds (reached between moves, not
inside a multi-jump) is a known end too (:func:`known_end`): its exact win, draw or loss
is backed up as 1, 0 or -1, and the search goes no deeper there.

The kernels here and in ``tree`` allocate nothing and keep no array beyond a call, so they
are compiled without numba's reference counting (``_nrt=False``, as the alpha-beta's
search is): counted, every tree array and row view a rule reads took an atomic increment
and decrement, more than half of a descent's time.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from checkers_env.bitboard import popcount
from checkers_env.egdb.index import WDL_DRAW, WDL_LOSS, WDL_WIN, probe_board
from checkers_env.env_machine import (
    S_BLACK,
    S_END,
    S_HOPS,
    S_KINGS,
    S_TURN,
    S_WHITE,
    STATE_FIELDS,
    hop,
    new_batch,
    write_mask,
)
from checkers_env.game_state import END_NO_MOVES, END_NONE, history_for

from .net import MAX_ACTIVE, NUM_ACTIONS, forward, row_inputs
from .tree import GUMBEL, MAX_HOPS, UNREACHED, final_child, interior_child, root_child, root_policy


class Rows(NamedTuple):
    """Env rows: each tree's root, and the row a descent plays its hops on."""

    root_state: np.ndarray  # int64[T, STATE_FIELDS]
    root_positions: np.ndarray  # int64[T, H]
    state: np.ndarray
    positions: np.ndarray
    last: np.ndarray  # int64[T, 0, ...]: no move record
    rules: np.ndarray  # int64[RULE_FIELDS]


def new_rows(trees: int, rules: np.ndarray) -> Rows:
    """Rows for ``trees`` trees under ``rules`` (``Rules.as_array()``)."""
    history = max(int(history_for(rules)), 1)
    root_state, _moves, root_positions, last = new_batch(trees, history, 0)
    state, _moves, positions, _last = new_batch(trees, history, 0)
    return Rows(root_state, root_positions, state, positions, last, rules)


class Leaves(NamedTuple):
    """Per tree: the leaf waiting for the net, its inputs, legal hops and outputs; the root's
    Gumbel noise; scratch rows."""

    node: np.ndarray  # int32[T]: -1 when the descent ended at a game end
    active: np.ndarray  # int64[T, MAX_ACTIVE]
    count: np.ndarray  # int64[T]
    mask: np.ndarray  # int8[T, 128]
    words: np.ndarray  # uint32[T, 32]: mask's view for write_mask
    logits: np.ndarray  # float32[T, 128]
    value: np.ndarray  # float32[T]
    gumbel: np.ndarray  # float32[T, 128]: 0 when playing to win
    scratch: np.ndarray  # float32[T, net scratch]
    sigma: np.ndarray  # float64[T, MAX_HOPS]
    prior: np.ndarray  # float64[T, MAX_HOPS]


def new_leaves(trees: int, scratch_size: int) -> Leaves:
    """Buffers for ``trees`` trees and a net of ``scratch_size`` (``NetArrays.scratch_size``)."""
    mask = np.zeros((trees, NUM_ACTIONS), np.int8)
    return Leaves(
        np.full(trees, -1, np.int32),
        np.zeros((trees, MAX_ACTIVE), np.int64),
        np.zeros(trees, np.int64),
        mask,
        mask.view(np.uint32),
        np.zeros((trees, NUM_ACTIONS), np.float32),
        np.zeros(trees, np.float32),
        np.zeros((trees, NUM_ACTIONS), np.float32),
        np.zeros((trees, scratch_size), np.float32),
        np.zeros((trees, MAX_HOPS), np.float64),
        np.zeros((trees, MAX_HOPS), np.float64),
    )


#: ``tree.end`` of a position the endgame database holds, beside game_state's ``END_*`` codes
#: (the side to move there wins, loses or draws with best play).
KNOWN_WIN, KNOWN_LOSS, KNOWN_DRAW = 16, 17, 18


# -- one tree -------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always", _nrt=False)
def known_end(state, t, egdb):
    """``KNOWN_*`` of row ``t`` if the endgame database ``egdb`` holds its position (between
    moves, with at most ``egdb.pieces`` pieces), else ``END_NONE``."""
    if state[t, S_HOPS] > 0 or popcount(state[t, S_BLACK] | state[t, S_WHITE]) > egdb.pieces:
        return END_NONE
    code = probe_board(
        egdb.tables, egdb.offsets, state[t, S_BLACK], state[t, S_WHITE], state[t, S_KINGS], state[t, S_TURN] == 0
    )
    if code == WDL_WIN:
        return KNOWN_WIN
    if code == WDL_LOSS:
        return KNOWN_LOSS
    return KNOWN_DRAW if code == WDL_DRAW else END_NONE


@numba.njit(cache=True, inline="always", _nrt=False)
def end_value(end):
    """The exact value of a game end or known end for its side to move."""
    if end == END_NO_MOVES or end == KNOWN_LOSS:
        return -1.0
    return 1.0 if end == KNOWN_WIN else 0.0


@numba.njit(cache=True, inline="always", _nrt=False)
def copy_root(rows, t):
    for f in range(STATE_FIELDS):
        rows.state[t, f] = rows.root_state[t, f]
    for q in range(rows.positions.shape[1]):
        rows.positions[t, q] = rows.root_positions[t, q]


@numba.njit(cache=True, inline="always", _nrt=False)
def await_net(rows, leaves, t, node):
    """Leave ``node`` (the descent's row stands on it) for the batch's evaluation."""
    leaves.node[t] = node
    leaves.count[t] = row_inputs(rows.state, t, leaves.active[t])
    write_mask(rows.state, t, leaves.words[t])


@numba.njit(cache=True, _nrt=False)
def begin(tree, rows, leaves, t):
    """A fresh tree ``t`` at its root row, the root waiting for the net."""
    copy_root(rows, t)
    tree.size[t] = 1
    tree.parent[t, 0] = -1
    tree.action[t, 0] = -1
    tree.children[t, 0] = 0
    tree.visits[t, 0] = 0
    tree.value_sum[t, 0] = 0.0
    tree.mover[t, 0] = rows.state[t, S_TURN]
    tree.end[t, 0] = rows.state[t, S_END]
    await_net(rows, leaves, t, 0)


@numba.njit(cache=True, _nrt=False)
def backup(tree, t, leaf, value):
    """Add ``value`` (for the side to move at ``leaf``) to every node from ``leaf`` to the
    root, each for the side that chose it."""
    mover = tree.mover[t, leaf]
    node = leaf
    while node != 0:
        parent = tree.parent[t, node]
        tree.visits[t, node] += 1
        tree.value_sum[t, node] += value if tree.mover[t, parent] == mover else -value
        node = parent
    tree.visits[t, 0] += 1


@numba.njit(cache=True, _nrt=False)
def legal_hops(state, leaves, t):
    """Write the legal hops of row ``t`` of ``state`` into ``leaves.mask[t]``; returns their
    count and the last of them (-1 if none)."""
    write_mask(state, t, leaves.words[t])
    n, last = 0, -1
    for a in range(NUM_ACTIONS):
        if leaves.mask[t, a] != 0:
            n += 1
            last = a
    return n, last


@numba.njit(cache=True, _nrt=False)
def expand_forced(tree, rows, leaves, t, node):
    """Give ``node`` its one child without the net if its side to move has exactly one legal
    hop (and the tree has room); returns whether it did."""
    legal, action = legal_hops(rows.state, leaves, t)
    if legal != 1 or tree.size[t] >= tree.parent.shape[1]:
        return False
    child = tree.size[t]
    tree.parent[t, child] = node
    tree.action[t, child] = action
    tree.children[t, child] = 0
    tree.visits[t, child] = 0
    tree.value_sum[t, child] = 0.0
    tree.logit[t, child] = 0.0
    tree.prior[t, child] = 1.0
    tree.mover[t, child] = UNREACHED
    tree.end[t, child] = END_NONE
    tree.first_child[t, node] = child
    tree.children[t, node] = 1
    tree.raw_value[t, node] = 0.0  # never asked of the net; only read while its child is unvisited
    tree.size[t] = child + 1
    return True


@numba.njit(cache=True, _nrt=False)
def descend(tree, rows, settings, leaves, t, simulation):
    """Simulation ``simulation`` of tree ``t`` down to a leaf (left for the net) or to a
    game end (backed up at once)."""
    copy_root(rows, t)
    sigma, prior = leaves.sigma[t], leaves.prior[t]
    node = 0
    while True:
        end = tree.end[t, node]
        if end != END_NONE:
            backup(tree, t, node, end_value(end))
            leaves.node[t] = -1
            return
        if tree.children[t, node] == 0 and not (settings.through_forced and expand_forced(tree, rows, leaves, t, node)):
            break
        if node == 0 and settings.method == GUMBEL:
            child = root_child(tree, t, settings, simulation, leaves.gumbel[t], sigma, prior)
        else:
            child = interior_child(tree, t, node, settings, sigma, prior)
        hop(rows.state, rows.positions, rows.last, t, tree.action[t, child], rows.rules)
        node = child
        if tree.mover[t, node] == UNREACHED:
            tree.mover[t, node] = rows.state[t, S_TURN]
            end = rows.state[t, S_END]
            if end == END_NONE and settings.egdb.pieces > 0:
                end = known_end(rows.state, t, settings.egdb)
            tree.end[t, node] = end
    await_net(rows, leaves, t, node)


@numba.njit(cache=True, _nrt=False)
def expand(tree, leaves, t):
    """Give the leaf of tree ``t`` its net value and its children (one per legal hop, while
    the tree has room), and back the value up."""
    node = leaves.node[t]
    if node < 0:
        return
    value = leaves.value[t]
    tree.raw_value[t, node] = value
    if tree.children[t, node] == 0:
        legal = 0
        for a in range(NUM_ACTIONS):
            legal += leaves.mask[t, a] != 0
        first = tree.size[t]
        if first + legal <= tree.parent.shape[1]:
            child = first
            for a in range(NUM_ACTIONS):
                if leaves.mask[t, a] == 0:
                    continue
                tree.parent[t, child] = node
                tree.action[t, child] = a
                tree.children[t, child] = 0
                tree.visits[t, child] = 0
                tree.value_sum[t, child] = 0.0
                tree.logit[t, child] = leaves.logits[t, a]
                tree.mover[t, child] = UNREACHED
                tree.end[t, child] = END_NONE
                child += 1
            tree.first_child[t, node] = first
            tree.children[t, node] = legal
            tree.size[t] = child
            tree.prior[t, first] = -1.0  # computed when a descent first passes the node
    backup(tree, t, node, value)


# -- many trees ------------------------------------------------------------------------------


@numba.njit(cache=True, _nrt=False)
def evaluate_leaves(net, leaves, live):
    """The net over the waiting leaves of the live trees, one after another (the batch)."""
    for t in range(len(live)):
        if live[t] and leaves.node[t] >= 0:
            leaves.value[t] = forward(
                net, leaves.active[t], leaves.count[t], leaves.mask[t], leaves.scratch[t], leaves.logits[t]
            )


@numba.njit(cache=True, _nrt=False)
def begin_all(tree, rows, leaves, live):
    """Every live tree fresh at its root row, the root waiting for the net."""
    for t in range(len(live)):
        if live[t]:
            begin(tree, rows, leaves, t)


@numba.njit(cache=True, _nrt=False)
def start_searches(tree, rows, leaves, net, live):
    """Every live tree fresh at its root row, the roots evaluated and expanded."""
    begin_all(tree, rows, leaves, live)
    evaluate_leaves(net, leaves, live)
    expand_all(tree, leaves, live)


@numba.njit(cache=True, _nrt=False)
def descend_all(tree, rows, settings, leaves, live, simulation):
    """Simulation ``simulation`` of every live tree down to its leaf (or a game end)."""
    for t in range(len(live)):
        if live[t]:
            descend(tree, rows, settings, leaves, t, simulation)


@numba.njit(cache=True, _nrt=False)
def expand_all(tree, leaves, live):
    """Expand the evaluated leaf of every live tree and back its value up."""
    for t in range(len(live)):
        if live[t]:
            expand(tree, leaves, t)


@numba.njit(cache=True, _nrt=False)
def run_simulations(tree, rows, settings, leaves, net, live, first, last):
    """Simulations ``first ... last - 1`` of every live tree, a batch of leaves per step.

    The same as calling :func:`descend_all`, evaluating ``leaves`` (``node``, ``active``,
    ``count``, ``mask``) into ``leaves.value`` and ``leaves.logits`` by any means (a torch
    net on a device, an exact oracle in the tests), and :func:`expand_all`, per step."""
    for simulation in range(first, last):
        descend_all(tree, rows, settings, leaves, live, simulation)
        evaluate_leaves(net, leaves, live)
        expand_all(tree, leaves, live)


@numba.njit(cache=True, _nrt=False)
def conclude(tree, settings, leaves, t, policy):
    """The hop tree ``t`` plays (returned) and its improved policy into ``policy[128]``."""
    sigma, prior = leaves.sigma[t], leaves.prior[t]
    root_policy(tree, t, settings, sigma, prior, policy)
    child = final_child(tree, t, settings, leaves.gumbel[t], sigma, prior)
    return tree.action[t, child]


@numba.njit(cache=True, _nrt=False)
def root_value(tree, t):
    """The search's value of the root for its side to move: the mean over its simulations."""
    first, n = tree.first_child[t, 0], tree.children[t, 0]
    total, visits = 0.0, 0
    for k in range(n):
        total += tree.value_sum[t, first + k]
        visits += tree.visits[t, first + k]
    return total / visits if visits > 0 else float(tree.raw_value[t, 0])


@numba.njit(cache=True, _nrt=False)
def principal_hops(tree, t, action, out):
    """The line the search expects into ``out`` (at most ``len(out)`` hops): ``action`` at
    the root, then the most visited child at each node; returns its length."""
    node, n = 0, 0
    while n < len(out) and tree.children[t, node] > 0:
        first = tree.first_child[t, node]
        best, most = -1, 0
        for k in range(tree.children[t, node]):
            if (node == 0 and tree.action[t, first + k] == action) or (node > 0 and tree.visits[t, first + k] > most):
                best, most = first + k, tree.visits[t, first + k]
        if best < 0:
            break
        out[n] = tree.action[t, best]
        n += 1
        node = best
    return n


__all__ = [
    "KNOWN_DRAW",
    "KNOWN_LOSS",
    "KNOWN_WIN",
    "Leaves",
    "Rows",
    "backup",
    "begin",
    "begin_all",
    "conclude",
    "descend",
    "descend_all",
    "end_value",
    "evaluate_leaves",
    "expand",
    "expand_all",
    "expand_forced",
    "known_end",
    "legal_hops",
    "new_leaves",
    "new_rows",
    "principal_hops",
    "root_value",
    "run_simulations",
    "start_searches",
]
