"""The Play tab's views of ``checkers serve``: the opponents offered by name, earlier
positions of a game, the evaluation bar and the endgame database's verdict."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="checkers serve needs the serve extra (starlette, uvicorn)")
httpx = pytest.importorskip("httpx")

import warnings  # noqa: E402

with warnings.catch_warnings():  # starlette 1.x suggests httpx2 for its TestClient; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from checkers_env import Board  # noqa: E402
from checkers_evaluation import serve  # noqa: E402
from checkers_evaluation.serve.views import BASELINES, evaluation_bar, zoo_league_ratings  # noqa: E402


def readme_elo(player: str) -> int:
    """The Elo that the zoo README's ratings table prints for ``player``."""
    readme = (Path(__file__).resolve().parents[2] / "zoo" / "README.md").read_text(encoding="utf-8")
    (elo,) = re.findall(rf"^\| \d+ \| {re.escape(player)} \| (-?\d+) \|", readme, re.MULTILINE)
    return int(elo)


@pytest.fixture(scope="module")
def client(egdb4):
    app = serve.create_app(workers=1, think_limit=2.0, egdb=egdb4)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def test_the_opponents_are_the_baselines_and_the_zoo_with_their_ratings(client):
    opponents = client.get("/api/opponents").json()["opponents"]
    specs = [entry["spec"] for entry in opponents]
    assert specs[: len(BASELINES)] == list(BASELINES)
    by_spec = {entry["spec"]: entry for entry in opponents}
    ratings = zoo_league_ratings()
    # The zoo league's table (zoo/README.md): one scale for every player, random = 0.
    assert by_spec["random"]["rating"] == 0.0 and by_spec["alphabeta:depth=6"]["rating"] == ratings["alphabeta:depth=6"]
    assert by_spec["alphabeta:time=0.5"]["rating"] is None  # not in the zoo's league: unrated
    # A zoo entry is offered as the league played it, with that player's rating.
    outcome = by_spec["zoo:outcome-net,time=0.1"]
    assert outcome["name"] == "outcome-net" and outcome["group"] == "zoo"
    assert round(outcome["rating"]) == readme_elo("zoo:outcome-net,time=0.1")
    assert by_spec["zoo:td-minimax"]["rating"] == ratings["zoo:td-minimax"] and by_spec["zoo:td-minimax"]["description"]
    # Every one offered is one the server accepts.
    for spec in specs:
        assert client.app.state.server.check_player(spec) == spec


def test_an_opponent_over_the_think_limit_is_not_offered():
    server = serve.Server(workers=1, think_limit=0.2, egdb=None)
    specs = [entry["spec"] for entry in server.opponents()]
    assert "alphabeta:time=0.5" not in specs and "alphabeta:depth=2" in specs
    assert "zoo:outcome-net,time=0.1" in specs


def test_every_position_of_a_game_with_the_replies_and_their_evaluation(client, new_game):
    state = new_game(client, black="human", white="alphabeta:depth=2", seed=3)
    game_id = state["id"]
    client.post(f"/api/games/{game_id}/move", json={"move": "11-15"})
    state = client.post(f"/api/games/{game_id}/agent").json()
    start = client.get(f"/api/games/{game_id}/positions/0").json()
    assert start["fen"] == Board().fen() and start["move"] is None and start["reply"] is None and start["plies"] == 2
    first = client.get(f"/api/games/{game_id}/positions/1").json()
    assert first["move"] == "11-15" and first["reply"] is None and first["turn"] == "white" and "<svg" in first["svg"]
    second = client.get(f"/api/games/{game_id}/positions/2").json()
    assert second["fen"] == state["fen"] and second["reply"] == state["replies"][-1]
    bar = second["reply"]["evaluation"]
    assert 0 <= bar["black"] <= 1 and "for Black" in bar["text"]
    assert second["reply"]["info"]["depth"] == 2 and second["reply"]["info"]["pv"][0] == second["move"]
    # Past the end: a 404 that names the game's last ply, however large the number.
    for ply in ("3", "9999999", "9" * 30):
        response = client.get(f"/api/games/{game_id}/positions/{ply}")
        assert response.status_code == 404
        assert response.json()["error"] == f"ply {ply} is past the end of game {game_id}: its last ply is 2"


def test_alphazero_reports_its_value_simulations_and_line(new_game):
    pytest.importorskip("torch")
    app = serve.create_app(workers=1, think_limit=60.0, egdb=None)  # a first move on a shared machine may be slow
    with TestClient(app, base_url="http://127.0.0.1") as client:
        state = new_game(client, black="alphazero:weights=untrained,simulations=8,seed=1", white="human")
        state = client.post(f"/api/games/{state['id']}/agent").json()
    reply = state["replies"][-1]
    assert reply["info"]["simulations"] >= 8 and reply["info"]["pv"][0] == reply["move"]
    assert reply["evaluation"]["text"].endswith("for Black (-1 White wins, +1 Black wins)")


def test_the_endgame_verdict_of_an_earlier_position(client, new_game):
    state = new_game(client, black="human", white="human", fen="B:W14,23:B9")
    client.post(f"/api/games/{state['id']}/move", json={"move": "9x18x27"})
    before = client.get(f"/api/games/{state['id']}/positions/0").json()
    assert before["egdb"] == {"value": "win", "distance": 1, "pieces": 4}
    after = client.get(f"/api/games/{state['id']}/positions/1").json()
    assert after["egdb"] == {"value": "loss", "distance": 0, "pieces": 4}


def test_no_database_means_no_verdict_and_none_is_built(tmp_path, monkeypatch, new_game):
    monkeypatch.setenv("CHECKERS_EGDB", str(tmp_path / "egdb"))
    server = serve.Server(workers=1, egdb="auto")
    app = serve.create_app(server)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        state = new_game(client, black="human", white="human", fen="B:W14,23:B9")
        assert state["egdb"] is None
        assert client.get(f"/api/games/{state['id']}/positions/0").json()["egdb"] is None
    assert not (tmp_path / "egdb").exists()


@pytest.mark.parametrize(
    ("method", "path", "headers", "status"),
    [
        ("POST", "/api/opponents", {}, 405),
        ("GET", "/api/opponents", {"host": "evil.example"}, 421),
        ("GET", "/api/games/{id}/positions/0", {"host": "evil.example"}, 421),
        ("GET", "/api/games/nosuchgame/positions/0", {}, 404),
        ("GET", "/api/games/{id}/positions/-1", {}, 404),
        ("GET", "/api/games/{id}/positions/1e3", {}, 404),
        ("GET", "/api/games/{id}/positions/%C2%B2", {}, 404),  # "²", a digit to str.isdigit
        ("GET", "/api/games/{id}/positions/1234567", {}, 404),
        ("GET", "/api/games/{id}/positions/..%2F..%2Fetc", {}, 404),
        ("GET", "/api/games/{id}/positions/", {}, 404),
        ("POST", "/api/games/{id}/positions/0", {}, 405),
    ],
)
def test_bad_requests_for_the_views_are_refused(client, method, path, headers, status, new_game):
    game_id = new_game(client, black="human", white="human")["id"]
    response = client.request(method, path.format(id=game_id), headers=headers)
    assert response.status_code == status, response.text
    assert response.json()["error"]


def test_the_opponents_list_takes_no_parameters(client):
    plain = client.get("/api/opponents").json()
    assert client.get("/api/opponents?agents_dir=/etc&zoo=/tmp").json() == plain


@pytest.mark.parametrize(
    ("info", "black_moved", "expected"),
    [
        ({"value": 999_993.0}, True, {"black": 1.0, "text": "Black wins in 7 plies (forced)"}),
        ({"value": 999_993.0}, False, {"black": 0.0, "text": "White wins in 7 plies (forced)"}),
        ({"value": -999_990.0}, True, {"black": 0.0, "text": "White wins in 10 plies (forced)"}),
        ({"value": 200.0}, True, {"black": 0.75, "text": "+200 points for Black"}),
        ({"value": 200.0}, False, {"black": 0.25, "text": "-200 points for Black"}),
        ({"value": 0.5}, False, {"black": 0.25, "text": "-0.50 for Black (-1 White wins, +1 Black wins)"}),
        ({"value": 0.0}, False, {"black": 0.5, "text": "+0 points for Black"}),
        (
            {"value": 1.0, "simulations": 64},
            False,
            {"black": 0.0, "text": "-1.00 for Black (-1 White wins, +1 Black wins)"},
        ),
        (
            {"value": 0.0, "simulations": 64},
            True,
            {"black": 0.5, "text": "+0.00 for Black (-1 White wins, +1 Black wins)"},
        ),
        ({}, True, None),
        ({"value": "inf"}, True, None),
        ({"value": True}, True, None),
    ],
)
def test_the_evaluation_bar(info, black_moved, expected):
    assert evaluation_bar(info, black_moved) == expected
