"""The agents of ``checkers serve``, built and thinking in worker processes.

Nothing a request names is built in the server's own process: the server checks a spec by
its declared types (``checkers_env.agent.check_spec``, no file opened), and a worker
builds it with ``make_agent(spec, allow_files=False)`` under ``BUILD_LIMIT`` and thinks
under the think limit: every search of the suite's agents stops within ``SEARCH_SHARE`` of
it whatever its spec's counts (``depth``, ``playouts``, ``simulations``), and a worker
that runs over all the same is killed and replaced, so nothing a spec does can hold up
the server, and Ctrl-C ends every worker at once (``AgentPool.kill``).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from checkers_env import Rules

from ..agent_workers import AgentWorker
from .http import RequestError, without_paths

#: Default limit on one agent move, in seconds.
THINK_LIMIT = 10.0
#: The draw rules of served games: the usual ones, so every game ends.
SERVE_RULES = Rules()


#: Seconds a worker may take to start, or to build and warm up an agent, before giving up.
BUILD_LIMIT = 180.0
#: The share of the think limit that a served agent's search may take, whatever its spec's
#: counts (``agent_workers.limit_thinking``); the rest is for the move's overhead (its
#: report, the pipe), so that the search ends before the worker would be stopped.
SEARCH_SHARE = 0.75


class AgentPool:
    """Worker processes that build the agents and think for them, one request at a time each.

    Args:
        workers: how many moves can be thought about at once.
        think_limit: seconds one move may take; the suite's searches stop within
            ``SEARCH_SHARE`` of it whatever their counts, and past it the worker is stopped
            and replaced (an agent of a kind that takes no limit). Starting a worker and
            building an agent (a new agent plays the one move of
            ``agent_workers.WARM_UP_FEN`` first, so that loading its kernels is done) have their own
            limit, ``BUILD_LIMIT``.
        agents_dirs: folders of zoo-style entries that ``zoo:NAME`` may also name.
    """

    def __init__(self, workers: int = 2, think_limit: float = THINK_LIMIT, agents_dirs: tuple[Path, ...] = ()):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.think_limit = think_limit
        self.agents_dirs = tuple(str(folder) for folder in agents_dirs)
        self._size = workers
        self._idle: asyncio.Queue[AgentWorker | None] | None = None
        self._all: list[AgentWorker] = []
        self._lock = threading.Lock()
        self._closed = False

    def _slots(self) -> asyncio.Queue[AgentWorker | None]:
        """The idle workers, made on first use (inside the server's event loop)."""
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self._size):
                self._idle.put_nowait(None)  # a slot; its worker starts on first use
        return self._idle

    async def _take(self) -> AgentWorker | None:
        return await self._slots().get()

    def _start_worker(self) -> AgentWorker:
        with self._lock:
            if self._closed:
                raise RequestError(503, "the server is stopping")
            # Nothing a request names is opened: specs name no file; zoo:NAME may also look in agents_dirs.
            options = {"allow_files": False, "agents_dirs": self.agents_dirs}
            worker = AgentWorker(SERVE_RULES, options, warm_up=True, think_limit=self.think_limit * SEARCH_SHARE)
            self._all.append(worker)
        answer = worker.receive(BUILD_LIMIT)  # importing the suite; not counted as thinking
        if answer != ("ready",):
            self._drop(worker)
            raise RequestError(503 if self._closed else 500, "an agent worker process failed to start")
        return worker

    def _drop(self, worker: AgentWorker) -> None:
        worker.stop()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    async def _ask(self, spec: str, request: tuple) -> tuple:
        """Send ``request`` to a free worker and wait for its answer (see ``agent_workers``).

        Raises:
            RequestError: 504 past a limit (the worker is stopped), 422 when the agent failed.
        """
        worker = await self._take()
        keep: AgentWorker | None = None
        try:
            if worker is None:
                worker = await asyncio.to_thread(self._start_worker)
            try:
                worker.send(request)
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
                    504,
                    f"the agent {spec!r} thought for more than the limit of {self.think_limit:g} s "
                    "and was stopped (ask for less time or depth)",
                )
            keep = worker
            if answer[0] == "error":
                _, kind, message = answer
                if request[0] == "build":
                    raise RequestError(422, without_paths(f"bad agent spec {spec!r}: {message}"))
                raise RequestError(422, without_paths(f"the agent {spec!r} failed: {kind}: {message}"))
            return answer
        finally:
            self._slots().put_nowait(keep)

    async def build(self, spec: str) -> None:
        """Build ``spec`` in a worker (it stays built there for its moves).

        Raises:
            RequestError: 422 when the agent cannot be built, 504 past ``BUILD_LIMIT``.
        """
        await self._ask(spec, ("build", spec, None))

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
            worker.kill()

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            self._closed = True
            workers, self._all = list(self._all), []
        for worker in workers:
            worker.stop()
