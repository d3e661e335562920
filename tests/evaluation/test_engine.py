"""``checkers engine``: the protocol (every bad line answered by one error line, the engine
reading on), positions with their history, and a league between engine processes that
plays the moves the same agents play in-process."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from checkers_agents.engine import parse_bestmove
from checkers_env import Board, Game, __version__, make_agent
from checkers_evaluation.cli import main
from checkers_evaluation.engine_server import EngineServer
from checkers_evaluation.league import League, load_records

ENGINE = f"{shlex.quote(sys.executable)} -m checkers_evaluation.cli engine"
FAKE_ENGINE = Path(__file__).resolve().parents[1] / "data" / "fake_engine.py"


def test_hello_isready_and_a_move_with_its_search():
    server = EngineServer("alphabeta:depth=3")
    assert server.handle("hello") == [
        f"hello protocol 1 options agent name checkers-suite {__version__} alphabeta:depth=3"
    ]
    assert server.handle("isready") == ["readyok"]
    assert server.handle("newgame seed 4") == []
    assert server.handle("position startpos moves 11-15 23-19") == []
    [answer] = server.handle("go")
    move, search = parse_bestmove(answer)
    game = Game(moves=["11-15", "23-19"])
    agent = make_agent("alphabeta:depth=3")
    agent.reset(seed=4)
    assert move == str(agent.select_move(game))
    assert (search.depth, search.value) == (3, agent.last_search.value)
    assert search.pv == agent.last_search.pv and search.pv[0] == game.board.parse_move(move)


def test_go_limits_reach_the_agent():
    server = EngineServer("alphabeta")
    server.handle("position startpos")
    for depth in (1, 2, 5):
        assert parse_bestmove(server.handle(f"go depth {depth}")[0])[1].depth == depth
    assert parse_bestmove(server.handle("go time 0.05")[0])[1].depth >= 1
    # An agent that takes no depth plays with the limit ignored.
    server = EngineServer("random")
    server.handle("position startpos")
    assert server.handle("go depth 3")[0].split()[1] in {str(m) for m in Board().legal_moves()}


def test_the_history_brings_the_draw_rules():
    # Two kings shuffle: the start comes back a third time after eight plies.
    shuffle = "1-6 32-27 6-1 27-32 " * 2
    server = EngineServer("greedy")
    assert server.handle(f"position fen B:WK32:BK1 moves {shuffle}") == []
    assert server.handle("go") == ["error go: the game is over (repetition, 1/2-1/2)"]
    assert server.handle(f"position fen B:WK32:BK1 moves {shuffle[:-7]}") == []
    assert server.handle("go")[0].startswith("bestmove ")


#: Lines the engine cannot follow, and the start of the one error line each gets.
BAD_LINES = [
    (
        "frobnicate",
        "error unknown command 'frobnicate' (commands: hello, isready, setoption, newgame, position, go, quit)",
    ),
    ("uci", "error unknown command 'uci'"),
    ("search", "error unknown command 'search'"),
    ("position", "error position: expected 'position startpos [moves ...]' or 'position fen FEN [moves ...]'"),
    ("position middle", "error position: expected 'position startpos"),
    ("position startpos 11-15", "error position: expected 'moves' after startpos, got '11-15'"),
    ("position fen", "error position: 'position fen' needs a FEN"),
    ("position fen moves 11-15", "error position: 'position fen' needs a FEN"),
    ("position fen X:Y", "error position: bad FEN 'X:Y'"),
    ("position fen B:W1:B1", "error position: "),
    ("position startpos moves 11-15 11-15", "error position: move 2 '11-15': "),
    ("position startpos moves 11-15 banana", "error position: move 2 'banana': "),
    ("position startpos moves 9x18", "error position: move 1 '9x18': "),
    ("go", "error go: no position: send 'position startpos' or 'position fen FEN' first"),
    ("go depth 0", "error go: depth must be a whole number from 1 to 64, got '0'"),
    ("go depth two", "error go: depth must be a whole number from 1 to 64, got 'two'"),
    ("go depth 2.5", "error go: depth must be a whole number from 1 to 64, got '2.5'"),
    ("go depth 1000", "error go: depth must be a whole number from 1 to 64, got '1000'"),
    ("go time -1", "error go: time must be a number of seconds above 0 and at most 3600, got '-1'"),
    ("go time 0", "error go: time must be a number of seconds above 0 and at most 3600, got '0'"),
    ("go time nan", "error go: time must be a number of seconds above 0 and at most 3600, got 'nan'"),
    ("go time 1e9", "error go: time must be a number of seconds above 0 and at most 3600, got '1e9'"),
    ("go nodes 100", "error go: 'nodes' is not a limit here"),
    ("go depth 2 depth 3", "error go: 'depth' is not a limit here (limits: depth N, time S, each once)"),
    ("go depth", "error go: expected 'go [depth N] [time S]', got 'go depth'"),
    ("newgame 7", "error newgame: expected 'newgame' or 'newgame seed N', got '7'"),
    ("newgame seed -1", "error newgame: seed must be a whole number >= 0, got '-1'"),
    ("newgame seed x", "error newgame: seed must be a whole number >= 0, got 'x'"),
    ("setoption agent random", "error setoption: expected 'setoption name agent value SPEC'"),
    ("setoption name depth value 3", "error setoption: no option 'depth' (options: agent)"),
    ("setoption name agent value nosuchkind", "error setoption: unknown agent kind 'nosuchkind'"),
    # A value its kind refuses is this command's error, not the next go's.
    ("setoption name agent value alphabeta:depth=1000", "error setoption: cannot build 'alphabeta:depth=1000'"),
    ("setoption name agent value mcrd:playouts=0", "error setoption: cannot build 'mcrd:playouts=0'"),
    ("setoption name agent value alphabeta:depht=3", "error setoption: agent 'alphabeta' has no parameter 'depht'"),
    (
        "setoption name agent value alphabeta:weights=/etc/passwd",
        "error setoption: agent 'alphabeta': weights= names a file",
    ),
    ("setoption name agent value engine:cmd=sh -c reboot", "error setoption: agent 'engine': cmd= names a file"),
    ("setoption name agent value ppo:trusted=true", "error setoption: agent 'ppo': trusted= is set in Python only"),
]


@pytest.mark.parametrize(("line", "error"), BAD_LINES, ids=[line for line, _ in BAD_LINES])
def test_a_bad_line_gets_one_error_line_and_the_engine_goes_on(line, error):
    server = EngineServer("greedy:seed=2")
    answers = server.handle(line)
    assert len(answers) == 1 and answers[0].startswith(error), answers
    # It reads on, with its agent as it was.
    assert server.handle("isready") == ["readyok"]
    assert server.handle("hello")[0].endswith(" greedy:seed=2")
    assert server.handle("position startpos") == []
    assert server.handle("go")[0].startswith("bestmove ")


def test_go_on_a_finished_game_and_a_failing_agent_get_error_lines():
    server = EngineServer("random")
    assert server.handle("position fen B:W14:B9 moves 9x18") == []
    assert server.handle("go") == ["error go: the game is over (no_moves, 1-0)"]
    # An agent that cannot be built: answered at isready (and readyok still comes), and at go.
    server = EngineServer("alphabeta:egdb=5,egdb_folder=/nonexistent-egdb-folder")
    first, last = server.handle("isready")
    assert first.startswith("error isready: cannot build") and last == "readyok"
    server.handle("position startpos")
    assert server.handle("go")[0].startswith("error go: cannot build")


def test_setoption_changes_the_agent():
    server = EngineServer("random")
    assert server.handle("setoption name agent value greedy:seed=1") == []
    assert server.handle("hello")[0].endswith(" greedy:seed=1")
    server.handle("position startpos")
    assert server.handle("go") == [f"bestmove {make_agent('greedy:seed=1').select_move(Game())}"]


def test_the_command_refuses_a_bad_agent_before_reading(capsys):
    assert main(["engine", "--agent", "nosuchkind"]) == 2
    assert capsys.readouterr().err.startswith("checkers: error: unknown agent kind 'nosuchkind'")


def test_the_command_over_its_pipes():
    script = "hello\n\nfrobnicate\nisready\nnewgame seed 1\nposition startpos moves 11-15\ngo\nquit\nhello\n"
    done = subprocess.run(
        [sys.executable, "-m", "checkers_evaluation.cli", "engine", "--agent", "greedy"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0
    assert lines[0].startswith("hello protocol 1 ") and lines[1].startswith("error unknown command 'frobnicate'")
    assert lines[2] == "readyok" and lines[3].startswith("bestmove ")
    assert len(lines) == 4  # nothing after quit
    # The end of stdin ends it too.
    done = subprocess.run(
        [sys.executable, "-m", "checkers_evaluation.cli", "engine", "--agent", "random"],
        input="isready\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, "readyok\n")


def test_the_end_of_its_input_ends_a_search_at_once():
    """A driver that leaves mid-search (its pipe closed, nothing more in it) leaves no
    engine thinking behind; one whose last command is still to be read gets its answer."""
    command = [sys.executable, "-m", "checkers_evaluation.cli", "engine", "--agent", "alphabeta"]
    engine = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        # No answer: it ends when its input does (else a search of 3000 s, past the timeout).
        assert engine.communicate("position startpos\ngo time 3000\n", timeout=60)[0] == ""
    finally:
        engine.kill()
        engine.wait()
    # With more to read (quit), the search goes on and is answered.
    done = subprocess.run(
        command, input="position startpos\ngo depth 2\nquit\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.startswith("bestmove ")


def _moves_by_key(folder: Path) -> dict[str, tuple]:
    return {r.key: (r.moves, r.result, r.termination) for r in load_records(folder / "games.jsonl")}


def test_a_league_of_engine_processes_plays_the_moves_of_the_same_agents_in_process(tmp_path):
    agents = ["alphabeta:depth=3", "random:seed=7"]
    common = dict(games_per_pair=4, workers=1, progress=False, bootstrap=0, seed=3)
    League(agents, out=tmp_path / "in-process", **common).run()
    # A generous timeout: a cold numba cache compiles the search when the engine gets ready.
    League(
        [f"engine:cmd={ENGINE} --agent {spec},timeout=600,name={spec.split(':')[0]}-engine" for spec in agents],
        out=tmp_path / "engines",
        **common,
    ).run()
    in_process, engines = _moves_by_key(tmp_path / "in-process"), _moves_by_key(tmp_path / "engines")
    assert len(in_process) == 4 and in_process == engines
    assert all(len(moves) > 10 for moves, _, _ in engines.values())
    assert {termination for _, _, termination in engines.values()} != {"forfeit"}


def test_a_league_goes_on_past_an_engine_that_crashes(tmp_path):
    crashing = f"engine:cmd={shlex.quote(sys.executable)} {shlex.quote(str(FAKE_ENGINE))} crash,name=crashing"
    League([crashing, "greedy"], out=tmp_path, games_per_pair=2, workers=1, progress=False, bootstrap=0).run()
    records = load_records(tmp_path / "games.jsonl")
    assert len(records) == 2
    for record in records:
        assert record.termination == "forfeit" and record.score("greedy") == 1.0
        side = "black" if record.black == "crashing" else "white"
        assert record.forfeit.startswith(f"{side} (") and "exited with status 3 before it answered go" in record.forfeit
    assert '[Forfeit "' in (tmp_path / "games.pdn").read_text(encoding="utf-8")
    assert json.loads((tmp_path / "games.jsonl").read_text(encoding="utf-8").splitlines()[0])["forfeit"]
