"""Shared setup of the whole test suite.

pygame (``render_mode="human"``, exercised by Gymnasium's ``check_env``) opens its window
and audio through SDL; the dummy drivers let that run headless, on CI too. Ray starts its
workers at nice 15, which the two test processes starve on a two-core machine: the tests'
local Rays run theirs at the tests' own priority. Stable-Baselines3's ``learn`` makes a log
folder in the system's temporary directory unless told where: the tests' go to pytest's.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("RAY_worker_niceness", "0")

import pytest

#: Pieces of the endgame database the tests build once per run (6-12 s on two cores).
TEST_EGDB_PIECES = 4


@pytest.fixture(scope="session", autouse=True)
def sb3_log_folder(tmp_path_factory):
    """Where Stable-Baselines3 logs the tests' ``learn`` calls that set no logger."""
    folder = tmp_path_factory.mktemp("sb3")
    os.environ["SB3_LOGDIR"] = str(folder)
    return folder


@pytest.fixture(scope="session")
def egdb_folder(tmp_path_factory, worker_id):
    """A folder holding the endgame database up to ``TEST_EGDB_PIECES`` pieces: built by the
    first test process that asks, under a lock, and read by the others (pytest-xdist's way to
    share a session's fixture between its processes)."""
    from filelock import FileLock

    from checkers_env import egdb

    if worker_id == "master":  # not under xdist
        folder = tmp_path_factory.mktemp("egdb")
        egdb.build(TEST_EGDB_PIECES, folder, progress=False)
        return folder
    shared = tmp_path_factory.getbasetemp().parent
    folder, built = shared / "egdb", shared / "egdb.built"
    with FileLock(str(shared / "egdb.lock")):
        if not built.exists():
            egdb.build(TEST_EGDB_PIECES, folder, progress=False)
            built.touch()
    return folder


@pytest.fixture(scope="session")
def egdb4(egdb_folder):
    """The 4-piece ``EndgameDatabase`` of ``egdb_folder``, loaded once."""
    from checkers_env import egdb

    return egdb.EndgameDatabase.open(TEST_EGDB_PIECES, egdb_folder)


@pytest.fixture(scope="session")
def egdb4_values(egdb_folder):
    """``egdb.load_values`` of ``egdb_folder``: every value byte up to 4 pieces in memory."""
    from checkers_env import egdb

    return egdb.load_values(TEST_EGDB_PIECES, egdb_folder)


@pytest.fixture(scope="session")
def acf_games():
    """The 4,000 games of the ACF archive, read once per test process (a read takes
    seconds); tests only read them."""
    from checkers_env.datasets import ACF_GAMES
    from checkers_env.pdn import read_pdn

    return read_pdn(ACF_GAMES)


@pytest.fixture
def pickle_payload(tmp_path):
    """``(zip, marker)``: a Stable-Baselines3 model file whose loading runs code, harmlessly:
    unpickling its ``data`` creates the file ``marker``. Nothing may load it unless asked
    to trust it."""
    import base64
    import json
    import pickle
    import zipfile

    marker = tmp_path / "unpickled-marker"

    class CreatesMarker:
        def __reduce__(self):
            return open, (str(marker), "w")

    serialized = base64.b64encode(pickle.dumps(CreatesMarker())).decode()
    model = tmp_path / "model.zip"
    with zipfile.ZipFile(model, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": {":type:": "<class>", ":serialized:": serialized}}))
    return model, marker


def _runs(pid: int | str) -> bool:
    """Whether process ``pid`` runs: it is in ``/proc`` and not a zombie (ended, not yet
    reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.fixture
def process_runs():
    """``process_runs(pid)``: whether that process runs (Linux: reads ``/proc``), for the
    tests that check that no worker outlives the process that owns it."""
    return _runs
