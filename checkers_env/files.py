"""Files in and out: the one check of a file given to read, and the one atomic writer
(weights files are read and written by ``checkers_env.weights``).

Every file a user names for reading (weights, PDN games, openings, books) goes through
:func:`input_file` before it is opened: a folder, a named pipe, a socket or a device is
refused with one line naming the path and what it is, where opening it would fail, block
for ever or never end.

A log written a line at a time (a league's ``games.jsonl``, an autopsy's drift set) is read
back by :func:`json_lines`, which drops the last line when a kill cut it short.

Every checkpoint, weights file, zoo card and run record goes through :func:`write_atomic`:
the bytes go to a temporary file beside the target, are flushed to disk, and the file is
renamed over the target (atomic on POSIX), so a reader sees the old file or the new one.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: Mode of every file written: readable by all, as ``open()`` would make it under the usual
#: umask (``mkstemp`` alone gives 0600, which hid zoo weights from other users).
FILE_MODE = 0o644

#: What a path that is not a regular file names, by its ``stat`` test.
_NOT_REGULAR = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def input_file(path: str | os.PathLike, what: str, error: type[Exception] = ValueError) -> Path:
    """``path`` checked to name a regular file (or a link to one), before anything opens it.

    Opening a named pipe waits until another program writes to it, a device may never end
    and a folder cannot be read as a file: each is refused here, as is an empty path (which
    ``Path`` would take for the current folder).

    Args:
        path: the path as the user gave it.
        what: what the file should be, for the message (``"td-minimax weights file"``).
        error: the exception raised for a path that names no regular file (the caller's
            ``CheckersError``: ``WeightsError``, ``PdnError``).

    Returns:
        ``path`` as a ``Path``.

    Raises:
        FileNotFoundError: nothing is at ``path`` (``"<what> 'PATH' does not exist"``).
        error: one line naming the path: it is empty, a folder, a named pipe, a socket or
            a device, or it cannot be looked up (permission denied, a file where a folder
            should be).
    """
    text = os.fsdecode(os.fspath(path))
    if text == "":
        raise error(f"no {what} given: the path is empty")
    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} {text!r} does not exist") from None
    except (OSError, ValueError) as problem:  # ValueError: a NUL byte in the path
        reason = problem.strerror if isinstance(problem, OSError) and problem.strerror else str(problem)
        raise error(f"cannot read {what} {text!r}: {reason}") from None
    if stat.S_ISREG(mode):
        return Path(text)
    if stat.S_ISDIR(mode):
        raise error(f"{what} {text!r} is a folder, not a file")
    kind = next((name for test, name in _NOT_REGULAR if test(mode)), "a special file")
    raise error(f"{what} {text!r} is {kind}, not a regular file")


def write_atomic(path: str | os.PathLike, data: bytes | Iterable[bytes]) -> Path:
    """Write ``data`` (bytes, or chunks of bytes written in turn) to ``path`` atomically
    (temporary file, fsync, rename); returns the path.

    The parent folder is created if needed; the file gets mode 0644.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in [data] if isinstance(data, (bytes, bytearray, memoryview)) else data:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def json_text(document, indent: int | None = None) -> str:
    """``document`` as strict JSON: a float that is not finite (an accuracy over no games:
    nan) becomes ``null``, since ``NaN`` and ``Infinity`` are not JSON and other readers
    refuse them."""
    return json.dumps(_finite(document), indent=indent, allow_nan=False)


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def write_json_atomic(path: str | os.PathLike, document) -> Path:
    """:func:`write_atomic` for a JSON document (indented, keys in the given order; a float
    that is not finite is written as ``null``, see :func:`json_text`)."""
    return write_atomic(path, (json_text(document, indent=2) + "\n").encode())


def json_lines(
    path: str | os.PathLike, error: type[Exception] = ValueError, what: str = "JSON line"
) -> list[tuple[int, str, object]]:
    """The lines of a JSON-lines file as ``(line number, line, value)``, the last line
    dropped when it is not JSON (a write a kill cut short).

    Raises:
        error: ``FILE:LINE: corrupt WHAT: ...`` for a line other than the last that is
            not JSON.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    found = []
    for number, line in enumerate(lines, 1):
        try:
            found.append((number, line, json.loads(line)))
        except json.JSONDecodeError as problem:
            if number == len(lines):
                break
            raise error(f"{path}:{number}: corrupt {what}: {problem}") from None
    return found


__all__ = ["FILE_MODE", "input_file", "json_lines", "write_atomic", "write_json_atomic"]
