"""The CUDA backend: one random descent per GPU thread (the design document's
``random_descent`` kernel).

As in the design document, the children are made on the host and copied to the device, every
thread has its own random state (numba's xoroshiro128p states, its counterpart of the design
document's ``curandState``), and the kernel adds each playout's points to the per-child
counters on the device (``cuda.atomic.add``, the design document's ``d_wins``); the counters
are read back at the end of the budget, or after each launch when the allocation needs the
current win rates. The per position work is the same njit scalar functions the CPU path uses
(``count_moves``, ``nth_move``, ``apply_move`` from ``checkers_env.bitboard`` (through
``playout.play_draw``); ``is_king_cycle`` and ``black_points`` from
``checkers_agents.mcrd.playout``), called from the kernel as device functions.

This module imports ``numba.cuda``; the agent imports it only when the CUDA backend is used.
Under ``NUMBA_ENABLE_CUDASIM=1`` the kernel runs in numba's simulator (slow: keep to a few
hundred threads).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import cuda, uint64
from numba.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_dtype,
    xoroshiro128p_uniform_float64,
)

from .cpu import CAPPED, PLIES, SKIPS, ChildPositions, KingHistory, PlayoutRules, Tallies
from .playout import (
    DIAGNOSTICS, DRAW_POINTS, MAX_REDRAWS, WIN_POINTS, end_of_descent, goes_on, proportional_arm, start_descent, take_draw,
)

#: Threads per block (the design document launched blocks of 1024; 256 leaves more registers
#: per thread).
THREADS_PER_BLOCK = 256


@cuda.jit(device=True)
def _below(states, thread, n):
    """Uniform integer in [0, n) from the thread's xoroshiro128p state (the design
    document's ``frand * b``; the float64 draw is < 1, and the clamp guards the rounding
    edge)."""
    k = int(xoroshiro128p_uniform_float64(states, thread) * n)
    if k >= n:
        k = n - 1
    return k


@cuda.jit
def descent_kernel(children, history, arms, keep, proportional, threads, playout, states, tallies):
    """One launch: thread ``t`` plays one descent; the same loop as ``cpu.descend``.

    The bundles are ``cpu.run_launch``'s (``cpu.ChildPositions``, ``cpu.KingHistory``,
    ``cpu.PlayoutRules``, ``cpu.Tallies``), their arrays on the device: numba passes a
    tuple to a kernel as its members, one argument each.
    """
    child_movers, child_opponents, child_kings, child_black_to_move = children
    max_moves, king_weight, cycle_check = playout
    wins, counts, drawn, diagnostics = tallies
    t = cuda.grid(1)
    if t >= threads:
        return
    n_arms = arms.shape[0]
    arm = t % n_arms
    if proportional:
        keep_draw = xoroshiro128p_uniform_float64(states, t)
        other = _below(states, t, max(n_arms - 1, 1))
        arm = proportional_arm(t, n_arms, keep_draw, keep[arms[arm]], other)
    child = arms[arm]

    walk, tally = start_descent(
        child_movers[child], child_opponents[child], child_kings[child], child_black_to_move, history
    )
    while goes_on(tally, max_moves):
        k = _below(states, t, tally[0])
        walk, tally = take_draw(walk, tally, k, cycle_check and tally[4] < MAX_REDRAWS)
    points, capped, plies, skips = end_of_descent(walk, tally, king_weight)
    if child_black_to_move:
        points = WIN_POINTS - points
    cuda.atomic.add(wins, child, points)
    cuda.atomic.add(counts, child, 1)
    if points == DRAW_POINTS:
        cuda.atomic.add(drawn, child, 1)
    cuda.atomic.add(diagnostics, PLIES, plies)
    cuda.atomic.add(diagnostics, SKIPS, skips)
    if capped:
        cuda.atomic.add(diagnostics, CAPPED, 1)


@numba.njit(cache=True)
def xoroshiro128p_states_host(n, seed):
    """The states ``create_xoroshiro128p_states(n, seed)`` makes, computed with njit.

    The same algorithm as numba's ``init_xoroshiro128p_states_cpu`` (splitmix64 of the seed,
    then each state the previous one jumped ahead 2**64 steps), bit for bit (a test checks).
    It exists for the simulator, where numba's version falls back to object mode and takes
    about 25 ms per state; on a GPU numba's own function is used.

    Returns:
        ``uint64[n, 2]``: ``s0``, ``s1`` of each state.
    """
    out = np.empty((n, 2), np.uint64)
    z = uint64(seed) + uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
    z = z ^ (z >> uint64(31))
    s0 = z
    s1 = z
    jumps = (uint64(0xBEAC0467EBA5FACB), uint64(0xD86B048B86AA9922))
    for i in range(n):
        if i > 0:
            j0 = uint64(0)
            j1 = uint64(0)
            for word in jumps:
                for b in range(64):
                    if (word >> uint64(b)) & uint64(1):
                        j0 ^= s0
                        j1 ^= s1
                    s1 ^= s0
                    s0 = ((s0 << uint64(55)) | (s0 >> uint64(9))) ^ s1 ^ (s1 << uint64(14))
                    s1 = (s1 << uint64(36)) | (s1 >> uint64(28))
            s0 = j0
            s1 = j1
        out[i, 0] = s0
        out[i, 1] = s1
    return out


def make_states(n: int, seed: int, simulator: bool):
    """Device xoroshiro128p states, one per thread: numba's ``create_xoroshiro128p_states``,
    or under the simulator the identical states from ``xoroshiro128p_states_host``."""
    if not simulator:
        return create_xoroshiro128p_states(n, seed=seed)
    host = np.empty(n, xoroshiro128p_dtype)
    words = xoroshiro128p_states_host(n, seed)
    host["s0"] = words[:, 0]
    host["s1"] = words[:, 1]
    return cuda.to_device(host)


class CudaRunner:
    """Runs launches on the GPU (or the simulator) for one search; counts live on the device."""

    name = "cuda"

    def __init__(
        self,
        children,
        context,
        max_moves: int,
        king_weight: float,
        cycle_check: bool,
        seed: int,
        max_threads: int,
    ):
        n = len(children.movers)
        self.max_threads = int(max_threads)
        self.history = KingHistory(*(int(kings) for kings in context))
        self.playout = PlayoutRules(int(max_moves), float(king_weight), bool(cycle_check))
        self.children = ChildPositions(
            cuda.to_device(children.movers), cuda.to_device(children.opponents), cuda.to_device(children.kings),
            bool(children.black_to_move),
        )
        self.tallies = Tallies(*(cuda.to_device(np.zeros(size, np.int64)) for size in (n, n, n, DIAGNOSTICS)))
        self.d_keep = cuda.to_device(np.ones(n, np.float64))
        # One state per thread of the largest launch; launches reuse them, each state
        # going on from where the previous launch left it (like the design document's
        # d_state).
        from .agent import cuda_simulator_enabled

        self.states = make_states(self.max_threads, seed % 2**63, cuda_simulator_enabled())

    def launch(self, arms: np.ndarray, keep: np.ndarray | None, threads: int) -> None:
        threads = int(threads)
        if threads > self.max_threads:
            raise ValueError(f"launch of {threads} threads exceeds the {self.max_threads} random states")
        proportional = keep is not None
        if proportional:
            self.d_keep.copy_to_device(np.ascontiguousarray(keep, np.float64))
        d_arms = cuda.to_device(np.ascontiguousarray(arms, np.int64))
        block = min(THREADS_PER_BLOCK, threads)
        blocks = math.ceil(threads / block)
        descent_kernel[blocks, block](
            self.children, self.history, d_arms, self.d_keep, proportional, threads, self.playout, self.states,
            self.tallies,
        )
        cuda.synchronize()

    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(wins, counts, draws, diagnostics) copied back from the device."""
        return tuple(array.copy_to_host() for array in self.tallies)
