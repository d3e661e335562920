"""Ctrl-C in a training loop (``checkers_training.interrupts``): held to the end of a step,
at once elsewhere, saved only where the state is whole; the handlers are given back."""

from __future__ import annotations

import os
import signal

import pytest

from checkers_training.interrupts import saved_on_stop, stop_on_sigterm


def _ctrl_c(times: int = 1) -> None:
    for _ in range(times):
        os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture(autouse=True)
def python_handlers():
    """Python's own SIGINT handler and the default SIGTERM, as a trainer starts with."""
    before = {
        s: signal.signal(s, h)
        for s, h in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL))
    }
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


def test_a_ctrl_c_in_a_step_is_held_to_its_end_then_saved_and_raised(capfd):
    state, saved = {"step": 0}, []
    with pytest.raises(KeyboardInterrupt), saved_on_stop(lambda: saved.append(dict(state))) as stop:
        while True:
            with stop.step():
                if state["step"] == 2:
                    _ctrl_c()
                state["step"] += 1  # after the Ctrl-C: the step ends whole
    assert saved == [{"step": 3}] and state == {"step": 3}
    assert "stopping at the end of this step" in capfd.readouterr().err


def test_a_second_ctrl_c_breaks_into_the_step_and_nothing_is_saved():
    state, saved = {"step": 0}, []
    with pytest.raises(KeyboardInterrupt), saved_on_stop(lambda: saved.append(dict(state))) as stop, stop.step():
        _ctrl_c(2)
        state["step"] += 1
    assert saved == [] and state == {"step": 0} and not stop.whole


def test_a_ctrl_c_in_unsaved_work_stops_at_once_and_saves_nothing():
    saved, reached = [], []
    with pytest.raises(KeyboardInterrupt), saved_on_stop(lambda: saved.append(True)) as stop, stop.unsaved():
        _ctrl_c()
        reached.append(True)
    assert saved == [] and reached == []


def test_a_ctrl_c_between_steps_stops_at_once_and_saves():
    saved, reached = [], []
    with pytest.raises(KeyboardInterrupt), saved_on_stop(lambda: saved.append(True)) as stop:
        with stop.step():
            pass
        _ctrl_c()
        reached.append(True)
    assert saved == [True] and reached == []


def test_the_handlers_are_given_back_and_an_ignored_ctrl_c_stays_ignored():
    with saved_on_stop(lambda: None):
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # nobody asked a kill to stop the run
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as under nohup
    with saved_on_stop(lambda: None):
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_plain_kill_is_held_as_ctrl_c_is_once_the_trainer_asked():
    stop_on_sigterm()
    state, saved = {"step": 0}, []
    with pytest.raises(KeyboardInterrupt), saved_on_stop(lambda: saved.append(dict(state))) as stop, stop.step():
        os.kill(os.getpid(), signal.SIGTERM)
        state["step"] += 1
    assert saved == [{"step": 1}]
