"""``checkers serve`` against a hostile web page: no code or file a request names is run or
opened, only this server's own page may change anything, and error texts show no path."""

from __future__ import annotations

import json
import os
import time

import pytest

pytest.importorskip("starlette", reason="checkers serve needs the serve extra (starlette, uvicorn)")
httpx = pytest.importorskip("httpx")

import warnings  # noqa: E402

with warnings.catch_warnings():  # starlette 1.x suggests httpx2 for its TestClient; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from checkers_evaluation import serve  # noqa: E402
from checkers_evaluation.serve.http import without_paths  # noqa: E402


@pytest.fixture(scope="module")
def client():
    app = serve.create_app(workers=1, think_limit=5.0, egdb=None)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def _live(app):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("serve_conftest", Path(__file__).with_name("conftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LiveServer(app)


# -- specs that name files ------------------------------------------------------------------


@pytest.mark.parametrize("template", ["ppo:weights={}", "ppo:weights={},net_arch=32x32", "bc:weights={}"])
def test_the_pickle_exploit_runs_nothing(client, pickle_payload, template):
    """A crafted SB3 zip whose unpickling would create a file: refused before it is opened."""
    model, marker = pickle_payload
    for side in ("white", "black"):
        body = {"black": "human", "white": "human", side: template.format(model)}
        response = client.post("/api/games", json=body)
        assert response.status_code == 422 and "names a file" in response.json()["error"]
        assert str(model) not in response.text and str(model.parent) not in response.text
    assert not marker.exists()


@pytest.mark.parametrize(
    "template",
    [
        "td-minimax:weights={}",
        "alphabeta:eval=td-minimax,weights={}",
        "alphabeta:egdb=4,egdb_folder={}",
        "alphabeta:book_file={}",
        "zoo:outcome-net,book_file={}",
        "egdb:pieces=4,folder={}",
        "mcrd:guide={}",
        "slow-fast:weights={}",
    ],
)
def test_a_secret_path_is_neither_echoed_nor_probed(client, tmp_path, template):
    """The answer is the same whether the file exists or not, and never shows its path."""
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    answers = []
    for path in (secret, tmp_path / "missing", "/root/.ssh/id_rsa", tmp_path):
        response = client.post("/api/games", json={"black": "human", "white": template.format(path)})
        assert response.status_code == 422
        assert str(path) not in response.text and "id_rsa" not in response.text and "BEGIN" not in response.text
        answers.append(response.json()["error"].replace(str(path), ""))
    assert len(set(answers)) == 1


def test_a_named_pipe_is_refused_at_once_and_the_server_goes_on(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # a reader that opens it waits for a writer forever
    live = _live(serve.create_app(workers=1, think_limit=5.0, egdb=None))
    with live, httpx.Client(base_url=live.url, timeout=10) as http:
        for spec in (f"td-minimax:weights={fifo}", f"alphabeta:eval=mcrd-net,weights={fifo}", f"egdb:folder={fifo}"):
            began = time.monotonic()
            response = http.post("/api/games", json={"black": "human", "white": spec})
            assert response.status_code == 422 and time.monotonic() - began < 5
            assert http.get("/api/config").status_code == 200
        assert http.post("/api/games", json={"black": "human", "white": "human"}).status_code == 201


@pytest.mark.parametrize("name", ["../../etc", "..", "a/b", "/tmp", "td-minimax/../ppo"])
def test_zoo_names_cannot_leave_the_zoo(client, name):
    response = client.post("/api/games", json={"black": f"zoo:{name}", "white": "human"})
    assert response.status_code == 422 and "plain name" in response.json()["error"]


def test_python_only_parameters_cannot_be_set_by_a_request(client, pickle_payload):
    model, marker = pickle_payload
    response = client.post("/api/games", json={"black": "human", "white": f"ppo:trusted=true,weights={model}"})
    assert response.status_code == 422 and not marker.exists()
    response = client.post("/api/games", json={"black": "human", "white": "zoo:td-minimax,agents_dirs=/tmp"})
    assert response.status_code == 422 and "set in Python only" in response.json()["error"]


def test_a_broken_zoo_entry_does_not_show_the_zoos_path(tmp_path, monkeypatch):
    zoo = tmp_path / "private-zoo"
    (zoo / "broken").mkdir(parents=True)
    (zoo / "broken" / "weights.safetensors").write_bytes(b"not a safetensors file")
    card = {
        "name": "broken",
        "kind": "td-minimax",
        "params": {},
        "weights": "weights.safetensors",
        "description": "a corrupt net",
        "commit": "0",
        "date": "2026-11-25",
    }
    (zoo / "broken" / "card.json").write_text(json.dumps(card))
    monkeypatch.setenv("CHECKERS_ZOO", str(zoo))  # the workers inherit it when they start
    app = serve.create_app(workers=1, think_limit=5.0, egdb=None)
    with TestClient(app, base_url="http://127.0.0.1") as http:
        response = http.post("/api/games", json={"black": "zoo:broken", "white": "human"})
        assert response.status_code == 422 and "corrupt" in response.text
        assert str(zoo) not in response.text and str(tmp_path) not in response.text
        response = http.post("/api/games", json={"black": "zoo:nothing", "white": "human"})
        assert response.status_code == 422 and str(zoo) not in response.text


def test_paths_are_taken_out_of_messages():
    assert without_paths("weights file '/root/.ssh/id_rsa' does not exist") == "weights file '<path>' does not exist"
    assert without_paths(r"no C:\Users\me\model.zip here") == "no <path> here"
    assert without_paths("in ~/.ssh/id_rsa") == "in <path>"
    for text in ("1/2-1/2", "B:W21,22:B1,K3", "http://127.0.0.1:8000/api/games", "9x18x27"):
        assert without_paths(text) == text


# -- offered agents --------------------------------------------------------------------------


def _offered(folder, name="mine", params=None):
    entry = folder / name
    entry.mkdir(parents=True)
    card = {
        "name": name,
        "kind": "alphabeta",
        "params": params or {"depth": 1, "eval": "material"},
        "description": "an offered agent",
        "commit": "0",
        "date": "2026-11-25",
    }
    (entry / "card.json").write_text(json.dumps(card))
    return folder


def test_offered_agents_are_named_by_entry(tmp_path):
    offered = _offered(tmp_path / "agents")
    server = serve.Server(workers=1, think_limit=5.0, egdb=None, agents_dirs=[offered])
    with TestClient(serve.create_app(server), base_url="http://127.0.0.1") as http:
        assert "mine" in http.get("/api/config").json()["zoo_entries"]
        state = http.post("/api/games", json={"black": "zoo:mine", "white": "human"})
        assert state.status_code == 201 and state.json()["black"] == "zoo:mine"
        state = http.post(f"/api/games/{state.json()['id']}/agent")
        assert state.status_code == 200 and state.json()["replies"][0]["agent"] == "zoo:mine"
        for spec in ("zoo:../agents/mine", f"alphabeta:egdb_folder={offered}", "zoo:mine,egdb_folder=/tmp"):
            assert http.post("/api/games", json={"black": spec, "white": "human"}).status_code == 422
    # A server that was not offered the folder does not know the entry.
    with TestClient(serve.create_app(workers=1, egdb=None), base_url="http://127.0.0.1") as http:
        response = http.post("/api/games", json={"black": "zoo:mine", "white": "human"})
        assert response.status_code == 422 and "no zoo entry 'mine'" in response.json()["error"]


@pytest.mark.parametrize("what", ["file", "empty", "missing", "bad-card", "bad-name"])
def test_the_command_refuses_a_bad_agents_dir(tmp_path, capsys, what):
    from checkers_evaluation.cli import main

    folder = tmp_path / "agents"
    if what == "file":
        folder.write_text("x")
    elif what == "empty":
        folder.mkdir()
    elif what == "bad-card":
        _offered(folder)
        (folder / "mine" / "card.json").write_text("{not json")
    elif what == "bad-name":
        _offered(folder, name="two words")
    assert main(["serve", "--agents-dir", str(folder), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--agents-dir" in err


# -- who may ask -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil.example:80", "0x7f.evil"]
)
def test_a_foreign_host_is_refused(client, host):
    """DNS rebinding: a page of a domain that resolves to 127.0.0.1 reads nothing."""
    for method, path in (("GET", "/api/config"), ("GET", "/"), ("POST", "/api/games"), ("GET", "/api/games/x")):
        response = client.request(method, path, headers={"host": host}, json={"black": "human", "white": "human"})
        assert response.status_code == 421, (method, path)


@pytest.mark.parametrize("host", ["", "[::1", "a:b:c", "127.0.0.1:port"])
def test_a_malformed_host_is_refused(client, host):
    assert client.get("/api/config", headers={"host": host}).status_code in (400, 421)


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000", "127.0.0.2", "LOCALHOST"]
)
def test_this_machines_names_are_served(client, host):
    assert client.get("/api/config", headers={"host": host}).status_code == 200


def test_a_server_bound_elsewhere_answers_to_its_address():
    app = serve.create_app(workers=1, egdb=None, host="192.168.1.5")
    with TestClient(app, base_url="http://192.168.1.5:8000") as http:
        assert http.get("/api/config").status_code == 200
        assert http.get("/api/config", headers={"host": "evil.example"}).status_code == 421
    app = serve.create_app(workers=1, egdb=None, host="0.0.0.0")  # every address of the machine
    with TestClient(app, base_url="http://10.1.2.3:8000") as http:
        assert http.get("/api/config").status_code == 200
        assert http.get("/api/config", headers={"host": "evil.example"}).status_code == 421


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "null", "http://127.0.0.1:8000", "https://127.0.0.1", "file://", "http://localhost"],
)
def test_a_post_from_another_origin_is_forbidden(client, origin):
    body = {"black": "human", "white": "human"}
    response = client.post("/api/games", json=body, headers={"origin": origin})
    assert response.status_code == 403
    state = client.post("/api/games", json=body).json()  # no Origin: not a browser's cross-site request
    response = client.post(f"/api/games/{state['id']}/move", json={"move": "11-15"}, headers={"origin": origin})
    assert response.status_code == 403 and client.get(f"/api/games/{state['id']}").json()["moves"] == []


def test_the_pages_own_origin_may_post(client):
    response = client.post(
        "/api/games", json={"black": "human", "white": "human"}, headers={"origin": "http://127.0.0.1"}
    )
    assert response.status_code == 201


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "text/json",
        None,
    ],
)
def test_only_json_bodies_are_read(client, content_type):
    """A cross-site form or "simple" request cannot send application/json without asking first."""
    headers = {} if content_type is None else {"content-type": content_type}
    body = json.dumps({"black": "human", "white": "human"}).encode()
    response = client.post("/api/games", content=body, headers=headers)
    assert response.status_code == 415 and "application/json" in response.json()["error"]
    state = client.post("/api/games", json={"black": "human", "white": "human"}).json()
    response = client.post(f"/api/games/{state['id']}/move", content=b'{"move": "11-15"}', headers=headers)
    assert response.status_code == 415 and client.get(f"/api/games/{state['id']}").json()["moves"] == []


def test_json_with_a_charset_is_json(client):
    body = json.dumps({"black": "human", "white": "human"}).encode()
    for content_type in ("application/json; charset=utf-8", "Application/JSON"):
        assert client.post("/api/games", content=body, headers={"content-type": content_type}).status_code == 201


@pytest.mark.parametrize(
    "body", [b"[" * 8000 + b"]" * 8000, b'{"a":' * 2500 + b"1" + b"}" * 2500, b"[" * 17 + b"]" * 17]
)
def test_deeply_nested_bodies_are_refused(client, body):
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert response.status_code in (400, 413) and "nests deeper" in response.json()["error"]


# -- recording and the command line -----------------------------------------------------------


def test_a_finished_game_taken_back_and_finished_again_is_recorded_once(tmp_path):
    server = serve.Server(workers=1, egdb=None, record=tmp_path)
    with TestClient(serve.create_app(server), base_url="http://127.0.0.1") as http:
        state = http.post("/api/games", json={"black": "human", "white": "human", "fen": "B:W14:B9"}).json()
        for _ in range(2):
            state = http.post(f"/api/games/{state['id']}/move", json={"move": "9x18"}).json()
            assert state["over"]
            state = http.post(f"/api/games/{state['id']}/takeback").json()
            assert not state["over"]
        state = http.post(f"/api/games/{state['id']}/move", json={"move": "9x18"}).json()
    lines = (tmp_path / "games.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["key"] == state["id"]


@pytest.mark.parametrize("args", [["--port", "99999"], ["--port", "-1"], ["--port", "http"], ["--record", "FILE"]])
def test_the_command_refuses_bad_options_before_serving(tmp_path, monkeypatch, capsys, args):
    import uvicorn

    from checkers_evaluation.cli import main

    record = tmp_path / "games.jsonl"
    record.write_text("")
    served = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: served.append(self))
    args = [str(record) if arg == "FILE" else arg for arg in args]
    assert main(["serve", *args]) == 2
    assert served == [] and capsys.readouterr().err.count("\n") == 1
    assert record.read_text() == ""


def test_a_worker_that_died_while_idle_is_replaced():
    app = serve.create_app(workers=1, think_limit=5.0, egdb=None)
    with TestClient(app, base_url="http://127.0.0.1") as http:
        state = http.post("/api/games", json={"black": "greedy", "white": "human"}).json()  # starts the worker
        for worker in app.state.server.pool._all:
            worker.process.kill()
            worker.process.join(5)
        response = http.post(f"/api/games/{state['id']}/agent")
        assert response.status_code == 503 and "ask again" in response.json()["error"]
        assert http.post(f"/api/games/{state['id']}/agent").status_code == 200  # a new worker


def test_a_client_that_leaves_mid_body_is_dropped_quietly(caplog):
    """Slow or vanishing clients cost the log nothing: no traceback, at most one short line each."""
    import logging
    import socket

    app = serve.create_app(workers=1, think_limit=5.0, egdb=None)
    with _live(app) as live, caplog.at_level(logging.INFO):
        host, port = live.url.removeprefix("http://").split(":")
        for _ in range(3):
            with socket.create_connection((host, int(port)), timeout=10) as client:
                client.sendall(
                    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100\r\n\r\n" + b'{"black": "hu'
                )
                time.sleep(0.2)  # the server is reading the body when the client leaves
        time.sleep(0.5)
        # The server is none the worse for it.
        assert httpx.get(f"{live.url}/api/config", timeout=30).status_code == 200
    records = [record for record in caplog.records if record.name.startswith(("uvicorn", "starlette", "checkers"))]
    assert not any(record.exc_info for record in records), [record.getMessage() for record in records]
    assert len(records) <= 3 and all("\n" not in record.getMessage() for record in records)
