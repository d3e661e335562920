"""The options several ``checkers`` subcommands declare alike (``checkers_evaluation.common_options``)."""

from __future__ import annotations

import pytest

from checkers_evaluation.common_options import (
    add_egdb_folder,
    add_kinds,
    add_no_progress,
    add_out,
    add_seed,
    add_whole_number,
)
from checkers_evaluation.options import ArgumentParser


class Refused(Exception):
    """A usage error, raised instead of printed (the parser's ``error_class``)."""


def parser() -> ArgumentParser:
    return ArgumentParser(prog="checkers test", error_class=Refused)


def test_a_whole_number_states_its_default_in_its_help_and_checks_its_bounds():
    options = parser()
    add_whole_number(options, "--games", "won positions played out", 50, minimum=1, metavar="G")
    assert "won positions played out (default 50)" in options.format_help()
    assert "--games G" in options.format_help()
    assert options.parse_args([]).games == 50
    assert options.parse_args(["--games", "3"]).games == 3
    with pytest.raises(Refused, match="--games: must be >= 1, got '0'"):
        options.parse_args(["--games", "0"])


def test_a_required_whole_number_has_no_default_in_its_help():
    options = parser()
    add_whole_number(options, "--positions", "how many positions", minimum=1, required=True)
    assert "how many positions" in options.format_help()
    assert "default" not in options.format_help()
    with pytest.raises(Refused, match="--positions"):
        options.parse_args([])


def test_seed_defaults_to_zero_and_takes_no_negative_value():
    options = parser()
    add_seed(options, "seed of the games")
    assert "seed of the games (default 0)" in options.format_help()
    assert options.parse_args([]).seed == 0
    with pytest.raises(Refused, match="--seed: must be >= 0"):
        options.parse_args(["--seed", "-1"])


def test_out_is_a_folder_under_the_name_the_command_reads(tmp_path):
    options = parser()
    add_out(options, "where the games go", dest="record")
    assert options.parse_args(["--out", str(tmp_path)]).record == str(tmp_path)
    assert options.parse_args([]).record is None
    file = tmp_path / "games.jsonl"
    file.write_text("")
    with pytest.raises(Refused, match="is a file, not a folder"):
        options.parse_args(["--out", str(file)])


def test_no_progress_and_the_egdb_folder():
    options = parser()
    add_no_progress(options)
    add_egdb_folder(options, "the database folder")
    assert vars(options.parse_args([])) == {"progress": True, "egdb_folder": None}
    assert vars(options.parse_args(["--no-progress", "--egdb-folder", "db"])) == {
        "progress": False,
        "egdb_folder": "db",
    }


def test_kinds_are_declared_in_order_and_one_is_required():
    options = parser()
    first, second = add_kinds(
        options, "kind", "KIND", {"games": ("games", "Games."), "mcrd": ("mcrd", lambda: "Late.")}
    )
    first.add_argument("--games")
    assert options.parse_args(["games", "--games", "2"]).kind == "games"
    assert options.parse_args(["mcrd"]).kind == "mcrd"
    assert "Late." in second.format_help()  # a description given as a function is called for the help
    with pytest.raises(Refused, match="KIND"):
        options.parse_args([])
