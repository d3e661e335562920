"""Agents that build and think in a worker process: ``checkers play`` and ``checkers serve``.

A numba search holds the interpreter until it returns, so neither a status line, a time
limit nor Ctrl-C could get through while it runs in the same process (or a thread of it);
a worker process can be watched while it searches, and killed at once. ``AgentWorker`` is
one such process. It builds agents from their specs with ``make_agent(spec, **options)``
(``allow_files=False`` for a spec from a web request, ``trusted=True`` for a person's own),
keeps the last few built, and answers one request at a time:

- ``("build", spec, seed)``: ``("built",)`` once the agent is built (warmed up first, if
  asked: see ``warm_up``) and reseeded with ``seed`` unless it is None;
- ``("move", spec, seed, start FEN, moves)``: ``("started",)`` once the agent is ready to
  think, then ``("move", PDN, seconds, search report)``; the agent is reseeded first unless
  ``seed`` is None.

Errors are answered, ``("error", type name, message)``, not raised. The worker ignores
SIGINT: Ctrl-C is its owner's to handle, which kills it (``AgentWorker.stop``).
"""

from __future__ import annotations

import math
import multiprocessing
import signal
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from checkers_env import Board, Game, Rules, make_agent

#: A quiet middlegame position (22 pieces, seven moves, none of them forced; in no opening
#: book, beyond any endgame database), where every agent thinks: ``warm_up`` plays it. A
#: position with one legal move would not do, since an agent plays a forced move without
#: searching.
WARM_UP_FEN = "B:W18,19,21,22,25,26,27,28,29,31,32:B1,2,4,5,6,7,8,9,10,11,12"

#: Built agents a worker keeps (zoo weights load once per spec).
KEPT_AGENTS = 8
#: Seconds each move of the warm-up twin of a limited agent may search once its kernels
#: are loaded: a budget of playouts or simulations is not cut by ``depth=2``.
WARM_UP_LIMIT = 0.5


def limit_thinking(agent: Any, seconds: float | None) -> Any:
    """``agent``, whose every search now stops within ``seconds`` whatever its spec's counts
    (``depth``, ``playouts``, ``simulations``), where its kind takes a ``think_limit``
    (the suite's searches do; ``random``, ``greedy`` and the nets' one look need none).
    None leaves it as it is."""
    if seconds is not None and hasattr(agent, "think_limit"):
        agent.think_limit = float(seconds)
    return agent


def warm_up(spec: str, rules: Rules | None = None, think_limit: float | None = None, **options: Any) -> None:
    """Compile what the agent of ``spec`` thinks with (numba's kernels: a minute or more for
    a net's search on a fresh install, a fraction of a second from numba's cache) before it
    plays a timed move. A twin of it, built with the same ``make_agent`` options and
    ``depth=2`` (a kind without a depth ignores it; the kernels are the same at every
    depth), under the agent's ``think_limit`` if it has one (then at most ``WARM_UP_LIMIT``
    seconds a move past the loading of its kernels: a limited search runs other kernels
    than a search of a fixed depth), plays the move of ``WARM_UP_FEN`` under ``rules``
    twice (the first time, a clock may run out while the kernels load, before the second
    ply and what follows it)
    and is dropped, so that the agent which then plays starts as fresh as one never warmed.
    Without it the first move's clock pays for the compilation: a time-limited search
    plays it at depth 1, and ``checkers serve`` stops it at its limit.

    Raises:
        Whatever ``make_agent`` raises for the spec. A twin that fails to think (an external
        engine that crashes) is dropped quietly: the agent itself will fail the same way in
        its game, where the caller reports it.
    """
    limit = None if think_limit is None else min(think_limit, WARM_UP_LIMIT)
    twin = limit_thinking(make_agent(spec, **{**options, "depth": 2}), limit)
    try:
        for _ in range(2):
            twin.select_move(Game(start=Board.from_fen(WARM_UP_FEN), rules=rules or Rules()))
    except Exception:
        pass
    finally:
        close = getattr(twin, "close", None)
        if callable(close):
            close()


class AgentWorker:
    """One worker process (``spawn``: numba's threads do not survive ``fork``).

    Args:
        rules: the draw rules of the games the agents are asked about.
        options: keywords of ``make_agent`` for every spec (``allow_files``, ``agents_dirs``,
            ``trusted``).
        warm_up: ``warm_up`` each new agent before it is built.
        think_limit: seconds every search of the agents may take at most, whatever their
            specs' counts (``limit_thinking``); None: as their specs say.
    """

    def __init__(
        self,
        rules: Rules,
        options: dict[str, Any] | None = None,
        warm_up: bool = False,
        think_limit: float | None = None,
    ):
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, rules, dict(options or {}), warm_up, think_limit), daemon=True
        )
        self.process.start()
        child.close()

    def send(self, request: tuple) -> None:
        """Send a request (see the module docstring).

        Raises:
            OSError: the worker has died.
        """
        self.connection.send(request)

    def receive(self, limit: float | None = None, waiting: Callable[[], None] | None = None) -> tuple | None:
        """The worker's next answer; None after ``limit`` seconds (None: no limit) or if the
        worker died. Waits in 0.1 s slices, calling ``waiting()`` after each (Ctrl-C lands
        between them)."""
        deadline = math.inf if limit is None else time.monotonic() + limit
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
            if waiting is not None:
                waiting()

    def kill(self) -> None:
        """Kill the process now, without waiting (safe in a signal handler)."""
        if self.process.is_alive():
            self.process.kill()

    def stop(self) -> None:
        """Kill the process, even in the middle of a search, and wait for it."""
        self.kill()
        self.process.join(2)
        self.connection.close()


def _worker_main(connection, rules: Rules, options: dict[str, Any], warm: bool, think_limit: float | None) -> None:
    """The worker process's loop (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the owner's Ctrl-C kills it
    agents: OrderedDict[str, Any] = OrderedDict()

    def agent_of(spec: str):
        agent = agents.pop(spec, None)
        if agent is None:
            if warm:
                warm_up(spec, rules, think_limit, **options)
            agent = limit_thinking(make_agent(spec, **options), think_limit)
        agents[spec] = agent
        while len(agents) > KEPT_AGENTS:
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
                _, spec, seed = request
                agent = agent_of(spec)
                if seed is not None:
                    agent.reset(seed=seed)
                connection.send(("built",))
                continue
            _, spec, seed, start, moves = request
            agent = agent_of(spec)
            if seed is not None:
                agent.reset(seed=seed)
            game = Game(start=Board.from_fen(start), rules=rules, moves=moves)
            connection.send(("started",))
            began = time.perf_counter()
            move = agent.select_move(game)
            seconds = time.perf_counter() - began
            connection.send(("move", str(move), seconds, search_report(agent)))
        except Exception as error:  # reported to the owner, which words it for its user
            connection.send(("error", type(error).__name__, str(error)))


def search_report(agent: Any) -> dict[str, Any]:
    """What the agent's last search reports, as JSON: depth, value, nodes and best moves of
    an alpha-beta search; value, simulations and line of AlphaZero's; per-move win rates
    and playouts of MCRD; nothing for the others."""
    result = getattr(agent, "last_search", None)
    if result is None:
        return {}
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items() if isinstance(_plain(v), (int, float, str))}
    info: dict[str, Any] = {}
    for name in ("depth", "value", "nodes", "simulations", "seconds", "backend"):
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


__all__ = ["KEPT_AGENTS", "WARM_UP_FEN", "WARM_UP_LIMIT", "AgentWorker", "limit_thinking", "search_report", "warm_up"]
