"""The league's runner: planned games played in this process, in a pool of worker
processes or as Ray tasks, each process building (and warming up) its agents once.

A game is played from its plan alone (players, opening, seed: ``schedule.PlannedGame``), so
its outcome does not depend on which process plays it or when. Agent kinds added with
``register_agent`` in the calling process are passed on to the workers
(:func:`kind_registrations`); a worker ends when the process that started it dies.
"""

from __future__ import annotations

import functools
import importlib.machinery
import multiprocessing.util
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points

import numpy as np

from checkers_env import Rules, make_agent
from checkers_env.agent import ENTRY_POINT_GROUP, Agent, agent_kinds, parse_spec, register_agent
from checkers_env.match import GameRecord, play_game
from checkers_env.parallel import run_pieces

from ..agent_workers import warm_up
from .files import LeagueError
from .schedule import PlannedGame

# -- agent kinds in workers ----------------------------------------------------------------


def kind_registrations(specs: list[str]) -> dict[str, Callable[..., Agent]]:
    """The factories of the kinds in ``specs`` that worker processes cannot find by
    themselves: those added with ``register_agent`` (entry-point kinds load anywhere).

    Raises:
        LeagueError: a factory that cannot be sent to another process (a lambda, a local
            function).
    """
    from_entry_points = {entry.name for entry in entry_points(group=ENTRY_POINT_GROUP)}
    registrations = {}
    for spec in specs:
        kind, _ = parse_spec(spec)
        if kind in from_entry_points or kind in registrations:
            continue
        factory = agent_kinds()[kind]
        try:
            pickle.dumps(factory)
        except Exception:  # pickle raises several types for things it cannot send
            raise LeagueError(
                f"agent kind {kind!r} was registered with {factory!r}, which worker processes cannot "
                "load: register a class or a function defined at module level, or use one worker"
            ) from None
        moved = _imported_elsewhere(factory)
        if moved:
            raise LeagueError(
                f"agent kind {kind!r} was registered with {factory!r}, which worker processes cannot "
                f"load: they import it by its module's name, and {moved}; move it to a module of its own "
                "name, or use one worker"
            )
        registrations[kind] = factory
    return registrations


def _imported_elsewhere(factory) -> str | None:
    """Why a worker process would import another module than the one ``factory`` comes
    from, or None. Pickle sends a class or function by module name, and a worker imports
    that name afresh from ``sys.path``, where a package of the same top-level name can come
    first (pgx's wheel, for one, installs a package called ``tests``)."""
    top = (getattr(factory, "__module__", None) or "").split(".")[0]
    loaded = sys.modules.get(top)
    if not top or top == "__main__" or loaded is None:
        return None
    found = importlib.machinery.PathFinder.find_spec(top, sys.path)
    if found is None or found.origin is None or not os.path.isfile(found.origin):
        return None  # built in, frozen, or a namespace package: the same wherever it is imported
    here = getattr(loaded, "__file__", None)
    if here is not None and os.path.realpath(here) == os.path.realpath(found.origin):
        return None
    return f"{top!r} there is {found.origin}, not the {top!r} loaded here ({here or 'a namespace package'})"


# -- adjudication ------------------------------------------------------------------------

#: The one database kind that adjudicates (``--adjudicate egdb``).
ADJUDICATORS = ("egdb",)


def _database(adjudicate: tuple[int, str] | None):
    """The endgame database ``(pieces, folder)``, opened once per process; None for None."""
    if adjudicate is None:
        return None
    from checkers_env.egdb import EndgameDatabase

    return EndgameDatabase.cached(*adjudicate)


# -- workers -------------------------------------------------------------------------------

_agents_in_process: dict[str, Agent] = {}


def agent_in_process(spec: str, overrides: dict) -> Agent:
    """The agent of ``spec`` in this process, built (and warmed up, so that no game's first
    move pays for compiling its kernels) once."""
    cache_key = f"{spec}|{sorted(overrides.items())}"
    if cache_key not in _agents_in_process:
        warm_up(spec, **overrides)
        _agents_in_process[cache_key] = make_agent(spec, **overrides)
    return _agents_in_process[cache_key]


def close_agents_in_process() -> None:
    """Close and forget the agents this process built for league games, so that an outside
    engine (and every helper it started) ends with the league, not with the interpreter."""
    while _agents_in_process:
        _, agent = _agents_in_process.popitem()
        close = getattr(agent, "close", None)
        if close is not None:
            close()


def _start_worker(parent_pid: int, registrations: dict[str, Callable[..., Agent]]) -> None:
    """Worker initializer (after ``run_pieces`` has left Ctrl-C to the league process): learn
    the agent kinds registered in the league's process, stop this worker's engines as it
    leaves, and end this worker when the league process dies (a SIGKILLed league would
    otherwise leave its workers playing games nobody will record)."""
    # A pool worker leaves through multiprocessing's exit hooks, not atexit.
    multiprocessing.util.Finalize(None, close_agents_in_process, exitpriority=10)
    for kind, factory in registrations.items():
        register_agent(kind, factory)
    import threading
    import time as _time

    def watch() -> None:
        while os.getppid() == parent_pid:
            _time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def play_between(
    game: PlannedGame, black: Agent, white: Agent, rules: Rules, adjudicate: tuple[int, str] | None = None
) -> GameRecord:
    """Play one planned game between the agents given (in this process); the record names
    the players by their league names.

    Args:
        adjudicate: ``(pieces, folder)`` of the endgame database that ends the game when it
            reaches one of its positions (opened once per process), or None.
    """
    record = play_game(
        black,
        white,
        game.opening,
        rules,
        np.random.default_rng(game.seed),
        key=game.key,
        adjudicate=_database(adjudicate),
    )
    record.black, record.white = game.black, game.white
    return record


def play_planned(game: PlannedGame, rules: Rules, overrides: dict, adjudicate: tuple[int, str] | None = None) -> dict:
    """Play one planned game (in any process), its agents built from their specs once per
    process, and return its record as a dict (:func:`play_between`).

    Args:
        overrides: what the league sets in every agent it builds (``time``, ``trusted``).
        adjudicate: as for :func:`play_between`.
    """
    black = agent_in_process(game.black_spec or game.black, overrides)
    white = agent_in_process(game.white_spec or game.white, overrides)
    return play_between(game, black, white, rules, adjudicate).to_dict()


def play_registered(
    game: PlannedGame,
    rules: Rules,
    overrides: dict,
    registrations: dict[str, Callable[..., Agent]],
    adjudicate: tuple[int, str] | None = None,
) -> dict:
    """:func:`play_planned` in a process that must first learn the kinds registered in the
    league's process (a Ray worker)."""
    for kind, factory in registrations.items():
        register_agent(kind, factory)
    return play_planned(game, rules, overrides, adjudicate)


def play_planned_games(
    todo: Sequence[PlannedGame],
    keep: Callable[[PlannedGame, dict], None],
    rules: Rules,
    overrides: dict,
    workers: int = 1,
    ray: bool | str = False,
    registrations: dict[str, Callable[..., Agent]] | None = None,
    adjudicate: tuple[int, str] | None = None,
    what: str = "the league",
) -> None:
    """``keep(game, record)`` for each game of ``todo`` as it ends (the record as a dict): in
    this process (``workers=1``), in a pool of ``workers`` processes, or as Ray tasks.

    Args:
        overrides: what every agent is built with (``time``, ``trusted``).
        ray: ``True`` (a local Ray, or the cluster of ``RAY_ADDRESS``) or a cluster's address.
        registrations: the kinds the workers must learn (:func:`kind_registrations`).
        adjudicate: as for :func:`play_between`.
        what: the work's name in the messages of a worker that died.

    Raises:
        LeagueError: ``ray`` asked for, and Ray not installed.
    """
    registrations = registrations or {}
    if ray:
        try:
            import ray as _  # noqa: F401  (here, for the league's own install hint)
        except ImportError:
            raise LeagueError("--ray needs Ray: pip install 'checkers-suite[ray]'") from None
        on_ray = functools.partial(
            play_registered, rules=rules, overrides=overrides, registrations=registrations, adjudicate=adjudicate
        )
        run_pieces(on_ray, todo, keep, ray=ray, what=what)
        return
    play = functools.partial(play_planned, rules=rules, overrides=overrides, adjudicate=adjudicate)
    try:
        run_pieces(
            play,
            todo,
            keep,
            workers=workers,
            initializer=_start_worker,
            initargs=(os.getpid(), registrations),
            ordered=False,
            what=what,
        )
    finally:
        close_agents_in_process()  # those played here (one worker, or one game)


__all__ = [
    "ADJUDICATORS",
    "agent_in_process",
    "close_agents_in_process",
    "kind_registrations",
    "play_between",
    "play_planned",
    "play_planned_games",
    "play_registered",
]
