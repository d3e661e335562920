"""The agents of ``checkers serve``, built and thinking in worker processes.

Nothing a request names is built in the server's own process: the server checks a spec by
its declared types (``checkers_env.agent.check_spec``, no file opened), and a worker
builds it with ``make_agent(spec, allow_files=False)`` under ``BUILD_LIMIT`` and thinks
under the think limit. A worker that runs over is killed and replaced, so nothing a spec
does can hold up the server, and Ctrl-C ends every worker at once (``AgentPool.kill``).
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from checkers_env import Board, Game, Rules, make_agent

from .serve_http import RequestError, without_paths

#: Default limit on one agent move, in seconds.
THINK_LIMIT = 10.0
#: The draw rules of served games: the usual ones, so every game ends.
SERVE_RULES = Rules()


# -- agents in worker processes ----------------------------------------------------------------


def _search_info(agent: Any) -> dict[str, Any]:
    """What the agent's last search reports, as JSON: depth, value, nodes and best moves of
    an alpha-beta search; per-move win rates and playouts of MCRD; nothing for the others."""
    result = getattr(agent, "last_search", None)
    if result is None:
        return {}
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items() if isinstance(_plain(v), (int, float, str))}
    info: dict[str, Any] = {}
    for name in ("depth", "value", "nodes", "seconds", "backend"):
        value = getattr(result, name, None)
        if value is not None:
            info[name] = _plain(value)
    best = getattr(result, "best_moves", None)
    if best:
        info["best_moves"] = [str(move) for move in best]
    pv = getattr(result, "pv", None)
    if pv:
        info["pv"] = [str(move) for move in pv]
    moves, rates = getattr(result, "moves", None), getattr(result, "rates", None)
    if moves is not None and rates is not None:
        playouts = getattr(result, "playouts", [0] * len(moves))
        info["win_rates"] = [
            {"move": str(move), "rate": round(float(rate), 4), "playouts": int(count)}
            for move, rate, count in zip(moves, rates, playouts)
        ]
    return info


def _plain(value: Any) -> Any:
    """A JSON-ready number (numpy scalars become Python ones; inf and nan become text)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else str(value)
    return value


#: A position with one legal move, which ends the game: a new agent plays it once, so that
#: loading its kernels (numba's compile, on a cold cache) is not counted as thinking.
WARM_UP_FEN = "B:W14:B9"
#: Seconds a worker may take to start, or to build and warm up an agent, before giving up.
BUILD_LIMIT = 180.0


def _agent_worker(connection, agents_dirs: tuple[str, ...]) -> None:
    """A worker process. It answers ``("build", spec)`` with ``("built",)`` once the agent
    is built and warm, and ``("move", spec, seed, start FEN, moves)`` with ``("started",)``
    once the agent is ready to think, then the move, its thinking time and its search's
    report. Errors are answered, not raised. Specs name no file (``allow_files=False``);
    ``zoo:NAME`` also looks in ``agents_dirs``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C kills it, through the pool
    agents: OrderedDict[str, Any] = OrderedDict()  # built agents by spec: zoo weights load once

    def agent_of(spec: str):
        agent = agents.pop(spec, None)
        if agent is None:
            agent = make_agent(spec, allow_files=False, agents_dirs=agents_dirs)
            agent.select_move(Game(start=Board.from_fen(WARM_UP_FEN), rules=SERVE_RULES))
        agents[spec] = agent
        while len(agents) > 8:
            agents.popitem(last=False)
        return agent

    connection.send(("ready",))
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        try:
            if request[0] == "build":
                agent_of(request[1])
                connection.send(("built",))
                continue
            _, spec, seed, start, moves = request
            agent = agent_of(spec)
            agent.reset(seed=seed)
            game = Game(start=Board.from_fen(start), rules=SERVE_RULES, moves=moves)
            connection.send(("started",))
            began = time.perf_counter()
            move = agent.select_move(game)
            seconds = time.perf_counter() - began
            connection.send(("move", str(move), seconds, _search_info(agent)))
        except Exception as error:  # reported to the request that asked
            connection.send(("error", type(error).__name__, str(error)))


class _Worker:
    def __init__(self, context, agents_dirs: tuple[str, ...]):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_agent_worker, args=(child, agents_dirs), daemon=True)
        self.process.start()
        child.close()

    def receive(self, limit: float) -> tuple | None:
        """The worker's next answer, or None after ``limit`` seconds or if it died."""
        deadline = time.monotonic() + limit
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if self.connection.poll(min(left, 0.1)):
                try:
                    return self.connection.recv()
                except (EOFError, OSError):
                    return None
            if not self.process.is_alive():
                return None

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(2)
        self.connection.close()


class AgentPool:
    """Worker processes that build the agents and think for them, one request at a time each.

    Args:
        workers: how many moves can be thought about at once.
        think_limit: seconds one move may take; past it the worker is stopped and replaced.
            Starting a worker and building an agent (a new agent plays the one move of
            ``WARM_UP_FEN`` first, so that loading its kernels is done) have their own
            limit, ``BUILD_LIMIT``.
        agents_dirs: folders of zoo-style entries that ``zoo:NAME`` may also name.
    """

    def __init__(self, workers: int = 2, think_limit: float = THINK_LIMIT, agents_dirs: tuple[Path, ...] = ()):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.think_limit = think_limit
        self.agents_dirs = tuple(str(folder) for folder in agents_dirs)
        self._context = multiprocessing.get_context("spawn")  # numba's threads do not survive fork
        self._size = workers
        self._idle: asyncio.Queue | None = None
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False

    async def _take(self) -> _Worker | None:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self._size):
                self._idle.put_nowait(None)  # a slot; its worker starts on first use
        return await self._idle.get()

    def _start_worker(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise RequestError(503, "the server is stopping")
            worker = _Worker(self._context, self.agents_dirs)
            self._all.append(worker)
        answer = worker.receive(BUILD_LIMIT)  # importing the suite; not counted as thinking
        if answer != ("ready",):
            self._drop(worker)
            raise RequestError(503 if self._closed else 500, "an agent worker process failed to start")
        return worker

    def _drop(self, worker: _Worker) -> None:
        worker.stop()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    async def _ask(self, spec: str, request: tuple) -> tuple:
        """Send ``request`` to a free worker and wait for its answer (see ``_agent_worker``).

        Raises:
            RequestError: 504 past a limit (the worker is stopped), 422 when the agent failed.
        """
        worker = await self._take()
        keep: _Worker | None = None
        try:
            if worker is None:
                worker = await asyncio.to_thread(self._start_worker)
            try:
                worker.connection.send(request)
            except OSError:  # the worker died while idle (killed by Ctrl-C, or by the system)
                self._drop(worker)
                raise RequestError(503, "the agent's worker process stopped; ask again") from None
            # Building the agent (and compiling its kernels) is not thinking: a limit of its own.
            answer = await asyncio.to_thread(worker.receive, BUILD_LIMIT)
            if answer == ("started",):
                answer = await asyncio.to_thread(worker.receive, self.think_limit)
            if answer is None:
                self._drop(worker)
                if self._closed:
                    raise RequestError(503, "the server is stopping")
                if request[0] == "build":
                    raise RequestError(504, f"building the agent {spec!r} took longer than {BUILD_LIMIT:g} s")
                raise RequestError(
                    504, f"the agent {spec!r} thought for more than the limit of {self.think_limit:g} s "
                    "and was stopped (ask for less time or depth)"
                )
            keep = worker
            if answer[0] == "error":
                _, kind, message = answer
                if request[0] == "build":
                    raise RequestError(422, without_paths(f"bad agent spec {spec!r}: {message}"))
                raise RequestError(422, without_paths(f"the agent {spec!r} failed: {kind}: {message}"))
            return answer
        finally:
            self._idle.put_nowait(keep)

    async def build(self, spec: str) -> None:
        """Build ``spec`` in a worker (it stays built there for its moves).

        Raises:
            RequestError: 422 when the agent cannot be built, 504 past ``BUILD_LIMIT``.
        """
        await self._ask(spec, ("build", spec))

    async def select_move(self, spec: str, seed: int, start_fen: str, moves: list[str]) -> tuple[str, float, dict]:
        """The move of ``spec`` in the game ``start_fen`` + ``moves``: (PDN, seconds, search report).

        Raises:
            RequestError: 504 when it took longer than ``think_limit`` (its worker is
                stopped), 422 when the agent failed.
        """
        _, move, seconds, info = await self._ask(spec, ("move", spec, seed, start_fen, moves))
        return move, seconds, info

    def kill(self) -> None:
        """Kill every worker now, from a signal handler too: no lock, no waiting. The
        requests they were serving end with 503."""
        self._closed = True
        for worker in list(self._all):
            if worker.process.is_alive():
                worker.process.kill()

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            self._closed = True
            workers, self._all = list(self._all), []
        for worker in workers:
            worker.stop()
