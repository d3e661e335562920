"""The files of a league folder: the game records (``games.jsonl``) and the lock that keeps a
second league out of a folder while one writes to it.

``games.jsonl`` holds one JSON game record a line, appended as each game ends. Reading it
(:func:`load_records`) drops a last line cut off by a kill, drops a game recorded twice
(the first record of a key wins) with a warning naming the keys, and refuses any other bad
line with its file and line number.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path
from typing import TextIO

from checkers_env.errors import CheckersError
from checkers_env.files import json_lines
from checkers_env.match import GameRecord

GAMES_FILE = "games.jsonl"
LOCK_FILE = ".lock"

#: The results a league game can end with (a finished game: never ``*``).
RESULTS = ("1-0", "0-1", "1/2-1/2")


class LeagueError(CheckersError):
    """A league that cannot run as asked (bad openings, a resume that does not match...)."""


class LeagueWarning(UserWarning):
    """Something in a league folder that was repaired while reading it (a game recorded twice)."""


def load_records(path: str | os.PathLike, repair: bool = False) -> list[GameRecord]:
    """Records of a ``games.jsonl``, one per game key.

    A last line cut off by a kill is dropped (and, with ``repair``, removed from the file);
    a key recorded more than once keeps its first record, with a :class:`LeagueWarning`
    naming the keys (and, with ``repair``, the file keeps one line per key).

    Raises:
        LeagueError: ``FILE:LINE:`` and what is wrong, for a line that is not a game record
            (not JSON, a missing field, a result that is not 1-0, 0-1 or 1/2-1/2).
    """
    path = Path(path)
    lines = json_lines(path, LeagueError, "game record")
    records: list[GameRecord] = []
    kept: list[str] = []
    seen: set[str] = set()
    repeated: list[str] = []
    for number, line, data in lines:
        record = _record(data, path, number)
        if record.key in seen:
            repeated.append(record.key)
            continue
        seen.add(record.key)
        records.append(record)
        kept.append(line if line.endswith("\n") else line + "\n")
    if repeated:
        shown = ", ".join(repeated[:10]) + (f" and {len(repeated) - 10} more" if len(repeated) > 10 else "")
        warnings.warn(
            f"{path}: dropped {len(repeated)} games recorded twice (kept the first of each): {shown}",
            LeagueWarning,
            stacklevel=2,
        )
    if repair and len(kept) != len(path.read_text(encoding="utf-8").splitlines()):
        from checkers_env.files import write_atomic

        write_atomic(path, "".join(kept).encode("utf-8"))
    return records


def _record(data: object, path: Path, number: int) -> GameRecord:
    """The game record of one parsed line, checked."""
    where = f"{path}:{number}"
    if not isinstance(data, dict):
        raise LeagueError(f"{where}: a game record must be a JSON object, got {type(data).__name__}")
    try:
        record = GameRecord.from_dict(data)
    except TypeError as error:
        raise LeagueError(f"{where}: not a game record: {error}") from None
    if record.result not in RESULTS:
        raise LeagueError(f"{where}: result {record.result!r} is not one of {', '.join(RESULTS)}")
    for name in ("black", "white", "key"):
        if not isinstance(getattr(record, name), str):
            raise LeagueError(f"{where}: {name} must be a string, got {getattr(record, name)!r}")
    if not isinstance(record.moves, list) or not all(isinstance(m, str) for m in record.moves):
        raise LeagueError(f"{where}: moves must be a list of PDN moves")
    sides = record.seconds
    if not isinstance(sides, dict) or not all(k in ("black", "white") and _is_seconds(s) for k, s in sides.items()):
        raise LeagueError(f"{where}: seconds must map black and white to seconds")
    seconds = record.move_seconds
    if not isinstance(seconds, list) or not all(_is_seconds(s) for s in seconds):
        raise LeagueError(f"{where}: move_seconds must be a list of seconds")
    return record


def _is_seconds(value: object) -> bool:
    """Whether ``value`` is a time: a finite number of seconds, not negative (JSON's
    ``true`` reads as a Python ``bool``, which is an ``int``: not seconds)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


class FolderLock:
    """An exclusive lock on a league folder, held while a league writes to it.

    The lock is ``fcntl.flock`` on ``FOLDER/.lock``: the system releases it when the
    holding process ends, however it ends, so a killed league never leaves it stuck.
    (Where ``fcntl`` does not exist, Windows, no lock is taken.)
    """

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self._handle: TextIO | None = None

    def acquire(self) -> None:
        """Take the lock.

        Raises:
            LeagueError: another process holds it (one line naming the folder and, when
                known, that process).
        """
        try:
            import fcntl
        except ImportError:
            return
        handle = open(self.folder / LOCK_FILE, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip()
            handle.close()
            by = f" (process {holder})" if holder.isdigit() else ""
            raise LeagueError(
                f"another league is writing to {self.folder}{by}: wait for it to end, or choose another --out"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the file releases the lock
            self._handle = None

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


__all__ = ["GAMES_FILE", "RESULTS", "FolderLock", "LeagueError", "LeagueWarning", "load_records"]
