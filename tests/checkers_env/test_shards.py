"""The one shard store (``checkers_env.shards``): shards read back as written, every bad
file is refused with ``ShardError`` naming it, a folder is finished, not redone, and a
database loads only as its card says."""

from __future__ import annotations

import json

import numpy as np
import pytest

from checkers_env.errors import CheckersError, ShardError
from checkers_env.shards import CARD, ShardFormat, build_shards, shard_path, start_folder, write_card


def build_rows(params: dict, seed: int, shard: int) -> dict[str, np.ndarray]:
    """A test builder: shard ``shard`` holds ``size`` positions of one game each."""
    size = min(params["shard_size"], params["games"] - shard * params["shard_size"])
    first = shard * params["shard_size"]
    return {
        "value": np.arange(first, first + size, dtype=np.int64) + seed,
        "game_index": np.arange(first, first + size, dtype=np.int64),
        "bits": np.zeros((size, 2), np.uint8),
    }


FORMAT = ShardFormat(3, ("value", "game_index", "bits"), build_rows, "test", shapes=(("bits", (2,)),))
DATABASE = ShardFormat(3, ("value", "game_index"), build_rows, "test", loaded=("value",), card=True)


def make(k: int) -> bytes:
    return FORMAT.shard_bytes({"games": 3, "shard_size": 1}, 7, k)


def test_shards_read_back_as_written_and_only_missing_ones_are_built(tmp_path):
    folder = start_folder(tmp_path / "db")
    built = []
    build_shards(folder, make, [0, 1, 2], built.append)
    assert built == [0, 1, 2]
    arrays = FORMAT.read(shard_path(folder, 2), 2)
    assert arrays["value"].tolist() == [9] and int(arrays["seed"]) == 7 and str(arrays["kind"]) == "test"
    # Shard 1 truncated by a kill, a temporary file left behind: only shard 1 is built again.
    shard_path(folder, 1).write_bytes(shard_path(folder, 1).read_bytes()[:50])
    (folder / "shard-00001.npz.x.tmp").write_bytes(b"partial")
    start_folder(folder)
    assert not list(folder.glob("*.tmp"))
    assert FORMAT.missing(folder, [1, 1, 1], 7) == [1]
    assert FORMAT.missing(folder, [1, 1, 1], 8) == [0, 1, 2]  # another seed
    assert FORMAT.missing(folder, [1, 5, 2], 7) == [1, 2]  # other record counts


def test_bad_shards_and_cards_raise_one_error_naming_the_file(tmp_path):
    assert issubclass(ShardError, CheckersError)
    folder = start_folder(tmp_path)
    path = shard_path(folder, 0)
    with pytest.raises(ShardError, match="shard missing"):
        FORMAT.read(path)
    path.write_bytes(b"not a zip file")
    with pytest.raises(ShardError, match="corrupt or truncated"):
        FORMAT.read(path)
    path.write_bytes(ShardFormat(2).encode(0, 7, {}))
    with pytest.raises(ShardError, match="format version 2, this code reads version 3"):
        FORMAT.read(path)
    path.write_bytes(make(0))
    with pytest.raises(ShardError, match="kind 'test', the card says 'other'"):
        ShardFormat(3, kind="other").read(path)
    with pytest.raises(ShardError, match="holds shard 0, expected 4"):
        FORMAT.read(path, 4)
    with pytest.raises(ShardError, match="lacks arrays black"):
        ShardFormat(3, ("value", "black"), kind="test").read(path)
    with pytest.raises(ShardError, match=r"shard-00000.npz: array bits of shape \(1, 2\), rows of shape \(3,\)"):
        ShardFormat(3, ("bits",), kind="test", shapes=(("bits", (3,)),)).read(path)
    with pytest.raises(ShardError, match="missing card"):
        FORMAT.read_card(folder)
    (folder / CARD).write_text("{not json")
    with pytest.raises(ShardError, match="unreadable card"):
        FORMAT.read_card(folder)
    write_card(folder, {"format_version": 1})
    with pytest.raises(ShardError, match=f"{CARD}: card of format version 1"):
        FORMAT.read_card(folder)
    write_card(folder, {"format_version": 3, "kind": "test"})
    assert FORMAT.read_card(folder)["kind"] == "test"


def test_a_database_is_generated_resumed_and_loaded_against_its_card(tmp_path):
    params = {"games": 5, "shard_size": 2}
    paths = DATABASE.generate(tmp_path / "db", params, 4, progress=False)
    card = DATABASE.read_card(tmp_path / "db")
    assert card["complete"] and card["shards"] == 3 and card["shard_counts"] == [2, 2, 1]
    assert card["games"] == card["positions"] == 5 and card["built_now"] == 3
    assert DATABASE.load(tmp_path / "db")["value"].tolist() == [4, 5, 6, 7, 8]
    assert DATABASE.load_shards(paths[1:])["value"].tolist() == [6, 7, 8]
    before = paths[2].read_bytes()
    paths[2].write_bytes(before[:40])
    DATABASE.generate(tmp_path / "db", params, 4, progress=False)
    assert paths[2].read_bytes() == before and DATABASE.read_card(tmp_path / "db")["built_now"] == 1
    with pytest.raises(ShardError, match="other parameters"):
        DATABASE.generate(tmp_path / "db", {**params, "games": 6}, 4, progress=False)
    card["shard_counts"][0] += 1
    (tmp_path / "db" / CARD).write_text(json.dumps(card))
    with pytest.raises(ShardError, match="shard-00000.npz: holds 2 records, the card says 3"):
        DATABASE.load(tmp_path / "db")
    card["complete"] = False
    (tmp_path / "db" / CARD).write_text(json.dumps(card))
    with pytest.raises(ShardError, match="generation not finished"):
        DATABASE.load(tmp_path / "db")
