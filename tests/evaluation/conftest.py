"""Fixtures of the ``checkers serve`` tests: a tiny league folder and a real server on loopback.

This folder goes on ``sys.path`` (worker processes inherit it), so that helper modules
such as ``user_kinds`` import by their own names in the league's workers.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

#: Agents of the tiny league: fast enough for a test, different enough to have results.
LEAGUE_AGENTS = ("greedy", "random")


@pytest.fixture(scope="session")
def tiny_league(tmp_path_factory):
    """A league output folder of 4 short games (games.jsonl and every report file)."""
    from checkers_env import Rules, make_agent
    from checkers_env.match import play_game
    from checkers_evaluation.league.reports import write_report

    folder = tmp_path_factory.mktemp("league")
    rng = np.random.default_rng(0)
    records = []
    for index, opening in enumerate(["9-13 22-17 13x22", "11-15 23-19 8-11"]):
        for black, white in (LEAGUE_AGENTS, LEAGUE_AGENTS[::-1]):
            records.append(
                play_game(
                    make_agent(black), make_agent(white), opening, Rules(max_plies=120), rng, key=f"{index}/{black}"
                )
            )
    with open(folder / "games.jsonl", "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record.to_dict()) + "\n")
    write_report(records, folder, bootstrap=20)
    return folder


@pytest.fixture(scope="session")
def blunder_pdn(tmp_path_factory):
    """Four games: the blunderer loses as Black and as White, and wins as White and as Black."""
    from blunders import BLACK_BLUNDER, WHITE_BLUNDER, blunder_game

    folder = tmp_path_factory.mktemp("games")
    path = folder / "games.pdn"
    texts = [
        blunder_game(BLACK_BLUNDER, "blunderer", "sharp", "0-1"),
        blunder_game(["9-13", "22-18"], "sharp", "blunderer", "0-1", more=2),
        blunder_game(WHITE_BLUNDER, "sharp", "blunderer", "1-0"),
        blunder_game(["11-15", "23-19"], "blunderer", "other", "1-0", more=2),
    ]
    path.write_text("\n".join(texts), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def blunder_autopsy(blunder_pdn, tmp_path_factory):
    """The autopsy of the blunderer's games: (its summary, its folder)."""
    from blunders import DEEP, FAST, THRESHOLD

    from checkers_evaluation.autopsy import autopsy

    out = tmp_path_factory.mktemp("autopsy") / "out"
    return autopsy([blunder_pdn], "blunderer", out, FAST, DEEP, THRESHOLD), out


class LiveServer:
    """``checkers serve``'s app on uvicorn in a thread, on a free loopback port."""

    def __init__(self, app):
        import uvicorn

        # No logging configuration: uvicorn's (``dictConfig``) would close every handler of the
        # process, pytest's log capture among them.
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", log_config=None)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{host}:{port}"
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture(scope="session")
def new_game():
    """``new_game(client, **body)``: the state of a game the server created (201), or a failed test."""

    def new(client, **body) -> dict:
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        return response.json()

    return new
