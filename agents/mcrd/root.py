"""The root of an MCRD search, on the host: children, budgets, allocations and the final choice.

A *runner* (``cpu.CpuRunner`` or ``cuda.CudaRunner``) plays launches of descents and keeps
the per-child counters; this module decides how many playouts each launch has and from
which children (the allocation), when to stop (the budget), and which move to play.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import numpy as np

from checkers_env import BLACK, Board, Game, Move

ALLOCATIONS = ("uniform", "proportional", "halving")


class Children(NamedTuple):
    """The positions after each legal root move, side to move first (int64 arrays)."""

    moves: list[Move]
    movers: np.ndarray
    opponents: np.ndarray
    kings: np.ndarray
    black_to_move: bool


def make_children(board: Board) -> Children:
    """Every legal complete move of ``board`` (sorted by path) and the position it leads to."""
    moves = board.legal_moves()
    movers, opponents, kings = [], [], []
    for move in moves:
        child = board.play(move)
        mover, opponent = child.mover_bitboards
        movers.append(mover)
        opponents.append(opponent)
        kings.append(child.kings)
    return Children(
        moves,
        np.array(movers, np.int64),
        np.array(opponents, np.int64),
        np.array(kings, np.int64),
        board.turn != BLACK,
    )


class RuleValues(NamedTuple):
    """What the game's rules say about the root's children, beyond the playouts.

    Attributes:
        decided: children whose move ends the game: their exact value for the side to
            move (1.0 a win, 0.5 a draw by repetition, no progress or the ply limit).
        ceilings: children after which the opponent has a reply that ends the game: the
            child is worth at most that reply's value for the side to move (0.0 if the
            reply wins, 0.5 if it draws), whatever its playouts say.
    """

    decided: dict[int, float]
    ceilings: dict[int, float]


def rule_values(game: Game, moves: list[Move]) -> RuleValues:
    """The rules' exact values and bounds for the children ``moves`` of ``game``'s position.

    The design document's engine had no draw rules; ours does, and random descents cannot
    see them (they know nothing of the game before the root). Without this the search, when
    well ahead, sees every child win nearly all its playouts and walks into a repetition
    draw, or steps into a position the opponent can repeat a third time; a child from which
    the opponent wins at once also looks fine to descents that find that reply only
    once in as many tries as it has replies.
    """
    scratch = game.copy()
    mover = scratch.board.turn
    decided: dict[int, float] = {}
    ceilings: dict[int, float] = {}
    for i, move in enumerate(moves):
        scratch.play(move)
        if scratch.is_over():
            decided[i] = 1.0 if scratch.winner == mover else 0.5
        else:
            for reply in scratch.legal_moves():
                scratch.play(reply)
                if scratch.is_over():
                    value = 0.0 if scratch.winner is not None else 0.5
                    ceilings[i] = min(ceilings.get(i, 1.0), value)
                scratch.pop()
        scratch.pop()
    return RuleValues(decided, ceilings)


def cycle_context(board: Board, previous: Board | None) -> tuple[int, int, int, int]:
    """Kings one and two plies before the children, for the first king-cycle test.

    A child's parent is the root ``board``; its grandparent is the position before the
    root (the game's previous position), or the root itself when there is none, which
    makes the first test of every descent pass (no king move before the root is known).

    Returns:
        ``(parent_kings, parent_mover_kings, grandparent_kings, grandparent_mover_kings)``.
    """
    root_mover, child_mover = board.mover_bitboards
    grandparent = previous if previous is not None else board
    if previous is not None:
        child_mover = grandparent.mover_bitboards[0]  # the child's side was to move there
    return (
        board.kings,
        root_mover & board.kings,
        grandparent.kings,
        child_mover & grandparent.kings,
    )


class Runner(Protocol):
    name: str

    def launch(self, arms: np.ndarray, keep: np.ndarray | None, threads: int) -> None: ...

    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(wins, counts, draws, diagnostics): per child doubled points, playouts and drawn
        playouts, and the summed diagnostics."""


@dataclass
class DescentResult:
    """What one search of Monte Carlo random descents found: per root move, its playouts and score.

    Attributes:
        moves: the root's legal moves (children), sorted by path.
        wins: per child, doubled points of the side to move at the root (win 2, draw 1).
        playouts: per child, descents played.
        draws: per child, descents that ended in a draw (so the side to move at the root
            won ``(wins - draws) / 2`` of them).
        chosen: index of the move to play.
        survivors: children still in the race at the end (all but for ``halving``).
        launches: kernel launches made.
        seconds: wall time of the search.
        backend: ``cpu`` or ``cuda``.
        decided: children scored exactly because their move ends the game under the
            game's rules (``root.rule_values``); they get no playouts.
        ceilings: children whose value the rules bound from above (the opponent can end
            the game at once); their ``rates`` are capped there.
        plies, skips, capped: descents' plies, draws skipped by the king-cycle test, and
            descents decided by the move cap, summed over all playouts.
        evaluations: net evaluations spent by guided descents, summed over all playouts.
    """

    moves: list[Move]
    wins: np.ndarray
    playouts: np.ndarray
    draws: np.ndarray
    chosen: int
    survivors: list[int]
    launches: int
    seconds: float
    backend: str
    decided: dict[int, float] = field(default_factory=dict)
    ceilings: dict[int, float] = field(default_factory=dict)
    plies: int = 0
    skips: int = 0
    capped: int = 0
    evaluations: int = 0
    rates: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.rates = self.wins / np.maximum(2 * self.playouts, 1)
        for child, value in self.decided.items():
            self.rates[child] = value
        for child, value in self.ceilings.items():
            self.rates[child] = min(self.rates[child], value)

    @property
    def move(self) -> Move:
        return self.moves[self.chosen]

    @property
    def total_playouts(self) -> int:
        return int(self.playouts.sum())


def win_rates(wins: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Points per playout in [0, 1] (draws half); 0.5 for a child not played yet."""
    rates = np.full(len(wins), 0.5)
    played = counts > 0
    rates[played] = wins[played] / (2.0 * counts[played])
    return rates


def pick_best(scores: np.ndarray, candidates: list[int], rng: np.random.Generator) -> int:
    """The candidate with the highest score, ties broken uniformly at random by ``rng``."""
    values = scores[candidates]
    best = [c for c, v in zip(candidates, values) if v == values.max()]
    return best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]


class Budget:
    """A playout budget, or a clock: the design document's
    ``while (time - start_time < limit)``.

    With a clock, a launch is started only if it is expected to end before the deadline
    (expected from the last launch's duration scaled by its size); the first launch always
    runs, so every child gets played at least once. A ``limit`` in seconds
    (``MCRDAgent.think_limit``) stops a playout budget the same way, and shortens a clock.
    """

    def __init__(self, playouts: int | None, seconds: float | None, started: float, limit: float | None = None):
        self.playouts = playouts
        self.deadline = None if seconds is None else started + min(seconds, limit or math.inf)
        # A limit on a playout budget (``think_limit``): the search stops there too.
        self.cutoff = self.deadline if limit is None or seconds is not None else started + limit
        self.rate = None  # playouts per second of the last launch

    @property
    def timed(self) -> bool:
        return self.deadline is not None

    def allows(self, threads: int, done: int) -> bool:
        """Whether a launch of ``threads`` playouts may start now."""
        if not self.timed and done >= self.playouts:
            return False
        return self.in_time(threads, done)

    def in_time(self, threads: int, done: int) -> bool:
        """Whether a launch of ``threads`` playouts is expected to end before the clock's
        deadline or the limit (the first launch always runs)."""
        if self.cutoff is None or done == 0 or self.rate is None:
            return True
        return time.perf_counter() + threads / self.rate <= self.cutoff

    def record(self, threads: int, seconds: float) -> None:
        self.rate = threads / max(seconds, 1e-9)

    def remaining_playouts(self, done: int) -> int:
        """Playouts still to spend (estimated from the measured rate with a clock)."""
        if not self.timed:
            return max(self.playouts - done, 0)
        if self.rate is None:
            return 0
        return max(int((self.deadline - time.perf_counter()) * self.rate), 0)


class Search:
    """One search of one position with one runner, over the children ``arms`` (indices
    into the runner's children: all of them but those decided by the rules)."""

    def __init__(self, runner: Runner, arms: list[int], allocation: str, budget: Budget, launch: int, rng):
        if not arms:
            raise ValueError("a search needs at least one child to play out")
        self.runner = runner
        self.n = len(arms)
        self.allocation = allocation
        self.budget = budget
        self.launch_size = max(int(launch), 1)
        self.rng = rng
        self.done = 0
        self.launches = 0
        self.survivors = list(arms)

    def _launch(self, arms: list[int], keep: np.ndarray | None, threads: int) -> None:
        began = time.perf_counter()
        self.runner.launch(np.asarray(arms, np.int64), keep, threads)
        self.budget.record(threads, time.perf_counter() - began)
        self.done += threads
        self.launches += 1

    def _per_arm(self, arms: int) -> int:
        """Playouts per arm in one launch: ``launch`` split evenly, at least one."""
        return max(self.launch_size // arms, 1)

    # -- allocations ---------------------------------------------------------------------

    def uniform(self) -> None:
        """The design document's launch: every child the same number of playouts, launch
        after launch."""
        per_arm = self._per_arm(self.n)
        if not self.budget.timed:
            # Exactly the same count for every child: max(playouts // n, 1) each.
            left = max(self.budget.playouts // self.n, 1)
            while left > 0:
                m = min(per_arm, left)
                if not self.budget.in_time(m * self.n, self.done):
                    return
                self._launch(self.survivors, None, m * self.n)
                left -= m
            return
        while self.budget.allows(per_arm * self.n, self.done):
            self._launch(self.survivors, None, per_arm * self.n)

    def proportional(self) -> None:
        """The design document's proportional playout: a first even launch, then launches
        whose threads keep their assigned child with probability equal to its win rate so
        far and otherwise start from one of the other children, uniformly."""
        size = self._per_arm(self.n) * self.n
        total = None if self.budget.timed else max(self.budget.playouts, self.n)
        while True:
            if total is not None:
                threads = min(size, total - self.done)
                if self.launches == 0:
                    threads -= threads % self.n  # the even first launch
                if threads <= 0 or not self.budget.in_time(threads, self.done):
                    return
            else:
                threads = size
                if not self.budget.allows(threads, self.done):
                    return
            keep = None
            if self.launches > 0:
                wins, counts, _, _ = self.runner.read()
                keep = win_rates(wins, counts)
            self._launch(self.survivors, keep, threads)

    def halving(self) -> None:
        """Sequential halving (Karnin, Koren and Somekh 2013, "Almost optimal exploration
        in multi-armed bandits"): ``ceil(log2 n)`` rounds share the budget equally; in a
        round every surviving child gets the same number of playouts (at least one), then
        the better half (by win rate over all its playouts so far, ties at random) survives."""
        rounds = math.ceil(math.log2(self.n)) if self.n > 1 else 0
        if self.budget.timed:
            # A clock has no playout count to split: one even launch measures the rate,
            # and the time left, converted at that rate, is split over the rounds.
            self._launch(self.survivors, None, self._per_arm(self.n) * self.n)
        for r in range(rounds):
            left = self.budget.remaining_playouts(self.done)
            per_arm = max(left // (rounds - r) // len(self.survivors), 1)
            if not self._play_round(per_arm):
                return  # the clock ran out mid-round: the choice goes by win rate
            self._halve()

    def _play_round(self, per_arm: int) -> bool:
        """``per_arm`` playouts for every survivor; False if the clock stopped it first."""
        arms = len(self.survivors)
        left = per_arm
        step = self._per_arm(arms)
        while left > 0:
            m = min(step, left)
            if not self.budget.in_time(m * arms, self.done):
                return False
            self._launch(self.survivors, None, m * arms)
            left -= m
        return True

    def _halve(self) -> None:
        wins, counts, _, _ = self.runner.read()
        rates = win_rates(wins, counts)
        order = list(self.survivors)
        self.rng.shuffle(order)  # random tie-breaking under the stable sort
        order.sort(key=lambda c: -rates[c])
        self.survivors = sorted(order[: math.ceil(len(order) / 2)])

    # -- the choice ----------------------------------------------------------------------

    def run(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Spend the budget; return ``(chosen, wins, counts, draws, diagnostics)``.

        ``uniform`` and ``proportional`` play the child with the most wins, as the design
        document does (``thrust::sort_by_key`` on the win counts); ``halving`` plays its
        last survivor (or, when a clock stopped it early, the best win rate among the
        survivors).
        """
        getattr(self, self.allocation)()
        wins, counts, draws, diagnostics = self.runner.read()
        if self.allocation == "halving":
            chosen = pick_best(win_rates(wins, counts), self.survivors, self.rng)
        else:
            chosen = pick_best(wins, self.survivors, self.rng)
        return chosen, wins, counts, draws, diagnostics
