"""The endgame database as the searches' kernels probe it.

A kernel takes the database's arrays as an :data:`EndgameProbe` (:func:`probe_of` an
``EndgameDatabase``), or :func:`no_egdb`'s, which the kernel compiled for the database
takes too, so that a search with the database and one without share one compiled kernel.
What a probe's code or value byte is worth is each search's own (``checkers_env.egdb.index``
defines the codes).
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

#: The endgame database: ``EndgameDatabase.tables``, ``.offsets`` and ``.pieces`` (0: off;
#: :func:`no_egdb` gives arrays to pass).
EndgameProbe = namedtuple("EndgameProbe", "tables offsets pieces")
#: ``game_end`` of a self-play game ended by the endgame database (the core's game state's
#: ``END_*`` values are below 10).
END_EGDB = 10

#: The byte of each piece count's table without the endgame database: a global array, so
#: a kernel reads it as a read-only array, the type of ``EndgameDatabase.tables``' maps.
_NO_TABLE = np.zeros(1, dtype=np.uint8)


@numba.njit(cache=True)
def no_egdb():
    """The :data:`EndgameProbe` of a search without the endgame database, in a kernel or
    from Python: a read-only byte for each piece count (the maps' type, so a search with
    the database and one without share one compiled kernel), a single offset of -1, and 0
    pieces, so the probe is never reached and no array is read."""
    table = _NO_TABLE
    return EndgameProbe((table, table, table, table, table), np.full((1, 1, 1, 1), -1, dtype=np.int64), 0)


def probe_of(database) -> EndgameProbe:
    """The :data:`EndgameProbe` of an ``EndgameDatabase`` (``None``: :func:`no_egdb`)."""
    if database is None:
        return no_egdb()
    return EndgameProbe(database.tables, database.offsets, int(database.pieces))


__all__ = ["END_EGDB", "EndgameProbe", "no_egdb", "probe_of"]
