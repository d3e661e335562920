"""The replay buffer of a set of episodes.

The buffer holds at most ``capacity`` labelled positions. Kind-2 (end of game) examples are
added *pinned* at the start of a set and stay until the set ends; kind-1 examples are added
each episode. While there is room, examples are appended; once the buffer is full, an
``add`` replaces ``replace_fraction`` of the capacity: that many unpinned entries, chosen
uniformly at random (so old and new data of the set stay mixed), are overwritten by as many
of the new examples (a random subset of them when more arrive). Each episode trains on a
random ``sample(fraction)`` drawn without replacement. ``clear`` empties it (end of a set).
"""

from __future__ import annotations

import math

import numpy as np

from .episodes import Examples, Positions

_FIELDS = ("black", "white", "kings", "black_to_move")


class ReplayBuffer:
    """Fixed-capacity store of examples with pinned (kind-2) entries and fractional replacement."""

    def __init__(self, capacity: int, replace_fraction: float):
        if capacity < 1:
            raise ValueError(f"buffer capacity must be at least 1, got {capacity}")
        if not 0.0 < replace_fraction <= 1.0:
            raise ValueError(f"replace_fraction must be in (0, 1], got {replace_fraction}")
        self.capacity = int(capacity)
        self.replace_fraction = float(replace_fraction)
        self.black = np.zeros(self.capacity, np.int64)
        self.white = np.zeros(self.capacity, np.int64)
        self.kings = np.zeros(self.capacity, np.int64)
        self.black_to_move = np.zeros(self.capacity, np.int8)
        self.target = np.zeros(self.capacity, np.float32)
        self.kind = np.zeros(self.capacity, np.int8)
        self.pinned = np.zeros(self.capacity, bool)
        self.size = 0

    def __len__(self) -> int:
        return self.size

    @property
    def full(self) -> bool:
        return self.size >= self.capacity

    @property
    def replace_count(self) -> int:
        """How many entries one ``add`` replaces once the buffer is full."""
        return max(1, int(math.ceil(self.replace_fraction * self.capacity)))

    def _write(self, rows: np.ndarray, examples: Examples, pick: np.ndarray, pinned: bool) -> None:
        for name in _FIELDS:
            getattr(self, name)[rows] = getattr(examples.positions, name)[pick]
        self.target[rows] = examples.target[pick]
        self.kind[rows] = examples.kind[pick]
        self.pinned[rows] = pinned

    def add(self, examples: Examples, rng: np.random.Generator, pinned: bool = False) -> int:
        """Add examples (``pinned``: keep them until ``clear``); returns how many were stored."""
        n = len(examples)
        if n == 0:
            return 0
        room = self.capacity - self.size
        append = min(room, n)
        if append:
            rows = np.arange(self.size, self.size + append)
            self._write(rows, examples, np.arange(append), pinned)
            self.size += append
        rest = n - append
        if rest == 0:
            return append
        # Full: replace a fraction of the unpinned entries by a random subset of the rest.
        free = np.flatnonzero(~self.pinned[: self.size])
        count = min(self.replace_count, rest, len(free))
        if count == 0:
            return append
        rows = rng.choice(free, size=count, replace=False)
        pick = append + rng.choice(rest, size=count, replace=False)
        self._write(rows, examples, pick, pinned)
        return append + count

    def sample(self, fraction: float, rng: np.random.Generator) -> Examples:
        """A random ``fraction`` of the stored examples (without replacement)."""
        count = int(round(fraction * self.size))
        rows = np.sort(rng.choice(self.size, size=count, replace=False)) if count else np.zeros(0, np.int64)
        return self.examples(rows)

    def examples(self, rows=None) -> Examples:
        rows = np.arange(self.size) if rows is None else rows
        return Examples(
            Positions(*(getattr(self, name)[rows].copy() for name in _FIELDS)),
            self.target[rows].copy(),
            self.kind[rows].copy(),
        )

    def clear(self) -> None:
        """Empty the buffer (the end of a set of episodes)."""
        self.size = 0
        self.pinned[:] = False

    # -- checkpoints ---------------------------------------------------------------------

    def state_dict(self) -> dict[str, np.ndarray | int]:
        n = self.size
        return {name: getattr(self, name)[:n].copy() for name in (*_FIELDS, "target", "kind", "pinned")} | {"size": n}

    def load_state_dict(self, state: dict) -> None:
        n = int(state["size"])
        if n > self.capacity:
            raise ValueError(f"checkpoint buffer holds {n} examples, more than the capacity {self.capacity}")
        self.clear()
        for name in (*_FIELDS, "target", "kind", "pinned"):
            getattr(self, name)[:n] = np.asarray(state[name])
        self.size = n
