"""``checkers serve``'s HTTP API: games, validation, limits, leagues, and many games at once."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("starlette", reason="checkers serve needs the serve extra (starlette, uvicorn)")
httpx = pytest.importorskip("httpx")

import warnings  # noqa: E402

with warnings.catch_warnings():  # starlette 1.x suggests httpx2 for its TestClient; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from checkers_env import Board, Game  # noqa: E402
from checkers_env.match import GameRecord  # noqa: E402
from checkers_evaluation import serve  # noqa: E402


@pytest.fixture(scope="module")
def client(tiny_league, egdb4):
    app = serve.create_app(leagues=[tiny_league], workers=2, think_limit=2.0, egdb=egdb4)
    # The server answers requests addressed to localhost or its own address only.
    with TestClient(app, base_url="http://127.0.0.1") as client:  # runs the lifespan: the agent workers stop at the end
        yield client


def _new(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def test_the_page_and_its_config(client):
    page = client.get("/")
    assert page.status_code == 200 and "checkers serve" in page.text
    assert client.get("/web/app.js").status_code == 200
    assert client.get("/web/secret.py").status_code == 404
    config = client.get("/api/config").json()
    assert {"random", "greedy", "alphabeta"} <= set(config["agent_kinds"])
    assert len(config["openings"]) >= 150 and config["leagues"] and config["egdb_pieces"] == 4


def test_a_human_move_and_the_agents_reply(client):
    state = _new(client, black="human", white="greedy", seed=1)
    assert state["to_move"] == "human" and len(state["legal"]) == 7 and "<svg" in state["svg"]
    state = client.post(f"/api/games/{state['id']}/move", json={"move": "11-15"}).json()
    assert state["to_move"] == "greedy" and state["moves"] == ["11-15"]
    state = client.post(f"/api/games/{state['id']}/agent").json()
    (reply,) = state["replies"]
    assert reply["agent"] == "greedy" and reply["seconds"] >= 0 and reply["move"] == state["moves"][1]
    game = Game.from_pdn(state["pdn"])
    assert [str(m) for m in game.moves] == state["moves"] and game.board.fen() == state["fen"]


def test_alphabeta_reports_its_search(client):
    state = _new(client, black="alphabeta:depth=3", white="human")
    assert state["flipped"] is True
    state = client.post(f"/api/games/{state['id']}/agent").json()
    info = state["replies"][-1]["info"]
    assert info["depth"] == 3 and "value" in info and info["best_moves"]


def test_take_back_returns_to_the_humans_turn(client):
    state = _new(client, black="human", white="random")
    game_id = state["id"]
    client.post(f"/api/games/{game_id}/move", json={"move": "9-13"})
    state = client.post(f"/api/games/{game_id}/agent").json()
    assert len(state["moves"]) == 2
    state = client.post(f"/api/games/{game_id}/takeback").json()
    assert state["moves"] == [] and state["to_move"] == "human" and state["replies"] == []
    response = client.post(f"/api/games/{game_id}/takeback")
    assert response.status_code == 409 and "nothing to take back" in response.json()["error"]


def test_ballot_openings_and_fens(client):
    config = client.get("/api/config").json()
    state = _new(client, black="human", white="human", opening=0)
    assert state["moves"] == config["openings"][0].split() and state["opening_plies"] == 3
    state = _new(client, black="human", white="human", fen="W:W14:B9,K3")
    assert state["turn"] == "white" and state["start_fen"] == state["fen"] == Board.from_fen("W:W14:B9,K3").fen()


def test_the_endgame_value_is_shown(client):
    state = _new(client, black="human", white="human", fen="B:W14,23:B9")
    assert state["egdb"] == {"value": "win", "distance": 1, "pieces": 4}
    assert state["must_capture"] and state["legal"] == [{"text": "9x18x27", "path": [9, 18, 27], "capture": True}]
    assert _new(client, black="human", white="human")["egdb"] is None  # 24 pieces


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"black": "human", "white": "nosuchagent"}, 422, "bad agent spec 'nosuchagent'"),
        ({"black": "human", "white": "alphabeta:depth=-1"}, 422, "bad agent spec"),
        ({"black": "human", "white": "alphabeta:time=60"}, 422, "thinking limit"),
        # Every parameter that gives seconds, of every kind: a clock for the game too.
        (
            {"black": "alphabeta:game_time=1e9", "white": "human"},
            422,
            "game_time=1e9 is over this server's thinking limit",
        ),
        ({"black": "human", "white": "zoo:outcome-net,game_time=1e9"}, 422, "game_time=1e9 is over"),
        ({"black": "human", "white": "mcrd:time=inf"}, 422, "time=inf is over"),
        ({"black": "human", "white": "greedy", "fen": "B:W99:B1"}, 422, "bad FEN"),
        ({"black": "human", "white": "greedy", "opening": 10_000}, 422, "bad opening"),
        ({"black": "human", "white": "greedy", "opening": 0, "fen": "B:W21:B1"}, 400, "not both"),
        ({"black": "human"}, 400, "missing 'white'"),
        ({"black": "human", "white": 3}, 400, "must be a string"),
        ({"black": "human", "white": "x" * 1000}, 413, "longer than"),
    ],
)
def test_bad_new_games_are_refused_with_a_reason(client, body, status, words):
    response = client.post("/api/games", json=body)
    assert response.status_code == status and words in response.json()["error"]


def test_bad_requests_are_refused_with_a_reason(client):
    state = _new(client, black="human", white="greedy")
    game_id = state["id"]
    response = client.post(f"/api/games/{game_id}/move", json={"move": "11-16x"})
    assert response.status_code == 422 and "illegal move" in response.json()["error"]
    response = client.post(f"/api/games/{game_id}/move", json={"move": "22-18"})
    assert response.status_code == 422 and "illegal move" in response.json()["error"]
    response = client.post(f"/api/games/{game_id}/agent")
    assert response.status_code == 409 and "human's turn" in response.json()["error"]
    response = client.post("/api/games", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400 and "not JSON" in response.json()["error"]
    response = client.post(
        "/api/games", content=b"[" + b"1," * 20_000 + b"1]", headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert client.get("/api/games/doesnotexist").status_code == 404
    assert client.get(f"/api/games/{game_id}").json()["moves"] == []  # nothing changed


def test_a_slow_agent_is_stopped_and_the_server_goes_on(monkeypatch):
    from checkers_evaluation.serve import pool as serve_pool

    # An agent whose search does not stop itself in time (as one of a kind that takes no
    # think limit): its worker is stopped at the limit.
    monkeypatch.setattr(serve_pool, "SEARCH_SHARE", 100.0)
    with TestClient(serve.create_app(workers=1, think_limit=2.0, egdb=None), base_url="http://127.0.0.1") as client:
        state = _new(client, black="alphabeta:depth=30", white="human")
        response = client.post(f"/api/games/{state['id']}/agent")
        assert response.status_code == 504 and "limit of 2 s" in response.json()["error"]
        state = _new(client, black="greedy", white="human")
        assert client.post(f"/api/games/{state['id']}/agent").status_code == 200


def test_the_league_folder(client, tiny_league):
    summary = client.get("/api/leagues/0").json()
    assert len(summary["games"]) == 4 and {row["player"] for row in summary["ratings"]} == {"greedy", "random"}
    assert summary["crosstable"] and "heatmap.png" in summary["files"]
    first = json.loads((tiny_league / "games.jsonl").read_text().splitlines()[0])
    position = client.get("/api/leagues/0/games/0/3").json()
    assert position["move"] == first["moves"][2] and position["plies"] == len(first["moves"])
    last = client.get("/api/leagues/0/games/0/9999").json()
    assert last["ply"] == len(first["moves"])
    png = client.get("/api/leagues/0/files/heatmap.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    for bad in (
        "/api/leagues/0/files/league.json",
        "/api/leagues/0/files/..%2F..%2Fetc%2Fpasswd",
        "/api/leagues/1",
        "/api/leagues/0/games/99/0",
        "/api/leagues/x",
    ):
        assert client.get(bad).status_code == 404, bad


def test_many_games_at_once_are_each_recorded_whole(tiny_league, tmp_path):
    """Twelve agent games and four human games at once through a real server on loopback."""
    server = serve.Server(workers=2, think_limit=5.0, record=tmp_path, egdb=None)
    live = _live_server(serve.create_app(server))

    async def agents_game(http, index):
        state = (await http.post("/api/games", json={"black": "greedy", "white": "random", "seed": index})).json()
        for _ in range(500):  # bounded: the rules end every game within 400 plies
            if state["over"]:
                break
            response = await http.post(f"/api/games/{state['id']}/agent")
            assert response.status_code == 200, response.text
            state = response.json()
        return state

    async def human_game(http, index):
        state = (await http.post("/api/games", json={"black": "human", "white": "human"})).json()
        for ply in range(500):
            if state["over"]:
                break
            move = state["legal"][(index + ply) % len(state["legal"])]["text"]
            state = (await http.post(f"/api/games/{state['id']}/move", json={"move": move})).json()
        return state

    async def everything():
        async with httpx.AsyncClient(base_url=live.url, timeout=60) as http:
            return await asyncio.wait_for(
                asyncio.gather(*[agents_game(http, i) for i in range(12)], *[human_game(http, i) for i in range(4)]),
                timeout=120,
            )

    with live:
        finals = asyncio.run(everything())
    assert all(state["over"] for state in finals)
    lines = (tmp_path / "games.jsonl").read_text(encoding="utf-8").splitlines()
    records = {record.key: record for record in (GameRecord.from_dict(json.loads(line)) for line in lines)}
    assert len(lines) == len(records) == len(finals)
    for state in finals:
        record = records[state["id"]]
        assert record.moves == state["moves"] and record.result == state["result"]
        replayed = Game(rules=serve.SERVE_RULES, moves=record.moves)  # every move legal, the end where the rules put it
        assert replayed.is_over() and replayed.result == record.result
        assert str(replayed.termination) == record.termination


def _live_server(app):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("serve_conftest", Path(__file__).with_name("conftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LiveServer(app)


def test_the_command_refuses_a_folder_that_is_not_a_league(tmp_path, capsys):
    from checkers_evaluation.cli import main

    assert main(["serve", "--league", str(tmp_path)]) == 2
    assert "not a league output folder" in capsys.readouterr().err


def test_the_command_runs_uvicorn_on_localhost_by_default(monkeypatch, tiny_league, capsys):
    import uvicorn

    from checkers_evaluation.cli import main

    calls = []

    def run(self, sockets=None):
        calls.append((self.config.host, self.config.port, [listening.getsockname()[1] for listening in sockets]))
        for listening in sockets:
            listening.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    # uvicorn's logging set-up (``logging.config.dictConfig``) closes every handler the
    # process has, pytest's log capture among them: later tests in this process would fail.
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    assert main(["serve", "--league", str(tiny_league), "--port", "8123"]) == 0
    assert calls == [("127.0.0.1", 8123, [8123])]  # on the socket it bound first
    assert "http://127.0.0.1:8123/" in capsys.readouterr().out


def test_loopback_addresses():
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("localhost") and serve.is_loopback("::1")
    assert not serve.is_loopback("0.0.0.0") and not serve.is_loopback("192.168.1.2")


def test_a_busy_port_is_one_line_and_status_2_before_any_address_is_printed(capsys):
    import socket

    from checkers_evaluation.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert "open http" not in out
    assert err == f"checkers: error: cannot serve on 127.0.0.1 port {port}: Address already in use\n"


#: Every kind the server accepts, with the largest count each takes: each move must still
#: come back within the think limit, its search stopped by the clock.
LARGEST_COUNTS = [
    "alphabeta:depth=64",
    "egdb:pieces=4,depth=64",
    "td-minimax:weights=untrained,depth=64",
    "slow-fast:weights=untrained,depth=64",
    "mcrd:playouts=1000000000",
    "mcrd:playouts=1000000000,launch=1048576",
    "alphazero:weights=untrained,simulations=1048576",
    "zoo:td-minimax,depth=64",
    "random",
    "greedy",
]


def test_the_largest_counts_move_within_the_think_limit_and_free_their_worker(egdb_folder, monkeypatch):
    import time

    from checkers_env import agent_kinds

    monkeypatch.setenv("CHECKERS_EGDB", str(egdb_folder))  # the workers' default database: egdb:pieces=4
    served = {spec.split(":")[0] for spec in LARGEST_COUNTS}
    refused = {"bc", "engine", "ppo"}  # they name a file (weights=, cmd=): a request cannot build them
    assert served | refused >= set(agent_kinds()), "a kind the server accepts is missing here"
    think_limit = 2.5
    server = serve.Server(workers=1, think_limit=think_limit, egdb=None)
    app = serve.create_app(server)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        for spec in LARGEST_COUNTS:
            game = client.post("/api/games", json={"black": spec, "white": "human", "seed": 1})
            assert game.status_code == 201, game.text
            worker = server.pool._all[0].process.pid
            began = time.monotonic()
            moved = client.post(f"/api/games/{game.json()['id']}/agent")
            took = time.monotonic() - began
            assert moved.status_code == 200, (spec, moved.text)  # not a 504: the search stopped itself
            assert moved.json()["replies"][-1]["seconds"] < think_limit and took < think_limit + 2, (spec, took)
            # Its worker is the same one, free at once for another game's move.
            other = client.post("/api/games", json={"black": "greedy", "white": "human"}).json()["id"]
            began = time.monotonic()
            assert client.post(f"/api/games/{other}/agent").status_code == 200
            assert time.monotonic() - began < think_limit, spec
            assert server.pool._all[0].process.pid == worker, spec
