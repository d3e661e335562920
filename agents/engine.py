"""Outside engines as agents: ``engine:cmd=...`` drives any program that speaks the suite's
engine protocol (``docs/engine-protocol.md``) over its stdin and stdout, so that a league
can rate it beside the zoo::

    >>> import sys
    >>> from checkers_env import Game, make_agent
    >>> engine = make_agent(f"engine:cmd={sys.executable} -m checkers_evaluation.cli engine --agent greedy")
    >>> str(engine.select_move(Game())) in {str(m) for m in Game().legal_moves()}
    True
    >>> engine.close()

The command is split into words as a shell would (``shlex``) and run without a shell: no
pipes, redirections, variables or globs. The program is started on the agent's first move
(so building the agent starts nothing) and stopped by ``close()``, when the agent is
garbage-collected, or at the interpreter's exit; on POSIX it runs in its own process
group, and stopping it kills the group, whether the engine left by itself or not (the
helpers it started go with it), and reaps it (no zombies). Stopping takes a few seconds at
most whatever the engine and its helpers do: a helper that holds its output open, or that
left the group (out of reach of the kill), holds up neither the stop nor the suite.

**Losing by forfeit.** An engine that cannot start, exits, stays silent past its limit,
answers something that is not ``bestmove MOVE`` (or an ``error`` line), says something when
nothing was asked, or plays an illegal move makes ``select_move`` raise ``ForfeitError`` naming what happened; the match loop
(``checkers_env.match.play_game``) scores that game as the engine's loss (termination
``forfeit``) and the league goes on. The engine is then stopped, and started afresh for the
next move asked of it. A move must come within ``time + margin`` seconds of ``go`` when
``time`` is set, else within ``timeout``.

The parts both sides of the protocol share live here too: :data:`PROTOCOL_VERSION`, and
the ``bestmove`` line's writer and reader (:func:`format_bestmove`, :func:`parse_bestmove`),
which ``checkers engine`` (``checkers_evaluation.engine_server``) uses to answer.
"""

from __future__ import annotations

import math
import os
import queue
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time as clock
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from checkers_env.agent import BaseAgent, FilePath
from checkers_env.board import Move
from checkers_env.errors import ForfeitError, IllegalMoveError, InvalidMoveError
from checkers_env.game import Game

#: The version of the protocol this module speaks (the engine's ``hello`` line names its own).
PROTOCOL_VERSION = 1

#: Seconds an engine is given, beyond its ``time`` per move, for its answer to arrive.
MOVE_TIME_MARGIN = 0.5

#: Seconds the engine may take to start and be ready, and to move when no time is set.
DEFAULT_TIMEOUT = 60.0

#: Seconds an engine may take to leave after ``quit`` before it is killed: an engine that
#: writes its files or tears down a large runtime on the way out is not cut short.
QUIT_GRACE = 2.0

#: Characters of the engine's last stderr lines kept to explain a crash.
STDERR_KEPT = 400

#: Longest line read from an engine (a longer one is garbage, not a move).
LONGEST_LINE = 65536

#: Lines of the engine kept unread: it answers one line per command, so more is already a
#: forfeit, and an engine that floods its output does not fill the suite's memory.
PENDING_LINES = 16

#: Seconds to wait for a killed engine to be reaped, and for each reader thread to end.
STOP_WAIT = 5.0


class _LongLine(str):
    """What the reader puts in place of a line longer than ``LONGEST_LINE`` (its first
    characters), as soon as it is that long: the rest of that line is skipped, so no piece
    of it is taken for the answer to a later command."""


@dataclass(frozen=True)
class EngineSearch:
    """What an engine said of its move (the ``bestmove`` line's extras), shaped as the
    suite's search results so that ``checkers play`` shows it.

    Attributes:
        depth: the depth it searched, or None.
        value: its score for the side to move, or None.
        nodes: nodes it searched, or None.
        pv: its principal variation, the move played first (empty if it gave none).
    """

    depth: int | None = None
    value: float | None = None
    nodes: int | None = None
    pv: tuple[Move, ...] = ()


def format_bestmove(move: Move | str, search: EngineSearch | None = None) -> str:
    """The engine's answer to ``go``: ``bestmove 11-15 depth 6 score 0.25 nodes 1234 pv 11-15
    23-19``; the extras only where ``search`` has them."""
    words = ["bestmove", str(move)]
    if search is not None:
        if search.depth is not None:
            words += ["depth", str(search.depth)]
        if search.value is not None:
            words += ["score", f"{round(search.value, 4):g}" if abs(search.value) < 1e5 else repr(search.value)]
        if search.nodes is not None:
            words += ["nodes", str(search.nodes)]
        if search.pv:
            words += ["pv", *(str(move) for move in search.pv)]
    return " ".join(words)


def parse_bestmove(line: str) -> tuple[str, EngineSearch]:
    """Read a ``bestmove`` line (:func:`format_bestmove`'s inverse): the move as the engine
    wrote it, and what it said of its search. Words after the move come in pairs
    (``depth N``, ``score X``, ``nodes N``; others are skipped, for later versions), up to
    ``pv``, which takes the rest of the line.

    Raises:
        ValueError: the line is not ``bestmove MOVE ...``, or a number or a move of the
            extras is malformed (the message quotes it).
    """
    words = line.split()
    if len(words) < 2 or words[0] != "bestmove":
        raise ValueError(f"expected 'bestmove MOVE ...', got {_quoted(line)}")
    fields: dict = {}
    rest = words[2:]
    while rest:
        key = rest.pop(0)
        if key == "pv":
            try:
                fields["pv"] = tuple(Move.from_pdn(text) for text in rest)
            except InvalidMoveError as error:
                raise ValueError(f"bad pv in {_quoted(line)}: {error}") from None
            break
        if not rest:
            raise ValueError(f"{key!r} has no value in {_quoted(line)}")
        value = rest.pop(0)
        try:
            if key in ("depth", "nodes"):
                fields[key] = int(value)
            elif key == "score":
                fields["value"] = float(value)
        except ValueError:
            raise ValueError(f"{key} {value!r} is not a number in {_quoted(line)}") from None
    return words[1], EngineSearch(**fields)


def _quoted(text: str, longest: int = 80) -> str:
    """``text`` quoted, cut to ``longest`` characters (a garbage line may be huge)."""
    return repr(text if len(text) <= longest else text[:longest] + "...")


class EngineAgent(BaseAgent):
    """An outside engine driven over a pipe with the suite's engine protocol
    (``docs/engine-protocol.md``): ``checkers engine --agent SPEC``, or any program that
    speaks it. The command runs without a shell; a crashed, silent, garbage-answering or
    illegal-moving engine loses its game by forfeit.

    Args:
        cmd: the engine's command line, split into words as a shell would (quotes
            allowed) but run without a shell. It names a program, so a spec that may not
            name files (``make_agent(spec, allow_files=False)``, ``checkers serve``) may not
            set it. A spec string cannot hold a comma, so neither can ``cmd``.
        time: seconds per move (``go time S``); an answer later than ``time`` plus
            ``margin`` loses the game. The league's ``--time`` sets it.
        depth: search depth asked of the engine (``go depth N``).
        margin: seconds allowed beyond ``time`` for the answer to arrive
            (``MOVE_TIME_MARGIN`` by default).
        timeout: seconds the engine may take to start and say it is ready, and to move
            when ``time`` is not set.

    Attributes:
        engine_name: the name the engine gave in its ``hello`` line ("" before it started).
        last_search: what the engine said of its last move (``EngineSearch``), or None.
    """

    kind = "engine"

    def __init__(
        self,
        cmd: FilePath,
        time: float | None = None,
        depth: int | None = None,
        margin: float = MOVE_TIME_MARGIN,
        timeout: float = DEFAULT_TIMEOUT,
    ):
        super().__init__(seed=None)
        try:
            self.argv = shlex.split(cmd)
        except ValueError as error:  # an unclosed quote
            raise ValueError(f"cmd {cmd!r} cannot be split into words: {error}") from None
        if not self.argv:
            raise ValueError("cmd is empty: name the engine's program, like cmd=checkers engine")
        if shutil.which(self.argv[0]) is None:
            raise ValueError(f"cmd {cmd!r}: {self.argv[0]!r} is not a program found on PATH or at that path")
        for name, value in (("time", time), ("margin", margin), ("timeout", timeout)):
            if value is not None and not (math.isfinite(value) and value >= 0 and (value > 0 or name == "margin")):
                raise ValueError(f"{name} must be a positive number of seconds, got {value}")
        if depth is not None and depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self.cmd = cmd.strip()
        self.time, self.depth, self.margin, self.timeout = time, depth, margin, timeout
        self.engine_name = ""
        self.last_search: EngineSearch | None = None
        self._engine: _EngineProcess | None = None
        self._new_game: tuple[bool, int | None] = (True, None)

    def reset(self, seed: int | None = None) -> None:
        """A new game: the engine gets ``newgame`` (``newgame seed N`` with a seed) before
        its next move."""
        super().reset(seed)
        self._new_game = (True, seed)

    def select_move(self, game: Game) -> Move:
        """Ask the engine for its move in ``game`` (its start position and every move played).

        Raises:
            ForfeitError: the engine could not start, exited, stayed silent past its limit,
                answered garbage or an error, or played an illegal move.
        """
        self.last_search = None
        try:
            engine = self._running_engine()
            engine.check_quiet()
            limit = self.timeout if self.time is None else self.time + self.margin
            new_game, seed = self._new_game
            if new_game:
                engine.send("newgame" if seed is None else f"newgame seed {seed}", limit)
                self._new_game = (False, None)
            moves = " ".join(str(move) for move in game.moves)
            engine.send(f"position fen {game.start.fen()}" + (f" moves {moves}" if moves else ""), limit)
            limits = ([] if self.depth is None else ["depth", str(self.depth)]) + (
                [] if self.time is None else ["time", f"{self.time:g}"]
            )
            engine.send(" ".join(["go", *limits]), limit)
            answer = engine.receive(limit, "go")
            if answer.startswith("error"):
                raise ForfeitError(f"engine {self.cmd!r} answered {_quoted(answer, 200)} to go")
            try:
                text, search = parse_bestmove(answer)
            except ValueError as error:
                raise ForfeitError(f"engine {self.cmd!r} answered garbage: {error}") from None
            try:
                move = game.board.parse_move(text)
            except (InvalidMoveError, IllegalMoveError) as error:
                raise ForfeitError(f"engine {self.cmd!r} played an illegal move: {error}") from None
        except ForfeitError:
            self.close()  # whatever state it is in, the next game starts a fresh one
            raise
        self.last_search = search
        return move

    def _running_engine(self) -> _EngineProcess:
        """The engine process: the running one, or one started and ready (``hello``,
        ``isready``) when there is none.

        Raises:
            ForfeitError: it exited since its last answer, or it could not start.
        """
        if self._engine is not None:
            if _exit_status(self._engine.process, 0) is not None:
                raise ForfeitError(self._engine.exit_story("since its last move"))
            return self._engine
        self._engine = engine = _EngineProcess(self.argv, self.cmd)
        engine.send("hello", self.timeout)
        answer = engine.receive(self.timeout, "hello")
        words = answer.split()
        if words[:2] != ["hello", "protocol"] or len(words) < 3:
            raise ForfeitError(f"engine {self.cmd!r} answered {_quoted(answer)} to hello, not 'hello protocol N ...'")
        if words[2] != str(PROTOCOL_VERSION):
            raise ForfeitError(
                f"engine {self.cmd!r} speaks protocol {words[2]!r}; this client speaks {PROTOCOL_VERSION}"
            )
        self.engine_name = answer.partition(" name ")[2].strip()
        engine.send("isready", self.timeout)
        answer = engine.receive(self.timeout, "isready")
        if answer != "readyok":
            raise ForfeitError(f"engine {self.cmd!r} answered {_quoted(answer, 200)} to isready, not 'readyok'")
        return engine

    def close(self) -> None:
        """Stop the engine: ``quit``, up to ``QUIT_GRACE`` seconds to leave, then its whole
        process group is killed (in every case: the helpers it started go too) and it is
        reaped. The next move asked of the agent starts it again, with ``newgame`` (and the
        seed of a ``reset`` not yet sent)."""
        self._new_game = (True, self._new_game[1])
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.stop()


class _EngineProcess:
    """One running engine: its process, and a thread per output pipe that reads lines (so
    that waiting for an answer can time out, which a blocking read cannot). The readers
    own their pipes and end when told to, so that stopping the engine never waits on a
    pipe that a helper of the engine may hold open."""

    def __init__(self, argv: list[str], cmd: str):
        self.cmd = cmd
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=os.name == "posix",  # its own group: stopping it stops its children
            )
        except OSError as error:
            raise ForfeitError(f"engine {cmd!r} could not start: {error}") from None
        # Lines go out with os.write on a non-blocking pipe, so that an engine that stops
        # reading its input cannot block the suite on a full pipe.
        os.set_blocking(self.process.stdin.fileno(), False)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=5)
        stopped = threading.Event()
        readers = [
            threading.Thread(target=_read_answers, args=(self.process.stdout, self.lines, stopped), daemon=True),
            threading.Thread(target=_keep_last, args=(self.process.stderr, self.stderr, stopped), daemon=True),
        ]
        for reader in readers:
            reader.start()
        # Stops the process when this object goes (garbage, or the interpreter's exit).
        self._finalizer = weakref.finalize(self, _stop_process, self.process, stopped, readers)

    def send(self, line: str, limit: float) -> None:
        """Write ``line`` to the engine's input.

        Raises:
            ForfeitError: it has exited, or it did not take the whole line within ``limit`` seconds.
        """
        if not _write_within(self.process.stdin.fileno(), (line + "\n").encode(), limit):
            if _exit_status(self.process, 0) is not None:
                raise ForfeitError(self.exit_story(f"before it could be sent {_quoted(line)}"))
            raise ForfeitError(f"engine {self.cmd!r} stopped reading its input (sending {_quoted(line)})")

    def check_quiet(self) -> None:
        """Check that the engine said nothing since its last answer (a second ``bestmove``
        would be taken for the answer to the next ``go``).

        Raises:
            ForfeitError: it did.
        """
        try:
            line = self.lines.get_nowait()
        except queue.Empty:
            return
        if line is None:
            raise ForfeitError(self.exit_story("since its last move"))
        raise ForfeitError(f"engine {self.cmd!r} sent {_quoted(line.strip())} when nothing was asked")

    def receive(self, limit: float, command: str) -> str:
        """The engine's next line (its answer to ``command``), stripped.

        Raises:
            ForfeitError: none came within ``limit`` seconds, or the engine exited.
        """
        deadline = clock.monotonic() + limit
        try:
            line = self.lines.get(timeout=max(deadline - clock.monotonic(), 0))
        except queue.Empty:
            raise ForfeitError(f"engine {self.cmd!r} sent no answer to {command} within {limit:g} s") from None
        if line is None:
            raise ForfeitError(self.exit_story(f"before it answered {command}"))
        if isinstance(line, _LongLine):
            raise ForfeitError(
                f"engine {self.cmd!r} answered {command} with a line longer than {LONGEST_LINE} characters "
                f"(it began {_quoted(line)})"
            )
        return line.strip()

    def exit_story(self, when: str) -> str:
        """``engine 'x' exited with status 3 before it answered go (stderr: ...)``."""
        status = _exit_status(self.process, 2)
        said = " | ".join(self.stderr)[-STDERR_KEPT:]
        how = "closed its output" if status is None else f"exited with status {status}"
        return f"engine {self.cmd!r} {how} {when}" + (f" (stderr: {said})" if said else "")

    def stop(self) -> None:
        _write_within(self.process.stdin.fileno(), b"quit\n", 0)
        self._finalizer()


def _write_within(fd: int, data: bytes, limit: float) -> bool:
    """Write ``data`` to the non-blocking ``fd``, waiting at most ``limit`` seconds for room;
    returns whether all of it went (False when the reader has gone or stopped reading)."""
    deadline = clock.monotonic() + limit
    while data:
        try:
            data = data[os.write(fd, data) :]
            continue
        except BlockingIOError:
            pass
        except (OSError, ValueError):  # a broken pipe (it has exited), or a closed fd
            return False
        left = deadline - clock.monotonic()
        if left <= 0:
            return False
        select.select([], [fd], [], min(left, 0.1))
    return True


def _read_lines(pipe, keep: Callable[[str], None], stopped: threading.Event) -> None:
    """Hand each line of the binary ``pipe`` to ``keep`` as text, until the pipe ends or
    ``stopped`` is set; then close the pipe (the reader owns it). A line longer than
    ``LONGEST_LINE`` is handed over as a ``_LongLine`` (its start) as soon as it is that
    long, whether or not it ever ends, and the rest of it is skipped."""
    fd, pending, skipping = pipe.fileno(), b"", False
    try:
        while not stopped.is_set():
            # Waits in short slices so that a stop is seen even while a helper of the
            # engine holds the pipe open (a blocking read would wait for ever).
            if os.name == "posix" and not select.select([fd], [], [], 0.1)[0]:
                continue
            chunk = os.read(fd, LONGEST_LINE)
            if not chunk:
                if pending and not skipping:
                    keep(pending.decode("utf-8", "replace"))
                return
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if skipping:  # the end of an over-long line
                    skipping = False
                elif len(line) > LONGEST_LINE:  # whole within the bytes just read, but too long
                    keep(_LongLine(line[:80].decode("utf-8", "replace")))
                else:
                    keep(line.decode("utf-8", "replace") + "\n")
            if len(pending) > LONGEST_LINE and not skipping:
                keep(_LongLine(pending[:80].decode("utf-8", "replace")))
                skipping = True
            if skipping:
                pending = b""
    except (OSError, ValueError):  # closed under it
        return
    finally:
        pipe.close()


def _read_answers(pipe, lines: queue.Queue, stopped: threading.Event) -> None:
    """Put each line of ``pipe`` (the engine's stdout) into ``lines``, at most
    ``PENDING_LINES`` unread, then None at its end."""

    def keep(line: str) -> None:
        if lines.qsize() < PENDING_LINES:
            lines.put(line)

    _read_lines(pipe, keep, stopped)
    lines.put(None)


def _keep_last(pipe, kept: deque, stopped: threading.Event) -> None:
    """Keep the last lines of ``pipe`` (the engine's stderr, to explain a crash)."""

    def keep(line: str) -> None:
        if line.strip():
            kept.append(line.strip()[:STDERR_KEPT])

    _read_lines(pipe, keep, stopped)


def _stop_process(process: subprocess.Popen, stopped: threading.Event, readers: list[threading.Thread]) -> None:
    """Close the process's stdin (an engine leaves at its end, as after ``quit``), give it
    ``QUIT_GRACE`` seconds to leave, then kill its whole group (on POSIX: the helpers it
    started go too, whether it left by itself or not), reap it and end the readers.

    Bounded in time whatever the engine and its helpers do: nothing here blocks on a pipe
    (a helper that left the group may hold the output pipes open, so the readers are told
    to stop rather than waited on), and every wait has a limit."""
    try:
        process.stdin.close()
    except OSError:  # a broken pipe: it has gone already
        pass
    exited = _exit_status(process, QUIT_GRACE) is not None
    try:
        if os.name == "posix":
            # Not reaped yet, so its pid still names its group: no other group can be hit.
            os.killpg(process.pid, signal.SIGKILL)
        elif not exited:
            process.kill()
    except (ProcessLookupError, PermissionError):  # the group is empty already
        pass
    try:
        process.wait(STOP_WAIT)
    except subprocess.TimeoutExpired:  # stuck in the kernel; subprocess reaps it later
        pass
    stopped.set()
    for reader in readers:
        if reader is not threading.current_thread():
            reader.join(STOP_WAIT)


def _exit_status(process: subprocess.Popen, seconds: float) -> int | None:
    """The exit status of ``process`` (as ``Popen.returncode``: negative for a signal) once
    it has exited, waiting up to ``seconds``; None if it is still running. On POSIX it is
    not reaped, so that its pid and process group stay reserved for the kill that stops it."""
    if os.name != "posix":
        try:
            return process.wait(seconds)
        except subprocess.TimeoutExpired:
            return None
    deadline = clock.monotonic() + seconds
    while True:
        try:
            exited = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        except ChildProcessError:  # reaped already (by a wait)
            return process.returncode
        if exited is not None and exited.si_pid:
            return exited.si_status if exited.si_code == os.CLD_EXITED else -exited.si_status
        if clock.monotonic() >= deadline:
            return None
        clock.sleep(0.01)


__all__ = [
    "DEFAULT_TIMEOUT",
    "MOVE_TIME_MARGIN",
    "PROTOCOL_VERSION",
    "EngineAgent",
    "EngineSearch",
    "format_bestmove",
    "parse_bestmove",
]
