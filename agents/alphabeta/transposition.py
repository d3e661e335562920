"""The alpha-beta search's transposition table: its entries' layout, the Zobrist keys that
hash a position, and the generations that tell one search's entries from another's.

``checkers_agents.alphabeta.negamax`` probes and stores it; a caller allocates the table
once (``int64[2**TT_BITS, TT_FIELDS]`` and its float64 view, with a net's leaf cache beside
it: a :data:`Table`) and hands it to every search. The search's other memory, the per-ply
stack and its buffers, is in ``checkers_agents.alphabeta.stack``.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba.extending import overload

from checkers_env.bitboard import lowest_bit_index

#: Nodes with less remaining depth than this neither probe nor store the table (a table
#: access is a cache miss; near the leaves it costs more than it saves).
TT_MIN_DEPTH = 2
#: Transposition table size: ``2**TT_BITS`` entries of 16 bytes (16 MiB).
TT_BITS = 20
#: Columns of a table entry, one 16-byte row (a probe touches one cache line): int64
#: ``(hash >> 32) << 32 | depth | bound << 8 | move << 10 | generation << 18`` (the low
#: hash bits are the slot), and the float64 value, read through a float64 view of the
#: same array (``table.view(np.float64)``), so that a probe reads one cache line.
TT_FIELDS = 2
TT_ENTRY, TT_VALUE = 0, 1
TT_KEY_MASK = -(1 << 32)
#: Leaf cache size: ``2**LEAF_BITS`` slots of 16 bytes (1 MiB: about a core's L2 cache).
LEAF_BITS = 16
#: A leaf slot's int64 key: the hash with its low 8 bits replaced by the generation
#: (1-255, so that an empty slot, 0, never matches); its float64 value beside it.
LEAF_GENERATION_MASK = 255

# -- Zobrist keys ---------------------------------------------------------------------------

#: ``ZOBRIST[kind * 32 + bit]`` with kind 0 black man, 1 black king, 2 white man, 3 white
#: king; ``ZOBRIST[128]`` is xored in when White is to move. Fixed seed: hashes are stable.
ZOBRIST = np.random.default_rng(0x5EED_C4EC).integers(1, 2**63 - 1, size=129, dtype=np.int64)
SIDE_KEY = 128

# -- transposition-table entry layout ---------------------------------------------------------

BOUND_EXACT, BOUND_LOWER, BOUND_UPPER = 0, 1, 2
NO_MOVE = 255

# -- the table (a named tuple: numba takes it as a typed tuple) ---------------------------------

#: The search's memory of positions: the transposition table, ``entries``,
#: ``int64[2**k, TT_FIELDS]``, and ``values``, its ``float64`` view (the same memory: column
#: 1 holds the values); and the leaf cache, ``leaves``, ``int64[2**j, 2]``, and
#: ``leaf_values``, its ``float64`` view: a net's leaf values of the current search, by
#: hash (:func:`cached_leaf`; no slots: no cache).
Table = namedtuple("Table", "entries values leaves leaf_values")


def new_table(entries: int, leaves: int = 0) -> Table:
    """A cleared :data:`Table` of ``entries`` slots and ``leaves`` leaf-cache slots (powers
    of two; no leaf slots, or at least 256: a slot's key holds the hash but for its low 8
    bits, which its place holds); kernels call it too.

    From Python, NumPy allocates it, so that a large table lies in transparent huge pages,
    which its scattered probes need: the searcher ran 5-10 % slower on numba's allocation.

    Raises:
        ValueError: ``leaves`` is neither 0 nor a power of two of at least 256.
    """
    if leaves and (leaves < 256 or leaves & (leaves - 1)):
        raise ValueError(f"a leaf cache has 0 slots or a power of two of at least 256, got {leaves}")
    table = np.zeros((entries, TT_FIELDS), dtype=np.int64)
    cache = np.zeros((leaves, 2), dtype=np.int64)
    return Table(table, table.view(np.float64), cache, cache.view(np.float64))


@overload(new_table)
def _new_table_in_kernels(entries, leaves=0):
    def new_table_kernel(entries, leaves=0):
        table = np.zeros((entries, TT_FIELDS), dtype=np.int64)
        cache = np.zeros((leaves, 2), dtype=np.int64)
        return Table(table, table.view(np.float64), cache, cache.view(np.float64))

    return new_table_kernel


@numba.njit(cache=True, inline="always")
def leaf_key(h, generation):
    """A leaf slot's key for hash ``h`` in search ``generation``."""
    return (h & ~LEAF_GENERATION_MASK) | generation


@numba.njit(cache=True, inline="always")
def cached_leaf(table, h, generation):
    """``(found, value)``: the leaf value the current search stored for hash ``h``.

    A net's leaf value is a function of the position alone, so a leaf met again (a
    transposition, a re-search, ProbCut's shallower pass) takes it from here instead of
    the net. Only this search's (``generation``'s) values
    count: a trainer changes its weights between searches."""
    leaves = table.leaves
    if leaves.shape[0] == 0:
        return False, 0.0
    slot = h & (leaves.shape[0] - 1)
    if leaves[slot, 0] != leaf_key(h, generation):
        return False, 0.0
    return True, table.leaf_values[slot, 1]


@numba.njit(cache=True, inline="always")
def store_leaf(table, h, generation, value):
    """Keep a leaf's value for the rest of the search (the slot's last value goes)."""
    leaves = table.leaves
    if leaves.shape[0] == 0:
        return
    slot = h & (leaves.shape[0] - 1)
    leaves[slot, 0] = leaf_key(h, generation)
    table.leaf_values[slot, 1] = value


@numba.njit(cache=True)
def position_hash(black, white, kings, black_to_move):
    """Zobrist hash of a position (the search updates the same hash incrementally)."""
    h = 0
    for colour in range(2):
        pieces = black if colour == 0 else white
        while pieces:
            b = lowest_bit_index(pieces)
            pieces &= pieces - 1
            kind = 2 * colour + ((kings >> b) & 1)
            h ^= ZOBRIST[kind * 32 + b]
    if not black_to_move:
        h ^= ZOBRIST[SIDE_KEY]
    return h


@numba.njit(cache=True, inline="always")
def child_hash(h, kings, crowned_kings, black_to_move, frm, to, captured):
    """The Zobrist hash of the position after a move (``frm``, ``to``, ``captured``) from one
    of hash ``h`` and ``kings`` whose side to move is ``black_to_move``; ``crowned_kings``
    is the kings after the move (the incremental form of :func:`position_hash`)."""
    own_kind = 0 if black_to_move else 2
    h ^= ZOBRIST[SIDE_KEY]
    h ^= ZOBRIST[(own_kind + ((kings >> frm) & 1)) * 32 + frm]
    h ^= ZOBRIST[(own_kind + ((crowned_kings >> to) & 1)) * 32 + to]
    other_kind = 2 - own_kind
    rest = captured
    while rest:
        b = lowest_bit_index(rest)
        rest &= rest - 1
        h ^= ZOBRIST[(other_kind + ((kings >> b) & 1)) * 32 + b]
    return h


@numba.njit(cache=True, inline="always")
def next_generation(generation, table):
    """The table generation of a new search (1-255; the :data:`Table` is wiped when it
    wraps, so no entry of an earlier search passes for this one's)."""
    generation = generation % 255 + 1
    if generation == 1:
        table.entries[:] = 0
        table.leaves[:] = 0
    return generation


__all__ = [
    "BOUND_EXACT",
    "BOUND_LOWER",
    "BOUND_UPPER",
    "LEAF_BITS",
    "NO_MOVE",
    "SIDE_KEY",
    "TT_BITS",
    "TT_ENTRY",
    "TT_FIELDS",
    "TT_KEY_MASK",
    "TT_MIN_DEPTH",
    "TT_VALUE",
    "Table",
    "cached_leaf",
    "child_hash",
    "new_table",
    "ZOBRIST",
    "next_generation",
    "position_hash",
    "store_leaf",
]
