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
loser holds out as long as it can. ``checkers_env.egdb_index`` documents the index, the
value bytes and the probe; ``checkers_env.egdb_retrograde`` the build.

**Files.** One file per slice ``(mover men, mover kings, opponent men, opponent kings)``,
``slice-MM-MK-OM-OK.egdb`` in the database folder (``$CHECKERS_EGDB``, else the platform's
cache folder, ``default_folder()``): a 32-byte header (magic ``CKEGDB``, format version,
the four counts, the number of positions, a CRC-32 of the values) and one value byte per
position in index order. Files are written atomically, pair by pair, so a killed build
resumes at the first missing slice.

**Scale.** Up to 4 pieces: 6.4 million positions (6.4 MB, built in a few seconds); up to 5:
146 million (146 MB, a minute or more on 2 cores), held in memory by ``open``; ``BUILD_TIME``
and ``database_bytes`` give the figures. 6 pieces
(2.4 billion positions) and beyond are planned in ``docs/egdb.md``.
"""

from __future__ import annotations

import os
import shlex
import struct
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from . import egdb_index, egdb_retrograde
from .board import Board, Color, Move
from .errors import EndgameDatabaseError
from .files import write_atomic

#: Version of the file format and of the index; a file of another version is refused.
FORMAT_VERSION = 1
MAGIC = b"CKEGDB\x00\x00"
_HEADER = struct.Struct("<8sI4BQII")  # magic, version, mm mk om ok, positions, crc32, max distance
HEADER_SIZE = 32
assert _HEADER.size <= HEADER_SIZE

#: Largest database ``build`` accepts. 6 pieces: 2.6 GB on disk and in the memory of each
#: process that opens it, 3.1 GB at the build's peak (docs/egdb.md has the figures).
MAX_BUILD_PIECES = 6

#: How long ``build`` takes from an empty folder on a 2-core machine (docs/egdb.md has the
#: measurements); ``checkers egdb build --help``, the demo and the README quote these words.
BUILD_TIME = {
    2: "under a second", 3: "about a second", 4: "a few seconds", 5: "a minute or more", 6: "about a quarter of an hour",
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
    """The ``Probe`` of a value byte (``egdb_index``: 0 draw, d + 1 end in d plies)."""
    if byte == egdb_index.DRAW:
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


def slice_name(s: Slice) -> str:
    """File name of a slice: ``slice-MM-MK-OM-OK.egdb``."""
    return "slice-{:02d}-{:02d}-{:02d}-{:02d}.egdb".format(*s)


def slice_label(s: Slice) -> str:
    """``2m1k-1m0k``: mover men and kings, then the opponent's."""
    return f"{s[0]}m{s[1]}k-{s[2]}m{s[3]}k"


def slices(pieces: int) -> list[Slice]:
    """Every slice with exactly ``pieces`` pieces, each side at least one, in build order
    (fewer men first, so that a crowning always leads to a slice already built)."""
    found = []
    for mm in range(pieces + 1):
        for mk in range(pieces + 1 - mm):
            for om in range(pieces + 1 - mm - mk):
                ok = pieces - mm - mk - om
                if mm + mk >= 1 and om + ok >= 1 and egdb_index.slice_size(mm, mk, om, ok) > 0:
                    found.append((mm, mk, om, ok))
    return sorted(found, key=lambda s: (s[0] + s[2], s))


def slice_pairs(pieces: int) -> list[tuple[Slice, Slice]]:
    """The slices with ``pieces`` pieces grouped in pairs solved together: a slice and the
    one with the sides swapped (the same slice when both sides have the same pieces)."""
    done = set()
    pairs = []
    for s in slices(pieces):
        if s in done:
            continue
        twin = (s[2], s[3], s[0], s[1])
        done.update((s, twin))
        pairs.append((s, twin))
    return pairs


def database_bytes(pieces: int) -> int:
    """Bytes on disk of the whole ``pieces``-piece database (every slice file, headers included)."""
    order, _, total = _layout(pieces)
    return total + HEADER_SIZE * len(order)


def size_text(pieces: int) -> str:
    """The database's size on disk in words, as help texts and the README give it (``146 MB``)."""
    megabytes = database_bytes(pieces) / 1e6
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
    """The largest ``N`` such that every slice with at most ``N`` pieces has its file in
    ``folder`` (default ``default_folder()``; the files are not read), or None when even
    the 2-piece slices are not all there."""
    folder = Path(folder) if folder is not None else default_folder()
    pieces = None
    n = 2
    # exists, not is_file: a folder where a slice should be is reported by name when read
    while n <= MAX_BUILD_PIECES and all((folder / slice_name(s)).exists() for s in slices(n)):
        pieces = n
        n += 1
    return pieces


# ---------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------


def write_slice(folder: Path, s: Slice, values: np.ndarray) -> Path:
    """Write one slice file atomically (header, then one byte per position)."""
    payload = values.tobytes()
    max_distance = int(np.flatnonzero(egdb_retrograde.value_counts(values))[-1]) - 1 if values.size else 0
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, *s, values.size, zlib.crc32(payload), max(max_distance, 0))
    return write_atomic(folder / slice_name(s), header.ljust(HEADER_SIZE, b"\x00") + payload)


def read_slice(path: Path, s: Slice, out: np.ndarray | None = None, pieces: int | None = None) -> np.ndarray:
    """Read and check one slice file into ``out`` (or a new array).

    ``pieces`` is the database being read (default: the slice's own pieces): the error
    messages name the command that builds all of it.

    Raises:
        EndgameDatabaseError: the file is missing, not a file, truncated, too long, corrupt, of
            another format version, or holds another slice; the message names the slice's
            file and how to rebuild.
    """
    pieces = sum(s) if pieces is None else pieces
    command = build_command(pieces, Path(path).parent)
    rebuild = f"delete it and run `{command}`"
    expected = int(egdb_index.slice_size(*s))
    try:
        with open(path, "rb") as handle:
            header = handle.read(HEADER_SIZE)
            if len(header) < HEADER_SIZE:
                raise EndgameDatabaseError(f"{path}: truncated header ({len(header)} bytes); {rebuild}")
            magic, version, mm, mk, om, ok, count, crc, _ = _HEADER.unpack_from(header)
            if magic != MAGIC:
                raise EndgameDatabaseError(f"{path}: not an endgame database file (magic {magic!r}); {rebuild}")
            if version != FORMAT_VERSION:
                raise EndgameDatabaseError(
                    f"{path}: format version {version}, this version of checkers-suite reads {FORMAT_VERSION}; {rebuild}"
                )
            if (mm, mk, om, ok) != tuple(s) or count != expected:
                raise EndgameDatabaseError(
                    f"{path}: holds slice {slice_label((mm, mk, om, ok))} with {count} positions, "
                    f"expected {slice_label(s)} with {expected}; {rebuild}"
                )
            target = np.empty(expected, dtype=np.uint8) if out is None else out
            got = handle.readinto(memoryview(target))
            if got != expected:
                raise EndgameDatabaseError(f"{path}: truncated ({got} of {expected} values); {rebuild}")
            if handle.read(1):
                size = os.fstat(handle.fileno()).st_size
                raise EndgameDatabaseError(
                    f"{path}: too long ({size} bytes, a slice of {expected} positions has "
                    f"{HEADER_SIZE + expected}); {rebuild}"
                )
    except IsADirectoryError:
        raise EndgameDatabaseError(
            f"{path}: a folder where slice {slice_label(s)} should be a file; {rebuild}"
        ) from None
    except FileNotFoundError:
        raise EndgameDatabaseError(
            f"the {pieces}-piece endgame database is not built in {Path(path).parent} (missing slice "
            f"{slice_label(s)}, {path}): run `{command}` (or point $CHECKERS_EGDB at the folder that holds it)"
        ) from None
    if zlib.crc32(memoryview(target)) != crc:
        raise EndgameDatabaseError(f"{path}: checksum mismatch (the file is corrupt); {rebuild}")
    return target


def _layout(pieces: int) -> tuple[list[Slice], np.ndarray, int]:
    """Every slice up to ``pieces`` pieces, the offsets table and the total size."""
    offsets = np.full((egdb_index.MAX_SIDE + 1,) * 4, -1, dtype=np.int64)
    order = [s for n in range(2, pieces + 1) for s in slices(n)]
    total = 0
    for s in order:
        offsets[s] = total
        total += int(egdb_index.slice_size(*s))
    return order, offsets, total


# ---------------------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BuildReport:
    """What ``build`` did: slices solved and found, positions, seconds, bytes on disk."""

    pieces: int
    folder: Path
    solved: int
    found: int
    positions: int
    seconds: float
    bytes: int


def _solve_pair(
    values: np.ndarray, offsets: np.ndarray, a: Slice, b: Slice, bucket_from: int = egdb_retrograde.BUCKET_FROM,
    chunk: int = egdb_retrograde.FRONTIER_CHUNK,
) -> int:
    """Solve one pair of slices in ``values`` (their regions must be zero); returns the
    number of levels. ``bucket_from`` and ``chunk``: see
    ``egdb_retrograde.propagate_frontier`` (the same bytes whatever they are)."""
    pair = (a, b) if a != b else (a,)
    works, buckets, pending = [], [], []
    for s in pair:
        start = int(offsets[s])
        size = int(egdb_index.slice_size(*s))
        if size >= 2**31:
            raise EndgameDatabaseError(f"slice {slice_label(s)}: {size} positions, more than the build indexes")
        work = np.zeros((size, egdb_retrograde.WORK_FIELDS), np.uint8)
        egdb_retrograde.init_slice(values, offsets, *s, work)
        works.append(work)
        buckets.append(egdb_retrograde.bucket_by_level(work))
        pending.append({})  # level -> positions the propagation scheduled there
    # Events into a slice: each position at most twice (a loss, then a faster win) per
    # level; numpy leaves the pages of the unused tail unallocated.
    events = [egdb_retrograde.Events(np.empty(2 * len(w), np.int32), np.empty(2 * len(w), np.uint8)) for w in works]
    pieces = np.array(pair, dtype=np.int64)
    level = 0
    while True:
        if level > egdb_index.MAX_DISTANCE:
            raise EndgameDatabaseError(f"slice {slice_label(a)}: a distance over {egdb_index.MAX_DISTANCE} plies")
        frontiers, counts = [], np.zeros(2, np.int64)
        for i, (work, (order, starts)) in enumerate(zip(works, buckets)):
            candidates = [order[starts[level] : starts[level + 1]], *pending[i].pop(level, [])]
            frontier = np.empty(sum(c.size for c in candidates), np.int32)
            for c in candidates:
                counts[i] = egdb_retrograde.resolve_candidates(level, work, c, frontier, counts[i])
            frontiers.append(frontier)
        if counts.any():
            if len(pair) == 2:
                written = egdb_retrograde.propagate_pair(
                    level, pieces, tuple(frontiers), counts, tuple(works), tuple(events), bucket_from, chunk)
            else:
                written = [egdb_retrograde.propagate_frontier(
                    level, pieces[0], frontiers[0], counts[0], works[0], events[0], bucket_from, chunk)]
            if min(written) < 0:
                raise EndgameDatabaseError(f"slice {slice_label(a)}: a distance over {egdb_index.MAX_DISTANCE} plies")
            # Slice 0's frontier scheduled positions of slice 1 and the other way round.
            for into, n in zip(reversed(range(len(pair))), written):
                index, at = events[into].index[:n], events[into].level[:n]
                for target in np.unique(at):
                    pending[into].setdefault(int(target), []).append(index[at == target])
        elif not any(pending) and all(starts[level + 1] == starts[-1] for _, starts in buckets):
            for s, work in zip(pair, works):
                values[int(offsets[s]) : int(offsets[s]) + len(work)] = work[:, egdb_retrograde.VALUE]
            return level
        level += 1


def build(pieces: int, folder: str | os.PathLike | None = None, progress: bool = True) -> BuildReport:
    """Build (or finish building) every slice with at most ``pieces`` pieces.

    Slices whose files are already there and check out are read, not solved again, so a
    killed build resumes where it stopped.

    Args:
        pieces: 2 to ``MAX_BUILD_PIECES``.
        folder: where the files go; default ``default_folder()``.
        progress: show a progress bar (positions, with the slice being solved).

    Raises:
        ValueError: ``pieces`` out of range.
        EndgameDatabaseError: ``folder`` is a file, or a slice there is not a file, corrupt
            or of another version.
    """
    pieces = check_pieces(pieces)
    folder = Path(folder) if folder is not None else default_folder()
    if folder.exists() and not folder.is_dir():
        raise EndgameDatabaseError(f"{folder} is a file, not a folder: choose a folder for the database")
    folder.mkdir(parents=True, exist_ok=True)
    order, offsets, total = _layout(pieces)
    values = np.zeros(total, dtype=np.uint8)
    started = time.perf_counter()
    solved = found = 0
    from tqdm.auto import tqdm

    with tqdm(total=total, unit="pos", unit_scale=True, disable=not progress, desc=f"egdb {pieces} pieces") as bar:
        for n in range(2, pieces + 1):
            for a, b in slice_pairs(n):
                pair = (a, b) if a != b else (a,)
                paths = [folder / slice_name(s) for s in pair]
                size = sum(int(egdb_index.slice_size(*s)) for s in pair)
                if all(p.exists() for p in paths):
                    for s, p in zip(pair, paths):
                        start = int(offsets[s])
                        read_slice(p, s, values[start : start + int(egdb_index.slice_size(*s))], pieces)
                    found += len(pair)
                    bar.update(size)
                    continue
                bar.set_postfix_str(" + ".join(slice_label(s) for s in pair))
                _solve_pair(values, offsets, a, b)
                for s, p in zip(pair, paths):
                    start = int(offsets[s])
                    write_slice(folder, s, values[start : start + int(egdb_index.slice_size(*s))])
                solved += len(pair)
                bar.update(size)
    on_disk = sum((folder / slice_name(s)).stat().st_size for s in order)
    return BuildReport(pieces, folder, solved, found, total, time.perf_counter() - started, on_disk)


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
    """Every slice up to ``pieces`` pieces, in memory, with Python and numba probes.

    Kernels probe with ``egdb_index.probe(db.values, db.offsets, mover, opponent, kings)``
    (mover's frame) or ``probe_board(db.values, db.offsets, black, white, kings,
    black_to_move)``.
    """

    def __init__(self, pieces: int, folder: Path, values: np.ndarray, offsets: np.ndarray, order: list[Slice]):
        self.pieces = pieces
        self.folder = folder
        self.values = values
        self.offsets = offsets
        self.slices = order

    @classmethod
    def open(cls, pieces: int | None = None, folder: str | os.PathLike | None = None) -> EndgameDatabase:
        """Load every slice up to ``pieces`` pieces, checking each file.

        Args:
            pieces: the database's pieces, 2 to ``MAX_BUILD_PIECES``; default: the largest
                complete one in the folder (``complete_pieces``).
            folder: default ``default_folder()``.

        Raises:
            ValueError: ``pieces`` out of range.
            EndgameDatabaseError: no database in the folder, or a slice missing (the
                message names it and the command that builds the whole database), not a
                file, truncated, too long, corrupt or of another version.
        """
        folder = Path(folder) if folder is not None else default_folder()
        if pieces is None:
            pieces = complete_pieces(folder)
            if pieces is None:
                missing = next(s for s in slices(2) if not (folder / slice_name(s)).exists())
                raise EndgameDatabaseError(
                    f"no endgame database in {folder} (missing slice {slice_label(missing)}, "
                    f"{slice_name(missing)}): run `{build_command(4, folder)}` "
                    "(or point $CHECKERS_EGDB at the folder that holds one)"
                )
        pieces = check_pieces(pieces)
        order, offsets, total = _layout(pieces)
        values = np.empty(total, dtype=np.uint8)
        for s in order:
            start = int(offsets[s])
            read_slice(folder / slice_name(s), s, values[start : start + int(egdb_index.slice_size(*s))], pieces)
        return cls(pieces, folder, values, offsets, order)

    @classmethod
    def cached(cls, pieces: int | None = None, folder: str | os.PathLike | None = None) -> EndgameDatabase:
        """The database ``open`` gives, opened on the first call in this process and kept:
        every agent, the league's adjudicator and the server share one copy in memory.

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
        return self.probe(board) is not None

    def probe_byte(self, board: Board) -> int:
        """The raw value byte (``egdb_index``), -1 outside the database."""
        return int(
            egdb_index.probe_board(
                self.values, self.offsets, board.black, board.white, board.kings, board.turn == Color.BLACK
            )
        )

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
        if self.probe_byte(board) < 0:
            raise EndgameDatabaseError(f"{board.fen()} is outside the {self.pieces}-piece database")
        out = []
        for move in board.legal_moves():
            child = decode(self.probe_byte(board.play(move)))
            if child.value == DRAW:
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

    def stats(self) -> list[SliceStats]:
        """Wins, losses, draws and the longest win of every slice."""
        out = []
        for s in self.slices:
            start = int(self.offsets[s])
            counts = egdb_retrograde.value_counts(self.values[start : start + int(egdb_index.slice_size(*s))])
            distances = np.arange(256) - 1
            wins = int(counts[2::2].sum())  # bytes 2, 4, ...: odd distances
            losses = int(counts[1::2].sum())
            won = np.flatnonzero(counts[2::2])
            longest = int(distances[2::2][won[-1]]) if won.size else 0
            out.append(SliceStats(s, int(counts.sum()), wins, losses, int(counts[0]), longest))
        return out


#: Databases opened by ``EndgameDatabase.cached``, by (pieces, resolved folder).
_OPENED: dict[tuple[int, Path], EndgameDatabase] = {}


def _preference(probe: Probe) -> tuple[int, int]:
    """Order of a move's outcome for its player: wins (sooner better), draws, losses
    (later better)."""
    if probe.value == WIN:
        return (2, -probe.distance)
    if probe.value == DRAW:
        return (1, 0)
    return (0, probe.distance)
