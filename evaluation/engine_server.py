"""``checkers engine``: one of the suite's agents answering the engine protocol
(``docs/engine-protocol.md``) on stdin and stdout.

    >>> server = EngineServer("greedy:seed=1")
    >>> server.handle("hello")[0].startswith("hello protocol 1 options agent name checkers-suite")
    True
    >>> server.handle("position startpos moves 11-15")
    []
    >>> server.handle("go depth 2")[0].startswith("bestmove ")
    True
    >>> server.handle("position fen X:Y")[0].startswith("error position: bad FEN 'X:Y'")
    True

Each command is one line; a command that succeeds silently (``newgame``, ``position``,
``setoption``) answers nothing, every other answers one line (``isready``: its errors, if
any, then ``readyok``). A line the engine cannot follow is answered by one ``error ...``
line naming what was wrong, and the engine reads on. Nothing a command says runs a shell
or opens a file: an agent spec of ``setoption`` may not name a file
(``make_agent(spec, allow_files=False)``); only the ``--agent`` of the command line may.
Whatever the agents print goes to stderr, so that stdout holds the protocol alone.

Every search ends: ``go depth`` is at most ``MAX_GO_DEPTH`` and ``go time`` at most
``MAX_GO_TIME`` seconds, and when the engine's input (a pipe) ends while it searches, the
engine ends at once (``InputWatch``), without answering.
"""

from __future__ import annotations

import argparse
import array
import contextlib
import math
import os
import select
import signal
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from checkers_agents.alphabeta import MAX_DEPTH
from checkers_agents.engine import PROTOCOL_VERSION, EngineSearch, format_bestmove
from checkers_env import Board, Game, Move, __version__, make_agent
from checkers_env.agent import Agent, check_spec
from checkers_env.errors import CheckersError

from .agent_workers import search_report, warm_up

#: The commands, in the order ``error unknown command`` lists them.
COMMANDS = ("hello", "isready", "setoption", "newgame", "position", "go", "quit")

#: The options ``setoption name NAME value VALUE`` takes (the ``hello`` line lists them).
OPTIONS = ("agent",)

#: The deepest ``go depth`` (the suite's alpha-beta searches no deeper).
MAX_GO_DEPTH = MAX_DEPTH
#: The longest ``go time``, in seconds: a driver that asks more has made a mistake, and an
#: engine that cannot be stopped would think for it.
MAX_GO_TIME = 3600.0


class EngineServer:
    """The engine's state between commands: the agent spec, the agents built from it (one
    per set of ``go`` limits), the game's seed and the position.

    Args:
        spec: the agent that chooses the moves.
        allow_files: whether ``spec`` may name files (the command line's may;
            ``setoption``'s never).

    Raises:
        UnknownAgentError: ``spec`` is not a valid agent spec.
    """

    def __init__(self, spec: str, allow_files: bool = True):
        self.spec = check_spec(spec, allow_files=allow_files)
        self.allow_files = allow_files
        self.agents: dict[tuple, Agent] = {}
        self.seed: int | None = None
        self.game: Game | None = None

    def handle(self, line: str) -> list[str] | None:
        """The answer lines to one command line; None for ``quit``."""
        words = line.split()
        if not words:
            return []
        command = words[0]
        if command == "quit":
            return None
        handler: Callable[[list[str]], list[str]] | None = getattr(self, f"_{command}", None)
        if command not in COMMANDS or handler is None:
            return [f"error unknown command {_short(command)} (commands: {', '.join(COMMANDS)})"]
        try:
            return handler(words[1:])
        except _CommandError as error:
            return [f"error {command}: {error}"]

    # -- commands ----------------------------------------------------------------------

    def _hello(self, words: list[str]) -> list[str]:
        return [
            f"hello protocol {PROTOCOL_VERSION} options {','.join(OPTIONS)} name checkers-suite {__version__} {self.spec}"
        ]

    def _isready(self, words: list[str]) -> list[str]:
        try:
            self._agent(())
        except _CommandError as error:
            return [f"error isready: {error}", "readyok"]
        return ["readyok"]

    def _setoption(self, words: list[str]) -> list[str]:
        if len(words) < 4 or words[0] != "name" or words[2] != "value":
            raise _CommandError("expected 'setoption name agent value SPEC'")
        if words[1] not in OPTIONS:
            raise _CommandError(f"no option {_short(words[1])} (options: {', '.join(OPTIONS)})")
        spec = " ".join(words[3:])
        try:
            spec = check_spec(spec, allow_files=False)
        except CheckersError as error:
            raise _CommandError(str(error)) from None
        # Built now, so that a value its kind refuses (alphabeta:depth=1000) is this
        # command's error, not the next go's; the agent stays as it was.
        before = self.spec, self.allow_files, self.agents
        self.spec, self.allow_files, self.agents = spec, False, {}
        try:
            self._agent(())
        except _CommandError:
            self.spec, self.allow_files, self.agents = before
            raise
        return []

    def _newgame(self, words: list[str]) -> list[str]:
        if words and (len(words) != 2 or words[0] != "seed"):
            raise _CommandError(f"expected 'newgame' or 'newgame seed N', got {_short(' '.join(words))}")
        seed = _number(words[1], "seed", int, 0) if words else None
        self.seed, self.game = seed, None
        for agent in self.agents.values():
            agent.reset(seed=seed)
        return []

    def _position(self, words: list[str]) -> list[str]:
        self.game = None  # a position that fails leaves none set
        if not words or words[0] not in ("startpos", "fen"):
            raise _CommandError("expected 'position startpos [moves ...]' or 'position fen FEN [moves ...]'")
        rest = words[1:]
        before_moves = rest.index("moves") if "moves" in rest else len(rest)
        if words[0] == "startpos":
            if before_moves != 0:
                raise _CommandError(f"expected 'moves' after startpos, got {_short(rest[0])}")
            start = Board()
        else:
            fen = " ".join(rest[:before_moves])
            if not fen:
                raise _CommandError("'position fen' needs a FEN, like B:W21,22,23:B1,2,3")
            try:
                start = Board.from_fen(fen)
            except CheckersError as error:
                raise _CommandError(str(error)) from None  # it quotes the FEN
        game = Game(start=start)
        for number, text in enumerate(rest[before_moves + 1 :], 1):
            try:
                game.play(text)
            except CheckersError as error:
                raise _CommandError(f"move {number} {_short(text)}: {error}") from None
        self.game = game
        return []

    def _go(self, words: list[str]) -> list[str]:
        limits: dict[str, float] = {}
        if len(words) % 2:
            raise _CommandError(f"expected 'go [depth N] [time S]', got {_short(' '.join(['go', *words]))}")
        for key, value in zip(words[::2], words[1::2]):
            if key not in ("depth", "time") or key in limits:
                raise _CommandError(f"{_short(key)} is not a limit here (limits: depth N, time S, each once)")
            limits[key] = (
                _number(value, key, int, 1, MAX_GO_DEPTH)
                if key == "depth"
                else _number(value, key, float, 0, MAX_GO_TIME)
            )
        if self.game is None:
            raise _CommandError("no position: send 'position startpos' or 'position fen FEN' first")
        if self.game.is_over():
            raise _CommandError(f"the game is over ({self.game.termination}, {self.game.result})")
        agent = self._agent(tuple(sorted(limits.items())))
        try:
            move = agent.select_move(self.game)
        except Exception as error:  # the agent's failure is answered; the engine goes on
            raise _CommandError(f"the agent {self.spec} failed: {type(error).__name__}: {error}") from None
        return [format_bestmove(move, _search(agent))]

    # -- agents --------------------------------------------------------------------------

    def _agent(self, limits: tuple) -> Agent:
        """The agent for ``go`` with ``limits`` (``(("depth", 4),)``): the spec's agent,
        or one built with those limits as parameters (those its kind does not take are
        ignored), reseeded with the game's seed. Each is warmed up first
        (``agent_workers.warm_up``: a twin of it searches a middlegame position), so that
        compiling its kernels is not counted in a timed move, while the agent itself starts
        as fresh as one built in the driver's process."""
        if limits in self.agents:
            return self.agents[limits]
        try:
            agent = make_agent(self.spec, allow_files=self.allow_files, **dict(limits))
            base = self.agents.get(())
            if base is not None and str(agent) == str(base):
                agent = base  # limits its kind does not take: the same agent, the same random stream
            else:
                warm_up(self.spec, allow_files=self.allow_files, **dict(limits))
                agent.reset(seed=self.seed)
        except Exception as error:
            raise _CommandError(f"cannot build {self.spec!r} with {dict(limits) or 'no limits'}: {error}") from None
        self.agents[limits] = agent
        return agent


class _CommandError(Exception):
    """A command the engine cannot follow; its message goes into the ``error`` line."""


def _short(text: str, longest: int = 60) -> str:
    return repr(text if len(text) <= longest else text[:longest] + "...")


_Number = TypeVar("_Number", int, float)


def _number(text: str, name: str, kind: type[_Number], least: float, most: float | None = None) -> _Number:
    """``text`` as ``kind`` (int or float), finite, at least ``least`` (more than 0 for a
    time) and at most ``most`` (None: no bound)."""
    value: _Number | None
    try:
        value = kind(text)
    except ValueError:
        value = None
    if (
        value is None
        or not math.isfinite(value)
        or value < least
        or (kind is float and value <= 0)
        or (most is not None and value > most)
    ):
        if kind is int:
            words = f"a whole number >= {least:g}" if most is None else f"a whole number from {least:g} to {most:g}"
        else:
            words = "a number of seconds above 0" + ("" if most is None else f" and at most {most:g}")
        raise _CommandError(f"{name} must be {words}, got {_short(text)}")
    return value


def _search(agent: Agent) -> EngineSearch:
    """What ``agent`` reports of its last search, as the ``bestmove`` line's extras."""
    report = search_report(agent)
    value = report.get("value")
    return EngineSearch(
        depth=report.get("depth") if isinstance(report.get("depth"), int) else None,
        value=float(value) if isinstance(value, (int, float)) else None,
        nodes=report.get("nodes") if isinstance(report.get("nodes"), int) else None,
        pv=tuple(Move.from_pdn(text) for text in report.get("pv", ())),
    )


def serve(
    server: EngineServer,
    lines: Iterable[str],
    write: Callable[[str], None],
    searching: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext,
) -> None:
    """Answer each command of ``lines`` with ``write(answer line)`` until ``quit`` or the
    end of the lines; each ``go`` is answered inside ``searching()`` (``InputWatch``)."""
    for line in lines:
        with searching() if line.split()[:1] == ["go"] else contextlib.nullcontext():
            answers = server.handle(line)
        if answers is None:
            return
        for answer in answers:
            write(answer)


class InputWatch:
    """Ends the engine when its input ends while it searches.

    A search holds the interpreter until it returns, so the engine itself cannot notice
    that its driver has gone; a small watcher process, forked before the first command,
    can. While a ``go`` is answered (``searching``), it looks at the engine's stdin, a
    pipe, ten times a second: once the driver has closed it and nothing is left to read
    (the engine reads it unbuffered, so what it has not taken is still in the pipe), it
    ends the engine with SIGTERM. A driver that writes ``go`` and ``quit`` and then closes
    its end still gets its answer: ``quit`` is still to be read. The watcher leaves when
    the engine does.

    Use :meth:`start`, which gives None where there is nothing to watch (stdin is not a
    pipe, or the system cannot fork).
    """

    def __init__(self, control: int):
        self.control = control

    @classmethod
    def start(cls, stdin: int = 0) -> InputWatch | None:
        """Fork the watcher of the pipe ``stdin``; None where it cannot be watched."""
        try:
            if not hasattr(os, "fork") or not stat.S_ISFIFO(os.fstat(stdin).st_mode):
                return None
        except OSError:
            return None
        engine = os.getpid()
        readable, writable = os.pipe()
        if os.fork() == 0:  # the watcher
            try:
                os.close(writable)
                for stream in (1, 2):  # the driver sees the engine's end of stdout when the engine ends
                    os.close(stream)
                _watch(engine, stdin, readable)
            finally:
                os._exit(0)
        os.close(readable)
        return cls(writable)

    @contextlib.contextmanager
    def searching(self):
        """While the engine answers a ``go``: an input that ends ends the engine."""
        os.write(self.control, b"S")
        try:
            yield
        finally:
            os.write(self.control, b"I")

    def close(self) -> None:
        """Let the watcher go (it leaves when the engine's end of the pipe closes)."""
        os.close(self.control)


def _watch(engine: int, stdin: int, control: int) -> None:
    """The watcher's loop (see ``InputWatch``): until the engine closes ``control``."""
    searching = False
    while True:
        ready, _, _ = select.select([control], [], [], 0.1 if searching else None)
        if ready:
            news = os.read(control, 64)
            if not news:
                return  # the engine has ended
            searching = news.endswith(b"S")
        if searching and _input_ended(stdin):
            os.kill(engine, signal.SIGTERM)
            return


def _input_ended(stdin: int) -> bool:
    """Whether the pipe ``stdin`` has been closed by its writer and holds nothing more."""
    import fcntl
    import termios

    poller = select.poll()
    poller.register(stdin, select.POLLIN)
    if not any(events & select.POLLHUP for _, events in poller.poll(0)):
        return False
    waiting = array.array("i", [0])
    fcntl.ioctl(stdin, termios.FIONREAD, waiting, True)
    return waiting[0] == 0


def _unbuffered_lines(stream) -> Iterator[str]:
    """The lines of the binary ``stream``, read one byte at a time, so that what the
    engine has not taken stays in the pipe, where ``InputWatch`` sees it."""
    raw = stream.buffer.raw
    while True:
        line = raw.readline()
        if not line:
            return
        yield line.decode("utf-8", errors="replace")


def engine_main(args: argparse.Namespace) -> int:
    """``checkers engine``: serve ``args.agent`` on stdin and stdout until ``quit`` or the
    end of stdin; returns the exit status.

    Raises:
        UnknownAgentError: ``args.agent`` is not a valid agent spec (before anything is read).
    """
    server = EngineServer(args.agent)
    protocol_out = sys.stdout
    sys.stdout = sys.stderr  # what an agent prints must not be taken for an answer

    def write(line: str) -> None:
        protocol_out.write(line + "\n")
        protocol_out.flush()

    try:
        watch = InputWatch.start(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):  # no stdin, or not a file (a test's)
        watch = None
    try:
        if watch is None:
            serve(server, iter(sys.stdin.readline, ""), write)
        else:
            serve(server, _unbuffered_lines(sys.stdin), write, watch.searching)
    finally:
        sys.stdout = protocol_out
        if watch is not None:
            watch.close()
    return 0


__all__ = ["COMMANDS", "MAX_GO_DEPTH", "MAX_GO_TIME", "OPTIONS", "EngineServer", "InputWatch", "engine_main", "serve"]
