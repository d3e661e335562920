"""A property-based fuzz of ``checkers serve``'s HTTP API: whatever a client sends (method,
path, headers, body), the answer is never a server error, never a traceback, never a path
of the server's machine, and every error is a JSON ``{"error": ...}``."""

from __future__ import annotations

import json
import logging
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="checkers serve needs the serve extra (starlette, uvicorn)")
pytest.importorskip("httpx")
hypothesis = pytest.importorskip("hypothesis")

import warnings  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

with warnings.catch_warnings():  # starlette 1.x suggests httpx2 for its TestClient; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from checkers_evaluation import serve  # noqa: E402

#: Specs a client might send: good ones (fast agents only), bad ones, hostile ones.
SPECS = [
    "human",
    "greedy",
    "random:seed=1",
    "alphabeta:depth=1",
    "zoo:td-minimax,depth=1",
    "alphabeta:depth=0",
    "alphabeta:time=1e309",
    "alphabeta:depth=nan",
    "mcrd:playouts=-5",
    "ppo:weights=/etc/passwd",
    "td-minimax:weights=/dev/zero",
    "zoo:../../etc",
    "zoo:",
    "zoo:,depth=1",
    "egdb:folder=/",
    ":",
    "a:b=c=d",
    "alphabeta:depth=1,depth=2",
    "random:seed=99999999999999999999999",
    "greedy:seed=-1",
    "bc",
    "ppo:trusted=1",
    "mcrd:guide=zoo:../x",
    "random:,,,",
    " greedy ",
    "greedy:\x00",
    "zoo:td-minimax,agents_dirs=/",
    "\u2603",
]
FENS = ["B:W21,22,23:B1,2,3", "W:W14:B9", "B:W14:B9", "B:W99:B1", "", "x", "B:WK1:BK1", "B:W:B"]
MOVES = ["11-15", "9x18", "22-18", "1-2", "11-15-19", "x", "", "9x18x27", "32x1"]
LEAGUE_FILES = ["heatmap.png", "games.pdn", "league.json", "../games.jsonl", "%2e%2e", ""]
HOSTS = ["127.0.0.1", "127.0.0.1", "localhost:8000", "[::1]", "evil.example", "", "127.0.0.1:x", "[::1"]
ORIGINS = [None, None, "http://127.0.0.1", "http://evil.example", "null", "http://[::1", "::"]
CONTENT_TYPES = [
    "application/json",
    "application/json",
    "text/plain",
    None,
    "application/json; charset=latin-1",
    "multipart/form-data",
    ";;",
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.sampled_from(SPECS + FENS + MOVES),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
specs = st.sampled_from(SPECS)
game_bodies = st.fixed_dictionaries(
    {"black": specs | specs | json_values, "white": specs | specs | json_values},
    optional={
        "fen": st.sampled_from(FENS) | json_values,
        "opening": st.integers(-2, 200) | json_values,
        "seed": st.integers(-(2**40), 2**40) | json_values,
    },
)
move_bodies = st.fixed_dictionaries({"move": st.sampled_from(MOVES) | json_values})
bodies = st.one_of(
    st.none(),
    game_bodies.map(lambda body: json.dumps(body).encode()),
    game_bodies.map(lambda body: json.dumps(body).encode()),
    move_bodies.map(lambda body: json.dumps(body).encode()),
    json_values.map(lambda value: json.dumps(value).encode()),
    st.binary(max_size=200),
    st.integers(1, 40).map(lambda depth: b"[" * depth * 100 + b"]" * depth * 100),
    st.just(b"x" * (serve.MAX_BODY + 1)),
)
segments = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12).map(
    lambda text: quote(text, safe="")
)


def _headers(draw, body) -> dict[str, str]:
    """Mostly what the page sends, so that the app behind the guard is fuzzed too."""
    if draw(st.integers(0, 3)):
        return {"host": "127.0.0.1"} | ({"content-type": "application/json"} if body is not None else {})
    headers = {}
    for name, choices in (("host", HOSTS), ("origin", ORIGINS), ("content-type", CONTENT_TYPES)):
        value = draw(st.sampled_from(choices))
        if value is not None:
            headers[name] = value
    return headers


@st.composite
def new_games(draw):
    body = json.dumps(draw(game_bodies)).encode()
    return "POST", "/api/games", _headers(draw, body), body


@st.composite
def game_actions(draw, game_ids):
    game = draw(st.sampled_from(game_ids) | segments)
    action = draw(st.sampled_from(["move", "agent", "takeback", ""]))
    body = draw(st.none() | move_bodies.map(lambda body: json.dumps(body).encode()) | bodies)
    method = draw(st.sampled_from(["POST", "POST", "GET"]))
    return method, f"/api/games/{game}" + (f"/{action}" if action else ""), _headers(draw, body), body


@st.composite
def anything(draw, game_ids):
    game = draw(st.sampled_from(game_ids) | segments)
    number = draw(st.sampled_from(["0", "1", "-1", "99", "9" * 9, "x", ""]) | segments)
    path = draw(
        st.sampled_from(
            [
                "/",
                "/web/app.js",
                "/web/{segment}",
                "/api/config",
                "/api/games",
                f"/api/games/{game}",
                f"/api/games/{game}/move",
                f"/api/games/{game}/agent",
                f"/api/games/{game}/takeback",
                f"/api/leagues/{number}",
                f"/api/leagues/{number}/games/{number}/{number}",
                f"/api/leagues/0/games/0/{number}",
                "/api/leagues/0/files/{file}",
                "/{segment}",
                "/api/{segment}/{segment}",
            ]
        )
    )
    path = path.replace("{file}", draw(st.sampled_from(LEAGUE_FILES) | segments))
    while "{segment}" in path:
        path = path.replace("{segment}", draw(segments), 1)
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]))
    body = draw(bodies)
    return method, path, _headers(draw, body), body


def requests(game_ids):
    """Any request, with new games and actions on live games as likely as the rest."""
    return st.one_of(new_games(), game_actions(game_ids), anything(game_ids))


class _Errors(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record):
        self.records.append(self.format(record))


@pytest.fixture(scope="module")
def fuzzed(tiny_league):
    app = serve.create_app(leagues=[tiny_league], workers=1, think_limit=3.0, egdb=None)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        ids = [
            client.post("/api/games", json=body).json()["id"]
            for body in (
                {"black": "human", "white": "human"},
                {"black": "human", "white": "greedy"},
                {"black": "random", "white": "greedy", "fen": "B:W14,23:B9"},
            )
        ]
        yield client, ids


def test_no_request_makes_a_server_error(fuzzed):
    from checkers_agents.zoo import zoo_dir

    client, ids = fuzzed
    errors = _Errors()
    root = logging.getLogger()
    root.addHandler(errors)
    secrets = [str(zoo_dir()), str(zoo_dir().parent)]

    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(requests(ids))
    def one_request(request):
        method, path, headers, body = request
        response = client.request(method, path, headers=headers, content=body)
        assert response.status_code < 500 or response.status_code in (503, 504), (request, response.text)
        assert "Traceback" not in response.text
        assert not any(secret in response.text for secret in secrets), request
        if response.status_code >= 400 and path.startswith("/api/") and method != "HEAD":
            assert isinstance(response.json().get("error"), str), (request, response.text)

    try:
        one_request()
    finally:
        root.removeHandler(errors)
    assert not [record for record in errors.records if "Traceback" in record or "Exception" in record]
