"""Endgame database files: win/draw/loss codes to memory-map, distances compressed apart.

A file holds one or more slices (``checkers_env.egdb.index``). For each slice it keeps

* its **codes**: 2 bits a position (``index.WDL_*``: draw, loss, win for the side to
  move), 4 positions a byte, stored raw so that a search probes them through a memory map
  of the file (``EgdbFile.codes``): the processes that open one file share one copy in the
  operating system's page cache;
* its **distances**, in blocks of ``index.BLOCK`` positions, each compressed alone
  (LZMA2): the distances in moves (``d // 2``, the code gives the parity) of the block's
  positions that are not drawn, in index order. A distance probe decompresses one block
  (about a millisecond) and keeps the last few (``EgdbFile.block``).

Layout (little-endian)::

    header        64 bytes: magic "CKEGDB\\0\\0", format version, number of slices,
                  CRC-32 of the slice table and the block tables
    slice table   64 bytes a slice (``_ENTRY``): counts, positions, where its codes and its
                  block table start, CRC-32 of its codes, wins, losses, draws, longest
                  win and loss in plies
    per slice     its codes (64-byte aligned), then its block table (``blocks + 1`` uint64
                  file offsets, ``blocks`` uint32 CRC-32s of the compressed blocks), then
                  the blocks

The tables and the codes are checked when a file is opened, each block when it is
decompressed or copied; a file that fails a check raises ``EndgameDatabaseError`` naming it
and what to run.
"""

from __future__ import annotations

import lzma
import mmap
import os
import struct
import zlib
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import EndgameDatabaseError
from ..files import write_atomic
from . import index, retrograde
from .index import slice_label

#: Version of the file format and of the index; a file of another version is refused.
FORMAT_VERSION = 2
MAGIC = b"CKEGDB\x00\x00"
_HEADER = struct.Struct("<8sIII")  # magic, version, slices, crc32 of the tables
HEADER_SIZE = 64
# counts (4 bytes), crc32 of the codes, positions, codes offset, block table offset, wins,
# losses, draws, longest win, longest loss
_ENTRY = struct.Struct("<4BIQQQQQQHH4x")
ENTRY_SIZE = 64
ALIGN = 64
#: The distances' codec: LZMA2 without literal context (the bytes are small numbers, not
#: text); measured on the 6-piece database, 4.3x against 3.2x with the text defaults.
FILTERS = ({"id": lzma.FILTER_LZMA2, "preset": 6, "lc": 0, "lp": 0, "pb": 0},)
#: Decompressed blocks each file keeps (a position's neighbours in a game share blocks).
CACHED_BLOCKS = 64

Slice = tuple[int, int, int, int]


@dataclass(frozen=True)
class SliceEntry:
    """A slice's line of a file's table."""

    slice: Slice
    positions: int
    codes_at: int
    blocks_at: int
    codes_crc: int
    wins: int
    losses: int
    draws: int
    longest_win: int
    longest_loss: int

    @property
    def blocks(self) -> int:
        return -(-self.positions // index.BLOCK)

    @property
    def code_bytes(self) -> int:
        return -(-self.positions // 4)


@dataclass(frozen=True)
class SliceData:
    """A slice ready to be written: its packed codes, compressed blocks and counts."""

    slice: Slice
    positions: int
    codes: np.ndarray
    blocks: list
    wins: int
    losses: int
    draws: int
    longest_win: int
    longest_loss: int


def encode_slice(s: Slice, values: np.ndarray, threads: int | None = None) -> SliceData:
    """Pack a slice's value bytes (``index``) into codes and compressed distance blocks.

    The blocks are compressed on ``threads`` threads (default: every core; LZMA releases
    the interpreter lock).
    """
    codes = np.empty(-(-values.size // 4), dtype=np.uint8)
    index.pack_codes(values, codes)
    counts = retrograde.value_counts(values)
    starts = range(0, values.size, index.BLOCK)

    def compress(start: int) -> bytes:
        stop = min(start + index.BLOCK, values.size)
        moves = np.empty(stop - start, dtype=np.uint8)
        kept = index.block_moves(values, start, stop, moves)
        return lzma.compress(moves[:kept].tobytes(), format=lzma.FORMAT_RAW, filters=FILTERS)

    with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        blocks = list(pool.map(compress, starts))
    distances = np.arange(256) - 1
    won, lost = np.flatnonzero(counts[2::2]), np.flatnonzero(counts[1::2])
    return SliceData(
        s,
        int(values.size),
        codes,
        blocks,
        wins=int(counts[2::2].sum()),
        losses=int(counts[1::2].sum()),
        draws=int(counts[0]),
        longest_win=int(distances[2::2][won[-1]]) if won.size else 0,
        longest_loss=int(distances[1::2][lost[-1]]) if lost.size else 0,
    )


def _aligned(at: int) -> int:
    return -(-at // ALIGN) * ALIGN


def write_file(path: Path, parts: list[SliceData]) -> Path:
    """Write slices to one file atomically (temporary file, fsync, rename)."""
    at = HEADER_SIZE + ENTRY_SIZE * len(parts)
    entries, tables, chunks = [], [], []
    for part in parts:
        codes_at = _aligned(at)
        blocks_at = codes_at + part.codes.size
        first = blocks_at + 12 * len(part.blocks) + 8
        ends = np.cumsum([0] + [len(b) for b in part.blocks], dtype=np.uint64) + np.uint64(first)
        crcs = np.array([zlib.crc32(b) for b in part.blocks], dtype=np.uint32)
        table = ends.tobytes() + crcs.tobytes()
        tables.append(table)
        entries.append(
            _ENTRY.pack(
                *part.slice,
                zlib.crc32(part.codes.data),
                part.positions,
                codes_at,
                blocks_at,
                part.wins,
                part.losses,
                part.draws,
                part.longest_win,
                part.longest_loss,
            )
        )
        chunks += [b"\x00" * (codes_at - at), np.ascontiguousarray(part.codes), table, *part.blocks]
        at = int(ends[-1])
    crc = zlib.crc32(b"".join(tables), zlib.crc32(b"".join(entries)))
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, len(parts), crc).ljust(HEADER_SIZE, b"\x00")
    return write_atomic(path, [header, *entries, *chunks])


class EgdbFile:
    """One database file, memory-mapped and checked.

    Attributes:
        path: the file.
        codes: ``uint8`` array over the whole file (read-only, memory-mapped): slice ``s``'s
            codes start at ``entries[s].codes_at``.
        entries: ``SliceEntry`` by slice, in file order.
    """

    def __init__(self, path: Path, rebuild: str):
        """Map ``path`` and check its header, tables and codes (reading the codes brings
        them into the page cache: about a second for the 6-piece file).

        Args:
            path: the file.
            rebuild: what an error message tells the user to do (``delete it and run ...``).

        Raises:
            EndgameDatabaseError: the file is not a file, truncated, too long, corrupt or of
                another format version.
        """
        self.path = Path(path)
        self.rebuild = rebuild
        try:
            with open(self.path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size < HEADER_SIZE:
                    raise self.error(f"truncated header ({size} bytes)")
                self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except IsADirectoryError:
            raise EndgameDatabaseError(f"{self.path}: a folder where a database file should be; {rebuild}") from None
        self.codes = np.frombuffer(self._map, dtype=np.uint8)
        magic, version, count, crc = _HEADER.unpack_from(self._map, 0)
        if magic != MAGIC:
            raise self.error(f"not an endgame database file (magic {magic!r})")
        if version != FORMAT_VERSION:
            raise self.error(f"format version {version}, this version of checkers-suite reads {FORMAT_VERSION}")
        end = HEADER_SIZE + ENTRY_SIZE * count
        if end > size:
            raise self.error(f"truncated slice table ({size} bytes)")
        self.entries: dict[Slice, SliceEntry] = {}
        tables_crc = zlib.crc32(self._map[HEADER_SIZE:end])
        for i in range(count):
            (*s, codes_crc, positions, codes_at, blocks_at, wins, losses, draws, longest_win, longest_loss) = (
                _ENTRY.unpack_from(self._map, HEADER_SIZE + ENTRY_SIZE * i)
            )
            entry = SliceEntry(
                tuple(s), positions, codes_at, blocks_at, codes_crc, wins, losses, draws, longest_win, longest_loss
            )
            table_end = blocks_at + 12 * entry.blocks + 8
            if table_end > size:
                raise self.error(f"truncated (slice {slice_label(entry.slice)}'s blocks end past {size} bytes)")
            tables_crc = zlib.crc32(self._map[blocks_at:table_end], tables_crc)
            self.entries[entry.slice] = entry
        if tables_crc != crc:
            raise self.error("checksum mismatch in its tables (the file is corrupt)")
        last = max((int(self._ends(e)[-1]) for e in self.entries.values()), default=end)
        if last != size:
            raise self.error(f"{'too long' if size > last else 'truncated'} ({size} bytes, its tables say {last})")
        for key, entry in self.entries.items():
            if zlib.crc32(self.slice_codes(key).data) != entry.codes_crc:
                raise self.error(f"checksum mismatch in the codes of slice {slice_label(key)} (the file is corrupt)")
        self._blocks: OrderedDict = OrderedDict()

    def error(self, what: str) -> EndgameDatabaseError:
        return EndgameDatabaseError(f"{self.path}: {what}; {self.rebuild}")

    def _ends(self, entry: SliceEntry) -> np.ndarray:
        return np.frombuffer(self._map, dtype=np.uint64, count=entry.blocks + 1, offset=entry.blocks_at)

    def _crcs(self, entry: SliceEntry) -> np.ndarray:
        at = entry.blocks_at + 8 * (entry.blocks + 1)
        return np.frombuffer(self._map, dtype=np.uint32, count=entry.blocks, offset=at)

    def slice_codes(self, s: Slice) -> np.ndarray:
        """The packed codes of slice ``s`` (a view into the map)."""
        entry = self.entries[s]
        return self.codes[entry.codes_at : entry.codes_at + entry.code_bytes]

    def compressed_block(self, s: Slice, block: int) -> memoryview:
        """Block ``block`` of slice ``s``'s distances as stored, after checking its CRC-32."""
        entry = self.entries[s]
        ends = self._ends(entry)
        data = memoryview(self._map)[int(ends[block]) : int(ends[block + 1])]
        if zlib.crc32(data) != int(self._crcs(entry)[block]):
            raise self.error(f"checksum mismatch in block {block} of slice {slice_label(s)} (the file is corrupt)")
        return data

    def block(self, s: Slice, block: int) -> np.ndarray:
        """The value bytes (``index``) of the positions of block ``block`` of slice ``s``."""
        key = (s, block)
        values = self._blocks.get(key)
        if values is not None:
            self._blocks.move_to_end(key)
            return values
        entry = self.entries[s]
        try:
            moves = np.frombuffer(
                lzma.decompress(self.compressed_block(s, block), format=lzma.FORMAT_RAW, filters=FILTERS),
                dtype=np.uint8,
            )
        except lzma.LZMAError as caught:
            raise self.error(f"block {block} of slice {slice_label(s)} does not decompress ({caught})") from None
        first = block * index.BLOCK
        values = np.empty(min(index.BLOCK, entry.positions - first), dtype=np.uint8)
        if index.expand_block(self.slice_codes(s), first, moves, values) != moves.size:
            raise self.error(f"block {block} of slice {slice_label(s)} does not match its codes (the file is corrupt)")
        values.flags.writeable = False
        self._blocks[key] = values
        if len(self._blocks) > CACHED_BLOCKS:
            self._blocks.popitem(last=False)
        return values

    def slice_values(self, s: Slice, out: np.ndarray | None = None) -> np.ndarray:
        """Every value byte of slice ``s`` (decompresses all its blocks) into ``out``."""
        entry = self.entries[s]
        out = np.empty(entry.positions, dtype=np.uint8) if out is None else out
        codes = self.slice_codes(s)
        for block in range(entry.blocks):
            first = block * index.BLOCK
            moves = np.frombuffer(
                lzma.decompress(self.compressed_block(s, block), format=lzma.FORMAT_RAW, filters=FILTERS),
                dtype=np.uint8,
            )
            target = out[first : min(first + index.BLOCK, entry.positions)]
            if index.expand_block(codes, first, moves, target) != moves.size:
                raise self.error(
                    f"block {block} of slice {slice_label(s)} does not match its codes (the file is corrupt)"
                )
        return out

    def slice_data(self, s: Slice) -> SliceData:
        """Slice ``s`` as stored (its blocks checked; views into the map), to be written into
        another file."""
        entry = self.entries[s]
        codes = self.slice_codes(s)
        blocks = [self.compressed_block(s, b) for b in range(entry.blocks)]
        return SliceData(
            s,
            entry.positions,
            codes,
            blocks,
            entry.wins,
            entry.losses,
            entry.draws,
            entry.longest_win,
            entry.longest_loss,
        )
