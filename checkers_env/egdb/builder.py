"""Building an endgame database: retrograde analysis pair of slices by pair, in this
process or as Ray tasks (``checkers_env.egdb.build``; the kernels are
``checkers_env.egdb.retrograde``).

**Order.** A pair (a slice and its colour swap) depends only on its exits: the slices a
capture or a crowning leads to, which have fewer pieces, or as many pieces and one man
fewer (``exit_slices``). So the pairs of one *level* (same pieces, same men in all) are
independent, and the levels are solved in order.

**Here** (``build``): every value up to the database's pieces is held in memory (one byte a
position: 146 MB for 5 pieces, 2.6 GB for 6) and the pairs are solved one after another,
each on every core.

**On Ray** (``build(..., ray=True)`` or a cluster's address): each pair of a level is a
task, run wherever Ray puts it; it reads its exits' files from the database folder, which
every node must see (a shared file system), solves the pair in memory and writes its slice
files there atomically. The driver keeps no state but the files: a killed run resumes as a
local one does, from the files that are there. The bytes are those of the local build.
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import EndgameDatabaseError
from . import index, retrograde
from .database import (
    Slice,
    check_file_slices,
    check_pieces,
    default_folder,
    level_name,
    open_file,
    slice_name,
    slice_pairs,
    slices,
    value_layout,
)
from .files import FORMAT_VERSION, MAGIC, EgdbFile, encode_slice, write_file
from .index import slice_label


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
    values: np.ndarray,
    offsets: np.ndarray,
    a: Slice,
    b: Slice,
    bucket_from: int = retrograde.BUCKET_FROM,
    chunk: int = retrograde.FRONTIER_CHUNK,
) -> int:
    """Solve one pair of slices in ``values`` (their regions must be zero); returns the
    number of levels. ``bucket_from`` and ``chunk``: see
    ``retrograde.propagate_frontier`` (the same bytes whatever they are)."""
    pair = (a, b) if a != b else (a,)
    works, buckets = [], []
    pending: list[dict[int, list[np.ndarray]]] = []
    for s in pair:
        size = int(index.slice_size(*s))
        if size >= 2**31:
            raise EndgameDatabaseError(f"slice {slice_label(s)}: {size} positions, more than the build indexes")
        work = np.zeros((size, retrograde.WORK_FIELDS), np.uint8)
        retrograde.init_slice(values, offsets, *s, work)
        works.append(work)
        buckets.append(retrograde.bucket_by_level(work))
        pending.append({})  # level -> positions the propagation scheduled there
    # Events into a slice: each position at most twice (a loss, then a faster win) per
    # level; numpy leaves the pages of the unused tail unallocated.
    events = [retrograde.Events(np.empty(2 * len(w), np.int32), np.empty(2 * len(w), np.uint8)) for w in works]
    pieces = np.array(pair, dtype=np.int64)
    level = 0
    while True:
        if level > index.MAX_DISTANCE:
            raise EndgameDatabaseError(f"slice {slice_label(a)}: a distance over {index.MAX_DISTANCE} plies")
        frontiers, counts = [], np.zeros(2, np.int64)
        for i, (work, (order, starts)) in enumerate(zip(works, buckets)):
            candidates = [order[starts[level] : starts[level + 1]], *pending[i].pop(level, [])]
            frontier = np.empty(sum(c.size for c in candidates), np.int32)
            for c in candidates:
                counts[i] = retrograde.resolve_candidates(level, work, c, frontier, counts[i])
            frontiers.append(frontier)
        if counts.any():
            if len(pair) == 2:
                written = retrograde.propagate_pair(
                    level, pieces, tuple(frontiers), counts, tuple(works), tuple(events), bucket_from, chunk
                )
            else:
                written = [
                    retrograde.propagate_frontier(
                        level, pieces[0], frontiers[0], counts[0], works[0], events[0], bucket_from, chunk
                    )
                ]
            if min(written) < 0:
                raise EndgameDatabaseError(f"slice {slice_label(a)}: a distance over {index.MAX_DISTANCE} plies")
            # Slice 0's frontier scheduled positions of slice 1 and the other way round.
            for into, n in zip(reversed(range(len(pair))), written):
                positions, at = events[into].index[:n], events[into].level[:n]
                for target in np.unique(at):
                    pending[into].setdefault(int(target), []).append(positions[at == target])
        elif not any(pending) and all(starts[level + 1] == starts[-1] for _, starts in buckets):
            for s, work in zip(pair, works):
                values[int(offsets[s]) : int(offsets[s]) + len(work)] = work[:, retrograde.VALUE]
            return level
        level += 1


def build(
    pieces: int,
    folder: str | os.PathLike | None = None,
    progress: bool = True,
    ray: bool | str = False,
) -> BuildReport:
    """Build (or finish building) every slice with at most ``pieces`` pieces.

    Each pair of slices is written to slice files as soon as it is solved, and each piece
    count, once whole, to its database file (``egdb-N.egdb``, which replaces its slice
    files). Files already there are read and checked, not solved again, so a killed build
    resumes where it stopped.

    Args:
        pieces: 2 to ``MAX_BUILD_PIECES``.
        folder: where the files go; default ``default_folder()``.
        progress: show a progress bar (positions, with the slice being solved).
        ray: solve the pairs as Ray tasks (the ``ray`` extra): ``True`` for a local Ray (or
            the cluster ``ray.init()`` finds), or a cluster's address; every node must see
            ``folder``. The bytes are the same.

    Raises:
        ValueError: ``pieces`` out of range.
        EndgameDatabaseError: ``folder`` is a file, or a file there is not a file, corrupt,
            of another version or holds other slices.
    """
    pieces = check_pieces(pieces)
    folder = Path(folder) if folder is not None else default_folder()
    if folder.exists() and not folder.is_dir():
        raise EndgameDatabaseError(f"{folder} is a file, not a folder: choose a folder for the database")
    folder.mkdir(parents=True, exist_ok=True)
    total = value_layout(pieces)[2]
    started = time.perf_counter()
    from tqdm.auto import tqdm

    with tqdm(total=total, unit="pos", unit_scale=True, disable=not progress, desc=f"egdb {pieces} pieces") as bar:
        solved, found = (_build_in_tasks if ray else _build_here)(pieces, folder, bar, ray)
    on_disk = sum((folder / level_name(n)).stat().st_size for n in range(2, pieces + 1))
    return BuildReport(pieces, folder, solved, found, total, time.perf_counter() - started, on_disk)


def _build_here(pieces: int, folder: Path, bar, ray=False) -> tuple[int, int]:
    """The build in this process, every value in memory; returns (solved, found) slices."""
    order, offsets, total = value_layout(pieces)
    values = np.zeros(total, dtype=np.uint8)

    def region(s: Slice) -> np.ndarray:
        start = int(offsets[s])
        return values[start : start + int(index.slice_size(*s))]

    solved = found = 0
    for n in range(2, pieces + 1):
        level = folder / level_name(n)
        if level.exists():
            file = open_file(level, pieces, f"the {n}-piece slices")
            check_file_slices(file, slices(n))
            for s in slices(n):
                file.slice_values(s, region(s))
                bar.update(region(s).size)
            found += len(slices(n))
            continue
        for a, b in slice_pairs(n):
            pair = (a, b) if a != b else (a,)
            if _read_pair(folder, pieces, pair, region):
                found += len(pair)
            else:
                bar.set_postfix_str(" + ".join(slice_label(s) for s in pair))
                _solve_pair(values, offsets, a, b)
                for s in pair:
                    write_file(folder / slice_name(s), [encode_slice(s, region(s))])
                solved += len(pair)
            bar.update(sum(region(s).size for s in pair))
        _join_level(folder, n, pieces)
    return solved, found


def _read_pair(folder: Path, pieces: int, pair: tuple[Slice, ...], region=None) -> bool:
    """Whether the slice files of ``pair`` are both there; they are checked, and read into
    ``region(s)`` when it is given."""
    paths = [folder / slice_name(s) for s in pair]
    if not all(p.exists() for p in paths) or any(_older_format(p) for p in paths):
        return False  # solved again, and the files replaced
    for s, p in zip(pair, paths):
        file = open_file(p, pieces, f"slice {slice_label(s)}")
        check_file_slices(file, [s])
        if region is not None:
            file.slice_values(s, region(s))
    return True


def _older_format(path: Path) -> bool:
    """Whether ``path`` is a file of an older format version, which a build replaces."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(12)
    except OSError:
        return False  # reported by name when it is read
    return len(header) == 12 and header[:8] == MAGIC and int.from_bytes(header[8:], "little") < FORMAT_VERSION


def _build_in_tasks(pieces: int, folder: Path, bar, ray: bool | str) -> tuple[int, int]:
    """The build as one task a pair (``solve_pair_task``), level by level; returns (solved,
    found) slices."""
    from ..parallel import run_pieces

    counts = {"solved": 0, "found": 0}

    def done(pair, positions: int) -> None:
        counts["solved"] += len(pair)
        bar.update(positions)

    for n in range(2, pieces + 1):
        level = folder / level_name(n)
        if level.exists():
            check_file_slices(open_file(level, pieces, f"the {n}-piece slices"), slices(n))
            counts["found"] += len(slices(n))
            bar.update(sum(int(index.slice_size(*s)) for s in slices(n)))
            continue
        for _, group in itertools.groupby(slice_pairs(n), key=lambda pair: pair[0][0] + pair[0][2]):
            todo = []
            for a, b in group:
                pair = (a, b) if a != b else (a,)
                if _read_pair(folder, pieces, pair):
                    counts["found"] += len(pair)
                    bar.update(sum(int(index.slice_size(*s)) for s in pair))
                else:
                    todo.append(pair)
            task = functools.partial(solve_pair_task, str(folder), pieces)
            run_pieces(task, todo, done, ray=ray, what="checkers egdb build", ordered=False)
        _join_level(folder, n, pieces)
    return counts["solved"], counts["found"]


def exit_slices(s: Slice) -> list[Slice]:
    """The slices a capture or a crowning out of slice ``s`` can lead to, in the frame of
    the child's side to move (the opponent loses some of its men and kings, the mover's
    man may crown); a child whose side to move has no piece left is lost and needs no slice."""
    mm, mk, om, ok = s
    found = set()
    for men, kings, crowned in itertools.product(range(om + 1), range(ok + 1), range(min(mm, 1) + 1)):
        child = (om - men, ok - kings, mm - crowned, mk + crowned)
        if men + kings + crowned and child[0] + child[1] and index.slice_size(*child) > 0:
            found.add(child)
    return sorted(found)


def solve_pair_task(folder: str | os.PathLike, pieces: int, pair: tuple[Slice, ...]) -> int:
    """Solve one pair of slices from the files of its exits in ``folder`` and write its
    slice files there: a task of the build on Ray. Returns the pair's positions.

    Raises:
        EndgameDatabaseError: an exit's file is missing or damaged.
    """
    root = Path(folder)
    pair = tuple((mm, mk, om, ok) for mm, mk, om, ok in pair)  # Ray may hand over lists
    needed = sorted({e for s in pair for e in exit_slices(s)} - set(pair))
    offsets = np.full((index.MAX_SIDE + 1,) * 4, -1, dtype=np.int64)
    total = 0
    for s in (*needed, *pair):
        offsets[s] = total
        total += int(index.slice_size(*s))
    values = np.zeros(total, dtype=np.uint8)

    def region(s: Slice) -> np.ndarray:
        return values[int(offsets[s]) : int(offsets[s]) + int(index.slice_size(*s))]

    opened: dict[Path, EgdbFile] = {}
    for s in needed:
        path = root / level_name(sum(s))
        path = path if path.exists() else root / slice_name(s)
        if path not in opened:
            opened[path] = open_file(path, pieces, f"slice {slice_label(s)}")
        if s not in opened[path].entries:
            raise opened[path].error(f"does not hold slice {slice_label(s)}")
        opened[path].slice_values(s, region(s))
    _solve_pair(values, offsets, pair[0], pair[-1])
    for s in pair:
        write_file(root / slice_name(s), [encode_slice(s, region(s))])
    return sum(region(s).size for s in pair)


def _join_level(folder: Path, n: int, pieces: int) -> None:
    """Write the slice files of the ``n``-piece slices into one database file (the probe
    maps one array a piece count), then delete them."""
    parts = []
    for s in slices(n):
        file = open_file(folder / slice_name(s), pieces, f"slice {slice_label(s)}")
        check_file_slices(file, [s])
        parts.append(file.slice_data(s))
    write_file(folder / level_name(n), parts)
    del parts, file  # the slice files' maps, before their files go
    for s in slices(n):
        (folder / slice_name(s)).unlink()
