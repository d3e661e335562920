"""The CPU backend: random descents with numba ``prange``, one xorshift64 stream per playout.

Playout ``t`` of a launch draws from its own stream ``seed_state(launch_seed, t)``, so the
results do not depend on how ``prange`` spreads the playouts over threads: the same launch
seed gives the same per-child counts on 1 thread or 16.
"""

from __future__ import annotations

import numba
import numpy as np

from checkers_env.bitboard import count_moves
from checkers_env.kernels import random_below, seed_state, xorshift64

from .playout import DRAW_POINTS, MAX_REDRAWS, WIN_POINTS, black_points, play_draw, proportional_arm

#: ``diagnostics`` slots: plies played, draws skipped by the cycle test, capped playouts.
PLIES, SKIPS, CAPPED = 0, 1, 2


@numba.njit(cache=True, inline="always")
def random_unit(state):
    """(new_state, float in [0, 1)) with 32 random bits."""
    state = xorshift64(state)
    return state, ((state >> 11) & 0xFFFFFFFF) / 4294967296.0


@numba.njit(cache=True)
def descend(
    mover,
    opponent,
    kings,
    black_to_move,
    parent_kings,
    parent_mover_kings,
    grandparent_kings,
    grandparent_mover_kings,
    max_moves,
    king_weight,
    cycle_check,
    state,
):
    """One random descent from a position: the design document's playout loop.

    Each iteration draws a uniformly random complete move; a move that fails the king-cycle
    test (``playout.is_king_cycle``) is skipped and another drawn from the same position,
    and the skipped draw counts toward ``max_moves`` as in the design document (its
    ``n_moves++`` comes before the ``continue``); after ``MAX_REDRAWS`` skips in a row the
    draw is taken anyway.

    Args:
        mover, opponent, kings, black_to_move: the position (side to move first).
        parent_kings, parent_mover_kings: kings of the position one ply before, and the
            kings there of the side that moved from it (the opponent here).
        grandparent_kings, grandparent_mover_kings: the same two plies before (the side to
            move here moved from it).
        max_moves: the design document's ``MAX_MOVES``: draws before the piece-count
            adjudication.
        king_weight: weight of a king in the adjudication.
        cycle_check: False turns the king-cycle test off (for comparison).
        state: xorshift64 state.

    Returns:
        ``(black_points, capped, plies, skips, state)``: 2/1/0 for a Black win/draw/loss,
        whether the cap decided, plies played, draws skipped.
    """
    legal = count_moves(mover, opponent, kings, black_to_move)
    draws = 0
    plies = 0
    skips = 0
    skips_in_row = 0
    while legal > 0 and draws < max_moves:
        draws += 1
        state, k = random_below(state, legal)
        (
            skipped, mover, opponent, kings, black_to_move,
            parent_kings, parent_mover_kings, grandparent_kings, grandparent_mover_kings,
        ) = play_draw(
            mover, opponent, kings, black_to_move, k, cycle_check and skips_in_row < MAX_REDRAWS,
            parent_kings, parent_mover_kings, grandparent_kings, grandparent_mover_kings,
        )
        if skipped:
            skips += 1
            skips_in_row += 1
            continue
        skips_in_row = 0
        plies += 1
        legal = count_moves(mover, opponent, kings, black_to_move)
    points = black_points(mover, opponent, kings, black_to_move, legal, king_weight)
    return points, legal > 0, plies, skips, state


@numba.njit(cache=True, parallel=True)
def run_launch(
    child_movers,
    child_opponents,
    child_kings,
    child_black_to_move,
    parent_kings,
    parent_mover_kings,
    grandparent_kings,
    grandparent_mover_kings,
    arms,
    keep,
    proportional,
    threads,
    seed,
    max_moves,
    king_weight,
    cycle_check,
    wins,
    counts,
    draws,
    diagnostics,
):
    """One launch: ``threads`` descents, each from one child, added to ``wins``/``counts``.

    Playout ``t`` starts from child ``arms[t % len(arms)]`` (the even split), or, when
    ``proportional``, from the child that the design document's proportional rule gives it
    (``playout.proportional_arm`` with ``keep[child]`` the child's current win rate).

    Args:
        child_*: the children (positions after each root move; all have the same side to move).
        parent_*, grandparent_*: kings of the root position and of the one before it (see
            ``descend``); the same for every child.
        arms: child indices this launch plays from.
        keep: per child, the probability that a thread keeps its assigned child.
        wins: per child, doubled points of the side that chose the child (in/out).
        counts: per child, playouts (in/out).
        draws: per child, drawn playouts (in/out).
        diagnostics: ``int64[3]`` plies, skipped draws, capped playouts (in/out).
    """
    n_arms = arms.shape[0]
    child_of = np.empty(threads, np.int64)
    points_of = np.empty(threads, np.int64)
    plies_of = np.empty(threads, np.int64)
    skips_of = np.empty(threads, np.int64)
    capped_of = np.empty(threads, np.int64)
    for t in numba.prange(threads):
        state = seed_state(seed, t)
        arm = t % n_arms
        if proportional:
            state, keep_draw = random_unit(state)
            state, other = random_below(state, max(n_arms - 1, 1))
            arm = proportional_arm(t, n_arms, keep_draw, keep[arms[arm]], other)
        child = arms[arm]
        points, capped, plies, skips, state = descend(
            child_movers[child],
            child_opponents[child],
            child_kings[child],
            child_black_to_move,
            parent_kings,
            parent_mover_kings,
            grandparent_kings,
            grandparent_mover_kings,
            max_moves,
            king_weight,
            cycle_check,
            state,
        )
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


class CpuRunner:
    """Runs launches on the CPU for one search; counts live in host arrays."""

    name = "cpu"

    def __init__(self, children, context, max_moves: int, king_weight: float, cycle_check: bool, seed: int):
        self.children = children
        self.context = context
        self.max_moves = int(max_moves)
        self.king_weight = float(king_weight)
        self.cycle_check = bool(cycle_check)
        n = len(children.movers)
        self.wins = np.zeros(n, np.int64)
        self.counts = np.zeros(n, np.int64)
        self.draws = np.zeros(n, np.int64)
        self.diagnostics = np.zeros(3, np.int64)
        self._seeds = np.random.default_rng(seed)

    def launch(self, arms: np.ndarray, keep: np.ndarray | None, threads: int) -> None:
        proportional = keep is not None
        if keep is None:
            keep = np.ones(len(self.children.movers), np.float64)
        run_launch(
            self.children.movers,
            self.children.opponents,
            self.children.kings,
            self.children.black_to_move,
            *self.context,
            np.ascontiguousarray(arms, np.int64),
            np.ascontiguousarray(keep, np.float64),
            proportional,
            int(threads),
            int(self._seeds.integers(1, 2**62)),
            self.max_moves,
            self.king_weight,
            self.cycle_check,
            self.wins,
            self.counts,
            self.draws,
            self.diagnostics,
        )

    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(wins, counts, draws, diagnostics) so far."""
        return self.wins, self.counts, self.draws, self.diagnostics
