"""The one shard store (``checkers_env.shards``): shards read back as written, every bad
file is refused with the generator's error naming it, and a folder is finished, not redone."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env.shards import CARD, ShardFormat, build_shards, shard_path, start_folder, write_card


class StoreError(ValueError):
    pass


FORMAT = ShardFormat(3, StoreError)


def make(k: int) -> bytes:
    return FORMAT.encode(k, 7, {"value": np.arange(k + 1, dtype=np.int64)}, kind="test")


def test_shards_read_back_as_written_and_only_missing_ones_are_built(tmp_path):
    folder = start_folder(tmp_path / "db")
    built = []
    build_shards(folder, make, [0, 1, 2], built.append)
    assert built == [0, 1, 2]
    arrays = FORMAT.read(shard_path(folder, 2), 2, "test", ("value",))
    assert arrays["value"].tolist() == [0, 1, 2] and int(arrays["seed"]) == 7
    # Shard 1 truncated by a kill, a temporary file left behind: only shard 1 is built again.
    shard_path(folder, 1).write_bytes(shard_path(folder, 1).read_bytes()[:50])
    (folder / "shard-00001.npz.x.tmp").write_bytes(b"partial")
    start_folder(folder)
    assert not list(folder.glob("*.tmp"))
    sizes = [1, 2, 3]
    assert FORMAT.missing(folder, sizes, 7, "test", lambda a: len(a["value"])) == [1]
    assert FORMAT.missing(folder, sizes, 8, "test") == [0, 1, 2]  # another seed
    assert FORMAT.missing(folder, [1, 5, 3], 7, "test", lambda a: len(a["value"])) == [1]


def test_bad_shards_and_cards_raise_the_generators_error_naming_the_file(tmp_path):
    folder = start_folder(tmp_path)
    path = shard_path(folder, 0)
    with pytest.raises(StoreError, match="shard missing"):
        FORMAT.read(path)
    path.write_bytes(b"not a zip file")
    with pytest.raises(StoreError, match="corrupt or truncated"):
        FORMAT.read(path)
    path.write_bytes(ShardFormat(2, StoreError).encode(0, 7, {}))
    with pytest.raises(StoreError, match="format version 2, this code reads version 3"):
        FORMAT.read(path)
    path.write_bytes(make(0))
    with pytest.raises(StoreError, match="kind 'test', the card says 'other'"):
        FORMAT.read(path, kind="other")
    with pytest.raises(StoreError, match="holds shard 0, expected 4"):
        FORMAT.read(path, 4)
    with pytest.raises(StoreError, match="lacks arrays black"):
        FORMAT.read(path, required=lambda kind: ("value", "black"))
    with pytest.raises(StoreError, match="missing card"):
        FORMAT.read_card(folder)
    (folder / CARD).write_text("{not json")
    with pytest.raises(StoreError, match="unreadable card"):
        FORMAT.read_card(folder)
    write_card(folder, {"format_version": 1})
    with pytest.raises(StoreError, match=f"{CARD}: card of format version 1"):
        FORMAT.read_card(folder)
    write_card(folder, {"format_version": 3, "kind": "test"})
    assert FORMAT.read_card(folder)["kind"] == "test"
