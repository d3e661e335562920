"""Ctrl-C stops ``checkers serve`` within 2 s with status 130, even while an agent thinks.

The server runs as a child process with SIGINT restored to its default: a child that a
non-interactive shell starts in the background inherits SIGINT ignored, and Python then
never raises KeyboardInterrupt, so without this the test would measure its harness.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("uvicorn", reason="checkers serve needs the serve extra (starlette, uvicorn)")
httpx = pytest.importorskip("httpx")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_ctrl_c_stops_the_server_while_an_agent_thinks():
    port = _free_port()
    command = [
        sys.executable,
        "-c",
        "import sys; from checkers_evaluation.cli import main; sys.exit(main())",
        "serve",
        "--port",
        str(port),
        "--think-limit",
        "120",
        "--workers",
        "1",
    ]
    child = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/api/config", timeout=1)
                break
            except httpx.HTTPError:
                assert child.poll() is None and time.monotonic() < deadline, child.stderr.read()
                time.sleep(0.1)
        # Creating the game builds the agent in a worker (and warms it up): then it only thinks.
        state = httpx.post(f"{url}/api/games", json={"black": "alphabeta:time=100", "white": "human"}, timeout=180)
        assert state.status_code == 201, state.text
        answers = []
        thinking = threading.Thread(
            target=lambda: answers.append(httpx.post(f"{url}/api/games/{state.json()['id']}/agent", timeout=180)),
            daemon=True,
        )
        thinking.start()
        time.sleep(1.0)
        assert not answers  # still thinking
        began = time.monotonic()
        child.send_signal(signal.SIGINT)
        status = child.wait(30)
        assert time.monotonic() - began < 2.0
        assert status == 130
        thinking.join(5)
        assert answers and answers[0].status_code == 503  # the move in flight was answered, not dropped
        assert "Traceback" not in child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
