"""The ``engine:`` agent kind: an outside engine over a pipe, its spec, its time limits, and
every way it can misbehave turned into a forfeit with a clear record."""

from __future__ import annotations

import gc
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from checkers_agents.engine import EngineSearch, format_bestmove, parse_bestmove
from checkers_env import ForfeitError, Game, Move, UnknownAgentError, make_agent
from checkers_env.agent import check_spec
from checkers_env.match import FORFEITED, play_game

FAKE_ENGINE = Path(__file__).resolve().parents[1] / "data" / "fake_engine.py"
PYTHON = shlex.quote(sys.executable)


def fake(mode: str, **params) -> str:
    """The spec of ``tests/data/fake_engine.py`` in ``mode``."""
    extra = "".join(f",{key}={value}" for key, value in params.items())
    return f"engine:cmd={PYTHON} {shlex.quote(str(FAKE_ENGINE))} {mode}{extra}"


def test_spec_round_trips_through_str():
    for spec in (fake("good"), fake("good", time=0.5, depth=4, margin=0.25, timeout=10.0)):
        assert str(make_agent(spec)) == spec
        assert str(make_agent(str(make_agent(spec)))) == spec


def test_cmd_names_a_program_so_a_stranger_s_spec_may_not_set_it():
    # checkers serve builds agents with allow_files=False: a web page must not run programs.
    for refuse in (lambda: make_agent(fake("good"), allow_files=False), lambda: check_spec(fake("good"))):
        with pytest.raises(UnknownAgentError, match="cmd= names a file or folder"):
            refuse()


#: Engine specs refused when built, each with what the error names.
BAD_SPECS = {
    "engine:cmd=": "cmd is empty",
    "engine:time=1": "lacks cmd=, which 'engine' needs",
    "engine:cmd='python": "cannot be split into words",
    "engine:cmd=no-such-engine-program --fast": "'no-such-engine-program' is not a program",
    fake("good", time=0): "time must be a positive number",
    fake("good", time=-1): "time must be a positive number",
    fake("good", timeout="nan"): "timeout must be a positive number",
    fake("good", margin=-0.5): "margin must be a positive number",
    fake("good", depth=0): "depth must be at least 1",
    fake("good", depth="deep"): "depth='deep' is not a whole number",
}


@pytest.mark.parametrize(("spec", "words"), BAD_SPECS.items(), ids=list(BAD_SPECS))
def test_bad_engine_specs_are_refused_when_built(spec, words):
    with pytest.raises(UnknownAgentError, match=words.replace("(", r"\(")):
        make_agent(spec)


def test_a_good_engine_plays_its_moves_and_is_reaped_on_close():
    engine = make_agent(fake("good"))
    game = Game()
    game.play("11-15")
    assert engine.select_move(game) == game.legal_moves()[0]
    assert engine.engine_name == "fake good"
    process = engine._engine.process
    engine.close()
    assert process.returncode == 0  # it left on quit, and was waited for


def test_the_seed_of_a_reset_reaches_the_engine_even_across_a_close():
    engine = make_agent(f"engine:cmd={PYTHON} -m checkers_evaluation.cli engine --agent random")
    here = make_agent("random")
    for seed in (3, 4):
        engine.reset(seed=seed)
        engine.close()  # stopped before its first move: the seed is still sent when it starts again
        here.reset(seed=seed)
        game = Game()
        for _ in range(6):
            move = engine.select_move(game)
            assert move == here.select_move(game)
            game.play(move)
    engine.close()


def test_a_garbage_collected_engine_agent_leaves_no_process():
    engine = make_agent(fake("good"))
    engine.select_move(Game())
    process = engine._engine.process
    del engine
    gc.collect()
    assert process.returncode == 0


#: Each way to misbehave, the spec's extra parameters, and what the forfeit record says.
MISBEHAVIOURS = [
    ("illegal", {}, "played an illegal move"),
    ("garbage", {}, "answered garbage: expected 'bestmove MOVE ...', got '\\x00\\x01 what is a move?'"),
    ("badextra", {}, "answered garbage: depth 'deep' is not a number"),
    ("error", {}, "answered 'error go: out of ideas' to go"),
    ("silent", {"timeout": 1.0}, "sent no answer to go within 1 s"),
    ("silent", {"time": 0.2, "margin": 0.3}, "sent no answer to go within 0.5 s"),
    ("late", {"time": 0.1, "margin": 0.2}, "sent no answer to go within 0.3 s"),
    ("crash", {}, "exited with status 3 before it answered go (stderr: fake engine: segmentation fault (pretend))"),
    ("dead", {}, "exited with status 5"),
    ("badhello", {}, "answered 'hi there' to hello, not 'hello protocol N ...'"),
    ("protocol9", {}, "speaks protocol '9'; this client speaks 1"),
    ("notready", {}, "answered 'not yet' to isready, not 'readyok'"),
    ("longhello", {}, "answered hello with a line longer than 65536 characters (it began 'hello protocol 1"),
    ("overlong", {}, "answered hello with a line longer than 65536 characters (it began 'hello protocol 1"),
    # Its line has no end, so only a limit on the line being read catches it before the timeout.
    ("endless", {"timeout": 30.0}, "answered go with a line longer than 65536 characters (it began 'bestmove 11-15"),
]


@pytest.mark.parametrize(
    ("mode", "params", "words"), MISBEHAVIOURS, ids=[f"{m}{sorted(p)}" for m, p, _ in MISBEHAVIOURS]
)
@pytest.mark.parametrize("engine_side", ["black", "white"])
def test_a_misbehaving_engine_forfeits_its_game(mode, params, words, engine_side):
    engine, other = make_agent(fake(mode, **params)), make_agent("random")
    black, white = (engine, other) if engine_side == "black" else (other, engine)
    record = play_game(black, white, "9-13 22-17 13x22", rng=np.random.default_rng(1))
    assert record.termination == FORFEITED == "forfeit"
    assert record.result == ("0-1" if engine_side == "black" else "1-0")
    assert record.forfeit.startswith(f"{engine_side} ({engine}) forfeited: engine ")
    assert words in record.forfeit
    assert record.to_game().headers["Forfeit"] == record.forfeit
    # The opening was played; the engine's side had the move and lost it.
    assert record.moves[:3] == ["9-13", "22-17", "13x22"]
    assert len(record.moves) == (3 if engine_side == "white" else 4)
    assert engine._engine is None  # stopped and reaped; the next game starts a fresh one


def test_an_engine_that_ignores_quit_and_sigterm_is_killed():
    engine = make_agent(fake("silent", time=0.2, margin=0.3))
    engine._running_engine()
    process = engine._engine.process
    with pytest.raises(ForfeitError, match="sent no answer to go"):
        engine.select_move(Game())
    assert process.returncode == -9


def processes_named(marker: str) -> list[int]:
    """The pids whose command line holds ``marker`` (read from the process table)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:  # it exited while we looked
                pass
    return found


def seen(marker: str, count: int, seconds: float = 10.0) -> bool:
    """Whether ``count`` processes hold ``marker`` within ``seconds`` (a loaded machine may
    show a process just started a moment late)."""
    deadline = time.monotonic() + seconds
    while len(processes_named(marker)) != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def gone(marker: str, seconds: float = 5.0) -> bool:
    """Whether no process holds ``marker`` within ``seconds`` (a killed one takes a moment)."""
    deadline = time.monotonic() + seconds
    while processes_named(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads the process table in /proc")
@pytest.mark.parametrize("mode", ["orphan", "orphanquiet"])
def test_stopping_an_engine_is_bounded_and_kills_the_helpers_it_started(mode):
    # orphan: the helper holds the engine's stdout open, so its output never ends;
    # orphanquiet: the engine leaves promptly after quit, its helper would live on.
    marker = f"checkers-test-helper-{uuid.uuid4().hex}"
    engine = make_agent(f"engine:cmd={PYTHON} {shlex.quote(str(FAKE_ENGINE))} {mode} {marker}")
    try:
        game = Game()
        game.play(engine.select_move(game))
        assert seen(marker, 2), processes_named(marker)  # the engine and its helper
        closing = threading.Thread(target=engine.close, daemon=True)
        closing.start()
        closing.join(30)
        assert not closing.is_alive(), "close() did not return"
        assert gone(marker), f"the engine's helper outlived it: {processes_named(marker)}"
    finally:
        for pid in processes_named(marker):  # what a failing client left behind
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads the process table in /proc")
def test_a_helper_that_left_the_engine_s_group_holds_neither_close_nor_the_readers():
    """A helper in a session of its own is out of reach of the group's kill and keeps the
    engine's output open: close() still returns, and the threads reading that output end."""
    marker = f"checkers-test-helper-{uuid.uuid4().hex}"
    engine = make_agent(f"engine:cmd={PYTHON} {shlex.quote(str(FAKE_ENGINE))} escape {marker}")
    try:
        threads = set(threading.enumerate())
        engine.select_move(Game())
        readers = set(threading.enumerate()) - threads
        assert seen(marker, 2), processes_named(marker)  # the engine and its helper
        closing = threading.Thread(target=engine.close, daemon=True)
        closing.start()
        closing.join(30)
        assert not closing.is_alive(), "close() did not return"
        for reader in readers:
            reader.join(10)
        assert not any(reader.is_alive() for reader in readers), "a reader waits on the helper's pipe for ever"
    finally:
        for pid in processes_named(marker):  # the helper escaped the group: the test ends it
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads the process table in /proc")
@pytest.mark.parametrize("workers", [1, 2])
def test_a_league_with_an_engine_leaves_none_of_its_processes_behind(tmp_path, workers):
    """``checkers league`` with an engine whose helper writes to /dev/null and that leaves
    promptly after quit: the league ends, and no process of the engine's group lives on
    (with two workers, each worker's engine is stopped as the worker leaves)."""
    marker = f"checkers-test-helper-{uuid.uuid4().hex}"
    spec = f"engine:cmd={PYTHON} {shlex.quote(str(FAKE_ENGINE))} orphanquiet {marker}"
    league = subprocess.run(
        [
            sys.executable,
            "-m",
            "checkers_evaluation.cli",
            "league",
            "random",
            spec,
            "--games-per-pair",
            "2",
            "--openings",
            "random:2",
            "--max-plies",
            "20",
            "--bootstrap",
            "0",
            "--workers",
            str(workers),
            "--out",
            str(tmp_path / "league"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    try:
        assert league.returncode == 0, league.stderr
        assert (tmp_path / "league" / "games.jsonl").read_text().count("\n") == 2
        assert gone(marker), f"the engine's helpers outlived the league: {processes_named(marker)}"
    finally:
        for pid in processes_named(marker):
            os.kill(pid, signal.SIGKILL)


def test_a_league_run_from_python_stops_its_engines_when_it_ends(tmp_path):
    from checkers_evaluation.league import League

    marker = f"checkers-test-helper-{uuid.uuid4().hex}"
    spec = f"engine:cmd={PYTHON} {shlex.quote(str(FAKE_ENGINE))} orphanquiet {marker},name=engine"
    try:
        League(
            ["random", spec],
            out=tmp_path,
            games_per_pair=2,
            workers=1,
            progress=False,
            bootstrap=0,
            openings="random:2",
        ).run()
        assert gone(marker), f"the league's engine outlived its run: {processes_named(marker)}"
    finally:
        for pid in processes_named(marker):
            os.kill(pid, signal.SIGKILL)


def test_an_engine_that_says_more_than_it_was_asked_forfeits():
    engine, game = make_agent(fake("chatty")), Game()
    game.play(engine.select_move(game))
    for _ in range(3000):  # its extra line is on its way: wait until the reader has it
        if not engine._engine.lines.empty():
            break
        time.sleep(0.01)
    game.play("22-18" if "22-18" in {str(m) for m in game.legal_moves()} else game.legal_moves()[0])
    with pytest.raises(ForfeitError, match="sent 'bestmove 11-15' when nothing was asked"):
        engine.select_move(game)


def test_an_engine_that_exits_between_moves_forfeits():
    engine, game = make_agent(fake("once")), Game()
    game.play(engine.select_move(game))
    engine._engine.process.wait(30)
    game.play(game.legal_moves()[0])
    with pytest.raises(ForfeitError, match="exited with status 0 since its last move"):
        engine.select_move(game)


def test_after_a_forfeit_the_next_game_starts_a_fresh_engine():
    engine = make_agent(fake("crash"))
    for _ in range(2):
        with pytest.raises(ForfeitError, match="exited with status 3"):
            engine.select_move(Game())


def test_other_errors_of_an_agent_are_not_forfeits():
    class Broken:
        name = "broken"

        def select_move(self, game):
            raise RuntimeError("a bug")

        def reset(self, seed=None):
            pass

    with pytest.raises(RuntimeError, match="a bug"):
        play_game(Broken(), make_agent("random"), rng=np.random.default_rng(0))


def test_bestmove_lines_round_trip():
    pv = tuple(Move.from_pdn(text) for text in ("11-15", "23-19", "8-11"))
    for search in (EngineSearch(), EngineSearch(depth=6, value=-0.25, nodes=1234, pv=pv), EngineSearch(value=999996.0)):
        line = format_bestmove(Move.from_pdn("11-15"), search)
        assert parse_bestmove(line) == ("11-15", search)
    assert format_bestmove("9x18x27", EngineSearch(depth=2, value=3.0)) == "bestmove 9x18x27 depth 2 score 3"
    # Words of later versions are skipped.
    assert parse_bestmove("bestmove 11-15 seldepth 9 depth 4") == ("11-15", EngineSearch(depth=4))


#: ``bestmove`` lines a reader refuses, each with what the error names.
BAD_BESTMOVE_LINES = {
    "": "expected 'bestmove MOVE ...'",
    "bestmove": "expected 'bestmove MOVE ...'",
    "move 11-15": "expected 'bestmove MOVE ...'",
    "bestmove 11-15 depth": "'depth' has no value",
    "bestmove 11-15 depth 4.5": "depth '4.5' is not a number",
    "bestmove 11-15 score high": "score 'high' is not a number",
    "bestmove 11-15 nodes many": "nodes 'many' is not a number",
    "bestmove 11-15 pv 11-15 23-99": "bad pv",
}


@pytest.mark.parametrize(("line", "words"), BAD_BESTMOVE_LINES.items(), ids=list(BAD_BESTMOVE_LINES))
def test_bad_bestmove_lines_name_what_is_wrong(line, words):
    with pytest.raises(ValueError, match=words):
        parse_bestmove(line)
