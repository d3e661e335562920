"""The search tree in preallocated arrays, and the rules that choose a hop at a node.

A batch of ``T`` trees of at most ``M`` nodes each is one :class:`Tree` of ``[T, M]``
arrays (node 0 is the root). A node is one hop: its ``action`` (``4 * k + d`` in the mover's
frame, the env's), its ``parent``, its children ``first_child ... first_child + children - 1``
(``children`` is 0 until the node is expanded), the net's ``logit`` of its hop at the parent
and ``raw_value`` at the node itself (for the side to move there), its ``visits`` and the
sum of the values backed up through it, ``value_sum``, **for the side that chose its hop**
(the side to move at the parent). A multi-jump is several levels with the same side to
move, so the sign of a value is flipped on the way up only where the side to move changes
(``mover``, known once a descent reached the node).

Gumbel AlphaZero (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning
with Gumbel", ICLR 2022), as its reference implementation (DeepMind's mctx) computes it:

- **completed Q-values** (:func:`completed_sigma`): a visited child's mean value, an
  unvisited child the *mixed value* ``v_mix = (raw_value + N * sum_b pi(b) q(b) /
  sum_b pi(b)) / (1 + N)`` over the visited children ``b`` (``pi`` the net's prior, ``N``
  the node's visits below it); rescaled to ``[0, 1]`` by their minimum and maximum, then
  ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``;
- **root** (:func:`root_child`): sequential halving over the Gumbel-top-``m`` hops, as a
  schedule of visit counts (:func:`considered_visits`): simulation ``s`` goes to the hop,
  among those with exactly ``schedule[m, s]`` visits, with the largest ``g(a) + logit(a) +
  sigma(q(a))`` (``g`` the Gumbel noise drawn at the root, 0 when playing to win);
- **below the root** (:func:`interior_child`): the deterministic ``argmax_a pi'(a) -
  N(a) / (1 + sum_b N(b))`` with ``pi' = softmax(logits + sigma(q))``; **choice** with
  ``widen`` > 0, a node with at least ``widen`` visits per child first gives each
  unvisited child a visit, the highest logit first;
- **the move** (:func:`final_child`): among the most visited root hops, the largest
  ``g + logit + sigma(q)``; **the policy target**: ``softmax(logits + sigma(q))`` at the root.

PUCT (AlphaZero; Silver et al., Science 2018) as the option: ``argmax_a Q(a) + c_puct
pi(a) sqrt(N) / (1 + N(a))``, an unvisited hop valued at its parent's ``raw_value``
(**choice**), the move the most visited hop (ties: the larger mean value), the policy
target the visit counts. Two options of Leela Chess Zero's PUCT, off by default: the prior
``pi`` taken as ``softmax(logits / prior_temperature)`` (above 1 it spreads the visits over
more hops), and an unvisited hop valued ``fpu_reduction * sqrt(sum of the visited hops'
pi)`` below the parent's ``raw_value`` (first-play urgency: the more of the prior's mass a
node has tried, the less it expects of the hops it has not). And AlphaZero's own, off by
default: ``c_puct`` grown to ``c_puct + log((1 + N + c_puct_base) / c_puct_base)`` at a node
whose children hold ``N`` visits (its pseudocode's ``pb_c_base``, 19,652 there), so that a
node searched far more than the base explores more widely.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from checkers_agents.search_parts.bundles import zeroed
from checkers_agents.search_parts.endgame_probe import no_egdb

#: Search methods.
GUMBEL = 0
PUCT = 1
METHODS = {"gumbel": GUMBEL, "puct": PUCT}
#: Most legal hops in a position (12 pieces, 4 directions each), for scratch rows.
MAX_HOPS = 48
#: ``mover`` of a node no descent has reached yet.
UNREACHED = -1


class Tree(NamedTuple):
    """``T`` trees of at most ``M`` nodes (see the module docstring)."""

    parent: np.ndarray  # int32[T, M]
    action: np.ndarray  # int32[T, M]
    first_child: np.ndarray  # int32[T, M]
    children: np.ndarray  # int32[T, M]: 0 until expanded
    visits: np.ndarray  # int32[T, M]
    value_sum: np.ndarray  # float64[T, M]: for the side to move at the parent
    logit: np.ndarray  # float32[T, M]: the net's logit of the node's hop at its parent
    prior: np.ndarray  # float64[T, M]: softmax of the logits of the node and its siblings; -1 not yet
    raw_value: np.ndarray  # float32[T, M]: the net's value for the side to move here
    mover: np.ndarray  # int8[T, M]: side to move here, UNREACHED before a descent got here
    end: np.ndarray  # int8[T, M]: game_state's END_* code here once reached, or a KNOWN_* value
    size: np.ndarray  # int32[T]: nodes in use


def new_tree(trees: int, nodes: int) -> Tree:
    """Arrays for ``trees`` trees of at most ``nodes`` nodes each."""
    return zeroed(Tree, ((trees, nodes), "i4 i4 i4 i4 i4 f8 f4 f8 f4 i1 i1"), (trees, "i4"))


class Settings(NamedTuple):
    """How a search runs (see the module docstring)."""

    method: int  # GUMBEL or PUCT
    simulations: int  # after the root's evaluation
    considered: int  # m: hops sampled at the root (Gumbel)
    c_visit: float
    c_scale: float
    c_puct: float
    through_forced: bool  # a descent plays a forced hop through instead of stopping for the net
    widen: int  # below the root, every child's first visit once its node has widen * children visits; 0 never
    schedule: np.ndarray  # int32[considered + 1, simulations]: considered_visits per m
    egdb: tuple  # the endgame database probed below the root (an ``EndgameProbe``; 0 pieces: off)
    prior_temperature: float  # PUCT: pi = softmax(logits / prior_temperature)
    fpu_reduction: float  # PUCT: an unvisited hop's value below its parent's raw_value
    c_puct_base: float  # PUCT: c_puct grows by log((1 + N + base) / base) at N visits; 0 never


def considered_visits(considered: int, simulations: int) -> list[int]:
    """Sequential halving as a visit schedule (mctx's ``get_sequence_of_considered_visits``):
    entry ``s`` is the visit count a root hop must have to receive simulation ``s``. Each
    phase gives every remaining hop ``max(1, n / (ceil(log2 m) * remaining))`` visits, then
    halves the remaining hops (at least 2 remain)."""
    if considered <= 1:
        return list(range(simulations))
    phases = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    remaining = considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (phases * remaining)))
        for _ in range(extra):
            sequence.extend(visits[:remaining])
            for k in range(remaining):
                visits[k] += 1
        remaining = max(2, remaining // 2)
    return sequence[:simulations]


class SearchConstants(NamedTuple):
    """What a search is asked for: :class:`Settings` before :func:`make_settings` checks it
    and derives the method's code and the schedule table (the defaults: the papers' search,
    without ``through_forced`` and ``widen``)."""

    method: str = "gumbel"  # a name in METHODS
    simulations: int = 64
    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 0.1
    c_puct: float = 1.25
    through_forced: bool = False
    widen: int = 0
    prior_temperature: float = 1.0
    fpu_reduction: float = 0.0
    c_puct_base: float = 0.0


def make_settings(constants: SearchConstants, egdb=None) -> Settings:
    """:class:`Settings` of ``constants`` with its schedule table; ``egdb`` an
    ``EndgameProbe`` (default: none).

    Raises:
        ValueError: an unknown method, a count below 1, a temperature that is not positive,
            a negative reduction or base.
    """
    c = constants
    if c.method not in METHODS:
        raise ValueError(f"search must be one of {', '.join(METHODS)}, got {c.method!r}")
    if c.simulations < 1 or c.considered < 1:
        raise ValueError(f"simulations and considered must be at least 1, got {c.simulations} and {c.considered}")
    if not (c.prior_temperature > 0 and c.fpu_reduction >= 0 and c.c_puct_base >= 0):
        raise ValueError(
            f"prior_temperature must be positive, fpu_reduction and c_puct_base 0 or more, got"
            f" {c.prior_temperature!r}, {c.fpu_reduction!r} and {c.c_puct_base!r}"
        )
    schedule = np.zeros((c.considered + 1, c.simulations), np.int32)
    for m in range(1, c.considered + 1):
        schedule[m] = considered_visits(m, c.simulations)
    return Settings(
        METHODS[c.method],
        int(c.simulations),
        int(c.considered),
        float(c.c_visit),
        float(c.c_scale),
        float(c.c_puct),
        bool(c.through_forced),
        int(c.widen),
        schedule,
        no_egdb() if egdb is None else egdb,
        float(c.prior_temperature),
        float(c.fpu_reduction),
        float(c.c_puct_base),
    )


# -- the rules of choice ------------------------------------------------------------------------


@numba.njit(cache=True, inline="always", _nrt=False)
def set_priors(tree, t, node, temperature):
    """Each child's ``prior``: ``softmax(logits / temperature)`` of the net's logits over the
    children of ``node`` (computed the first time a descent passes ``node`` and kept, so
    that later descents compute no exponential for it, and a leaf never passed computes
    none)."""
    first = tree.first_child[t, node]
    n = tree.children[t, node]
    top = -np.inf
    for k in range(n):
        top = max(top, tree.logit[t, first + k])
    total = 0.0
    for k in range(n):
        tree.prior[t, first + k] = math.exp((tree.logit[t, first + k] - top) / temperature)
        total += tree.prior[t, first + k]
    for k in range(n):
        tree.prior[t, first + k] /= total


@numba.njit(cache=True, inline="always", _nrt=False)
def write_prior(tree, t, node, prior, temperature):
    """The net's prior ``softmax(logits / temperature)`` over the children of ``node`` into
    ``prior[:n]``; returns ``n``."""
    first = tree.first_child[t, node]
    n = tree.children[t, node]
    if tree.prior[t, first] < 0.0:
        set_priors(tree, t, node, temperature)
    for k in range(n):
        prior[k] = tree.prior[t, first + k]
    return n


@numba.njit(cache=True, _nrt=False)
def completed_sigma(tree, t, node, settings, sigma, prior):
    """``sigma(completed q)`` of the children of ``node`` into ``sigma[:n]`` and the net's
    prior ``softmax(logits)`` into ``prior[:n]``; returns ``n``."""
    first = tree.first_child[t, node]
    n = write_prior(tree, t, node, prior, 1.0)
    visited_prior = 0.0
    weighted = 0.0
    below = 0
    most = 0
    for k in range(n):
        visits = tree.visits[t, first + k]
        if visits > 0:
            visited_prior += prior[k]
            weighted += prior[k] * tree.value_sum[t, first + k] / visits
            below += visits
            most = max(most, visits)
    mixed = tree.raw_value[t, node]
    if visited_prior > 0.0:
        mixed = (mixed + below * weighted / visited_prior) / (1.0 + below)
    low, high = np.inf, -np.inf
    for k in range(n):
        visits = tree.visits[t, first + k]
        q = tree.value_sum[t, first + k] / visits if visits > 0 else mixed
        sigma[k] = q
        low, high = min(low, q), max(high, q)
    scale = (settings.c_visit + most) * settings.c_scale / max(high - low, 1e-8)
    for k in range(n):
        sigma[k] = (sigma[k] - low) * scale
    return n


@numba.njit(cache=True, _nrt=False)
def root_child(tree, t, settings, simulation, gumbel, sigma, prior):
    """The root's child for simulation ``simulation`` under Gumbel sequential halving."""
    n = completed_sigma(tree, t, 0, settings, sigma, prior)
    first = tree.first_child[t, 0]
    m = min(settings.considered, n)
    target = settings.schedule[m, simulation] if simulation < settings.schedule.shape[1] else -1
    best, best_score = -1, -np.inf
    for k in range(n):
        if target >= 0 and tree.visits[t, first + k] != target:
            continue
        score = gumbel[tree.action[t, first + k]] + tree.logit[t, first + k] + sigma[k]
        if score > best_score:
            best, best_score = k, score
    if best < 0:  # past the schedule (a clock stopped it late): the rule below the root
        return interior_child(tree, t, 0, settings, sigma, prior)
    return first + best


@numba.njit(cache=True, _nrt=False)
def improved_policy(tree, t, node, settings, sigma, prior):
    """Gumbel's improved policy at ``node``, ``softmax(logits + sigma(completed q))`` over
    its children, into ``sigma[:n]``; returns ``n``."""
    first = tree.first_child[t, node]
    n = completed_sigma(tree, t, node, settings, sigma, prior)
    top = -np.inf
    for k in range(n):
        sigma[k] += tree.logit[t, first + k]
        top = max(top, sigma[k])
    total = 0.0
    for k in range(n):
        sigma[k] = math.exp(sigma[k] - top)
        total += sigma[k]
    for k in range(n):
        sigma[k] /= total
    return n


@numba.njit(cache=True, _nrt=False)
def interior_child(tree, t, node, settings, sigma, prior):
    """The child of ``node`` a descent takes: Gumbel's deterministic rule or PUCT's."""
    if settings.method == PUCT:
        return puct_child(tree, t, node, settings, prior)
    first = tree.first_child[t, node]
    n = tree.children[t, node]
    below = 0
    for k in range(n):
        below += tree.visits[t, first + k]
    if settings.widen > 0 and below >= settings.widen * n:
        best, best_logit = -1, -np.inf
        for k in range(n):
            if tree.visits[t, first + k] == 0 and tree.logit[t, first + k] > best_logit:
                best, best_logit = k, tree.logit[t, first + k]
        if best >= 0:
            return first + best
    improved_policy(tree, t, node, settings, sigma, prior)
    best, best_score = 0, -np.inf
    for k in range(n):
        score = sigma[k] - tree.visits[t, first + k] / (1.0 + below)
        if score > best_score:
            best, best_score = k, score
    return first + best


@numba.njit(cache=True, _nrt=False)
def puct_child(tree, t, node, settings, prior):
    """PUCT's child of ``node`` (see the module docstring)."""
    first = tree.first_child[t, node]
    n = write_prior(tree, t, node, prior, settings.prior_temperature)
    below = 0
    for k in range(n):
        below += tree.visits[t, first + k]
    c = settings.c_puct
    if settings.c_puct_base > 0.0:
        c += math.log((1.0 + below + settings.c_puct_base) / settings.c_puct_base)
    reach = c * math.sqrt(max(below, 1))
    unvisited = tree.raw_value[t, node]
    if settings.fpu_reduction > 0.0:  # the visited prior's sum only where it counts
        tried = 0.0
        for k in range(n):
            if tree.visits[t, first + k] > 0:
                tried += prior[k]
        unvisited -= settings.fpu_reduction * math.sqrt(tried)
    best, best_score = 0, -np.inf
    for k in range(n):
        visits = tree.visits[t, first + k]
        q = tree.value_sum[t, first + k] / visits if visits > 0 else unvisited
        score = q + reach * prior[k] / (1.0 + visits)
        if score > best_score:
            best, best_score = k, score
    return first + best


@numba.njit(cache=True, _nrt=False)
def final_child(tree, t, settings, gumbel, sigma, prior):
    """The root's child the search plays (see the module docstring)."""
    first = tree.first_child[t, 0]
    n = tree.children[t, 0]
    most = 0
    for k in range(n):
        most = max(most, tree.visits[t, first + k])
    if settings.method == PUCT:
        best, best_q = first, -np.inf
        for k in range(n):
            visits = tree.visits[t, first + k]
            if visits == most and visits > 0 and tree.value_sum[t, first + k] / visits > best_q:
                best, best_q = first + k, tree.value_sum[t, first + k] / visits
        return best
    completed_sigma(tree, t, 0, settings, sigma, prior)
    best, best_score = first, -np.inf
    for k in range(n):
        if tree.visits[t, first + k] != most:
            continue
        score = gumbel[tree.action[t, first + k]] + tree.logit[t, first + k] + sigma[k]
        if score > best_score:
            best, best_score = first + k, score
    return best


@numba.njit(cache=True, _nrt=False)
def root_policy(tree, t, settings, sigma, prior, out):
    """The improved policy at the root into ``out[128]`` (zero off the legal hops):
    ``softmax(logits + sigma(q))`` (Gumbel) or the visit counts' shares (PUCT)."""
    out[:] = 0.0
    first = tree.first_child[t, 0]
    n = tree.children[t, 0]
    if settings.method == PUCT:
        total = 0
        for k in range(n):
            total += tree.visits[t, first + k]
        for k in range(n):
            out[tree.action[t, first + k]] = tree.visits[t, first + k] / max(total, 1)
        return
    improved_policy(tree, t, 0, settings, sigma, prior)
    for k in range(n):
        out[tree.action[t, first + k]] = sigma[k]


# -- keeping a search for the next one ----------------------------------------------------------


@numba.njit(cache=True, _nrt=False)
def follow_line(tree, t, hops, n):
    """The node of tree ``t`` that the hops ``hops[:n]`` from its root reach, -1 where they
    leave what the tree expanded."""
    node = 0
    for h in range(n):
        first, found = tree.first_child[t, node], -1
        for k in range(tree.children[t, node]):
            if tree.action[t, first + k] == hops[h]:
                found = first + k
        if found < 0:
            return -1
        node = found
    return node


@numba.njit(cache=True, _nrt=False)
def reroot(tree, t, node, index):
    """Make ``node`` of tree ``t`` its root, in place: its subtree moves to the first nodes
    with its visits and values, the rest of the tree is dropped; ``index`` is ``int32[M]``
    scratch. Returns the new size.

    A child is always stored after its parent and siblings side by side, so the subtree's
    nodes taken in their old order keep both, and each moves down, never onto a node not
    yet moved."""
    size = 0
    for old in range(node, tree.size[t]):
        if old != node and (tree.parent[t, old] < node or index[tree.parent[t, old]] < 0):
            index[old] = -1
            continue
        index[old] = size
        tree.parent[t, size] = index[tree.parent[t, old]] if old != node else -1
        tree.action[t, size] = tree.action[t, old] if old != node else -1
        tree.first_child[t, size] = tree.first_child[t, old]  # an old index until the pass below
        tree.children[t, size] = tree.children[t, old]
        tree.visits[t, size] = tree.visits[t, old]
        tree.value_sum[t, size] = tree.value_sum[t, old]
        tree.logit[t, size] = tree.logit[t, old]
        tree.prior[t, size] = tree.prior[t, old]
        tree.raw_value[t, size] = tree.raw_value[t, old]
        tree.mover[t, size] = tree.mover[t, old]
        tree.end[t, size] = tree.end[t, old]
        size += 1
    for k in range(size):
        if tree.children[t, k] > 0:
            tree.first_child[t, k] = index[tree.first_child[t, k]]
    tree.size[t] = size
    return size


__all__ = [
    "GUMBEL",
    "MAX_HOPS",
    "METHODS",
    "PUCT",
    "Settings",
    "SearchConstants",
    "Tree",
    "UNREACHED",
    "completed_sigma",
    "considered_visits",
    "final_child",
    "follow_line",
    "improved_policy",
    "interior_child",
    "make_settings",
    "new_tree",
    "reroot",
    "root_child",
    "root_policy",
    "set_priors",
    "write_prior",
]
