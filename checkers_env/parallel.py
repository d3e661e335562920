"""Build numbered pieces of work (data shards) here, in a pool of processes, or as Ray tasks.

One runner for every generator of training data (``checkers_agents.mcrd.data``,
``checkers_agents.outcome_net.selfplay``): each piece ``k`` is ``build(k)`` (its bytes,
depending on ``k`` and the generator's parameters only), and the caller's ``done(k,
result)`` writes it, in the order of ``todo``, so a killed run leaves the earliest pieces.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence


def _call(build: Callable[[int], bytes], k: int) -> bytes:
    return build(k)


def run_pieces(
    build: Callable[[int], bytes],
    todo: Sequence[int],
    done: Callable[[int, bytes], None],
    workers: int = 1,
    ray: bool | str = False,
    initializer: Callable | None = None,
    initargs: tuple = (),
    what: str = "this run",
) -> None:
    """``done(k, build(k))`` for every ``k`` of ``todo``.

    Args:
        build: a picklable callable (a module-level function or a ``functools.partial`` of one).
        todo: the pieces to build.
        done: called in this process with each piece, in the order of ``todo`` (pool) or as
            the pieces arrive (Ray).
        workers: processes of a ``spawn`` pool (1: in this process). A multiprocessing
            pool, not ``concurrent.futures``: on Ctrl-C or a kill its ``terminate`` stops
            the workers at once instead of letting them finish every piece.
        ray: ``True`` (a local or already initialised Ray) or a cluster address: one Ray task
            per piece; the bytes come back to this process, so no shared file system is needed.
        initializer, initargs: run in each pool worker first.
        what: named in the message when Ray is missing.
    """
    if ray and todo:
        try:
            import ray as ray_module
        except ModuleNotFoundError as error:
            from .errors import missing_dependency

            raise (missing_dependency(error, what) or error) from None
        if not ray_module.is_initialized():
            ray_module.init(address=None if ray is True else str(ray), include_dashboard=False, log_to_driver=False)
        task = ray_module.remote(_call)
        pending = {task.remote(build, k): k for k in todo}
        while pending:
            ready, _ = ray_module.wait(list(pending), num_returns=1)
            for ref in ready:
                done(pending.pop(ref), ray_module.get(ref))
    elif workers > 1 and len(todo) > 1:
        pool = multiprocessing.get_context("spawn").Pool(min(workers, len(todo)), initializer, initargs)
        try:
            for k, result in zip(todo, pool.imap(build, todo)):
                done(k, result)
            pool.close()
        finally:
            pool.terminate()
            pool.join()
    else:
        for k in todo:
            done(k, build(k))


__all__ = ["run_pieces"]
