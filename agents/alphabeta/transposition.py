"""The alpha-beta search's transposition table: its entries' layout, the Zobrist keys that
hash a position, and the generations that tell one search's entries from another's.

``checkers_agents.alphabeta.negamax`` probes and stores it; a caller allocates the table
once (``int64[2**TT_BITS, TT_FIELDS]`` and its float64 view, a :data:`Table`) and hands it
to every search. The search's other memory, the per-ply stack and its buffers, is in
``checkers_agents.alphabeta.stack``.
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

# -- Zobrist keys ---------------------------------------------------------------------------

#: ``ZOBRIST[kind * 32 + bit]`` with kind 0 black man, 1 black king, 2 white man, 3 white
#: king; ``ZOBRIST[128]`` is xored in when White is to move. Fixed seed: hashes are stable.
ZOBRIST = np.random.default_rng(0x5EED_C4EC).integers(1, 2**63 - 1, size=129, dtype=np.int64)
SIDE_KEY = 128

# -- transposition-table entry layout ---------------------------------------------------------

BOUND_EXACT, BOUND_LOWER, BOUND_UPPER = 0, 1, 2
NO_MOVE = 255

# -- the table (a named tuple: numba takes it as a typed tuple) ---------------------------------

#: The transposition table: ``entries``, ``int64[2**k, TT_FIELDS]``, and ``values``, its
#: ``float64`` view (the same memory: column 1 holds the values).
Table = namedtuple("Table", "entries values")


def new_table(entries: int) -> Table:
    """A cleared :data:`Table` of ``entries`` slots (a power of two); kernels call it too.

    From Python, NumPy allocates it, so that a large table lies in transparent huge pages,
    which its scattered probes need: the searcher ran 5-10 % slower on numba's allocation.
    """
    table = np.zeros((entries, TT_FIELDS), dtype=np.int64)
    return Table(table, table.view(np.float64))


@overload(new_table)
def _new_table_in_kernels(entries):
    def new_table_kernel(entries):
        table = np.zeros((entries, TT_FIELDS), dtype=np.int64)
        return Table(table, table.view(np.float64))

    return new_table_kernel


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
    """The table generation of a new search (1-255; the table is wiped when it wraps, so
    no entry of an earlier search passes for this one's)."""
    generation = generation % 255 + 1
    if generation == 1:
        table[:] = 0
    return generation


__all__ = [
    "BOUND_EXACT",
    "BOUND_LOWER",
    "BOUND_UPPER",
    "NO_MOVE",
    "SIDE_KEY",
    "TT_BITS",
    "TT_ENTRY",
    "TT_FIELDS",
    "TT_KEY_MASK",
    "TT_MIN_DEPTH",
    "TT_VALUE",
    "Table",
    "child_hash",
    "new_table",
    "ZOBRIST",
    "next_generation",
    "position_hash",
]
