"""Ctrl-C during training: a run stops where its state is whole, so that ``--resume``
continues it exactly, as if it had never stopped.

A training loop changes its state (the net, the optimizer, the generators, the counters) in
units: an SGD step, a self-play game, an epoch, an episode. A Ctrl-C that lands inside a unit
(after the minibatch was drawn, or after the optimizer stepped but before the step was
counted) leaves a state that no checkpoint can continue exactly, and saving it would make
the resumed run differ from the unbroken one.

The choice: Ctrl-C is a request, not a jump out of the loop wherever it lands. Inside
:func:`saved_on_stop` every region of the loop says what a Ctrl-C may do there:

- a **step** (``with stop.step():``: short work, an SGD step or one game): the Ctrl-C is
  held; the step runs to its end, and there, the state whole, the run saves and raises
  ``KeyboardInterrupt`` (the CLI prints its one line and exits with 130). A second Ctrl-C
  breaks in at once: the step is half done, so nothing is saved and the run resumes from
  its last checkpoint, as after a kill.
- an **unsaved** region (``with stop.unsaved():``: long work that the run checkpoints at
  its end, an epoch or an episode): the Ctrl-C stops at once and nothing is saved; the run
  resumes from the checkpoint written before the region, redoing the region.
- anywhere else (self-play whose shards are written whole, evaluation games, between
  units): the state is whole, so the Ctrl-C stops at once and the run saves.

The other way, saving the last whole snapshot of the state, would copy the net and the
optimizer at every step; a held Ctrl-C costs nothing. A plain ``kill`` (SIGTERM) is taken as
Ctrl-C where the trainer's ``main`` asked for that (:func:`stop_on_sigterm`). Worker
processes of a self-play or a gate match run in regions where Ctrl-C stops at once, so the
pool is stopped (``checkers_env.parallel.run_pieces``) and no worker outlives the run.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from checkers_env.parallel import kill_as_ctrl_c

#: Said on stderr when a Ctrl-C is held until the step ends.
HELD = b"stopping at the end of this step (Ctrl-C again to stop at once and lose it)\n"


def stop_on_sigterm() -> None:
    """A plain ``kill`` stops a run as Ctrl-C does, so the trainer can checkpoint first."""
    signal.signal(signal.SIGTERM, kill_as_ctrl_c)


class Stop:
    """A training loop's answer to Ctrl-C (see the module): its regions, and whether the
    state in memory is still whole.

    Attributes:
        requested: a Ctrl-C came inside a step, which stops the run when the step ends.
        whole: no region was broken into, so the state in memory is one a checkpoint can
            continue exactly.
    """

    def __init__(self) -> None:
        self.requested = False
        self.whole = True
        self._steps = 0
        self._unsaved = 0

    def handle(self, signum, frame) -> None:
        """The signal handler: hold the first Ctrl-C inside a step, else stop at once."""
        if self._steps and not self._unsaved and not self.requested:
            self.requested = True
            os.write(2, HELD)  # not print: the handler may run inside a write to stderr
            return
        raise KeyboardInterrupt

    @contextmanager
    def step(self) -> Iterator[None]:
        """A unit the checkpoint counts whole: a Ctrl-C inside it stops the run at its end.

        Raises:
            KeyboardInterrupt: at the end of the step, when a Ctrl-C came during it.
        """
        with self._region("_steps"):
            yield
        if self.requested and not self._steps:
            raise KeyboardInterrupt

    @contextmanager
    def unsaved(self) -> Iterator[None]:
        """Work the run checkpoints only at its end: a Ctrl-C inside it stops the run at
        once, and nothing is saved."""
        with self._region("_unsaved"):
            yield

    @contextmanager
    def _region(self, counter: str) -> Iterator[None]:
        setattr(self, counter, getattr(self, counter) + 1)
        try:
            yield
        except BaseException:
            self.whole = False  # left half done
            raise
        finally:
            setattr(self, counter, getattr(self, counter) - 1)


#: The handlers that mean "stop the run": Python's own for SIGINT, ``kill_as_ctrl_c`` for the
#: SIGTERM of :func:`stop_on_sigterm` or of a running pool (``checkers_env.parallel``).
#: Others (a signal ignored, or a caller's own handler) are left alone.
_STOPPING = (signal.default_int_handler, kill_as_ctrl_c)


@contextmanager
def saved_on_stop(save: Callable[[], None]) -> Iterator[Stop]:
    """Run a training loop so that Ctrl-C stops it where its state is whole (see the module).

    Args:
        save: writes the run's checkpoint; called when a Ctrl-C stops the loop and the state
            is whole.

    Yields:
        The loop's :class:`Stop`, whose ``step()`` and ``unsaved()`` mark its regions.

    Raises:
        KeyboardInterrupt: the run was stopped (after ``save``, where the state was whole).
    """
    stop = Stop()
    previous = {}
    if threading.current_thread() is threading.main_thread():  # only there can handlers be set
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) in _STOPPING:
                previous[signum] = signal.signal(signum, stop.handle)
    try:
        yield stop
    except KeyboardInterrupt:
        if stop.whole:
            save()
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


__all__ = ["HELD", "Stop", "saved_on_stop", "stop_on_sigterm"]
