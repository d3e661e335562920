"""One store for data built in shards: a folder of numbered ``.npz`` files, each written
atomically as it is built (``files.write_atomic``) on the one runner of pieces of work
(``parallel.run_pieces``: here, in a pool of processes, or as Ray tasks), and, for a
database, a JSON card.

A learner declares its shards as a :class:`ShardFormat` (its arrays, format version, kind
and the function that builds one shard) and the store does the rest: ``shard_bytes``,
``read_shard``, ``generate``, ``load_shards`` and ``load``. A shard holds
``format_version``, an optional ``kind``, its index ``shard`` and the ``seed`` beside its
arrays, so that a folder can be checked and finished: a shard that is missing, truncated by
a kill, of another version, kind or seed, or with the wrong number of records is built
again; the others are kept. Every bad file raises ``checkers_env.errors.ShardError``,
naming the file and the fault.
"""

from __future__ import annotations

import functools
import io
import json
import os
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ShardError
from .files import write_atomic, write_json_atomic
from .parallel import run_pieces

#: The card of a shard folder.
CARD = "card.json"


def shard_path(folder: str | os.PathLike, shard: int) -> Path:
    """The file of shard ``shard`` in ``folder``."""
    return Path(folder) / f"shard-{shard:05d}.npz"


@dataclass(frozen=True)
class ShardFormat:
    """What a learner's shards hold and how one is built; the store writes, checks, finishes
    and loads their folders.

    Attributes:
        version: the format version written into every shard and card; others are refused.
        arrays: the arrays every shard holds (a shard lacking one is refused); the first has
            one row per position.
        build: ``build(params, seed, shard)`` gives shard ``shard``'s arrays as stored; a
            module-level function, so that worker processes and Ray tasks can run it.
        kind: written into every shard and card, and checked when read (None: no kind).
        unit: the parameter that counts the folder's records (``games`` or ``positions``),
            ``params["shard_size"]`` of them a shard, the last shard the rest.
        counted: the array with one row per record, checked against the shard's size.
        loaded: the arrays :meth:`load_shards` and :meth:`load` concatenate (None: ``arrays``).
        shapes: ``(name, row shape)`` pairs: arrays whose rows must have that shape.
        decode: turns a shard's arrays as stored into what :meth:`read_shard` gives (None:
            as stored).
        card: the folder holds a card naming its parameters, seed and counts (a database).
    """

    version: int
    arrays: tuple[str, ...] = ()
    build: Callable[[dict, int, int], dict[str, np.ndarray]] | None = None
    kind: str | None = None
    unit: str = "games"
    counted: str = "game_index"
    loaded: tuple[str, ...] | None = None
    shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()
    decode: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]] | None = None
    card: bool = False

    # -- one shard --------------------------------------------------------------------------

    def encode(self, shard: int, seed: int, arrays: dict) -> bytes:
        """The ``.npz`` bytes of shard ``shard`` holding ``arrays`` (what a worker sends back)."""
        head: dict[str, Any] = {"format_version": np.int64(self.version)}
        if self.kind is not None:
            head["kind"] = np.str_(self.kind)
        buffer = io.BytesIO()
        np.savez(buffer, **head, shard=np.int64(shard), seed=np.int64(seed), **arrays)
        return buffer.getvalue()

    def shard_bytes(self, params: dict, seed: int, shard: int) -> bytes:
        """Build shard ``shard`` of ``params`` and ``seed`` and return its ``.npz`` bytes."""
        if self.build is None:
            raise TypeError("this shard format has no builder")
        return self.encode(shard, seed, self.build(params, seed, shard))

    def read(self, path: str | os.PathLike, shard: int | None = None) -> dict[str, np.ndarray]:
        """Every array of one shard as stored, checked.

        Args:
            path: the shard's file.
            shard: the index it must hold (None: any).

        Raises:
            ShardError: missing, corrupt, truncated, of another format version or kind, not
                the shard expected, lacking arrays, or with rows of the wrong shape.
        """
        path = Path(path)
        if not path.is_file():
            raise ShardError(f"{path}: shard missing")
        try:
            with np.load(path, allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        except (zipfile.BadZipFile, ValueError, EOFError, OSError, KeyError) as error:
            raise ShardError(f"{path}: corrupt or truncated shard ({type(error).__name__}: {error})") from None
        version = arrays.get("format_version")
        if version is None or int(version) != self.version:
            raise ShardError(
                f"{path}: shard of format version {None if version is None else int(version)}, "
                f"this code reads version {self.version}"
            )
        got_kind = str(arrays.get("kind", ""))
        if self.kind is not None and got_kind != self.kind:
            raise ShardError(f"{path}: a shard of kind {got_kind!r}, the card says {self.kind!r}")
        if shard is not None and int(arrays.get("shard", -1)) != shard:
            raise ShardError(f"{path}: holds shard {int(arrays.get('shard', -1))}, expected {shard}")
        missing = [name for name in self.arrays if name not in arrays]
        if missing:
            raise ShardError(f"{path}: shard lacks arrays {', '.join(missing)}")
        for name, rows in self.shapes:
            if arrays[name].shape[1:] != rows:
                raise ShardError(f"{path}: array {name} of shape {arrays[name].shape}, rows of shape {rows} expected")
        return arrays

    def read_shard(self, path: str | os.PathLike, shard: int | None = None) -> dict[str, np.ndarray]:
        """Every array of one shard, checked (:meth:`read`) and decoded.

        Raises:
            ShardError: as :meth:`read`.
        """
        arrays = self.read(path, shard)
        return arrays if self.decode is None else self.decode(arrays)

    # -- a folder ---------------------------------------------------------------------------

    def sizes(self, params: dict) -> list[int]:
        """The records of each shard of ``params`` (``unit`` in all, ``shard_size`` a shard)."""
        total, size = params[self.unit], params["shard_size"]
        return [min(size, total - start) for start in range(0, total, size)]

    def missing(self, folder: str | os.PathLike, sizes: Sequence[int], seed: int) -> list[int]:
        """The shards of ``folder`` to build: those that do not read back as shard ``k`` of
        ``seed`` with ``sizes[k]`` records."""
        todo = []
        for k in range(len(sizes)):
            try:
                arrays = self.read(shard_path(folder, k), k)
            except ShardError:
                todo.append(k)
                continue
            if int(arrays["seed"]) != seed or len(arrays[self.counted]) != sizes[k]:
                todo.append(k)
        return todo

    def read_card(self, folder: str | os.PathLike) -> dict:
        """The card of ``folder``, checked for its format version.

        Raises:
            ShardError: missing, unreadable, or of another format version.
        """
        path = Path(folder) / CARD
        if not path.is_file():
            raise ShardError(f"{path}: missing card (not a database folder, or generation never started)")
        try:
            card = json.loads(path.read_text())
        except (ValueError, OSError) as error:
            raise ShardError(f"{path}: unreadable card ({error})") from None
        if not isinstance(card, dict) or card.get("format_version") != self.version:
            version = card.get("format_version") if isinstance(card, dict) else None
            raise ShardError(f"{path}: card of format version {version}, this code reads version {self.version}")
        return card

    def generate(
        self,
        folder: str | os.PathLike,
        params: dict,
        seed: int,
        workers: int = 1,
        ray: bool | str = False,
        progress: bool = True,
    ) -> list[Path]:
        """Build the shards of ``folder`` that are missing or unreadable (the others are kept,
        so a killed run resumes), with a progress bar over records; returns every shard's path.
        A shard depends on ``(seed, shard)`` and ``params`` only: the same bytes whichever way
        it is built. With a card, the card is written first (``complete`` false) and last.

        Args:
            folder: where the shards go (created).
            params: the builder's parameters, with ``shard_size`` and the ``unit``'s count.
            seed: the seed every shard holds.
            workers: processes (1: this process).
            ray: ``True`` (a local or initialised Ray) or a cluster address: one Ray task per shard.
            progress: show the progress bar.

        Raises:
            ShardError: the folder's card names other parameters, kind or seed.
        """
        from tqdm.auto import tqdm

        started = time.perf_counter()
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        card = self._start_card(folder, params, seed) if self.card else None
        start_folder(folder)
        sizes = self.sizes(params)
        if card is not None:
            card["shards"], card["complete"] = len(sizes), False
            write_card(folder, card)
        todo = self.missing(folder, sizes, seed)
        bar = tqdm(
            total=sum(sizes),
            initial=sum(sizes) - sum(sizes[k] for k in todo),
            unit=self.unit,
            desc="self-play" if self.kind is None else f"data {self.kind}",
            disable=not progress,
            dynamic_ncols=True,
        )
        threads = max(1, (os.cpu_count() or 1) // max(1, workers))
        try:
            build_shards(
                folder,
                functools.partial(self.shard_bytes, params, seed),
                todo,
                lambda k: bar.update(sizes[k]),
                workers,
                ray,
                initializer=_worker_threads,
                initargs=(threads,),
                what="self-play" if self.kind is None else "data generation",
            )
        finally:
            bar.close()
        paths = [shard_path(folder, k) for k in range(len(sizes))]
        if card is not None:
            parts = [self.read(path, k) for k, path in enumerate(paths)]
            counts = [len(part[self.counted]) for part in parts]
            card.update(complete=True, shard_counts=counts, built_now=len(todo))
            card["wall_s"] = round(time.perf_counter() - started, 3)
            card[self.unit] = sum(counts)
            card["positions"] = sum(len(part[self.arrays[0]]) for part in parts)
            write_card(folder, card)
        return paths

    def _start_card(self, folder: Path, params: dict, seed: int) -> dict:
        """The new card of ``folder``; the card there already must name the same kind,
        parameters and seed."""
        if (folder / CARD).exists():
            old = self.read_card(folder)
            if old.get("kind") != self.kind or old.get("params") != params or old.get("seed") != seed:
                raise ShardError(
                    f"{folder / CARD}: a {old.get('kind')} database with other parameters or seed "
                    f"(params {old.get('params')}, seed {old.get('seed')}); use another folder"
                )
        from .provenance import git_commit

        card: dict[str, Any] = {"format_version": self.version}
        if self.kind is not None:
            card["kind"] = self.kind
        card.update(params=params, seed=seed, commit=git_commit())
        return card

    # -- loading ----------------------------------------------------------------------------

    def load_shards(self, paths: Sequence[str | os.PathLike]) -> dict[str, np.ndarray]:
        """The ``loaded`` arrays of several shards, each read and checked, concatenated.

        Raises:
            ShardError: a shard missing, corrupt, truncated or of another version or kind.
        """
        parts = [self.read_shard(path) for path in paths]
        return {name: np.concatenate([part[name] for part in parts]) for name in self.loaded or self.arrays}

    def load(self, folder: str | os.PathLike) -> dict[str, np.ndarray]:
        """The ``loaded`` arrays of a folder with a card, concatenated over its shards in
        order, checked against the card (format version, kind, shard count, per-shard counts,
        positions).

        Raises:
            ShardError: missing card, unfinished generation, a missing, corrupt, truncated
                or other-version shard, or counts that differ from the card's.
        """
        folder = Path(folder)
        card = self.read_card(folder)
        if card.get("kind") != self.kind:
            raise ShardError(f"{folder / CARD}: a database of kind {card.get('kind')!r}, not {self.kind!r}")
        if not card.get("complete"):
            raise ShardError(f"{folder / CARD}: generation not finished (run the same command again to resume)")
        parts = []
        for k in range(card["shards"]):
            path = shard_path(folder, k)
            arrays = self.read_shard(path, k)
            expected = card["shard_counts"][k]
            if len(arrays[self.counted]) != expected:
                raise ShardError(f"{path}: holds {len(arrays[self.counted])} records, the card says {expected}")
            parts.append(arrays)
        out = {name: np.concatenate([part[name] for part in parts]) for name in self.loaded or self.arrays}
        positions = sum(len(part[self.arrays[0]]) for part in parts)
        if positions != card["positions"]:
            raise ShardError(f"{folder / CARD}: says {card['positions']} positions, the shards hold {positions}")
        return out


def _worker_threads(threads: int) -> None:
    """A worker's numba threads: its share of the machine's cores."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # set at numba's import
    numba.set_num_threads(max(1, min(threads, most)))


def start_folder(folder: str | os.PathLike) -> Path:
    """Create ``folder`` and remove what a killed write left there (``*.tmp``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for leftover in folder.glob("*.tmp"):
        leftover.unlink()
    return folder


def build_shards(
    folder: str | os.PathLike,
    build: Callable[[int], bytes],
    todo: Sequence[int],
    written: Callable[[int], None] | None = None,
    workers: int = 1,
    ray: bool | str = False,
    initializer: Callable | None = None,
    initargs: tuple = (),
    what: str = "this run",
) -> None:
    """Build the shards ``todo`` of ``folder`` and write each atomically as it arrives.

    Args:
        build: ``build(k)`` gives shard ``k``'s bytes (picklable: see ``run_pieces``).
        written: called with ``k`` after shard ``k`` is on disk.
        workers, ray, initializer, initargs, what: as ``parallel.run_pieces``.
    """

    def done(k: int, data: bytes) -> None:
        write_atomic(shard_path(folder, k), data)
        if written is not None:
            written(k)

    run_pieces(build, todo, done, workers, ray, initializer=initializer, initargs=initargs, what=what)


def write_card(folder: str | os.PathLike, card: dict) -> Path:
    """Write the card of ``folder`` atomically."""
    return write_json_atomic(Path(folder) / CARD, card)


__all__ = ["CARD", "ShardFormat", "build_shards", "shard_path", "start_folder", "write_card"]
