"""Do numbered pieces of work (data shards, league games) here, in a pool of processes, or as
Ray tasks.

One runner for every generator of training data (``checkers_agents.mcrd.data``,
``checkers_agents.outcome_net.selfplay``) and for the league's games: each piece ``k`` is
``build(k)`` (depending on ``k`` and the caller's parameters only), and the caller's
``done(k, result)`` keeps it, in the order of ``todo`` (so a killed run leaves the earliest
pieces) or, with ``ordered=False``, as each piece ends (so a killed run leaves every piece
that ended). A plain ``kill`` (SIGTERM) of the process that owns a pool stops it as Ctrl-C
does (:func:`kill_as_ctrl_c`), so no worker outlives it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any


def _start_worker(initializer: Callable | None, initargs: tuple) -> None:
    """A pool worker's first act: leave Ctrl-C to the process that owns the pool (it stops
    the workers itself; a terminal's Ctrl-C reaches every process of its group, and each
    worker would print a traceback), then the caller's own initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def kill_as_ctrl_c(signum: int, frame: Any) -> None:
    """A signal handler that stops the process as Ctrl-C does: it raises
    ``KeyboardInterrupt``, so that ``finally`` blocks run (a pool's ``terminate``, a run's
    last save) where the signal's default action would end the process at once."""
    raise KeyboardInterrupt


@contextlib.contextmanager
def _kill_stops_pool() -> Iterator[None]:
    """While a pool runs: a plain ``kill`` of this process raises ``KeyboardInterrupt``
    (:func:`kill_as_ctrl_c`) instead of ending it at once, which would leave the workers to
    finish their pieces (minutes, for a shard of games) and then fail on a closed pipe.
    Only where SIGTERM still has its default action (a trainer's own handler is kept) and
    in the main thread (the only one that may set a handler)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, kill_as_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _call(build: Callable[[Any], Any], k: Any) -> Any:
    return build(k)


class WorkerDiedError(RuntimeError):
    """A pool's worker process ended while pieces were still to do (killed, out of memory,
    or failing as it started): the pool would wait for its piece for ever."""


#: Seconds between checks that the pool's workers are alive while waiting for a piece.
WATCH_SECONDS = 0.5


def _watched(results, workers: list, what: str):
    """The items of a pool's ``imap`` iterator, raising :class:`WorkerDiedError` when one
    of the pool's first ``workers`` ends (a ``Pool`` replaces a dead worker but loses its
    piece, and a worker that dies as it starts is replaced for ever)."""
    while True:
        try:
            yield results.next(timeout=WATCH_SECONDS)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            for process in workers:
                if process.exitcode is not None:
                    raise WorkerDiedError(
                        f"{what}: a worker process ended (exit code {process.exitcode}) before its work was done"
                    ) from None


class _Keyed:
    """``k -> (k, build(k))`` as a picklable callable (a pool sends it with every task)."""

    def __init__(self, build: Callable[[Any], Any]):
        self.build = build

    def __call__(self, k: Any) -> tuple[Any, Any]:
        return k, self.build(k)


def run_pieces(
    build: Callable[[Any], Any],
    todo: Sequence[Any],
    done: Callable[[Any, Any], None],
    workers: int = 1,
    ray: bool | str = False,
    initializer: Callable | None = None,
    initargs: tuple = (),
    what: str = "this run",
    ordered: bool = True,
) -> None:
    """``done(k, build(k))`` for every ``k`` of ``todo``.

    On Ctrl-C, a plain ``kill`` (SIGTERM, while it has its default action) or any error,
    the pool's workers are stopped at once, not left to finish their pieces; with
    ``ordered=False`` the pieces that had ended by then still go to ``done`` first.

    Raises:
        WorkerDiedError: a pool worker ended before the work was done (killed, or failing
            as it started, for instance on an import); the pieces done before are kept.

    Args:
        build: a picklable callable (a module-level function or a ``functools.partial`` of one).
        todo: the pieces to do (picklable values: shard numbers, planned games).
        done: called in this process with each piece, in the order of ``todo`` (pool,
            ``ordered=True``) or as the pieces end (``ordered=False``, and Ray).
        workers: processes of a ``spawn`` pool (1: in this process). A multiprocessing
            pool, not ``concurrent.futures``: on Ctrl-C or a kill its ``terminate`` stops
            the workers at once instead of letting them finish every piece.
        ray: ``True`` (a local or already initialised Ray) or a cluster address: one Ray task
            per piece; the results come back to this process, so no shared file system is
            needed. Ctrl-C cancels the tasks still running.
        initializer, initargs: run in each pool worker first (which ignores Ctrl-C: this
            process stops the pool).
        what: the job, named in the message when a worker dies or (``"WHAT with --ray"``)
            when Ray is missing.
        ordered: keep the order of ``todo`` (pool); False: hand each piece over as it ends.
    """
    if ray and todo:
        _run_ray(build, todo, done, ray, what)
    elif workers > 1 and len(todo) > 1:
        with _kill_stops_pool():
            _run_pool(build, todo, done, workers, initializer, initargs, what, ordered)
    else:
        for k in todo:
            done(k, build(k))


def _run_pool(
    build: Callable[[Any], Any],
    todo: Sequence[Any],
    done: Callable[[Any, Any], None],
    workers: int,
    initializer: Callable | None,
    initargs: tuple,
    what: str,
    ordered: bool,
) -> None:
    """``run_pieces`` in a ``spawn`` pool of ``workers`` processes."""
    pool = multiprocessing.get_context("spawn").Pool(min(workers, len(todo)), _start_worker, (initializer, initargs))
    # The pool replaces a dead worker: watch these (its process list has no public name).
    first_workers = list(pool._pool)  # type: ignore[attr-defined]
    try:
        if ordered:
            for k, result in zip(todo, _watched(pool.imap(build, todo), first_workers, what)):
                done(k, result)
        else:
            results = pool.imap_unordered(_Keyed(build), todo)
            try:
                for k, result in _watched(results, first_workers, what):
                    done(k, result)
            except KeyboardInterrupt:
                _hand_over_ended(results, done)
                raise
        pool.close()
        pool.join()  # workers leave through their exit hooks (an engine agent stops its process group there)
    finally:
        pool.terminate()
        pool.join()


def _hand_over_ended(results, done: Callable[[Any, Any], None]) -> None:
    """``done`` for the pieces whose results already reached this process (Ctrl-C must not
    lose what ended)."""
    while True:
        try:
            k, result = results.next(timeout=0)
        except (StopIteration, multiprocessing.TimeoutError, queue.Empty):
            return
        except Exception:  # a piece that failed: what ended before it is kept, the rest is lost anyway
            continue
        done(k, result)


def _run_ray(build, todo, done, ray: bool | str, what: str) -> None:
    try:
        import ray as ray_module
    except ModuleNotFoundError as error:
        from .errors import missing_dependency

        raise (missing_dependency(error, f"{what} with --ray") or error) from None
    if not ray_module.is_initialized():
        ray_module.init(address=None if ray is True else str(ray), include_dashboard=False, log_to_driver=False)
    task = ray_module.remote(_call)
    pending = {task.remote(build, k): k for k in todo}
    try:
        while pending:
            ready, _ = ray_module.wait(list(pending), num_returns=1)
            for ref in ready:
                done(pending.pop(ref), ray_module.get(ref))
    finally:
        for ref in pending:  # Ctrl-C or an error: stop the tasks still running
            ray_module.cancel(ref, force=True)


__all__ = ["WorkerDiedError", "kill_as_ctrl_c", "run_pieces"]
