"""One store for data built in shards: a folder of numbered ``.npz`` files, each written
atomically as it is built (``files.write_atomic``) on the one runner of pieces of work
(``parallel.run_pieces``: here, in a pool of processes, or as Ray tasks), and a JSON card.

A shard holds ``format_version``, an optional ``kind``, its index ``shard`` and the ``seed``
beside its arrays, so that a folder can be checked and finished: a shard that is missing,
truncated by a kill, of another version, kind or seed, or with the wrong number of records
is built again; the others are kept. A generator gives its own error class, so that its
users see its errors (``mcrd.data.McrdDataError``, ``outcome_net.SelfPlayDataError``).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .files import write_atomic, write_json_atomic
from .parallel import run_pieces

#: The card of a shard folder.
CARD = "card.json"


def shard_path(folder: str | os.PathLike, shard: int) -> Path:
    """The file of shard ``shard`` in ``folder``."""
    return Path(folder) / f"shard-{shard:05d}.npz"


@dataclass(frozen=True)
class ShardFormat:
    """What a generator's shards and card hold, and the error it raises about them.

    Attributes:
        version: the format version written into every shard and card; others are refused.
        error: the exception class raised for a missing, corrupt or unexpected file.
    """

    version: int
    error: type[Exception]

    def encode(self, shard: int, seed: int, arrays: dict, kind: str | None = None) -> bytes:
        """The ``.npz`` bytes of shard ``shard`` (what a worker sends back)."""
        head: dict[str, Any] = {"format_version": np.int64(self.version)}
        if kind is not None:
            head["kind"] = np.str_(kind)
        buffer = io.BytesIO()
        np.savez(buffer, **head, shard=np.int64(shard), seed=np.int64(seed), **arrays)
        return buffer.getvalue()

    def read(
        self,
        path: str | os.PathLike,
        shard: int | None = None,
        kind: str | None = None,
        required: Callable[[str], Iterable[str]] | Iterable[str] = (),
    ) -> dict[str, np.ndarray]:
        """Every array of one shard, checked.

        Args:
            shard: the index it must hold (None: any).
            kind: the kind it must be (None: any).
            required: the arrays it must hold, or a function of its kind giving them.

        Raises:
            error: missing, corrupt, truncated, of another format version or kind, not
                the shard expected, or lacking arrays.
        """
        path = Path(path)
        if not path.is_file():
            raise self.error(f"{path}: shard missing")
        try:
            with np.load(path, allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        except (zipfile.BadZipFile, ValueError, EOFError, OSError, KeyError) as error:
            raise self.error(f"{path}: corrupt or truncated shard ({type(error).__name__}: {error})") from None
        version = arrays.get("format_version")
        if version is None or int(version) != self.version:
            raise self.error(
                f"{path}: shard of format version {None if version is None else int(version)}, "
                f"this code reads version {self.version}"
            )
        got_kind = str(arrays.get("kind", ""))
        if kind is not None and got_kind != kind:
            raise self.error(f"{path}: a shard of kind {got_kind!r}, the card says {kind!r}")
        if shard is not None and int(arrays.get("shard", -1)) != shard:
            raise self.error(f"{path}: holds shard {int(arrays.get('shard', -1))}, expected {shard}")
        names = required(got_kind) if callable(required) else required
        missing = [name for name in names if name not in arrays]
        if missing:
            raise self.error(f"{path}: shard lacks arrays {', '.join(missing)}")
        return arrays

    def read_card(self, folder: str | os.PathLike) -> dict:
        """The card of ``folder``, checked for its format version.

        Raises:
            error: missing, unreadable, or of another format version.
        """
        path = Path(folder) / CARD
        if not path.is_file():
            raise self.error(f"{path}: missing card (not a database folder, or generation never started)")
        try:
            card = json.loads(path.read_text())
        except (ValueError, OSError) as error:
            raise self.error(f"{path}: unreadable card ({error})") from None
        if not isinstance(card, dict) or card.get("format_version") != self.version:
            version = card.get("format_version") if isinstance(card, dict) else None
            raise self.error(f"{path}: card of format version {version}, this code reads version {self.version}")
        return card

    def missing(
        self,
        folder: str | os.PathLike,
        sizes: Sequence[int],
        seed: int,
        kind: str | None = None,
        records: Callable[[dict], int] | None = None,
    ) -> list[int]:
        """The shards of ``folder`` to build: those that do not read back as shard ``k`` of
        ``seed`` (and ``kind``), with ``sizes[k]`` records when ``records`` counts them."""
        todo = []
        for k in range(len(sizes)):
            try:
                arrays = self.read(shard_path(folder, k), k, kind)
            except self.error:
                todo.append(k)
                continue
            if int(arrays["seed"]) != seed or (records is not None and records(arrays) != sizes[k]):
                todo.append(k)
        return todo


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


def build_game_shards(
    shards: ShardFormat,
    folder: str | os.PathLike,
    build: Callable[[int], bytes],
    games: int,
    shard_size: int,
    seed: int,
    workers: int = 1,
    ray: bool | str = False,
    progress: bool = True,
) -> list[Path]:
    """Build the shards of a folder of self-play games (``shard_size`` games each, the last
    one the rest) that are missing or unreadable, with a progress bar over games; returns
    every shard's path.

    Args:
        shards: the format the shards are checked against.
        build: ``build(k)`` gives shard ``k``'s bytes (picklable).
        games, shard_size: the games in all, and per shard.
        seed: the seed the shards must hold.
        workers, ray: as ``parallel.run_pieces`` (processes, or one Ray task per shard).
        progress: show the progress bar.
    """
    from tqdm.auto import tqdm

    folder = start_folder(folder)
    count = -(-games // shard_size)
    sizes = [min(shard_size, games - k * shard_size) for k in range(count)]
    todo = shards.missing(folder, sizes, seed)
    bar = tqdm(
        total=games,
        initial=games - sum(sizes[k] for k in todo),
        unit="games",
        desc="self-play",
        disable=not progress,
        dynamic_ncols=True,
    )
    try:
        build_shards(folder, build, todo, lambda k: bar.update(sizes[k]), workers, ray, what="self-play")
    finally:
        bar.close()
    return [shard_path(folder, k) for k in range(count)]


def write_card(folder: str | os.PathLike, card: dict) -> Path:
    """Write the card of ``folder`` atomically."""
    return write_json_atomic(Path(folder) / CARD, card)


__all__ = ["CARD", "ShardFormat", "build_shards", "shard_path", "start_folder", "write_card"]
