"""The ``checkers`` command line and the demo, called in-process (and once as the installed
console script)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkers_env import Board, Game, Rules
from checkers_evaluation import demo
from checkers_evaluation.cli import main


def test_perft_prints_the_count(capsys):
    assert main(["perft", "4"]) == 0
    out = capsys.readouterr().out
    assert "1469 nodes" in out
    assert "nodes/s" in out


def test_perft_divide_lists_root_moves_and_total(capsys):
    assert main(["perft", "3", "--divide"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    root_lines, total_line = lines[:-1], lines[-1]
    counts = dict(line.split(": ") for line in root_lines)
    assert list(counts) == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    assert sum(map(int, counts.values())) == 302
    assert total_line.startswith("total: 302 nodes")


def test_perft_without_bulk_counts_the_same(capsys):
    assert main(["perft", "5", "--no-bulk"]) == 0
    assert "7361 nodes" in capsys.readouterr().out


def test_perft_from_fen(capsys):
    # A Black king on 30 against White men on 17, 18, 25 and 26: the king has two capture
    # loops back to 30 (the published convention counts both).
    assert main(["perft", "1", "--fen", "B:W17,18,25,26:BK30", "--divide"]) == 0
    out = capsys.readouterr().out
    assert "30x21x14x23x30: 1" in out and "30x23x14x21x30: 1" in out
    assert "total: 2 nodes" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["perft", "-1"], "argument DEPTH: must be 0 to 40, got '-1'"),
        (["perft", "deep"], "argument DEPTH: expected a whole number, got 'deep'"),
        (["league", "random", "greedy", "--max-plies", "0"], "--max-plies: must be >= 1, got '0'"),
        (["league", "random", "greedy", "--max-plies", "-3"], "--max-plies: must be >= 1, got '-3'"),
        (["league", "random", "greedy", "--bootstrap", "-5"], "--bootstrap: must be 0 to 10000, got '-5'"),
        (["league", "random", "greedy", "--time-per-move", "nan"], "--time-per-move: must be a number > 0"),
        (["league", "random", "alphabeta:depth=3,depth=4"], "parameter 'depth' is given twice"),
        (["league", "random", "alphabeta:depth=three"], "'three' is not a whole number"),
        (["league", "random", "greedy", "--resume", "--overwrite"], "--resume and --overwrite"),
        (["play", "--opponent", "random", "--seed", "x"], "--seed: expected a whole number, got 'x'"),
        (["perft", "0", "--divide"], "--divide needs a depth >= 1"),
        (["perft", "3", "--fen", "B:W21:B33"], "'B:W21:B33'"),
        (["show", "X:W21:B1"], "'X:W21:B1'"),
        (["show", "B:W21,22:B21"], "listed for both sides"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("checkers") and ": error: " in captured.err
    assert message in captured.err
    assert captured.err.count("\n") == 1
    assert "Traceback" not in captured.err


def test_a_dead_worker_is_one_line_and_a_failure_status(tmp_path, capsys, monkeypatch):
    from checkers_env.parallel import WorkerDiedError
    from checkers_evaluation.league import runner

    def dies(*args, **kwargs):
        raise WorkerDiedError("the league: a worker process ended (exit code -9) before its work was done")

    monkeypatch.setattr(runner, "run_pieces", dies)
    status = main(
        ["league", "random", "greedy", "--games-per-pair", "2", "--workers", "2", "--out", str(tmp_path / "l")]
    )
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "checkers: error: the league: a worker process ended (exit code -9) before its work was done; "
        "what was done before it is kept"
    )


# Each is refused when parsed: one line, status 2, and no work (no game, no folder) before it.
_FILE = "<a file>"  # stands for a regular file in the test's folder
_PARSE_ERRORS = [
    (["league", "random", "greedy", "--seed", "-1"], "--seed: must be >= 0, got '-1'"),
    (
        ["league", "random", "greedy", "--bootstrap", "99999999999"],
        "--bootstrap: must be 0 to 10000, got '99999999999'",
    ),
    (
        ["league", "random", "greedy", "--adjudicate", "egdb", "--egdb-pieces", "9"],
        "--egdb-pieces: must be 2 to 6, got '9'",
    ),
    (["league", "random", "greedy", "--out", _FILE], "--out: '<a file>' is a file, not a folder"),
    (["league", "random", "greedy", "--out", ""], "--out: expected a folder, got an empty name"),
    (
        ["league", "random", "greedy", "--adjudicate", "egdb", "--egdb-folder", _FILE],
        "--egdb-folder: '<a file>' is a file, not a folder",
    ),
    (["play", "--opponent", "random", "--seed", "-1"], "--seed: must be >= 0, got '-1'"),
    (["perft", "2000"], "argument DEPTH: must be 0 to 40, got '2000'"),
    (["perft", "41"], "argument DEPTH: must be 0 to 40, got '41'"),
    (["egdb", "probe", "B:W18:B14", "--pieces", "7"], "--pieces: must be 2 to 6, got '7'"),
    (["egdb", "probe", "B:W18:B14", "--pieces", "100"], "--pieces: must be 2 to 6, got '100'"),
    (["egdb", "probe", "B:W18:B14", "--pieces", "8"], "--pieces: must be 2 to 6, got '8'"),
    (["egdb", "build", "--pieces", "7"], "--pieces: must be 2 to 6, got '7'"),
    (["egdb", "measure", "random", "--pieces", "7"], "--pieces: must be 2 to 6, got '7'"),
    (["egdb", "build", "--egdb-folder", _FILE], "--egdb-folder: '<a file>' is a file, not a folder"),
    (["egdb", "probe", "B:W18:B14", "--egdb-folder", _FILE], "--egdb-folder: '<a file>' is a file, not a folder"),
    (["egdb", "stats", "--egdb-folder", _FILE], "--egdb-folder: '<a file>' is a file, not a folder"),
    (["egdb", "measure", "random", "--out", _FILE], "--out: '<a file>' is a file, not a folder"),
    (["data", "games", "--games", "2", "--out", _FILE], "--out: '<a file>' is a file, not a folder"),
    (
        ["data", "mcrd", "--positions", "2", "--playouts", "2", "--out", _FILE],
        "--out: '<a file>' is a file, not a folder",
    ),
]


@pytest.mark.parametrize(("argv", "message"), _PARSE_ERRORS, ids=[" ".join(a) for a, _ in _PARSE_ERRORS])
def test_options_are_checked_when_parsed(argv, message, tmp_path, capsys, monkeypatch):
    from checkers_evaluation import league

    monkeypatch.chdir(tmp_path)
    (tmp_path / _FILE).write_text("keep me")
    monkeypatch.setattr(league.League, "run", lambda self: pytest.fail("a league ran"))
    assert main([*argv, "--out", "runs/made"] if argv[0] == "league" and "--out" not in argv else argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message in captured.err, captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == [_FILE]  # nothing made
    assert (tmp_path / _FILE).read_text() == "keep me"


def test_help_shows_the_bounds_that_parsing_enforces(capsys):
    from checkers_env.egdb import MAX_BUILD_PIECES, build_figures
    from checkers_env.perft import MAX_DEPTH

    for argv, shown in (
        (["perft"], f"0 to {MAX_DEPTH}"),
        (["egdb", "probe"], f"2 to {MAX_BUILD_PIECES}"),
        (["league"], f"2 to {MAX_BUILD_PIECES}"),
        (["league"], "0 to 10000"),
        (["egdb", "build"], f"({build_figures()}, on 2 cores)"),
    ):
        assert main([*argv, "--help"]) == 0
        assert shown in " ".join(capsys.readouterr().out.split()), argv


def test_usage_errors_return_2(capsys):
    assert main([]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_league_out_naming_a_file_is_refused_before_any_game(tmp_path, capsys):
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me")
    assert main(["league", "random", "greedy", "--games-per-pair", "2", "--out", str(existing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file, not a folder" in err and str(existing) in err
    assert existing.read_text() == "keep me"


def test_agents_into_a_closed_pipe_stops_quietly():
    # ``checkers agents | head -1``: the reader leaves after one line.
    code = "import sys; from checkers_evaluation.cli import main; sys.exit(main(['agents']))"
    done = subprocess.run(
        f'{sys.executable} -c "{code}" | head -1',
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        executable="/bin/bash",
    )
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def _restore_sigint() -> None:
    """Run in the child before it starts: a process started in the background by a
    non-interactive shell (CI) inherits SIGINT as ignored, and Python then never raises
    KeyboardInterrupt; the default makes the test measure the product, not its harness."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_a_deep_perft_within_seconds(capsys):
    import signal
    import time

    # Compile the perft kernel here first (the child reads numba's cache): a SIGINT that
    # lands while the child compiles waits for the compiler, which says nothing about Ctrl-C.
    assert main(["perft", "3"]) == 0
    capsys.readouterr()
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from checkers_evaluation.cli import main; sys.exit(main(['perft', '16']))"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_restore_sigint,
    )
    try:
        time.sleep(8)  # imports, kernel load, and well into the first slices
        process.send_signal(signal.SIGINT)
        began = time.monotonic()
        _, err = process.communicate(timeout=10)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # nothing of it left running
        except ProcessLookupError:
            pass
    assert time.monotonic() - began < 3, "perft ignored Ctrl-C"
    assert process.returncode == 130 and "interrupted" in err and "Traceback" not in err


def test_show_prints_board_and_legal_moves(capsys):
    assert main(["show", "B:W6,7,14,15:B2"]) == 0
    out = capsys.readouterr().out
    assert "w15" in out and "b2 " in out and "black to move" in out
    assert "FEN: B:W6,7,14,15:B2" in out
    assert "2 legal captures for black: 2x9x18 2x11x18" in out


def test_show_position_without_moves(capsys):
    assert main(["show", "W:W:B27"]) == 0
    assert "white has no legal move and loses" in capsys.readouterr().out


def test_show_bad_fen_quotes_it(capsys):
    assert main(["show", "B:W18,K30:B14,99"]) == 2
    err = capsys.readouterr().err
    assert "'B:W18,K30:B14,99'" in err and "99" in err


def test_demo_plays_a_small_league(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(demo, "demo_agents", lambda time_per_move: ["random", "greedy"])
    out_dir = tmp_path / "demo"
    assert demo.main(["--games-per-pair", "2", "--workers", "1", "--perft-depth", "5", "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "black to move" in out  # the start position
    assert "perft 1..5 from the start: all match" in out
    assert "| player |" in out  # the ratings table
    assert (out_dir / "heatmap.png").is_file() and (out_dir / "ratings.png").is_file()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games-per-pair", "3"], "--games-per-pair: must be even"),
        (["--games-per-pair", "-1"], "--games-per-pair: must be >= 2"),
        (["--perft-depth", "14"], "--perft-depth: must be 1 to 13"),
        (["--out", "<a file>"], "--out: '<a file>' is a file, not a folder"),
    ],
)
def test_demo_options_are_checked_before_it_starts(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "<a file>").write_text("keep me")
    with pytest.raises(SystemExit) as exit_:
        demo.main(argv)
    captured = capsys.readouterr()
    assert exit_.value.code == 2 and captured.out == "" and captured.err.count("\n") == 1
    assert message in captured.err, captured.err


def test_demo_lists_the_baselines_and_the_zoo():
    from checkers_agents.zoo import zoo_names

    agents = demo.demo_agents(0.25)
    assert agents[:4] == demo.BASELINES
    assert [a.split(",")[0] for a in agents[4:]] == [f"zoo:{name}" for name in zoo_names()]
    assert "zoo:mcrd,time=0.25" in agents  # timed searchers get the demo's budget


def test_installed_console_script():
    script = Path(sys.executable).parent / "checkers"
    if not script.exists():
        pytest.skip(f"console script not installed at {script}: run `make .venv` or `pip install -e .`")
    done = subprocess.run([str(script), "perft", "4"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1469 nodes" in done.stdout
    bad = subprocess.run([str(script), "show", "nonsense"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.startswith("checkers: error: ") and "'nonsense'" in bad.stderr
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


# -- egdb ------------------------------------------------------------------------------------


def test_egdb_probe_prints_value_and_distance(egdb_folder, egdb4, capsys):
    fens = ["B:WK14:BK1,K2", "W:WK14:BK1,K2", "B:W18:B14", "W:W5:BK1", "B:W10,11:BK30,K31", "B:W21,22,23:B1,2,3"]
    assert main(["egdb", "probe", *fens, "--egdb-folder", str(egdb_folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == fens
    assert lines[2] == "B:W18:B14 win 1"  # the only white piece is taken at once
    assert lines[3] == "W:W5:BK1 loss 0"  # White cannot move
    assert lines[5] == "B:W21,22,23:B1,2,3 none -"  # six pieces
    for line, fen in zip(lines[:5], fens):
        probe = egdb4.probe(Board.from_fen(fen))
        assert line == f"{fen} {probe.value} {'-' if probe.distance is None else probe.distance}"
    assert {line.split()[1] for line in lines[:2]} == {"win", "loss"}  # one position, either side to move


def test_egdb_probe_reads_stdin_and_defaults_to_the_largest_database(egdb_folder, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("B:W18:B14\n\n  W:W5:BK1  \n"))
    assert main(["egdb", "probe", "--egdb-folder", str(egdb_folder)]) == 0
    assert capsys.readouterr().out.splitlines() == ["B:W18:B14 win 1", "W:W5:BK1 loss 0"]
    # --pieces 2: a 3-piece position is outside
    assert main(["egdb", "probe", "B:W18,19:B14", "--pieces", "2", "--egdb-folder", str(egdb_folder)]) == 0
    assert capsys.readouterr().out == "B:W18,19:B14 none -\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["egdb", "probe", "B:W18:B14", "B:W33:B1"], "'B:W33:B1'"),
        (["egdb", "probe", "B:W18:B14", "--pieces", "5"], "missing the 5-piece slices"),
        (["egdb", "stats", "--pieces", "5"], "`checkers egdb build --pieces 5 --egdb-folder "),
        (["egdb", "probe", "--pieces", "1", "B:W18:B14"], "--pieces: must be 2 to 6, got '1'"),
        (["egdb", "build", "--pieces", "7"], "--pieces: must be 2 to 6, got '7'"),
        (["egdb", "measure", "random", "--positions", "0"], "--positions: must be >= 1"),
        (["egdb", "measure", "nonsense"], "nonsense"),
    ],
)
def test_egdb_bad_input_is_one_line_and_status_2(argv, message, egdb_folder, capsys):
    assert main([*argv, "--egdb-folder", str(egdb_folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message in captured.err, captured.err


def test_egdb_missing_database_names_the_file_and_the_build_command(tmp_path, capsys):
    assert main(["egdb", "probe", "B:W18:B14", "--egdb-folder", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "egdb-2.egdb" in err
        and f"`checkers egdb build --pieces 4 --egdb-folder {tmp_path}`" in err
    )
    assert main(["egdb", "stats", "--pieces", "3", "--egdb-folder", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing the 2-piece slices" in err
    assert f"`checkers egdb build --pieces 3 --egdb-folder {tmp_path}`" in err


@pytest.mark.parametrize("damage", ["doubled", "folder"])
def test_egdb_probe_names_a_damaged_slice_in_one_line(damage, egdb_folder, tmp_path, capsys):
    import shutil

    from checkers_env import egdb

    for n in (2, 3):
        shutil.copy(egdb_folder / egdb.level_name(n), tmp_path / egdb.level_name(n))
    path = tmp_path / egdb.level_name(3)
    if damage == "doubled":
        path.write_bytes(path.read_bytes() * 2)
    else:
        path.unlink()
        path.mkdir()
    assert main(["egdb", "probe", "B:W18:B14", "--egdb-folder", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and str(path) in err
    assert ("too long" in err and "truncated" not in err) if damage == "doubled" else "a folder where" in err


def test_egdb_build_prints_a_summary_and_resumes(tmp_path, capsys):
    assert main(["egdb", "build", "--pieces", "2", "--egdb-folder", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("egdb up to 2 pieces: 4 slices solved, 0 found, 3,488 positions") and str(tmp_path) in out
    assert main(["egdb", "build", "--pieces", "2", "--egdb-folder", str(tmp_path), "--no-progress"]) == 0
    assert "0 slices solved, 4 found" in capsys.readouterr().out


def test_egdb_build_takes_ray_as_every_command_does(tmp_path, monkeypatch, capsys):
    """``--ray [ADDRESS]`` reaches ``egdb.build`` (the Ray build itself is tested in
    ``tests/checkers_env/test_egdb_files.py``)."""
    from checkers_env import egdb

    seen = []
    real = egdb.build
    monkeypatch.setattr(egdb, "build", lambda *a, **k: seen.append(k["ray"]) or real(*a, **{**k, "ray": False}))
    for extra, expected in (([], False), (["--ray"], True), (["--ray=ray://head:10001"], "ray://head:10001")):
        assert main(["egdb", "build", "--pieces", "2", "--egdb-folder", str(tmp_path), "--no-progress", *extra]) == 0
        assert seen[-1] == expected


def test_egdb_stats_lists_every_slice_and_the_totals(egdb_folder, egdb4, capsys):
    assert main(["egdb", "stats", "--egdb-folder", str(egdb_folder)]) == 0
    out = capsys.readouterr().out
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
        for line in out.splitlines()
        if line.startswith("| ") and "---" not in line
    }
    for stats in egdb4.stats():
        assert rows[stats.label] == [
            f"{v:,}" for v in (stats.positions, stats.wins, stats.losses, stats.draws, stats.longest_win)
        ]
    assert rows["2"][0] == "3,488" and rows["4"][0] == "6,209,316"  # the 2- and 4-piece totals
    assert rows["3"] == ["196,032", "100,250", "87,305", "8,477", "61"]


def test_egdb_measure_prints_a_row_per_agent_and_writes_the_files(egdb_folder, tmp_path, capsys):
    argv = [
        "egdb",
        "measure",
        "random",
        "greedy",
        "--positions",
        "30",
        "--games",
        "2",
        "--egdb-folder",
        str(egdb_folder),
        "--no-progress",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| random |" in out and "| greedy |" in out
    assert (tmp_path / "measures.md").is_file() and (tmp_path / "measures.json").is_file()


def _opening_to(pieces: int) -> str:
    """Moves of a seeded random game from the start up to its first position with
    ``pieces`` pieces, at least two a side (so that a capture leaves both sides pieces),
    the game still going on."""
    import random

    from checkers_env import Game, Rules

    for seed in range(100):
        rng = random.Random(seed)
        game = Game(rules=Rules.without_draws())
        while not game.is_over() and game.ply < 300 and bin(game.board.black | game.board.white).count("1") > pieces:
            game.play(rng.choice(game.legal_moves()))
        smaller = min(bin(side).count("1") for side in (game.board.black, game.board.white))
        if not game.is_over() and bin(game.board.black | game.board.white).count("1") == pieces and smaller >= 2:
            return " ".join(str(m) for m in game.moves)
    raise AssertionError("no random game stops at that many pieces")


def test_league_adjudicates_by_the_database_and_resumes(egdb_folder, tmp_path, capsys):
    import json

    openings = tmp_path / "openings.txt"
    openings.write_text(_opening_to(5) + "\n")
    out = tmp_path / "league"
    argv = [
        "league",
        "random",
        "greedy",
        "--games-per-pair",
        "4",
        "--openings",
        str(openings),
        "--bootstrap",
        "0",
        "--adjudicate",
        "egdb",
        "--egdb-folder",
        str(egdb_folder),
        "--out",
        str(out),
        "--workers",
        "2",
    ]
    assert main(argv) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 4
    adjudicated = [r for r in records if r["termination"] == "egdb"]
    assert adjudicated
    for record in adjudicated:
        board = Game(rules=Rules.without_draws(), moves=record["moves"]).board
        assert bin(board.black | board.white).count("1") == 4
    assert '[Termination "egdb"]' in (out / "games.pdn").read_text()
    config = json.loads((out / "league.json").read_text())
    assert config["adjudicate"] == {"database": "egdb", "pieces": 4}
    # Resuming plays nothing more; resuming without adjudication is refused.
    assert main([*argv, "--resume"]) == 0
    assert len((out / "games.jsonl").read_text().splitlines()) == 4
    capsys.readouterr()
    plain = argv[: argv.index("--adjudicate")] + argv[argv.index("--out") :]
    assert main([*plain, "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "adjudicate" in err


def test_league_without_a_database_is_one_line(tmp_path, capsys):
    argv = [
        "league",
        "random",
        "greedy",
        "--games-per-pair",
        "2",
        "--adjudicate",
        "egdb",
        "--egdb-folder",
        str(tmp_path),
        "--out",
        str(tmp_path / "league"),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "checkers egdb build --pieces 4" in err
    assert not (tmp_path / "league").exists()


# -- fuzz: any value of any option is a result or one line ------------------------------------

from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.sampled_from(
    [
        "0",
        "-1",
        "-5",
        "1",
        "2",
        "3",
        "7",
        "abc",
        "",
        " ",
        "1e3",
        "nan",
        "inf",
        "-0",
        "2.5",
        "random:3",
        "random:x",
        "ballot",
        "B:W21:B1",
        "x:y",
        "99999999999999999999",
    ]
)
_TEXT = st.one_of(_WORDS, st.text(max_size=12))
_SPECS = st.one_of(
    st.sampled_from(
        [
            "random",
            "greedy",
            "alphabeta:depth=1",
            "alphabeta:depth=3,depth=4",
            "greedy:seed=x",
            "nonsense",
            "random:name=",
            "greedy:name=a",
            "zoo:",
            ":",
            "random:seed",
        ]
    ),
    st.text(max_size=10),
)
_LEAGUE_OPTIONS = [
    "--games-per-pair",
    "--openings",
    "--time-per-move",
    "--workers",
    "--ray",
    "--seed",
    "--max-plies",
    "--bootstrap",
    "--gauntlet",
    "--out",
    "--adjudicate",
    "--egdb-pieces",
    "--egdb-folder",
]


def _assert_one_line_or_success(status: int, captured) -> None:
    assert status in (0, 2), (status, captured.err)
    assert "Traceback" not in captured.err
    if status == 2:
        assert captured.err.count("\n") == 1 and "error: " in captured.err, captured.err


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    specs=st.lists(_SPECS, min_size=0, max_size=3),
    options=st.lists(st.tuples(st.sampled_from(_LEAGUE_OPTIONS + ["--resume", "--overwrite"]), _TEXT), max_size=3),
)
def test_fuzz_league_options(specs, options, capsys, tmp_path_factory, monkeypatch):
    from checkers_evaluation import league

    # Only the checks are under test: a league that passes them plays no game here.
    monkeypatch.setattr(league.League, "run", lambda self: None)
    out = tmp_path_factory.mktemp("league")
    argv = ["league", *specs, "--out", str(out / "run")]
    for option, value in options:
        argv += [option] if option in ("--resume", "--overwrite") else [option, value]
    capsys.readouterr()
    _assert_one_line_or_success(main(argv), capsys.readouterr())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    depth=st.one_of(_TEXT, st.integers(-3, 3).map(str)),
    fen=st.one_of(st.none(), _TEXT),
    flags=st.lists(st.sampled_from(["--divide", "--no-bulk"]), max_size=2),
)
@example(depth="²", fen=None, flags=[])  # a digit to str.isdigit, not to int()
def test_fuzz_perft_options(depth, fen, flags, capsys):
    argv = ["perft", "--", depth] if depth.startswith("-") else ["perft", depth]
    argv[1:1] = flags + (["--fen", fen] if fen is not None else [])
    if depth.strip().lstrip("+").isdecimal() and int(depth) > 3:  # isdigit() takes "²", int() does not
        return  # a real count, not input checking
    capsys.readouterr()
    _assert_one_line_or_success(main(argv), capsys.readouterr())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fen=_TEXT)
def test_fuzz_show(fen, capsys):
    capsys.readouterr()
    _assert_one_line_or_success(main(["show", "--", fen]), capsys.readouterr())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    opponent=_SPECS,
    options=st.lists(st.tuples(st.sampled_from(["--color", "--colour", "--fen", "--seed"]), _TEXT), max_size=3),
)
def test_fuzz_play_options(opponent, options, capsys, monkeypatch):
    from checkers_evaluation import play

    # Only the argument checks are under test: no worker process, no game.
    monkeypatch.setattr(play, "AgentProcess", lambda spec, seed=None: spec)
    monkeypatch.setattr(play.PlaySession, "run", lambda self: 0)
    argv = ["play", "--opponent", opponent]
    for option, value in options:
        argv += [option, value]
    capsys.readouterr()
    _assert_one_line_or_success(main(argv), capsys.readouterr())


def test_version_names_the_installed_release(capsys):
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"checkers {version('checkers-suite')}"


def test_demo_builds_the_database_its_zoo_agents_probe(tmp_path, monkeypatch):
    from checkers_env import egdb

    monkeypatch.setenv("CHECKERS_EGDB", str(tmp_path / "egdb"))
    assert demo.database_pieces(["random", "zoo:outcome-net,time=0.1", "zoo:td-minimax"]) == 5
    assert demo.database_pieces(["random", "zoo:td-minimax"]) == 0
    built = []
    monkeypatch.setattr(egdb, "build", lambda pieces, folder, progress: built.append((pieces, folder)))
    demo.ensure_database(3)
    assert built == [(3, tmp_path / "egdb")]
    demo.ensure_database(0)
    assert len(built) == 1


# -- one meaning per option; old spellings for one release ------------------------------------


def _parsed(argv: list[str]):
    from checkers_evaluation.cli import build_parser

    return build_parser().parse_args(argv)


@pytest.mark.parametrize(
    ("old", "new", "dest", "value"),
    [
        (["league", "random", "greedy", "--backend", "ray"], ["league", "random", "greedy", "--ray"], "ray", True),
        (["league", "random", "greedy", "--backend", "local"], ["league", "random", "greedy"], "ray", False),
        (
            ["league", "random", "greedy", "--adjudicate-pieces", "3"],
            ["league", "random", "greedy", "--egdb-pieces", "3"],
            "egdb_pieces",
            3,
        ),
        (["serve", "--record", "games"], ["serve", "--out", "games"], "record", "games"),
        (["egdb", "build", "--folder", "db"], ["egdb", "build", "--egdb-folder", "db"], "egdb_folder", "db"),
        (["egdb", "stats", "--folder", "db"], ["egdb", "stats", "--egdb-folder", "db"], "egdb_folder", "db"),
        (["egdb", "probe", "--folder", "db"], ["egdb", "probe", "--egdb-folder", "db"], "egdb_folder", "db"),
        (
            ["egdb", "measure", "random", "--folder", "db"],
            ["egdb", "measure", "random", "--egdb-folder", "db"],
            "egdb_folder",
            "db",
        ),
    ],
)
def test_an_old_spelling_works_with_one_warning_naming_the_new_one(old, new, dest, value, capsys):
    assert getattr(_parsed(new), dest) == value
    assert capsys.readouterr().err == ""
    assert getattr(_parsed(old), dest) == value
    err = capsys.readouterr().err
    old_flag = next(word for word in old if word.startswith("--"))
    assert err.count("\n") == 1 and err.startswith(f"checkers: warning: {old_flag}") and "deprecated" in err
    assert ("use --ray" in err) if old[-1] == "ray" else ("use " in err)
    if old[-1] != "local":
        assert f"use {next(word for word in new if word.startswith('--'))}" in err


def test_old_spellings_are_not_listed_in_help(capsys):
    for argv, hidden in (
        (["league", "--help"], ("--backend", "--adjudicate-pieces")),
        (["serve", "--help"], ("--record",)),
        (["egdb", "build", "--help"], ("--folder ",)),
    ):
        assert main(argv) == 0
        text = capsys.readouterr().out
        assert not any(word in text for word in hidden), argv


def test_league_ray_takes_an_address(monkeypatch, tmp_path):
    from checkers_evaluation import league

    seen = {}
    monkeypatch.setattr(league.League, "run", lambda self: seen.update(ray=self.ray))
    assert main(["league", "random", "greedy", "--out", str(tmp_path / "a"), "--ray", "10.0.0.1:6379"]) == 0
    assert seen == {"ray": "10.0.0.1:6379"}
    assert main(["league", "random", "greedy", "--out", str(tmp_path / "b"), "--ray"]) == 0
    assert seen == {"ray": True}
    assert main(["league", "random", "greedy", "--out", str(tmp_path / "c")]) == 0
    assert seen == {"ray": False}


def test_every_seed_defaults_to_0():
    import importlib

    from checkers_evaluation.cli import TRAINERS

    assert _parsed(["league", "random", "greedy"]).seed == 0
    assert _parsed(["egdb", "measure", "random"]).seed == 0
    assert _parsed(["data", "games", "--games", "1", "--out", "d"]).seed == 0
    for module in TRAINERS.values():
        assert importlib.import_module(module).Args().seed == 0, module


def test_checkers_help_loads_no_engine():
    """``checkers --help`` and every subcommand's parser come from modules that import only
    the standard library and the shared option layer: no numba, numpy or checkers_env."""
    code = (
        "import sys; from checkers_evaluation.cli import build_parser; build_parser(); "
        "print(sorted(m for m in ('numba', 'numpy', 'torch', 'checkers_env') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- paths that name no regular file -------------------------------------------------------


@pytest.fixture
def named_pipe(tmp_path):
    """A named pipe that nothing writes to, and the list of the times something opened it to
    read: a helper thread closes each such reader's wait at once (it reads an empty file), so
    that a command that opens the pipe fails its test instead of waiting for ever."""
    import threading

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    opened, stop = [], threading.Event()

    def unblock():
        while not stop.wait(0.05):
            try:  # succeeds only while a reader has the pipe open
                os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                continue
            opened.append(True)

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    yield pipe, opened
    stop.set()
    thread.join()


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "command",
    [
        ["play", "--opponent", "td-minimax:weights={pipe}"],
        ["league", "random", "greedy", "--openings", "{pipe}", "--games-per-pair", "2", "--out", "{out}"],
        ["train", "bc", "--data", "{pipe}", "--steps", "1", "--out", "{out}", "--no-tensorboard"],
    ],
    ids=["play weights", "league openings", "train bc data"],
)
def test_a_named_pipe_given_as_a_file_is_refused_unopened(command, named_pipe, tmp_path, capsys):
    if command[0] == "train":
        pytest.importorskip("torch")
    pipe, opened = named_pipe
    out = tmp_path / "out"
    assert main([part.format(pipe=pipe, out=out) for part in command]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{str(pipe)!r} is a named pipe (FIFO), not a regular file" in err, err
    assert not opened and not out.exists()


@pytest.mark.parametrize(
    "command, message",
    [
        (["play", "--opponent", "td-minimax:weights="], "no td-minimax weights file given: the path is empty"),
        (
            ["league", "random", "greedy", "--openings", "{binary}", "--out", "{out}"],
            "openings file '{binary}' is not UTF-8 text (line 1: invalid start byte)",
        ),
        (
            ["league", "random", "greedy", "--games-per-pair", "2", "--out", "{binary}/run"],
            "'{binary}/run': '{binary}' is a file, not a folder",
        ),
    ],
    ids=["empty weights path", "binary openings", "out under a file"],
)
def test_a_path_that_cannot_be_used_is_one_line(command, message, tmp_path, capsys):
    binary = tmp_path / "games.bin"
    binary.write_bytes(bytes(range(128, 256)) * 4)
    fill = {"binary": binary, "out": tmp_path / "out"}
    assert main([part.format(**fill) for part in command]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert message.format(**fill) in err
    assert not (tmp_path / "out").exists()
