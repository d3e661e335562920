"""Where PDN text comes from: a path (plain, ``.gz`` or ``.xz``), an open file, bytes or
text, read a block of whole lines at a time and decoded, for the reader of
:mod:`checkers_env.pdn` (which reads a file game by game, whatever its size).

A path is checked by :func:`checkers_env.files.input_file` before it is opened (a named
pipe or a folder is refused by name); a compressed file is decompressed as it is read.
"""

from __future__ import annotations

import gzip
import io
import lzma
import os
import zlib
from collections.abc import Iterator
from typing import Any, Protocol

from .errors import PdnError
from .files import input_file

#: Bytes of PDN text read at a time: whole lines, about this many.
BLOCK_BYTES = 1 << 16


def source_lines(source) -> tuple[str | None, Iterator[list]]:
    """The file that ``source`` names (None when it is no path) and its lines, bytes or
    str, a list of about ``BLOCK_BYTES`` at a time; a file is opened at once (so that a
    path that names no regular file is refused at once) and closed when read."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return None, _handle_lines(io.BytesIO(bytes(source)))
    if isinstance(source, str):
        # A one-line string naming something that exists (or ending in .pdn...) is a path.
        one_line = "\n" not in source and "\x00" not in source and len(source) < 4096
        if not (one_line and (source.strip().lower().endswith(_PDN_SUFFIXES) or os.path.lexists(source))):
            return None, _handle_lines(io.StringIO(source))
    elif not isinstance(source, os.PathLike):
        if callable(getattr(source, "readlines", None)):  # an open file: the caller closes it
            return None, _handle_lines(source)
        raise PdnError(f"expected PDN text, bytes, a path or an open file, got {type(source).__name__}")
    path = input_file(source, "PDN file", PdnError)
    name = str(path)
    suffix = path.suffix.lower()
    try:  # closed by _handle_lines once read, so that iter_pdn can hand out games as it reads
        handle = gzip.open(path) if suffix == ".gz" else lzma.open(path) if suffix == ".xz" else open(path, "rb")
    except OSError as error:
        raise PdnError(f"cannot read PDN file {name!r}: {error.strerror or error}") from None
    return name, _handle_lines(handle, close=True)


#: The endings of a string that names a PDN file rather than holds PDN text.
_PDN_SUFFIXES = (".pdn", ".pdn.gz", ".pdn.xz")


def naming_the_file(games: Iterator, path: str | None) -> Iterator:
    """``games`` as they come, with the file ``path`` named in every error of the reading."""
    try:
        yield from games
    except PdnError as error:
        if path is None or error.path is not None:
            raise
        raise PdnError(error.message, error.line, path) from None
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as error:
        # A compressed file that is corrupt or cut short, or a read that failed.
        if path is None:
            raise
        raise PdnError(f"cannot read PDN file {path!r}: {error}") from None


class _LineFile(Protocol):
    """What is read of an open file: text, binary or decompressing."""

    def readlines(self, hint: int = -1, /) -> list[Any]: ...

    def close(self) -> None: ...


def _handle_lines(handle: _LineFile, close: bool = False) -> Iterator[list]:
    """The lines of an open file, a list of about ``BLOCK_BYTES`` at a time."""
    try:
        while lines := handle.readlines(BLOCK_BYTES):
            yield lines
    finally:
        if close:
            handle.close()


def text_blocks(blocks: Iterator[list], lenient: bool, notes: dict[int, str]) -> Iterator[str]:
    """The text of blocks of lines: bytes decoded as UTF-8 (lenient: a line that is not is
    read as Latin-1, and CR and CRLF line ends become LF), a byte order mark at the start
    dropped; in lenient mode each repair is noted in ``notes``, by line.

    Raises:
        PdnError: strict mode, bytes that are not UTF-8 (with their line and column).
    """
    line = 1  # of the block's first line
    for lines in blocks:
        if isinstance(lines[0], str):
            text = "".join(lines)
        else:
            data = b"".join(lines)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                if not lenient:
                    where = line + data.count(b"\n", 0, error.start)
                    column = error.start - data.rfind(b"\n", 0, error.start)
                    raise PdnError(
                        f"not UTF-8 text: byte {data[error.start]:#04x} at column {column} ({error.reason})", where
                    ) from None
                text = _latin1_lines(data, line, notes)
        if lenient:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if line == 1 and text.startswith("\ufeff"):
            text = text[1:]
            if lenient:
                notes[1] = (notes[1] + "; " if 1 in notes else "") + "byte order mark dropped"
        line += text.count("\n")
        yield text


def _latin1_lines(data: bytes, line: int, notes: dict[int, str]) -> str:
    """``data`` (lines from ``line`` on) decoded line by line: UTF-8, or Latin-1 where a line
    is not UTF-8, with a note on that line."""
    decoded = []
    for number, raw in enumerate(data.splitlines(keepends=True), line):
        try:
            decoded.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            decoded.append(raw.decode("latin-1"))
            notes[number] = "bytes that are not UTF-8, read as Latin-1"
    return "".join(decoded)


__all__ = ["BLOCK_BYTES", "naming_the_file", "source_lines", "text_blocks"]
