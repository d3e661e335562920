"""Endgame databases: the exact value and distance of every position with few pieces.

Build once, then probe from Python or from numba kernels::

    from checkers_env import Board, egdb

    egdb.build(pieces=4)                      # a few seconds; files in egdb.default_folder()
    db = egdb.EndgameDatabase.open(pieces=4)
    db.probe(Board.from_fen("B:WK14:BK1,K2"))  # Probe(value='win', distance=...)
    db.best_moves(Board.from_fen("B:WK14:BK1,K2"))

The value is the game-theoretic one for the side to move with unlimited play (the
automatic draw rules, repetition and no progress, are not part of it); the distance is the
number of plies to the end of the game when the winner wins as fast as it can and the
loser holds out as long as it can. ``index`` documents the index, the value bytes and the probe; ``retrograde`` the
build's kernels, ``builder`` the build (here or on Ray), ``files`` the files and
``database`` the names and ``EndgameDatabase`` that this package exports.

**Files.** One file per piece count, ``egdb-N.egdb`` in the database folder
(``$CHECKERS_EGDB``, else the platform's cache folder, ``default_folder()``): for every
slice its win/draw/loss codes, 2 bits a position, which searches probe through a memory
map (``EndgameDatabase.tables``), and its distances, compressed in blocks and read one
block at a time (``files`` has the layout and its checks). A build writes
each pair of slices to slice files (``slice-MM-MK-OM-OK.egdb``, the same format) as soon as
it is solved and joins a piece count's slices into its file when they are all there, so a
killed build resumes at the first missing pair.

**Scale.** Up to 4 pieces: 6.4 million positions (2.7 MB, built in a few seconds); up to 5:
146 million (78 MB, a minute or more on 2 cores); up to 6: 2.6 billion (1.38 GB, about
twenty minutes more). ``BUILD_TIME`` and ``database_bytes`` give the figures; 7 and 8 pieces are
planned in ``docs/egdb.md``.
"""

from ..errors import EndgameDatabaseError
from .database import (
    BUILD_TIME,
    DRAW,
    LEVEL_BYTES,
    LOSS,
    MAX_BUILD_PIECES,
    WIN,
    EndgameDatabase,
    Probe,
    Slice,
    SliceStats,
    build_command,
    build_figures,
    check_file_slices,
    check_pieces,
    complete_pieces,
    database_bytes,
    decode,
    default_folder,
    level_name,
    load_values,
    open_file,
    size_text,
    slice_name,
    slice_pairs,
    slices,
    value_layout,
)
from .index import slice_label


def __getattr__(name: str):
    """``build`` and ``BuildReport`` live in ``checkers_env.egdb.builder``, which reads the
    names of ``database``: it is imported when they are first asked for."""
    if name in ("build", "BuildReport"):
        from . import builder

        return getattr(builder, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BUILD_TIME",
    "BuildReport",
    "DRAW",
    "EndgameDatabase",
    "EndgameDatabaseError",
    "LEVEL_BYTES",
    "LOSS",
    "MAX_BUILD_PIECES",
    "Probe",
    "Slice",
    "SliceStats",
    "WIN",
    "build",
    "build_command",
    "build_figures",
    "check_file_slices",
    "check_pieces",
    "complete_pieces",
    "database_bytes",
    "decode",
    "default_folder",
    "level_name",
    "load_values",
    "open_file",
    "size_text",
    "slice_label",
    "slice_name",
    "slice_pairs",
    "slices",
    "value_layout",
]
