"""The endgame database's names and its reader: value names and ``Probe``, piece counts and
slices, the default folder, sizes and build times, and ``EndgameDatabase``, which opens the
files of a folder and probes them (from Python, or from numba kernels through its tables).
The package's docstring (``checkers_env.egdb``) shows them at work."""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..board import Board, Color, Move
from ..errors import EndgameDatabaseError
from . import index
from .files import EgdbFile
from .index import slice_label

#: Largest database ``build`` accepts. 6 pieces: 3.1 GB of memory at the build's peak, the
#: files' size (``database_bytes``) on disk (docs/egdb.md has the figures).
MAX_BUILD_PIECES = 6

#: How long ``build`` takes from an empty folder on a 2-core machine (docs/egdb.md has the
#: measurements); ``checkers egdb build --help``, the demo and the README quote these words.
BUILD_TIME = {
    2: "under a second",
    3: "about a second",
    4: "a few seconds",
    5: "a minute or more",
    6: "about twenty minutes",
}

#: Value names, from the side to move's view.
WIN, LOSS, DRAW = "win", "loss", "draw"


class Probe(NamedTuple):
    """The database's verdict on a position, for the side to move.

    Attributes:
        value: ``"win"``, ``"loss"`` or ``"draw"``.
        distance: plies to the end of the game under best play; ``None`` for a draw.
    """

    value: str
    distance: int | None


def decode(byte: int) -> Probe:
    """The ``Probe`` of a value byte (``index``: 0 draw, d + 1 end in d plies)."""
    if byte == index.DRAW:
        return Probe(DRAW, None)
    distance = int(byte) - 1
    return Probe(WIN if distance % 2 else LOSS, distance)


def default_folder() -> Path:
    """``$CHECKERS_EGDB``, else ``checkers-suite/egdb`` in the platform's cache folder."""
    chosen = os.environ.get("CHECKERS_EGDB")
    if chosen:
        return Path(chosen).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "checkers-suite" / "egdb"


def check_pieces(pieces, name: str = "pieces", off: bool = False) -> int:
    """``pieces`` as the size of a database, 2 to ``MAX_BUILD_PIECES`` (the largest that
    ``build`` makes), or 0 with ``off``; ``name`` words the error (``"alphabeta: egdb"``).

    Raises:
        ValueError: anything else.
    """
    if (
        isinstance(pieces, bool)
        or not isinstance(pieces, (int, np.integer))
        or not (2 <= pieces <= MAX_BUILD_PIECES or (off and pieces == 0))
    ):
        words = "0 (off) or " if off else ""
        raise ValueError(f"{name} must be {words}a number of pieces from 2 to {MAX_BUILD_PIECES}, got {pieces!r}")
    return int(pieces)


# ---------------------------------------------------------------------------------------
# Slices
# ---------------------------------------------------------------------------------------

Slice = tuple[int, int, int, int]


def level_name(pieces: int) -> str:
    """File name of the database file of every slice with ``pieces`` pieces: ``egdb-N.egdb``."""
    return f"egdb-{pieces}.egdb"


def slice_name(s: Slice) -> str:
    """File name of a slice solved by a build that has not finished its piece count:
    ``slice-MM-MK-OM-OK.egdb``."""
    return "slice-{:02d}-{:02d}-{:02d}-{:02d}.egdb".format(*s)


def slices(pieces: int) -> list[Slice]:
    """Every slice with exactly ``pieces`` pieces, each side at least one, in build order
    (fewer men first, so that a crowning always leads to a slice already built)."""
    found = []
    for mm in range(pieces + 1):
        for mk in range(pieces + 1 - mm):
            for om in range(pieces + 1 - mm - mk):
                ok = pieces - mm - mk - om
                if mm + mk >= 1 and om + ok >= 1 and index.slice_size(mm, mk, om, ok) > 0:
                    found.append((mm, mk, om, ok))
    return sorted(found, key=lambda s: (s[0] + s[2], s))


def slice_pairs(pieces: int) -> list[tuple[Slice, Slice]]:
    """The slices with ``pieces`` pieces grouped in pairs solved together: a slice and the
    one with the sides swapped (the same slice when both sides have the same pieces)."""
    done: set[Slice] = set()
    pairs = []
    for s in slices(pieces):
        if s in done:
            continue
        twin = (s[2], s[3], s[0], s[1])
        done.update((s, twin))
        pairs.append((s, twin))
    return pairs


#: Bytes on disk of the files of each piece count, as a build here writes them (the
#: distances are compressed, so these are measured, not computed; another version of the
#: LZMA library may differ by a few bytes).
LEVEL_BYTES = {2: 1_812, 3: 92_621, 4: 2_615_762, 5: 75_474_232, 6: 1_297_045_584}


def database_bytes(pieces: int) -> int:
    """Bytes on disk of the whole ``pieces``-piece database (its files ``egdb-2.egdb`` to
    ``egdb-N.egdb``; ``LEVEL_BYTES``)."""
    return sum(LEVEL_BYTES[n] for n in range(2, check_pieces(pieces) + 1))


def size_text(pieces: int) -> str:
    """The database's size on disk in words, as help texts and the README give it (``146 MB``)."""
    megabytes = database_bytes(pieces) / 1e6
    if megabytes >= 1000:
        return f"{megabytes / 1000:.2f} GB"
    return f"{megabytes:.1f} MB" if megabytes < 10 else f"{megabytes:.0f} MB"


def build_figures() -> str:
    """How long the largest builds take and how big they are, in the words of
    ``checkers egdb build --help`` and the README (``4 pieces: a few seconds, 6.4 MB; ...``)."""
    return "; ".join(
        f"{n} pieces: {BUILD_TIME[n]}, {size_text(n)}" for n in range(MAX_BUILD_PIECES - 1, MAX_BUILD_PIECES + 1)
    )


def build_command(pieces: int, folder: str | os.PathLike | None = None) -> str:
    """The command that builds the ``pieces``-piece database in ``folder`` (``--folder`` is
    named only for a folder other than ``default_folder()``)."""
    command = f"checkers egdb build --pieces {pieces}"
    if folder is not None and Path(folder).expanduser().resolve() != default_folder().expanduser().resolve():
        command += f" --egdb-folder {shlex.quote(str(folder))}"
    return command


def complete_pieces(folder: str | os.PathLike | None = None) -> int | None:
    """The largest ``N`` such that the database files of 2 to ``N`` pieces are in ``folder``
    (default ``default_folder()``; the files are not read), or None when even the 2-piece
    file is not there."""
    folder = Path(folder) if folder is not None else default_folder()
    pieces = None
    n = 2
    # exists, not is_file: a folder where a file should be is reported by name when read
    while n <= MAX_BUILD_PIECES and (folder / level_name(n)).exists():
        pieces = n
        n += 1
    return pieces


# ---------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------


def open_file(path: Path, pieces: int, what: str) -> EgdbFile:
    """Map and check one file of the ``pieces``-piece database; ``what`` names it in the
    message when it is missing (``slice 1m0k-1m0k``, ``the 3-piece slices``).

    Raises:
        EndgameDatabaseError: as ``EgdbFile`` does, or the file is missing.
    """
    command = build_command(pieces, path.parent)
    if not path.exists():
        raise EndgameDatabaseError(
            f"the {pieces}-piece endgame database is not built in {path.parent} (missing {what}, "
            f"{path}): run `{command}` (or point $CHECKERS_EGDB at the folder that holds it)"
        )
    return EgdbFile(path, f"delete it and run `{command}`")


def check_file_slices(file: EgdbFile, expected: list[Slice]) -> None:
    """Refuse a file that does not hold exactly ``expected``, with the right sizes."""
    found = [(e.slice, e.positions) for e in file.entries.values()]
    wanted = [(s, int(index.slice_size(*s))) for s in expected]
    if found != wanted:
        names = ", ".join(f"{slice_label(s)} ({n} positions)" for s, n in found[:4])
        raise file.error(
            f"holds slices {names or 'none'}, expected {', '.join(slice_label(s) for s in expected[:4])}"
            + (" ..." if len(expected) > 4 else "")
        )


def load_values(pieces: int, folder: str | os.PathLike | None = None) -> tuple[np.ndarray, np.ndarray, list[Slice]]:
    """Every value byte up to ``pieces`` pieces in memory, as the build lays them out:
    ``(values, offsets, slices)``, where slice ``s`` starts at ``values[offsets[s]]``
    (``index.value_byte`` probes them). One byte a position: 146 MB up to 5 pieces,
    2.6 GB up to 6.

    Raises:
        EndgameDatabaseError: as ``EndgameDatabase.open`` does.
    """
    folder = Path(folder) if folder is not None else default_folder()
    pieces = check_pieces(pieces)
    order, offsets, total = value_layout(pieces)
    values = np.empty(total, dtype=np.uint8)
    for n in range(2, pieces + 1):
        file = open_file(folder / level_name(n), pieces, f"the {n}-piece slices")
        check_file_slices(file, slices(n))
        for s in slices(n):
            start = int(offsets[s])
            file.slice_values(s, values[start : start + int(index.slice_size(*s))])
    return values, offsets, order


def value_layout(pieces: int) -> tuple[list[Slice], np.ndarray, int]:
    """Every slice up to ``pieces`` pieces, the offsets table and the total size."""
    offsets = np.full((index.MAX_SIDE + 1,) * 4, -1, dtype=np.int64)
    order = [s for n in range(2, pieces + 1) for s in slices(n)]
    total = 0
    for s in order:
        offsets[s] = total
        total += int(index.slice_size(*s))
    return order, offsets, total


# ---------------------------------------------------------------------------------------
# Probe
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliceStats:
    """Counts of one slice, side to move's view."""

    slice: Slice
    positions: int
    wins: int
    losses: int
    draws: int
    longest_win: int  # plies; 0 when nothing is won

    @property
    def label(self) -> str:
        return slice_label(self.slice)


class EndgameDatabase:
    """Every slice up to ``pieces`` pieces, memory-mapped, with Python and numba probes.

    Kernels probe the win/draw/loss codes with ``index.probe(db.tables, db.offsets,
    mover, opponent, kings)`` (mover's frame) or ``probe_board(db.tables, db.offsets, black,
    white, kings, black_to_move)``; Python reads distances too (``probe``), one compressed
    block at a time.
    """

    def __init__(self, pieces: int, folder: Path, files: list[EgdbFile]):
        self.pieces = pieces
        self.folder = folder
        self.files = files
        self.slices = [s for file in files for s in file.entries]
        #: One array a piece count from 2 to ``MAX_BUILD_PIECES`` (a read-only byte where none is open).
        self.tables = tuple(file.codes for file in files) + (_NO_TABLE,) * (MAX_BUILD_PIECES - 1 - len(files))
        self.offsets = np.full((index.MAX_SIDE + 1,) * 4, -1, dtype=np.int64)
        for file in files:
            for s, entry in file.entries.items():
                self.offsets[s] = entry.codes_at

    @classmethod
    def open(cls, pieces: int | None = None, folder: str | os.PathLike | None = None) -> EndgameDatabase:
        """Map the files up to ``pieces`` pieces, checking each (the codes in full: a
        second or two for 6 pieces, which also brings them into the page cache).

        Args:
            pieces: the database's pieces, 2 to ``MAX_BUILD_PIECES``; default: the largest
                complete one in the folder (``complete_pieces``).
            folder: default ``default_folder()``.

        Raises:
            ValueError: ``pieces`` out of range.
            EndgameDatabaseError: no database in the folder, or a file missing (the
                message names it and the command that builds the whole database), not a
                file, truncated, too long, corrupt, of another version or holding other slices.
        """
        folder = Path(folder) if folder is not None else default_folder()
        if pieces is None:
            pieces = complete_pieces(folder)
            if pieces is None:
                raise EndgameDatabaseError(
                    f"no endgame database in {folder} (missing {level_name(2)}): run "
                    f"`{build_command(4, folder)}` (or point $CHECKERS_EGDB at the folder that holds one)"
                )
        pieces = check_pieces(pieces)
        files = []
        for n in range(2, pieces + 1):
            file = open_file(folder / level_name(n), pieces, f"the {n}-piece slices")
            check_file_slices(file, slices(n))
            files.append(file)
        return cls(pieces, folder, files)

    @classmethod
    def cached(cls, pieces: int | None = None, folder: str | os.PathLike | None = None) -> EndgameDatabase:
        """The database ``open`` gives, opened on the first call in this process and kept:
        every agent, the league's adjudicator and the server share one map.

        Args:
            pieces, folder: as for ``open`` (the default ``pieces`` is the largest complete
                database in the folder at the first call).

        Raises:
            ValueError, EndgameDatabaseError: as ``open`` does (a failed open is not kept).
        """
        folder = (Path(folder) if folder is not None else default_folder()).expanduser().resolve()
        if pieces is None:
            pieces = complete_pieces(folder)
            if pieces is None:
                return cls.open(None, folder)  # raises: no database there
        key = (check_pieces(pieces), folder)
        database = _OPENED.get(key)
        if database is None:
            database = _OPENED[key] = cls.open(*key)
        return database

    def __repr__(self) -> str:
        return f"EndgameDatabase(pieces={self.pieces}, folder={str(self.folder)!r})"

    def __contains__(self, board: Board) -> bool:
        return self.probe_code(board) >= 0

    def probe_code(self, board: Board) -> int:
        """The ``index.WDL_*`` code of ``board`` for the side to move, -1 outside."""
        return int(
            index.probe_board(
                self.tables, self.offsets, board.black, board.white, board.kings, board.turn == Color.BLACK
            )
        )

    def probe_byte(self, board: Board) -> int:
        """The value byte (``index``: 0 draw, ``d + 1`` the game ends in ``d`` plies),
        -1 outside the database."""
        code = self.probe_code(board)
        if code <= index.WDL_DRAW:
            return code
        mm, mk, om, ok, position = index.locate(board.black, board.white, board.kings, board.turn == Color.BLACK)
        if mm < 0:
            return 1  # the side to move has no piece: lost, 0 plies
        s = (int(mm), int(mk), int(om), int(ok))
        return int(self.files[sum(s) - 2].block(s, int(position) // index.BLOCK)[int(position) % index.BLOCK])

    def probe(self, board: Board) -> Probe | None:
        """Value and distance of ``board`` for the side to move; ``None`` outside the database
        (more pieces than it holds, or no opponent piece)."""
        byte = self.probe_byte(board)
        return None if byte < 0 else decode(byte)

    def move_values(self, board: Board) -> list[tuple[Move, Probe]]:
        """Every legal move with the database's verdict on the position after it, for the
        player who made it (a move to a position lost for the opponent is a ``win``).

        Raises:
            EndgameDatabaseError: ``board`` is outside the database.
        """
        if self.probe_code(board) < 0:
            raise EndgameDatabaseError(f"{board.fen()} is outside the {self.pieces}-piece database")
        out = []
        for move in board.legal_moves():
            child = decode(self.probe_byte(board.play(move)))
            if child.distance is None:  # a draw
                out.append((move, child))
            else:
                out.append((move, Probe(WIN if child.value == LOSS else LOSS, child.distance + 1)))
        return out

    def best_moves(self, board: Board) -> list[Move]:
        """The moves that keep the best value: the fastest wins in a won position, the
        longest losses in a lost one, the drawing moves in a drawn one.

        Raises:
            EndgameDatabaseError: ``board`` is outside the database.
        """
        scored = self.move_values(board)
        if not scored:
            return []
        key = [_preference(p) for _, p in scored]
        best = max(key)
        return [m for (m, _), k in zip(scored, key) if k == best]

    def slice_values(self, s: Slice) -> np.ndarray:
        """Every value byte of slice ``s`` (decompressed: one byte a position).

        Raises:
            KeyError: ``s`` is not in the database.
        """
        return self.files[sum(s) - 2].slice_values(s)

    def stats(self) -> list[SliceStats]:
        """Wins, losses, draws and the longest win of every slice (the files' tables)."""
        return [
            SliceStats(e.slice, e.positions, e.wins, e.losses, e.draws, e.longest_win)
            for file in self.files
            for e in file.entries.values()
        ]


#: The tables' filler for piece counts that are not open (a read-only byte, the type of a map).
_NO_TABLE = np.frombuffer(b"\x00", dtype=np.uint8)

#: Databases opened by ``EndgameDatabase.cached``, by (pieces, resolved folder).
_OPENED: dict[tuple[int, Path], EndgameDatabase] = {}


def _preference(probe: Probe) -> tuple[int, int]:
    """Order of a move's outcome for its player: wins (sooner better), draws, losses
    (later better)."""
    if probe.distance is None:  # a draw
        return (1, 0)
    if probe.value == WIN:
        return (2, -probe.distance)
    return (0, probe.distance)
