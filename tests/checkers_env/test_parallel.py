"""The one runner of numbered pieces of work (``checkers_env.parallel``): a dead worker is
an error, never a wait for ever."""

from __future__ import annotations

import functools
import sys

import pytest
from pool_pieces import ctrl_c_handler, die_at_start, die_on, square

from checkers_env.parallel import WorkerDiedError, run_pieces


@pytest.mark.parametrize("ordered", [True, False])
def test_pieces_come_back_in_a_pool(ordered):
    got = {}
    run_pieces(square, list(range(6)), got.__setitem__, workers=2, ordered=ordered)
    assert got == {k: k * k for k in range(6)}


@pytest.mark.parametrize("ordered", [True, False])
def test_a_worker_killed_at_a_piece_is_an_error_that_keeps_what_was_done(ordered):
    got = []
    with pytest.raises(WorkerDiedError, match=r"the test run: a worker process ended \(exit code 3\)"):
        run_pieces(
            functools.partial(die_on, fatal=0),
            [1, 2, 0, 3],
            lambda k, r: got.append(k),
            workers=2,
            ordered=ordered,
            what="the test run",
        )
    assert 0 not in got and set(got) <= {1, 2, 3}


def test_a_worker_that_dies_as_it_starts_is_an_error():
    with pytest.raises(WorkerDiedError, match=r"exit code 4"):
        run_pieces(square, [1, 2, 3], lambda k, r: None, workers=2, initializer=die_at_start)


def test_ray_that_is_not_installed_is_named_with_the_job_and_its_flag(monkeypatch):
    from checkers_env.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ModuleNotFoundError
    with pytest.raises(MissingDependencyError, match=r"^self-play with --ray needs ray, which is not installed"):
        run_pieces(square, [1, 2], lambda k, r: None, ray=True, what="self-play")


def test_pool_workers_leave_ctrl_c_to_the_process_that_owns_the_pool():
    # A terminal's Ctrl-C reaches every process of its group: the owner stops the pool,
    # and a worker that raised would print a traceback of its own.
    got = {}
    run_pieces(ctrl_c_handler, [1, 2], got.__setitem__, workers=2)
    assert got == {1: "ignored", 2: "ignored"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_kill_of_the_owner_stops_the_pool_workers(tmp_path, process_runs):
    # The default SIGTERM would end the owner at once and leave its workers to finish their
    # pieces: a minute each here, a shard of games in a real run.
    import os
    import signal
    import subprocess
    import time

    here = os.path.dirname(__file__)
    script = (
        "import functools, sys\n"
        "from pool_pieces import sleep_reporting\n"
        "from checkers_env.parallel import run_pieces\n"
        f"run_pieces(functools.partial(sleep_reporting, folder={str(tmp_path)!r}), [0, 1], lambda k, r: None, workers=2)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    owner = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("*.pid"))) < 2:
            assert owner.poll() is None and time.monotonic() < deadline, "the pool's workers did not start"
            time.sleep(0.05)
        workers = [int(path.read_text()) for path in tmp_path.glob("*.pid")]
        owner.send_signal(signal.SIGTERM)
        _, stderr = owner.communicate(timeout=20)
        deadline = time.monotonic() + 10
        while any(process_runs(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if process_runs(pid)], "a worker outlived the owner"
        assert owner.returncode != 0
        assert b"KeyboardInterrupt" in stderr  # stopped as Ctrl-C stops it, not by the signal
    finally:
        owner.kill()
