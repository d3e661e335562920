"""The CUDA backend: one random descent per GPU thread (the design document's
``random_descent`` kernel).

As in the design document, the children are made on the host and copied to the device, every
thread has its own random state (numba's xoroshiro128p generator, its counterpart of the
design document's ``curandState``, seeded on the device by ``seed_states_kernel``), and the
kernel adds each playout's points to the per-child counters on the device
(``cuda.atomic.add``, the design document's ``d_wins``); the counters are read back at the
end of the budget, or after each launch when the allocation needs the current win rates.
The per position work is the same njit scalar functions the CPU path uses
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
from numba.cuda.random import xoroshiro128p_dtype, xoroshiro128p_uniform_float64

from . import playout as playouts  # the module: kernels take a ``playout`` (PlayoutRules)
from .cpu import CAPPED, PLIES, SKIPS, ChildPositions, SearchStart, Tallies

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
        arm = playouts.proportional_arm(t, n_arms, keep_draw, keep[arms[arm]], other)
    child = arms[arm]

    walk, tally = playouts.start_descent(
        child_movers[child], child_opponents[child], child_kings[child], child_black_to_move, history
    )
    while playouts.goes_on(tally, max_moves):
        k = _below(states, t, tally[0])
        walk, tally = playouts.take_draw(walk, tally, k, cycle_check and tally[4] < playouts.MAX_REDRAWS)
    points, capped, plies, skips = playouts.end_of_descent(walk, tally, king_weight)
    if child_black_to_move:
        points = playouts.WIN_POINTS - points
    cuda.atomic.add(wins, child, points)
    cuda.atomic.add(counts, child, 1)
    if points == playouts.DRAW_POINTS:
        cuda.atomic.add(drawn, child, 1)
    cuda.atomic.add(diagnostics, PLIES, plies)
    cuda.atomic.add(diagnostics, SKIPS, skips)
    if capped:
        cuda.atomic.add(diagnostics, CAPPED, 1)


#: splitmix64's increment (the golden ratio in 64 bits) and its two mixing multipliers.
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


@numba.njit(cache=True)
def _splitmix64(x):
    z = (x ^ (x >> uint64(30))) * uint64(_MIX1)
    z = (z ^ (z >> uint64(27))) * uint64(_MIX2)
    return z ^ (z >> uint64(31))


@numba.njit(cache=True)
def seeded_state(seed, thread):
    """Thread ``thread``'s xoroshiro128p state for ``seed``: outputs ``2 * thread + 1`` and
    ``2 * thread + 2`` of the splitmix64 sequence started at ``seed`` (the seeding that
    xoroshiro's authors recommend). Each state costs O(1), where numba's
    ``create_xoroshiro128p_states`` jumps every state 2**64 steps on from the previous one
    on the host (about 20 ms for a launch of 131,072 threads, more than the launch itself).

    Returns:
        ``(s0, s1)``, never both zero.
    """
    base = uint64(seed) + uint64(2) * uint64(thread) * uint64(_GOLDEN)
    s0 = _splitmix64(base + uint64(_GOLDEN))
    s1 = _splitmix64(base + uint64(2) * uint64(_GOLDEN))
    if s0 == uint64(0) and s1 == uint64(0):
        s0 = uint64(1)
    return s0, s1


@cuda.jit
def seed_states_kernel(states, seed):
    """Thread ``t`` writes ``seeded_state(seed, t)`` into ``states[t]``."""
    t = cuda.grid(1)
    if t < states.shape[0]:
        s0, s1 = seeded_state(seed, t)
        states[t]["s0"] = s0
        states[t]["s1"] = s1


def make_states(n: int, seed: int):
    """``n`` device xoroshiro128p states, seeded on the device (``seed_states_kernel``)."""
    states = cuda.device_array(n, xoroshiro128p_dtype)
    block = min(THREADS_PER_BLOCK, n)
    seed_states_kernel[math.ceil(n / block), block](states, uint64(seed))
    return states


class CudaRunner:
    """Runs launches on the GPU (or the simulator) for one search; counts live on the device."""

    name = "cuda"

    def __init__(self, start: SearchStart, max_threads: int):
        children = start.children
        n = len(children.movers)
        self.max_threads = int(max_threads)
        self.history, self.playout = start.history, start.rules
        self.children = ChildPositions(
            cuda.to_device(children.movers),
            cuda.to_device(children.opponents),
            cuda.to_device(children.kings),
            bool(children.black_to_move),
        )
        self.tallies = Tallies(*(cuda.to_device(np.zeros(size, np.int64)) for size in (n, n, n, playouts.DIAGNOSTICS)))
        self.d_keep = cuda.to_device(np.ones(n, np.float64))
        # One state per thread of the largest launch; launches reuse them, each state
        # going on from where the previous launch left it (like the design document's
        # d_state).
        self.states = make_states(self.max_threads, start.seed % 2**63)

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
            self.children,
            self.history,
            d_arms,
            self.d_keep,
            proportional,
            threads,
            self.playout,
            self.states,
            self.tallies,
        )
        cuda.synchronize()

    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(wins, counts, draws, diagnostics) copied back from the device."""
        return tuple(array.copy_to_host() for array in self.tallies)
