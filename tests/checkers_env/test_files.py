"""``checkers_env.files``: JSON-lines logs read back after a kill."""

from __future__ import annotations

import pytest

from checkers_env.files import json_lines


def test_json_lines_drop_a_last_line_cut_short_and_name_a_corrupt_one(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"a": 1}\n[2]\n{"b": ')
    assert json_lines(log) == [(1, '{"a": 1}\n', {"a": 1}), (2, "[2]\n", [2])]
    log.write_text('{"a": 1}\n{"b": \n{"c": 3}\n')
    with pytest.raises(KeyError, match=r"log.jsonl:2: corrupt record: "):
        json_lines(log, KeyError, "record")
