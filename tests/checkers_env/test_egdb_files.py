"""The endgame database's files (``checkers_env.egdb.files``): the documented layout, the
round trip, every kind of damage refused with the file's name, and the resumable build."""

from __future__ import annotations

import functools
import lzma
import os
import shutil
import struct
import zlib

import numpy as np
import pytest

from checkers_env import Board, egdb
from checkers_env.egdb import builder as egdb_build
from checkers_env.egdb import files as ef
from checkers_env.egdb import index as ek


@pytest.fixture
def egdb3(tmp_path, egdb_folder):
    """A fresh folder holding a copy of the database up to 3 pieces."""
    folder = tmp_path / "egdb3"
    folder.mkdir()
    for n in (2, 3):
        shutil.copy(egdb_folder / egdb.level_name(n), folder / egdb.level_name(n))
    return folder


def test_a_copy_of_three_pieces_opens_and_probes_as_the_four_piece_database(egdb3, egdb4, egdb4_values):
    """The 3-piece database opened from its files holds the same values as the 4-piece one."""
    values, offsets, order = egdb.load_values(3, egdb3)
    four, four_offsets, _ = egdb4_values
    assert values.size == sum(int(ek.slice_size(*s)) for n in (2, 3) for s in egdb.slices(n))
    for s in order:
        a, b = int(offsets[s]), int(four_offsets[s])
        size = int(ek.slice_size(*s))
        assert np.array_equal(values[a : a + size], four[b : b + size]), s
    db = egdb.EndgameDatabase.open(3, egdb3)
    assert db.slices == order
    assert db.probe(Board.from_fen("B:WK30,K31:BK1,K2")) is None
    assert db.probe(Board.from_fen("B:WK30:BK1,K2")) == egdb4.probe(Board.from_fen("B:WK30:BK1,K2"))


def test_a_database_file_has_the_documented_layout(egdb3, egdb4_values):
    """Header, slice table, each slice's 2-bit codes and its LZMA blocks of distances in
    moves, read here with ``struct``, ``zlib`` and ``lzma`` alone."""
    data = (egdb3 / egdb.level_name(3)).read_bytes()
    values, offsets, _ = egdb4_values
    magic, version, count, crc = struct.unpack_from("<8sIII", data)
    assert (magic, version, count) == (b"CKEGDB\x00\x00", ef.FORMAT_VERSION, len(egdb.slices(3)))
    tables = data[64 : 64 + 64 * count]
    for i, s in enumerate(egdb.slices(3)):
        (*counts, codes_crc, positions, codes_at, blocks_at, wins, losses, draws, longest_win, longest_loss) = (
            struct.unpack_from("<4BIQQQQQQHH4x", data, 64 + 64 * i)
        )
        expected = values[int(offsets[s]) : int(offsets[s]) + int(ek.slice_size(*s))]
        assert (tuple(counts), positions) == (s, expected.size) and codes_at % 64 == 0
        codes = np.frombuffer(data, np.uint8, (positions + 3) // 4, codes_at)
        assert zlib.crc32(codes) == codes_crc
        unpacked = (codes[np.arange(positions) // 4] >> (2 * (np.arange(positions) % 4))) & 3
        wins_at = (expected > 0) & (expected % 2 == 0)
        assert np.array_equal(unpacked, np.where(expected == 0, 0, np.where(wins_at, 2, 1)))
        assert (wins, losses, draws) == (wins_at.sum(), ((expected % 2) == 1).sum(), (expected == 0).sum())
        assert longest_win == (expected[wins_at].max() - 1 if wins_at.any() else 0)
        lost = expected[expected % 2 == 1]
        assert longest_loss == (lost.max() - 1 if lost.size else 0)
        blocks = -(-positions // ek.BLOCK)
        ends = np.frombuffer(data, np.uint64, blocks + 1, blocks_at)
        crcs = np.frombuffer(data, np.uint32, blocks, blocks_at + 8 * (blocks + 1))
        tables += data[blocks_at : blocks_at + 12 * blocks + 8]
        moves = b""
        for b in range(blocks):
            block = data[int(ends[b]) : int(ends[b + 1])]
            assert zlib.crc32(block) == crcs[b]
            moves += lzma.decompress(
                block,
                format=lzma.FORMAT_RAW,
                filters=[{"id": lzma.FILTER_LZMA2, "preset": 6, "lc": 0, "lp": 0, "pb": 0}],
            )
        assert moves == ((expected[expected > 0].astype(int) - 1) // 2).astype(np.uint8).tobytes()
    assert zlib.crc32(tables) == crc and int(ends[-1]) == len(data)


def test_a_slice_written_then_read_gives_its_values_back_block_by_block(tmp_path):
    """``encode_slice`` and ``write_file``, then ``EgdbFile``: every block and the whole
    slice come back, over several blocks and a short last one."""
    s = (0, 2, 0, 2)
    size = int(ek.slice_size(*s))
    assert size > 3 * ek.BLOCK and size % ek.BLOCK
    values = np.random.default_rng(3).integers(0, 40, size, dtype=np.uint8)
    path = ef.write_file(tmp_path / "x.egdb", [ef.encode_slice(s, values)])
    file = ef.EgdbFile(path, "rebuild it")
    assert np.array_equal(file.slice_values(s), values)
    for b in range(-(-size // ek.BLOCK)):
        assert np.array_equal(file.block(s, b), values[b * ek.BLOCK : (b + 1) * ek.BLOCK]), b
    out = np.zeros_like(values)
    file.slice_values(s, out)
    assert np.array_equal(out, values)


def corrupt(path, change) -> None:
    data = bytearray(path.read_bytes())
    path.write_bytes(bytes(change(data)))


def entry(data, i=0):
    """``(codes_at, blocks_at)`` of slice ``i`` of a file's bytes."""
    fields = struct.unpack_from("<4BIQQQQQQHH4x", data, 64 + 64 * i)
    return fields[6], fields[7]


def flip_code_byte(data):
    data[entry(data)[0] + 3] ^= 0x01
    return data


def flip_table_byte(data):
    data[64 + 64 + 24] ^= 0x01  # the second slice's wins
    return data


def other_version(data):
    struct.pack_into("<I", data, 8, ef.FORMAT_VERSION + 6)
    return data


def wrong_magic(data):
    data[:8] = b"GARBAGE!"
    return data


@pytest.mark.parametrize(
    "change, words",
    [
        (flip_code_byte, ["checksum mismatch in the codes of slice"]),
        (flip_table_byte, ["checksum mismatch in its tables"]),
        (lambda data: data[:-1], ["truncated"]),
        (lambda data: data + b"\x00", ["too long"]),
        (lambda data: data * 2, ["too long"]),
        (lambda data: data[:20], ["truncated header"]),
        (lambda data: data[:200], ["truncated slice table"]),
        (other_version, [f"format version {ef.FORMAT_VERSION + 6}", f"reads {ef.FORMAT_VERSION}"]),
        (wrong_magic, ["not an endgame database file"]),
    ],
    ids=[
        "codes",
        "table",
        "truncated",
        "too-long",
        "twice",
        "truncated-header",
        "truncated-table",
        "other-version",
        "garbage",
    ],
)
def test_a_damaged_file_is_refused_with_its_name(egdb3, change, words):
    """Opening a database with one damaged file raises ``EndgameDatabaseError`` naming the
    file, what is wrong with it, and the command that rebuilds it."""
    path = egdb3 / egdb.level_name(3)
    corrupt(path, change)
    with pytest.raises(egdb.EndgameDatabaseError) as caught:
        egdb.EndgameDatabase.open(3, egdb3)
    message = str(caught.value)
    assert str(path) in message
    for word in words:
        assert word in message
    assert "checkers egdb build --pieces 3" in message
    assert ("truncated" in message) != ("too long" in message) or "truncated" not in " ".join(words)


def test_a_damaged_block_of_distances_is_named_when_it_is_read(egdb3):
    """The distances are checked block by block when read: the database opens (the codes
    are sound), its win/draw/loss probes work, and a distance from the damaged block, or
    loading every value, raises naming the file and the block."""
    path = egdb3 / egdb.level_name(3)
    data = bytearray(path.read_bytes())
    _, blocks_at = entry(data, len(egdb.slices(3)) - 1)
    first = int(np.frombuffer(data, np.uint64, 1, blocks_at)[0])
    data[first + 5] ^= 0x10
    path.write_bytes(bytes(data))
    db = egdb.EndgameDatabase.open(3, egdb3)
    s = egdb.slices(3)[-1]
    boards = (Board(*(int(x) for x in ek.slice_position(*s, index))) for index in range(ek.BLOCK))
    board = next(b for b in boards if db.probe_code(b) != ek.WDL_DRAW)
    with pytest.raises(egdb.EndgameDatabaseError, match=f"block 0 of slice {egdb.slice_label(s)}") as caught:
        db.probe_byte(board)
    assert str(path) in str(caught.value)
    with pytest.raises(egdb.EndgameDatabaseError, match="checksum mismatch in block 0"):
        egdb.load_values(3, egdb3)


def test_a_file_holding_other_slices_is_refused(egdb3):
    """A database file renamed to another piece count's name is refused, both named."""
    shutil.copy(egdb3 / egdb.level_name(2), egdb3 / egdb.level_name(3))
    with pytest.raises(egdb.EndgameDatabaseError, match=r"holds slices 0m1k-0m1k .* expected 0m1k-0m2k"):
        egdb.EndgameDatabase.open(3, egdb3)


def test_a_missing_file_is_named_with_the_command_that_builds_it(egdb3):
    """Opening without one file names that file and the ``checkers egdb build`` command of
    the database being opened (which builds every missing piece count)."""
    with pytest.raises(egdb.EndgameDatabaseError) as caught:
        egdb.EndgameDatabase.open(4, egdb3)
    assert egdb.level_name(4) in str(caught.value) and "the 4-piece slices" in str(caught.value)
    assert "checkers egdb build --pieces 4" in str(caught.value)
    (egdb3 / egdb.level_name(3)).unlink()
    with pytest.raises(egdb.EndgameDatabaseError) as caught:
        egdb.EndgameDatabase.open(3, egdb3)
    message = str(caught.value)
    assert str(egdb3 / egdb.level_name(3)) in message and "missing the 3-piece slices" in message
    assert "checkers egdb build --pieces 3" in message


def split_into_slice_files(folder, n):
    """Undo the end of a build of ``n`` pieces: its file back into one file a slice, as a
    build killed before joining them leaves them."""
    file = ef.EgdbFile(folder / egdb.level_name(n), "")
    for s in egdb.slices(n):
        ef.write_file(folder / egdb.slice_name(s), [file.slice_data(s)])
    del file
    (folder / egdb.level_name(n)).unlink()


def test_a_killed_build_resumes_by_solving_only_the_missing_pair_byte_for_byte(egdb3):
    """With the 3-piece slices left in slice files and one pair of them deleted, ``build``
    solves that pair again, reads every other file, and joins the same bytes as before."""
    before = (egdb3 / egdb.level_name(3)).read_bytes()
    split_into_slice_files(egdb3, 3)
    a, b = next((a, b) for a, b in egdb.slice_pairs(3) if a != b)
    for s in (a, b):
        (egdb3 / egdb.slice_name(s)).unlink()
    all_slices = len(egdb.slices(2)) + len(egdb.slices(3))
    report = egdb.build(3, egdb3, progress=False)
    assert (report.solved, report.found) == (2, all_slices - 2)
    assert report.positions == sum(int(ek.slice_size(*s)) for n in (2, 3) for s in egdb.slices(n))
    assert sorted(p.name for p in egdb3.iterdir()) == [egdb.level_name(2), egdb.level_name(3)]
    assert report.bytes == sum(p.stat().st_size for p in egdb3.iterdir())
    assert (egdb3 / egdb.level_name(3)).read_bytes() == before
    again = egdb.build(3, egdb3, progress=False)
    assert (again.solved, again.found) == (0, all_slices)


def test_updates_in_bucket_order_and_in_small_chunks_give_the_same_bytes(egdb_folder, tmp_path, monkeypatch):
    """The build's memory-order updates (on for large slices only) and its chunked
    frontiers change no byte: every file up to four pieces, built with both on
    everywhere, equals the usual build."""
    monkeypatch.setattr(egdb_build, "_solve_pair", functools.partial(egdb_build._solve_pair, bucket_from=0, chunk=97))
    egdb.build(4, tmp_path, progress=False)
    for n in range(2, 5):
        name = egdb.level_name(n)
        assert (tmp_path / name).read_bytes() == (egdb_folder / name).read_bytes(), name


@pytest.mark.parametrize("split", [False, True], ids=["database-file", "slice-file"])
def test_a_build_refuses_a_corrupt_file_it_would_resume_from(egdb3, split):
    """``build`` reads the files already there and stops at a corrupt one."""
    if split:
        split_into_slice_files(egdb3, 3)
    path = egdb3 / (egdb.slice_name(egdb.slices(3)[0]) if split else egdb.level_name(2))
    corrupt(path, flip_code_byte)
    with pytest.raises(egdb.EndgameDatabaseError, match="checksum") as caught:
        egdb.build(3, egdb3, progress=False)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("pieces", [1, 9, 0, 2.0, "3"])
def test_build_refuses_a_number_of_pieces_out_of_range(tmp_path, pieces):
    """``build`` takes 2 to ``MAX_BUILD_PIECES`` pieces and says so."""
    with pytest.raises(ValueError, match="pieces"):
        egdb.build(pieces, tmp_path / "never", progress=False)
    assert not (tmp_path / "never").exists()


def test_open_refuses_fewer_than_two_pieces(tmp_path):
    """A database of fewer than 2 pieces does not exist."""
    with pytest.raises(ValueError, match="pieces"):
        egdb.EndgameDatabase.open(1, tmp_path)


def test_open_refuses_more_pieces_than_build_makes(tmp_path):
    """The accepted range is what ``build`` makes (``MAX_BUILD_PIECES``), not whatever
    the memory of the machine would be asked for."""
    for pieces in (egdb.MAX_BUILD_PIECES + 1, 7, 100):
        with pytest.raises(ValueError, match=f"pieces must be a number of pieces from 2 to {egdb.MAX_BUILD_PIECES}"):
            egdb.EndgameDatabase.open(pieces, tmp_path)


def test_cached_opens_each_database_once_per_process(egdb_folder, tmp_path, monkeypatch):
    """Every user of a database (agents, the league, the server) shares one map: the same
    pieces and folder, however spelled, give the same object; the folder's largest
    database is the default; another size is another database."""
    first = egdb.EndgameDatabase.cached(4, egdb_folder)
    assert egdb.EndgameDatabase.cached(4, str(egdb_folder / "." / "")) is first
    assert egdb.EndgameDatabase.cached(folder=egdb_folder) is first
    monkeypatch.setenv("CHECKERS_EGDB", str(egdb_folder))
    assert egdb.EndgameDatabase.cached(4) is first
    three = egdb.EndgameDatabase.cached(3, egdb_folder)
    assert three is not first and three.pieces == 3


@pytest.mark.parametrize("pieces", [1, 7, True, 4.0, "4"])
def test_cached_refuses_what_open_refuses(egdb_folder, pieces):
    with pytest.raises(ValueError, match="pieces must be a number of pieces from 2 to"):
        egdb.EndgameDatabase.cached(pieces, egdb_folder)


def test_cached_keeps_no_failed_open(egdb_folder, tmp_path):
    """A folder without a database fails each time it is asked (no stale verdict), and
    works once the database is there."""
    for _ in range(2):
        with pytest.raises(egdb.EndgameDatabaseError, match="no endgame database"):
            egdb.EndgameDatabase.cached(folder=tmp_path)
        with pytest.raises(egdb.EndgameDatabaseError, match="missing the 2-piece slices"):
            egdb.EndgameDatabase.cached(2, tmp_path)
    for path in egdb_folder.iterdir():
        shutil.copy(path, tmp_path / path.name)
    assert egdb.EndgameDatabase.cached(2, tmp_path).pieces == 2


@pytest.mark.parametrize("pieces", [3, None], ids=["pieces-3", "largest"])
def test_a_folder_in_place_of_a_file_is_named(egdb3, pieces):
    """A folder where a database file should be is reported by its name, also when the
    database's size is found from the files (it is not silently a smaller database)."""
    path = egdb3 / egdb.level_name(3)
    path.unlink()
    path.mkdir()
    with pytest.raises(egdb.EndgameDatabaseError, match="a folder where a database file should be") as caught:
        egdb.EndgameDatabase.open(pieces, egdb3)
    assert str(path) in str(caught.value) and "checkers egdb build --pieces 3" in str(caught.value)
    with pytest.raises(egdb.EndgameDatabaseError, match=egdb.level_name(3)):
        egdb.build(3, egdb3, progress=False)


def test_build_refuses_a_file_for_its_folder(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    with pytest.raises(egdb.EndgameDatabaseError, match="is a file, not a folder"):
        egdb.build(2, notes, progress=False)
    assert notes.read_text() == "keep me"


def test_database_bytes_are_what_a_build_writes(egdb_folder):
    """``LEVEL_BYTES`` is what the build writes here, within a few bytes a block (another
    LZMA library may compress a little differently)."""
    for n in range(2, 5):
        written = (egdb_folder / egdb.level_name(n)).stat().st_size
        assert abs(written - egdb.LEVEL_BYTES[n]) <= 0.01 * egdb.LEVEL_BYTES[n], n
    assert egdb.database_bytes(4) == sum(egdb.LEVEL_BYTES[n] for n in range(2, 5))


def test_exit_slices_are_every_slice_a_capture_or_crowning_leads_to(egdb4_values):
    """``exit_slices`` (what a build task reads) holds the slice of every child by a capture
    or a crowning of every position of the 3- and 4-piece slices, and nothing more."""
    from checkers_env.movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves

    rng = np.random.default_rng(5)
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    for s in egdb.slices(3) + egdb.slices(4):
        seen = set()
        for index in rng.integers(0, int(ek.slice_size(*s)), 3000):
            mover, opponent, kings = (int(x) for x in ek.slice_position(*s, int(index)))
            for k in range(generate_moves(mover, opponent, kings, True, moves)):
                m, o, kk = (int(x) for x in ek.child_frame(mover, opponent, kings, *moves[k, [FROM, TO, CAPTURED]]))
                child = ((m & ~kk).bit_count(), (m & kk).bit_count(), (o & ~kk).bit_count(), (o & kk).bit_count())
                if child != (s[2], s[3], s[0], s[1]) and m:
                    seen.add(child)
        assert seen <= set(egdb_build.exit_slices(s)), s
    assert egdb_build.exit_slices((1, 0, 1, 0)) == [(1, 0, 0, 1)]  # taking the last man ends the game
    assert egdb_build.exit_slices((1, 1, 1, 1)) == [
        (0, 1, 0, 2),
        (0, 1, 1, 1),
        (1, 0, 0, 2),
        (1, 0, 1, 1),
        (1, 1, 0, 2),
    ]


@pytest.mark.skipif(os.environ.get("CHECKERS_SKIP_RAY") == "1", reason="CHECKERS_SKIP_RAY=1")
@pytest.mark.parametrize("pieces", [3, pytest.param(5, marks=pytest.mark.slow)])
def test_a_build_on_a_local_ray_writes_the_bytes_of_the_local_build(egdb_folder, tmp_path, pieces):
    """Every pair as a Ray task reading its exits from the folder, from the files of one
    piece fewer: the same file as the local build (``make test-slow``: 5 pieces, about
    two minutes each way); run again, it finds every slice."""
    ray = pytest.importorskip("ray")
    here, there = tmp_path / "here", tmp_path / "ray"
    for folder in (here, there):
        folder.mkdir()
        for n in range(2, min(pieces, 5)):
            shutil.copy(egdb_folder / egdb.level_name(n), folder / egdb.level_name(n))
    egdb.build(pieces, here, progress=False)
    cache = os.environ.get("NUMBA_CACHE_DIR")
    # One worker, which loads the build's kernels once: Ray runs its workers at a low
    # priority (nice 15), so on a busy machine each worker's start is most of this test.
    ray.init(
        num_cpus=1,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"NUMBA_CACHE_DIR": cache}} if cache else None,
    )
    try:
        report = egdb.build(pieces, there, progress=False, ray=True)
        again = egdb.build(pieces, there, progress=False, ray=True)
    finally:
        ray.shutdown()
    slices = [len(egdb.slices(n)) for n in range(2, pieces + 1)]
    assert (report.solved, report.found) == (slices[-1], sum(slices[:-1]))
    assert (again.solved, again.found) == (0, sum(slices))
    assert sorted(p.name for p in there.iterdir()) == [egdb.level_name(n) for n in range(2, pieces + 1)]
    name = egdb.level_name(pieces)
    assert (there / name).read_bytes() == (here / name).read_bytes()


def test_a_build_replaces_the_slice_files_of_an_older_format(egdb_folder, tmp_path):
    """Slice files of format 1 (a 32-byte header, then one byte a position) are solved
    again and replaced, not refused: the folder ends as a fresh build leaves it."""
    for s in egdb.slices(2):
        old = struct.pack("<8sI4BQII", b"CKEGDB\x00\x00", 1, *s, int(ek.slice_size(*s)), 0, 0).ljust(32, b"\x00")
        (tmp_path / egdb.slice_name(s)).write_bytes(old + bytes(int(ek.slice_size(*s))))
    report = egdb.build(2, tmp_path, progress=False)
    assert (report.solved, report.found) == (len(egdb.slices(2)), 0)
    assert [p.name for p in tmp_path.iterdir()] == [egdb.level_name(2)]
    assert (tmp_path / egdb.level_name(2)).read_bytes() == (egdb_folder / egdb.level_name(2)).read_bytes()
