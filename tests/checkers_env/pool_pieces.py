"""Pieces of work for ``test_parallel``, in a module of their own so that the pool's spawned
workers import them by this name (the folder is on ``sys.path``, see ``conftest``)."""

from __future__ import annotations

import os


def square(k: int) -> int:
    return k * k


def die_on(k: int, fatal: int) -> int:
    """``k``, or the worker's end (exit code 3) at piece ``fatal``."""
    if k == fatal:
        os._exit(3)
    return k


def die_at_start() -> None:
    """A pool initializer that ends its worker (exit code 4)."""
    os._exit(4)


def ctrl_c_handler(k: int) -> str:
    """What a worker does with Ctrl-C (SIGINT)."""
    import signal

    return "ignored" if signal.getsignal(signal.SIGINT) is signal.SIG_IGN else "raised"


def sleep_reporting(k: int, folder: str) -> int:
    """Write this worker's pid to ``folder/<k>.pid``, then sleep a minute: a long piece."""
    import time

    with open(os.path.join(folder, f"{k}.pid"), "w") as file:
        file.write(str(os.getpid()))
    time.sleep(60)
    return k
