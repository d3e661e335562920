"""The CPU backend: random descents with numba ``prange``, one xorshift64 stream per playout.

Playout ``t`` of a launch draws from its own stream ``seed_state(launch_seed, t)``, so the
results do not depend on how ``prange`` spreads the playouts over threads: the same launch
seed gives the same per-child counts on 1 thread or 16.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from checkers_agents.search_parts.evaluators import MAX_ACTIVE
from checkers_agents.search_parts.position import Position
from checkers_env.movegen import random_below, seed_state

from .guided import Guide, GuideSettings, guided_descend, random_unit
from .playout import (
    DIAGNOSTICS,
    DRAW_POINTS,
    MAX_REDRAWS,
    WIN_POINTS,
    end_of_descent,
    goes_on,
    proportional_arm,
    start_descent,
    take_draw,
)

#: ``diagnostics`` slots: plies played, draws skipped by the cycle test, capped playouts,
#: net evaluations of guided plies.
PLIES, SKIPS, CAPPED, EVALUATIONS = range(DIAGNOSTICS)
#: Playouts of a launch are split into this many interleaved chunks for ``prange`` (each
#: allocates its net scratch once); more than the cores of any machine it runs on.
CHUNKS = 256

#: The king-cycle test's memory of a position (``playout.is_king_cycle``): kings of the
#: position one ply before, and the kings there of the side that moved from it; the same
#: two plies before (``root.cycle_context`` gives the root's children theirs).
KingHistory = namedtuple("KingHistory", "parent_kings parent_mover_kings grandparent_kings grandparent_mover_kings")
#: How a playout is played and judged: ``max_moves`` draws before the piece-count
#: adjudication, ``king_weight`` a king's weight there, ``cycle_check`` the king-cycle
#: test on (False for comparison).
PlayoutRules = namedtuple("PlayoutRules", "max_moves king_weight cycle_check")
#: The root's children as a launch takes them: ``movers``, ``opponents``, ``kings``
#: (int64 arrays, side to move first) and their side to move, ``black_to_move``.
ChildPositions = namedtuple("ChildPositions", "movers opponents kings black_to_move")
#: What a runner of one search starts from, on either backend (``root.Runner``): the root's
#: ``children`` (``root.Children``), their king-cycle memory ``history`` (``KingHistory``),
#: the playout ``rules`` (``PlayoutRules``) and the search's ``seed``, from which the
#: runner draws its launches' random streams.
SearchStart = namedtuple("SearchStart", "children history rules seed")
#: Per-child tallies, added to by every launch: ``wins`` (doubled points of the side that
#: chose the child), ``counts`` (playouts), ``draws`` (drawn playouts), and
#: ``diagnostics``, ``int64[DIAGNOSTICS]``: plies, skipped draws, capped playouts, net
#: evaluations.
Tallies = namedtuple("Tallies", "wins counts draws diagnostics")


@numba.njit(cache=True)
def empty_net():
    """Placeholder net arrays for unguided launches, typed as a guide's (the evaluator
    door's float32), so that plain and guided launches share one compiled ``run_launch``."""
    return (
        np.zeros((128, 0), np.float32),
        np.zeros(0, np.float32),
        np.zeros((0, 0), np.float32),
        np.zeros(0, np.float32),
        np.zeros((0, 0), np.float32),
        np.zeros(0, np.float32),
        np.zeros((0, 0), np.float32),
        np.zeros((0, 0), np.float32),
        np.zeros(0, np.float32),
        np.zeros(0, np.int64),
    )


@numba.njit(cache=True)
def descend(position, history, playout, state):
    """One random descent from a position: the design document's playout loop.

    Each iteration draws a uniformly random complete move; a move that fails the king-cycle
    test (``playout.is_king_cycle``) is skipped and another drawn from the same position,
    and the skipped draw counts toward ``max_moves`` as in the design document (its
    ``n_moves++`` comes before the ``continue``); after ``MAX_REDRAWS`` skips in a row the
    draw is taken anyway. (``guided_descend`` with ``guide_rate = 0`` is the same loop and
    draws the same numbers, a test checks; plain launches run this one, which is faster
    than the guided loop.)

    Args:
        position: the position (``search_parts.position.Position``, side to move first).
        history: its :data:`KingHistory` (the parent's mover is the opponent here; the
            side to move here moved from the grandparent).
        playout: :data:`PlayoutRules`; ``max_moves`` is the design document's
            ``MAX_MOVES``: draws before the piece-count adjudication.
        state: xorshift64 state.

    Returns:
        ``(black_points, capped, plies, skips, state)``: 2/1/0 for a Black win/draw/loss,
        whether the cap decided, plies played, draws skipped.
    """
    max_moves, king_weight, cycle_check = playout
    walk, tally = start_descent(position[0], position[1], position[2], position[3], history)
    while goes_on(tally, max_moves):
        state, k = random_below(state, tally[0])
        walk, tally = take_draw(walk, tally, k, cycle_check and tally[4] < MAX_REDRAWS)
    points, capped, plies, skips = end_of_descent(walk, tally, king_weight)
    return points, capped, plies, skips, state


@numba.njit(cache=True, parallel=True)
def run_launch(children, history, arms, keep, proportional, threads, seed, playout, guide, tallies):
    """One launch: ``threads`` descents, each from one child, added to ``wins``/``counts``.

    Playout ``t`` starts from child ``arms[t % len(arms)]`` (the even split), or, when
    ``proportional``, from the child that the design document's proportional rule gives it
    (``playout.proportional_arm`` with ``keep[child]`` the child's current win rate).

    Args:
        children: the positions after each root move (:data:`ChildPositions`; all have
            the same side to move).
        history: the children's :data:`KingHistory` (the same for every child).
        arms: child indices this launch plays from.
        keep: per child, the probability that a thread keeps its assigned child.
        proportional, threads, seed: the allocation, the playouts and the launch's seed.
        playout: :data:`PlayoutRules`.
        guide: the net (:data:`Guide`; ``rate=0`` and ``empty_net()`` for plain MCRD).
        tallies: per-child :data:`Tallies` (in/out).
    """
    # The bundles are opened here, out of the ``prange`` loop: a parallel loop's body takes
    # arrays and scalars, not a tuple holding a tuple of arrays (the guide's net).
    child_movers, child_opponents, child_kings, child_black_to_move = children
    parent_kings, parent_mover_kings, grandparent_kings, grandparent_mover_kings = history
    max_moves, king_weight, cycle_check = playout
    guide_rate, guide_plies, guide_sample, guide_temperature, skip_forced, net, net_functions, width = guide
    wins, counts, draws, diagnostics = tallies
    n_arms = arms.shape[0]
    child_of = np.empty(threads, np.int64)
    points_of = np.empty(threads, np.int64)
    plies_of = np.empty(threads, np.int64)
    skips_of = np.empty(threads, np.int64)
    capped_of = np.empty(threads, np.int64)
    evaluations_of = np.zeros(threads, np.int64)
    no_record = np.zeros(0, np.int64)
    # Playouts go in a fixed number of chunks, each with its own net scratch allocated once:
    # nothing is allocated per ply or per playout, and the chunking (like the thread count)
    # does not change any playout's stream.
    chunks = min(threads, CHUNKS)
    for chunk in numba.prange(chunks):
        active = np.empty(MAX_ACTIVE, np.int64)
        scratch = np.empty(2 * width, net[1].dtype)  # the weights' dtype: float32 sums vectorise twice as wide
        for t in range(chunk, threads, chunks):
            state = seed_state(seed, t)
            arm = t % n_arms
            if proportional:
                state, keep_draw = random_unit(state)
                state, other = random_below(state, max(n_arms - 1, 1))
                arm = proportional_arm(t, n_arms, keep_draw, keep[arms[arm]], other)
            child = arms[arm]
            position = Position(child_movers[child], child_opponents[child], child_kings[child], child_black_to_move)
            kings_before = KingHistory(parent_kings, parent_mover_kings, grandparent_kings, grandparent_mover_kings)
            rules = PlayoutRules(max_moves, king_weight, cycle_check)
            if guide_rate > 0.0:
                guide_t = Guide(
                    guide_rate, guide_plies, guide_sample, guide_temperature, skip_forced, net, net_functions, width
                )
                points, capped, plies, skips, state, evaluations_of[t] = guided_descend(
                    position,
                    kings_before,
                    rules,
                    state,
                    guide_t,
                    active,
                    scratch,
                    no_record,
                )
            else:
                points, capped, plies, skips, state = descend(position, kings_before, rules, state)
            child_of[t] = child
            # The children's side to move is the opponent of the side that chose them.
            points_of[t] = WIN_POINTS - points if child_black_to_move else points
            plies_of[t] = plies
            skips_of[t] = skips
            capped_of[t] = 1 if capped else 0
    for t in range(threads):
        wins[child_of[t]] += points_of[t]
        counts[child_of[t]] += 1
        if points_of[t] == DRAW_POINTS:
            draws[child_of[t]] += 1
        diagnostics[PLIES] += plies_of[t]
        diagnostics[SKIPS] += skips_of[t]
        diagnostics[CAPPED] += capped_of[t]
        diagnostics[EVALUATIONS] += evaluations_of[t]


class CpuRunner:
    """Runs launches on the CPU for one search; counts live in host arrays."""

    name = "cpu"

    def __init__(self, start: SearchStart, guide=None, settings: GuideSettings | None = None):
        """``guide``: an ``Evaluator`` through the net interface (or None), guiding plies as
        ``settings`` say (``guided.guided_descend``; unguided when None or rate 0)."""
        children = start.children
        self.children = ChildPositions(
            children.movers, children.opponents, children.kings, bool(children.black_to_move)
        )
        if guide is None or settings is None or settings.rate <= 0.0:
            self.guide = Guide(0.0, 0, 0, 0.0, True, empty_net(), np.zeros(3, np.int64), 1)
        else:
            rate, plies, sample, temperature, skip_forced = settings
            self.guide = Guide(
                float(rate),
                int(plies),
                int(sample),
                float(temperature),
                bool(skip_forced),
                guide.net,
                guide.net_functions,
                int(guide.width),
            )
        self.history, self.playout = start.history, start.rules
        n = len(children.movers)
        self.tallies = Tallies(
            np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(DIAGNOSTICS, np.int64)
        )
        self._seeds = np.random.default_rng(start.seed)

    def launch(self, arms: np.ndarray, keep: np.ndarray | None, threads: int) -> None:
        proportional = keep is not None
        if keep is None:
            keep = np.ones(len(self.children.movers), np.float64)
        run_launch(
            self.children,
            self.history,
            np.ascontiguousarray(arms, np.int64),
            np.ascontiguousarray(keep, np.float64),
            proportional,
            int(threads),
            int(self._seeds.integers(1, 2**62)),
            self.playout,
            self.guide,
            self.tallies,
        )

    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(wins, counts, draws, diagnostics) so far."""
        return tuple(self.tallies)
