"""``checkers data``: a bound only the data module knows is a usage error for either kind."""

from __future__ import annotations

import pytest

from checkers_evaluation.cli import main


@pytest.mark.parametrize(
    "kind", [["games", "--games", "1"], ["mcrd", "--positions", "1", "--playouts", "1", "--backend", "cpu"]]
)
def test_a_minimax_depth_past_its_most_is_one_line_and_makes_no_folder(kind, tmp_path, capsys):
    out = tmp_path / "data"
    assert main(["data", *kind, "--minimax-depth", "65", "--out", str(out)]) == 2
    assert capsys.readouterr().err == "checkers: error: minimax_depth must be an integer from 1 to 64, got 65\n"
    assert not out.exists()
