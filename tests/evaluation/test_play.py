"""``checkers play`` driven through a pseudo-terminal, as a person would use it, plus a few
in-process checks of the session."""

from __future__ import annotations

import os
import pty
import re
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkers_env import BLACK, WHITE, Board, make_agent, read_pdn
from checkers_evaluation.cli import main
from checkers_evaluation.play import PlaySession

ROOT = Path(__file__).resolve().parents[2]

# Black to move must capture with the man on 11, along two paths that both end on 27:
# 11x18x27 (over 15 and 23) or 11x20x27 (over 16 and 24). The short "11x27" is ambiguous.
AMBIGUOUS_FEN = "B:W15,16,23,24,25,29,30,31:B1,2,3,5,11"


class Terminal:
    """``checkers play ...`` on a pseudo-terminal, with an expect-style reader."""

    def __init__(self, *args: str):
        master, slave = pty.openpty()
        env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="100", LINES="40")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "checkers_evaluation.cli", "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.fd = master
        self.output = ""  # everything read so far (\r\n turned into \n)
        self.seen = 0  # where the last expect stopped

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not data:
            return False
        self.output += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, text: str, timeout: float = 30.0) -> str:
        """Read until ``text`` appears after the last match; return what came before it."""
        deadline = time.monotonic() + timeout
        while True:
            at = self.output.find(text, self.seen)
            if at >= 0:
                chunk = self.output[self.seen : at]
                self.seen = at + len(text)
                return chunk
            left = deadline - time.monotonic()
            if left <= 0 or (not self._read(min(left, 0.5)) and self.proc.poll() is not None and not self._read(0.1)):
                raise AssertionError(f"did not see {text!r}; output so far:\n{self.output[self.seen :]}")

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def send_eof(self) -> None:
        os.write(self.fd, b"\x04")  # Ctrl-D at the start of a line

    def close(self, timeout: float = 10.0) -> int:
        try:
            code = self.proc.wait(timeout=timeout)
            while self._read(0.1):
                pass
            return code
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            os.close(self.fd)


@pytest.fixture
def terminal_factory():
    terminals = []

    def start(*args: str) -> Terminal:
        terminals.append(Terminal(*args))
        return terminals[-1]

    yield start
    for terminal in terminals:
        if terminal.proc.poll() is None:
            terminal.proc.kill()
            terminal.proc.wait()


PROMPT = "your move (black)> "


def test_a_game_through_a_pseudo_terminal(tmp_path, terminal_factory):
    term = terminal_factory("--opponent", "random", "--seed", "3", "--fen", AMBIGUOUS_FEN)
    intro = term.expect(PROMPT)
    assert "You play black against random" in intro
    assert "b11" in intro and "w15" in intro and "w31" in intro  # the board, with square numbers
    assert f"FEN: {AMBIGUOUS_FEN}" in intro

    term.send("help")
    assert "undo" in term.expect(PROMPT) and "save FILE" in term.output

    # Illegal: a step while a capture is mandatory. The message lists the legal moves.
    term.send("1-6")
    reply = term.expect(PROMPT)
    assert "illegal move '1-6'" in reply
    assert "legal moves: 11x18x27, 11x20x27" in reply and "capture is mandatory" in reply

    # Ambiguous: the short capture fits two paths; both are named.
    term.send("11x27")
    reply = term.expect(PROMPT)
    assert "'11x27' is ambiguous" in reply and "11x18x27, 11x20x27" in reply

    # Not a move at all.
    term.send("eleven")
    assert "not a move in PDN notation" in term.expect(PROMPT)

    # Legal: the full path; the agent answers.
    term.send("11x18x27")
    reply = term.expect(PROMPT)
    assert "you play 11x18x27" in reply
    answer = re.search(r"random \(white\) plays (\S+)", reply)
    assert answer, reply
    after = Board.from_fen(AMBIGUOUS_FEN).play("11x18x27").play(answer.group(1))
    assert f"FEN: {after.fen()}" in reply

    term.send("hint")
    hint = re.search(r"hint: (\S+) \(random's choice in your place\)", term.expect(PROMPT))
    assert hint and hint.group(1) in [str(m) for m in after.legal_moves()]

    played = tmp_path / "played.pdn"
    term.send(f"save {played}")
    assert f"saved the game (2 plies, *) to {played}" in term.expect(PROMPT)

    term.send("undo")
    reply = term.expect(PROMPT)
    assert f"took back 11x18x27, {answer.group(1)}" in reply
    assert f"FEN: {AMBIGUOUS_FEN}" in reply  # back at the start

    term.send("undo")
    assert "nothing to undo" in term.expect(PROMPT)

    empty = tmp_path / "empty.pdn"
    term.send(f"save {empty}")
    term.expect(PROMPT)

    term.send("quit")
    assert "game left unfinished after 0 plies" in term.expect("bye.")
    assert term.close() == 0

    (game,) = read_pdn(played)
    assert [str(m) for m in game.moves] == ["11x18x27", answer.group(1)]
    assert game.start == Board.from_fen(AMBIGUOUS_FEN)
    assert game.headers["Black"] == "human" and game.headers["White"] == "random"
    assert game.result == "*"
    (game,) = read_pdn(empty)
    assert game.moves == [] and game.start == Board.from_fen(AMBIGUOUS_FEN)


def test_playing_white_and_winning(terminal_factory, tmp_path):
    # White to move captures Black's last piece: 23x14 wins at once.
    term = terminal_factory("--opponent", "greedy", "--color", "white", "--fen", "W:W23:B18")
    assert "You play white against greedy" in term.expect("your move (white)> ")
    term.send("23x14")
    reply = term.expect("game over> ")
    assert "you play 23x14" in reply
    assert "game over: 0-1 (no_moves: black has no pieces left) - you win" in reply
    term.send("11-15")
    assert "the game is over" in term.expect("game over> ")
    path = tmp_path / "won.pdn"
    term.send(f"save {path}")
    term.expect("game over> ")
    term.send("quit")
    assert "bye. Result 0-1 (no_moves)" in term.expect(" after 1 ply.")
    assert term.close() == 0
    (game,) = read_pdn(path)
    assert game.result == "0-1" and game.headers["White"] == "human"


def test_the_agent_moves_first_when_the_person_plays_white(terminal_factory):
    term = terminal_factory("--opponent", "random", "--seed", "1", "--color", "white")
    reply = term.expect("your move (white)> ")
    opening = re.search(r"random \(black\) plays (\S+)", reply)
    assert opening and opening.group(1) in [str(m) for m in Board().legal_moves()]
    term.send("undo")  # the agent's first move is not the person's to take back
    assert "nothing to undo" in term.expect("your move (white)> ")
    term.send_eof()  # end of input leaves like quit
    assert "game left unfinished after 1 ply." in term.expect("bye.")
    assert term.close() == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--opponent", "nonsense"], "unknown agent kind 'nonsense'"),
        (["play", "--opponent", "random:depth=3"], "has no parameter 'depth'"),
        (["play", "--opponent", "random", "--fen", "B:W21:B33"], "'B:W21:B33'"),
    ],
)
def test_bad_options_are_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("checkers: error: ") and message in captured.err
    assert captured.err.count("\n") == 1


def test_session_in_process():
    out: list[str] = []
    answers = ["9-13", lambda: str(session.game.legal_moves()[0]), "undo", "quit"]

    def read(prompt: str) -> str:
        answer = answers.pop(0)
        return answer() if callable(answer) else answer

    session = PlaySession(make_agent("random:seed=2"), human=WHITE, read=read, write=out.append)
    assert session.run() == 0
    text = "\n".join(out)
    first = re.search(r"random:seed=2 \(black\) plays (\S+)", text).group(1)
    assert "illegal move '9-13'" in text  # a Black move while the person is White
    mine = re.search(r"you play (\S+)", text).group(1)
    reply = re.search(r"random:seed=2 \(black\) plays (\S+)", text[text.index("you play") :]).group(1)
    assert f"took back {mine}, {reply}" in text
    assert [str(m) for m in session.game.moves] == [first]
    assert not answers


def _session(answers: list, human=WHITE, agent="greedy:seed=1", start=None):
    out: list[str] = []

    def read(prompt: str) -> str:
        if not answers:
            raise EOFError
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer() if callable(answer) else answer

    session = PlaySession(
        make_agent(agent), human=human, start=start, read=read, write=out.append, status=lambda text: None
    )
    return session, out


def test_the_board_is_drawn_from_the_persons_side():
    session, out = _session(["board", "quit"], human=WHITE)
    session.run()
    board = next(text for text in out if "+----" in text).splitlines()
    assert board[0].strip() == "Black" and board[-1].strip().startswith("White")
    rows = board[2:10]
    assert rows[-1].strip("| ").startswith("w29")  # seen from White, 29 is a1, White's men near
    assert rows[0].strip("| ").startswith("b1")  # and Black's far away
    session, out = _session(["quit"], human=BLACK)
    session.run()
    rows = next(text for text in out if "+----" in text).splitlines()[2:10]
    assert rows[-1].strip("| ").startswith("b4")  # seen from Black, 4 is a1


def test_upper_case_moves_and_commands(tmp_path):
    start = Board.from_fen("B:W18,25:B14")  # Black must capture 14x23
    session, out = _session(["14X23", "MOVES", "Quit"], human=BLACK, start=start)
    assert session.run() == 0
    assert "you play 14x23" in out


def test_resign_ends_the_game_and_is_saved(tmp_path):
    target = tmp_path / "resigned.pdn"
    session, out = _session(["11-15", "RESIGN", "11-16", f"save {target}", "quit"], human=BLACK)
    assert session.run() == 0
    assert "you resign: 0-1" in out
    assert any("the game is over (0-1)" in line for line in out)
    game = read_pdn(target)[0]
    assert game.result == "0-1" and game.headers["Termination"] == "resignation"
    assert any("after 2 plies" in line for line in out)


def test_load_a_pdn_game_or_a_fen(tmp_path):
    saved = tmp_path / "game.pdn"
    saved.write_text('[Black "a"]\n[White "b"]\n1. 11-15 23-19 *\n')
    session, out = _session([f"load {saved}"], human=BLACK)
    session.run()
    assert session.game.ply >= 2 and [str(m) for m in session.game.moves[:2]] == ["11-15", "23-19"]
    assert any("loaded 2 plies" in line for line in out)
    session, out = _session(["load w:w18:b14,k1", "load nowhere.pdn"], human=WHITE)
    session.run()
    assert session.game.start == Board.from_fen("W:W18:B14,K1")
    assert any("cannot load 'nowhere.pdn'" in line for line in out)


def test_ctrl_c_at_the_prompt_offers_to_save(tmp_path):
    target = tmp_path / "kept.pdn"
    session, out = _session(["11-15", KeyboardInterrupt(), "y", str(target)], human=BLACK)
    assert session.run() == 130
    assert [str(m) for m in read_pdn(target)[0].moves][:1] == ["11-15"]
    assert any("saved the game (2 plies" in line for line in out)


def _restore_sigint() -> None:
    """Run in the child before it starts: a process started in the background by a
    non-interactive shell (CI) inherits SIGINT as ignored, and Python then never raises
    KeyboardInterrupt; the default makes the test measure the product, not its harness."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_the_save_prompt_asks_yes_or_no_before_a_file_name(tmp_path, monkeypatch):
    """An answer to 'save?' is never taken for a file name: 'y' used to write a file named y."""
    monkeypatch.chdir(tmp_path)
    prompts: list[str] = []
    answers = ["11-15", KeyboardInterrupt(), "maybe", "", "YES", str(tmp_path), ""]
    session, out = _session(answers, human=BLACK)
    reader = session.read
    session.read = lambda prompt: prompts.append(prompt) or reader(prompt)
    assert session.run() == 130
    assert prompts[-5:] == [
        "interrupted: save the game as PDN? (y/n)> ",
        "please answer y or n: save the game? (y/n)> ",  # "maybe"
        "please answer y or n: save the game? (y/n)> ",  # ""
        "file name (Enter: do not save)> ",  # "YES"
        "file name (Enter: do not save)> ",  # a folder cannot be saved to: asked again
    ]
    assert any(line.startswith(f"cannot save to {str(tmp_path)!r}") for line in out)
    assert out[-1] == "not saved. bye." and list(tmp_path.iterdir()) == []
    for no in ("n", "No"):
        session, out = _session(["11-15", KeyboardInterrupt(), no, "y"], human=BLACK)
        assert session.run() == 130
        assert out[-1] == "not saved. bye." and list(tmp_path.iterdir()) == []


def test_ctrl_c_while_the_agent_thinks_stops_it_within_seconds(tmp_path):
    import signal

    # Compile the search kernel here first (the child reads numba's cache): a SIGINT that
    # lands while the child compiles waits for the compiler, which says nothing about Ctrl-C.
    from checkers_env import Game, make_agent

    make_agent("alphabeta:depth=1").select_move(Game())
    # A depth no search finishes: the agent thinks until stopped.
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "checkers_evaluation.cli",
            "play",
            "--opponent",
            "alphabeta:depth=40",
            "--color",
            "white",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        text=True,
        start_new_session=True,
        preexec_fn=_restore_sigint,  # its own process group: the finally below kills its agent worker too
    )
    try:
        deadline = time.monotonic() + 60
        seen = ""
        while "is thinking" not in seen and time.monotonic() < deadline:  # the status line, on stderr
            ready, _, _ = select.select([process.stderr], [], [], 1)
            if ready:
                seen += os.read(process.stderr.fileno(), 4096).decode()
        assert "alphabeta:depth=40 is thinking" in seen
        time.sleep(1)
        process.send_signal(signal.SIGINT)
        began = time.monotonic()
        out, err = process.communicate(timeout=10)  # stdin closes: no file name, no save
        assert time.monotonic() - began < 3, "the agent's search held Ctrl-C"
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the session and its agent worker, if left
        except ProcessLookupError:
            pass
    assert process.returncode == 130
    assert "Traceback" not in err
    assert "interrupted" in out


def test_the_status_says_the_agent_gets_ready_before_it_says_it_thinks():
    """Starting the worker and warming the agent up (its kernels compile on first use) is
    not shown as thinking."""
    from checkers_evaluation.play import AgentProcess

    statuses: list[str] = []
    agent = AgentProcess("alphabeta:depth=40")  # a worker takes more than THINKING_SHOWN_AFTER to start
    answers = ["quit"]
    session = PlaySession(
        agent, human=WHITE, read=lambda prompt: answers.pop(0), write=lambda text: None, status=statuses.append
    )
    try:
        session.agent.select_move = _stopped_after_thinking(agent, statuses)
        with pytest.raises(_Stopped):
            session.run()
    finally:
        agent.close()
    ready = [i for i, text in enumerate(statuses) if "alphabeta:depth=40 is getting ready" in text]
    thinking = [i for i, text in enumerate(statuses) if "alphabeta:depth=40 is thinking" in text]
    assert ready and thinking and max(ready) < min(thinking)


class _Stopped(Exception):
    pass


def _stopped_after_thinking(agent, statuses):
    """The agent's ``select_move``, stopped once the session has shown it thinking."""
    select_move = agent.select_move

    def select(game, waiting=None):
        def watch(seconds):
            waiting(seconds)
            if any("is thinking" in text for text in statuses):
                raise _Stopped

        return select_move(game, waiting=watch)

    return select


def test_a_pickled_model_is_opened_only_with_trust_pickles(pickle_payload):
    pytest.importorskip("sb3_contrib")
    from checkers_evaluation.cli import main

    model, marker = pickle_payload
    assert main(["play", "--opponent", f"ppo:weights={model}"]) == 2
    assert not marker.exists()
    assert main(["play", "--opponent", f"ppo:weights={model}", "--trust-pickles"]) == 2
    assert marker.exists()


def test_the_agent_processs_errors_say_what_went_wrong():
    """A spec that cannot be built, and a move the agent cannot make, are reported with
    the agent's own words (the worker answers them; it used to die with the move's error,
    which reached the session as 'its process exited')."""
    from checkers_env import Game
    from checkers_evaluation.play import AgentProcess

    broken = AgentProcess("alphabeta:depth=0")
    try:
        with pytest.raises(RuntimeError, match="cannot build the agent 'alphabeta:depth=0': .*depth must be"):
            broken.select_move(Game())
    finally:
        broken.close()
    agent = AgentProcess("random", seed=1)
    try:
        assert agent.select_move(Game()) in Board().legal_moves()
        with pytest.raises(RuntimeError, match="the agent 'random' failed: ValueError: random has no legal move"):
            agent.select_move(Game(start=Board.from_fen("B:W18:B")))
        assert agent.select_move(Game()) in Board().legal_moves()  # the worker goes on
    finally:
        agent.close()


FAKE_ENGINE = ROOT / "tests" / "data" / "fake_engine.py"


def fake_engine(mode: str, **params) -> str:
    """The spec of ``tests/data/fake_engine.py`` in ``mode`` (an engine that misbehaves)."""
    extra = "".join(f",{key}={value}" for key, value in params.items())
    return f"engine:cmd={shlex.quote(sys.executable)} {shlex.quote(str(FAKE_ENGINE))} {mode}{extra}"


#: Ways an engine fails at its first move, its spec's extra parameters, and what the forfeit says.
FORFEITS = [
    ("illegal", {}, "played an illegal move"),
    ("garbage", {}, "answered garbage"),
    ("silent", {"timeout": 1.0}, "sent no answer to go within 1 s"),
    ("crash", {}, "exited with status 3 before it answered go"),
]


@pytest.mark.parametrize(("mode", "params", "words"), FORFEITS, ids=[mode for mode, _, _ in FORFEITS])
def test_an_engine_that_forfeits_loses_the_game_as_in_a_league(mode, params, words, tmp_path):
    """The engine (Black, on move first) forfeits: one line names it and why, the game is
    the person's win, recorded as the league records a forfeit, and the session goes on."""
    spec = fake_engine(mode, **params)
    saved = tmp_path / "forfeit.pdn"
    session, out = _session(["11-15", f"save {saved}", "quit"], human=WHITE, agent=spec)
    assert session.run() == 0
    said = [line for line in out if "forfeited" in line]
    assert len(said) == 1 and "\n" not in said[0]
    assert said[0].startswith(f"black ({spec}) forfeited: engine ") and words in said[0]
    assert "game over: 0-1 (forfeit) - you win" in out
    assert any("the game is over (0-1)" in line for line in out)  # no move after the end
    assert out[-1] == "bye. Result 0-1 (forfeit) after 0 plies."
    (game,) = read_pdn(saved)
    assert game.result == "0-1" and game.moves == []
    assert game.headers["Termination"] == "forfeit" and game.headers["Forfeit"] == said[0]


def test_undo_takes_back_a_forfeit_and_asks_a_fresh_engine():
    # "once" answers its first go, then exits: its second move is a forfeit.
    answers = [lambda: str(session.game.legal_moves()[0]), "undo", "quit"]
    session, out = _session(answers, human=WHITE, agent=fake_engine("once"))
    assert session.run() == 0
    assert any("forfeited: engine " in line and "exited with status 0" in line for line in out)
    assert any(line.startswith("took back the forfeit") for line in out)
    # The engine started afresh and moved; the game goes on.
    assert session.game.ply == 3 and not session.is_over() and "Forfeit" not in session.game.headers


def test_checkers_play_announces_an_engine_s_forfeit_instead_of_a_traceback(terminal_factory):
    spec = fake_engine("garbage")
    term = terminal_factory("--opponent", spec, "--color", "white")
    ending = term.expect("game over> ", timeout=60)
    assert f"black ({spec}) forfeited: engine " in ending and "answered garbage" in ending
    assert "game over: 0-1 (forfeit) - you win" in ending
    term.send("quit")
    assert "bye. Result 0-1 (forfeit)" in term.expect(" after 0 plies.")
    assert term.close() == 0
    assert "Traceback" not in term.output
