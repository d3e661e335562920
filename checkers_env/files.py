"""Writing files so that a kill never leaves half of one: the suite's one atomic writer
(weights files are read and written by ``checkers_env.weights``).

Every checkpoint, weights file, zoo card and run record goes through :func:`write_atomic`:
the bytes go to a temporary file beside the target, are flushed to disk, and the file is
renamed over the target (atomic on POSIX), so a reader sees the old file or the new one.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: Mode of every file written: readable by all, as ``open()`` would make it under the usual
#: umask (``mkstemp`` alone gives 0600, which hid zoo weights from other users).
FILE_MODE = 0o644


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



__all__ = ["FILE_MODE", "write_atomic", "write_json_atomic"]
