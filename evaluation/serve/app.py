"""``checkers serve``: play, watch and replay games in the browser.

A local web app (Starlette on uvicorn, the ``serve`` extra) with three tabs: **Play** an
agent from a list or any spec, **Watch** two agents play each other, and **League**, a
league's output folder replayed game by game. The documentation's board page describes the
page and its HTTP API.

Safety, by design: ``SECURITY.md`` gives the threat model (a local, single-user server that
every web page its user visits can send requests to) and what is refused. In short: Host
and Origin are checked (``serve.http``), a request never names a file and nothing is
unpickled, specs are checked by type before any agent is built, agents think in worker
processes (``serve.pool``) within the think limit, bodies, strings and games in memory have
limits, and Ctrl-C kills the workers at once.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import math
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from checkers_agents.zoo import zoo_names
from checkers_env import Board, Game
from checkers_env.agent import check_spec, parse_spec
from checkers_env.errors import CheckersError
from checkers_env.match import GameRecord, ballot_openings

from .http import RequestError, RequestGuard, bound_socket, json_body, without_paths
from .leagues import LeagueViews
from .pool import SERVE_RULES, THINK_LIMIT, AgentPool
from .views import GameViews, evaluation_bar, whole

HUMAN = "human"
#: Names of the parameters that give seconds (``time``, ``game_time``, ``timeout``, ...),
#: whatever the kind: none may ask for more than the think limit.
TIME_WORDS = ("time", "seconds", "timeout")
#: Longest agent spec, FEN or move text accepted, in characters.
MAX_TEXT = 300
#: Games kept in memory; past this the least recently used one is dropped.
MAX_GAMES = 500
#: The page's own files (``evaluation/serve/web``).
WEB_FILES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript", "style.css": "text/css"}


# -- games -------------------------------------------------------------------------------


@dataclass
class Session:
    """One served game: its players (``human`` or a spec), the game and each ply's reply."""

    id: str
    black: str
    white: str
    game: Game
    seed: int
    opening_plies: int = 0
    replies: list[dict | None] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    recorded: bool = False

    def player(self, color: int) -> str:
        return self.black if color == 0 else self.white

    @property
    def to_move(self) -> str:
        return self.player(int(self.game.board.turn))

    @property
    def flipped(self) -> bool:
        """Seen from White when White is the only human."""
        return self.white == HUMAN and self.black != HUMAN


def is_time_parameter(name: str) -> bool:
    """Whether an agent parameter gives seconds: one of ``TIME_WORDS``, or a name ending
    in one (``game_time``, ``move_seconds``)."""
    return name in TIME_WORDS or name.endswith(tuple(f"_{word}" for word in TIME_WORDS))


def _text(body: dict, name: str) -> str:
    value = _optional_text(body, name)
    if value is None:
        raise RequestError(400, f"missing {name!r}")
    return value


def _optional_text(body: dict, name: str) -> str | None:
    value = body.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RequestError(400, f"{name!r} must be a string, got {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise RequestError(413, f"{name!r} is longer than {MAX_TEXT} characters")
    return value.strip()


class Server(GameViews, LeagueViews):
    """The app's state: games, the agent pool, league folders, the endgame database.

    Args:
        leagues: league output folders the League tab may open.
        workers, think_limit: see ``AgentPool``.
        record: a folder; every finished game is appended to its ``games.jsonl``.
        egdb: an ``EndgameDatabase``, None for none, or ``"auto"``: the default folder's,
            when one is built.
        agents_dirs: folders of agents offered to the page, laid out as the zoo
            (``DIR/NAME/card.json`` and its weights); a request names one ``zoo:NAME``.

    Raises:
        ValueError: a league folder without ``games.jsonl``, a ``record`` that is not a
            folder, an agents folder without any entry or with an invalid card.
    """

    def __init__(
        self,
        leagues: Sequence[str | Path] = (),
        workers: int = 2,
        think_limit: float = THINK_LIMIT,
        record: str | Path | None = None,
        egdb: Any = "auto",
        agents_dirs: Sequence[str | Path] = (),
    ):
        self.leagues = [Path(folder).resolve() for folder in leagues]
        for folder in self.leagues:
            if not (folder / "games.jsonl").is_file():
                raise ValueError(f"{folder} is not a league output folder (no games.jsonl)")
        if record is not None and Path(record).exists() and not Path(record).is_dir():
            raise ValueError(f"--out {record}: not a folder (games are appended to DIR/games.jsonl)")
        self.agents_dirs = tuple(_offered_folder(folder) for folder in agents_dirs)
        self.pool = AgentPool(workers, think_limit, self.agents_dirs)
        self.games: OrderedDict[str, Session] = OrderedDict()
        self.record = Path(record) if record is not None else None
        self._record_lock = threading.Lock()
        self.openings = ballot_openings()
        self._egdb = egdb
        self._league_cache: dict[int, tuple[float, list[GameRecord]]] = {}

    # -- the endgame database

    @property
    def egdb(self):
        if self._egdb == "auto":
            from checkers_env.egdb import EndgameDatabase

            try:
                self._egdb = EndgameDatabase.cached()
            except (CheckersError, OSError, ValueError):
                self._egdb = None  # none built: the page says so
        return self._egdb

    def probe(self, board: Board) -> dict | None:
        database = self.egdb
        if database is None:
            return None
        verdict = database.probe(board)
        if verdict is None:
            return None
        return {"value": verdict.value, "distance": verdict.distance, "pieces": database.pieces}

    # -- validation

    def check_player(self, text: str) -> str:
        """``human`` or a spec (tidied) whose kind and parameters ``make_agent`` accepts,
        that names no file, and none of whose times (``is_time_parameter``: ``time=``,
        ``game_time=``, ...) is over the think limit. Opens no file the spec names and
        builds nothing (``new_game`` has a worker build the agent).

        Raises:
            RequestError: 422 naming what is wrong.
        """
        if text == HUMAN:
            return text
        try:
            kind, params = parse_spec(text)
            spec = check_spec(text, allow_files=False, agents_dirs=self.agents_dirs)
        except (ValueError, TypeError, ImportError) as error:  # UnknownAgentError, MissingDependencyError, ...
            raise RequestError(422, f"bad agent spec {text!r}: {error}") from None
        for name, value in params.items():
            if not is_time_parameter(name):
                continue
            try:
                seconds = float(value)
            except ValueError:
                seconds = math.inf
            if not seconds <= self.pool.think_limit:
                raise RequestError(
                    422,
                    f"bad agent spec {text!r}: {name}={value} is over this server's "
                    f"thinking limit of {self.pool.think_limit:g} s",
                )
        return spec

    def session(self, game_id: str) -> Session:
        found = self.games.get(game_id)
        if found is None:
            raise RequestError(404, f"no game {game_id!r} (games are kept in memory; it may have been dropped)")
        self.games.move_to_end(game_id)
        return found

    # -- game actions

    async def new_game(self, body: dict) -> Session:
        # Checking a spec may import its kind's module and read a zoo card: not on the event loop.
        black = await asyncio.to_thread(self.check_player, _text(body, "black"))
        white = await asyncio.to_thread(self.check_player, _text(body, "white"))
        fen = _optional_text(body, "fen")
        opening = body.get("opening")
        try:
            start = Board.from_fen(fen) if fen else Board()
        except ValueError as error:
            raise RequestError(422, f"bad FEN: {error}") from None
        game = Game(start=start, rules=SERVE_RULES)
        if opening not in (None, ""):
            if fen:
                raise RequestError(400, "give a FEN or an opening, not both")
            if isinstance(opening, bool) or not isinstance(opening, int) or not 0 <= opening < len(self.openings):
                raise RequestError(
                    422, f"bad opening: {opening!r} is not a ballot number from 0 to {len(self.openings) - 1}"
                )
            for text in self.openings[opening].split():
                game.play(text)
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31 - 1)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
            raise RequestError(422, f"bad seed: {seed!r} is not a whole number from 0 to 2**31 - 1")
        for spec in dict.fromkeys((black, white)):
            if spec != HUMAN:
                await self.pool.build(spec)  # a worker builds it: a bad value is refused now, not at its first move
        session = Session(secrets.token_hex(8), black, white, game, seed, opening_plies=game.ply)
        session.replies = [None] * game.ply
        self.games[session.id] = session
        while len(self.games) > MAX_GAMES:
            self.games.popitem(last=False)
        self._maybe_record(session)
        return session

    async def human_move(self, session: Session, body: dict) -> None:
        text = _text(body, "move")
        self._check_playable(session)
        if session.to_move != HUMAN:
            raise RequestError(409, f"it is the agent's turn ({session.to_move}), not a human's")
        try:
            move = session.game.board.parse_move(text)
        except ValueError as error:  # InvalidMoveError, IllegalMoveError, AmbiguousMoveError
            raise RequestError(422, f"illegal move: {error}") from None
        session.game.play(move)
        session.replies.append(None)
        self._maybe_record(session)

    async def agent_move(self, session: Session) -> None:
        self._check_playable(session)
        spec = session.to_move
        if spec == HUMAN:
            raise RequestError(409, "it is a human's turn, not an agent's")
        game = session.game
        move_text, seconds, info = await self.pool.select_move(
            spec, session.seed + game.ply, game.start.fen(), [str(m) for m in game.moves]
        )
        move = game.board.parse_move(move_text)
        black_moved = int(game.board.turn) == 0
        game.play(move)
        session.replies.append(
            {
                "ply": game.ply,
                "move": str(move),
                "agent": spec,
                "seconds": round(seconds, 4),
                "info": info,
                "evaluation": evaluation_bar(info, black_moved),
            }
        )
        self._maybe_record(session)

    def take_back(self, session: Session) -> None:
        """Undo the last move, and then the agents' moves back to a human's turn."""
        game = session.game
        if game.ply <= session.opening_plies:
            raise RequestError(409, "nothing to take back")
        self._pop(session)
        while game.ply > session.opening_plies and session.to_move != HUMAN and HUMAN in (session.black, session.white):
            self._pop(session)

    @staticmethod
    def _pop(session: Session) -> None:
        session.game.pop()
        session.replies.pop()  # a recorded game stays recorded: finished again, it is not written twice

    @staticmethod
    def _check_playable(session: Session) -> None:
        if session.game.is_over():
            raise RequestError(409, f"the game is over ({session.game.result}, {session.game.termination})")

    def _maybe_record(self, session: Session) -> None:
        """Append a finished game to ``record/games.jsonl``, once, as one whole line."""
        game = session.game
        if self.record is None or not game.is_over() or session.recorded:
            return
        seconds = {"black": 0.0, "white": 0.0}
        for reply in session.replies:
            if reply is not None:
                side = "black" if (reply["ply"] - 1 + int(game.start.turn)) % 2 == 0 else "white"
                seconds[side] += reply["seconds"]
        record = GameRecord(
            black=session.black,
            white=session.white,
            opening=" ".join(str(m) for m in game.moves[: session.opening_plies]),
            moves=[str(m) for m in game.moves],
            result=game.result,
            termination=str(game.termination),
            seed=session.seed,
            key=session.id,
            seconds={k: round(v, 4) for k, v in seconds.items()},
            start_fen="" if game.start == Board() else game.start.fen(),
        )
        line = json.dumps(record.to_dict()) + "\n"
        with self._record_lock:  # one write of a whole line per game
            self.record.mkdir(parents=True, exist_ok=True)
            with open(self.record / "games.jsonl", "a", encoding="utf-8") as out:
                out.write(line)
        session.recorded = True

    def config(self) -> dict:
        from checkers_env import agent_kinds

        return {
            "agent_kinds": sorted(agent_kinds()),
            "openings": self.openings,
            "leagues": [folder.name for folder in self.leagues],
            "think_limit": self.pool.think_limit,
            "egdb_pieces": None if self.egdb is None else self.egdb.pieces,
            "zoo_entries": zoo_names(self.agents_dirs),
        }


def _offered_folder(folder: str | Path) -> Path:
    """An ``--agents-dir`` folder, checked: it holds zoo-style entries with valid cards.

    Raises:
        ValueError: not a folder, no entry, or an entry whose card is invalid.
    """
    from checkers_agents.zoo import check_entry_name, load_card

    path = Path(folder).resolve()
    if not path.is_dir():
        raise ValueError(f"--agents-dir {folder}: not a folder")
    names = [card.parent.name for card in sorted(path.glob("*/card.json"))]
    if not names:
        raise ValueError(f"--agents-dir {folder}: no agent entries in it (DIR/NAME/card.json beside its weights)")
    for name in names:
        try:
            load_card(check_entry_name(name), [path])
        except CheckersError as error:
            raise ValueError(f"--agents-dir {folder}, entry {name!r}: {error}") from None
    return path


# -- the ASGI app --------------------------------------------------------------------------


def create_app(server: Server | None = None, host: str = "127.0.0.1", **options):
    """The Starlette app serving ``server`` (or a ``Server(**options)``), behind the
    ``RequestGuard`` of ``serve.http``.

    Args:
        host: the address the server is bound to: requests must be addressed to it or to
            ``localhost``.

    Raises:
        MissingDependencyError: starlette is not installed (``pip install 'checkers-suite[serve]'``).
    """
    try:
        from starlette.applications import Starlette
        from starlette.exceptions import HTTPException
        from starlette.middleware import Middleware
        from starlette.requests import Request
        from starlette.responses import FileResponse, JSONResponse, Response
        from starlette.routing import Route
    except ImportError as error:
        from checkers_env.errors import MissingDependencyError

        raise MissingDependencyError(
            "checkers serve needs starlette and uvicorn: pip install 'checkers-suite[serve]'"
        ) from error

    state = server if server is not None else Server(**options)

    def endpoint(handler):
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except RequestError as error:
                return JSONResponse({"error": without_paths(str(error))}, status_code=error.status)
            except CheckersError as error:  # a parser's complaint that got this far
                return JSONResponse({"error": without_paths(str(error))}, status_code=422)

        return wrapped

    async def page(request: Request):
        name = request.path_params.get("name", "index.html")
        if name not in WEB_FILES:
            return JSONResponse({"error": f"no page {name!r}"}, status_code=404)
        text = resources.files("checkers_evaluation.serve").joinpath("web", name).read_text(encoding="utf-8")
        return Response(text, media_type=WEB_FILES[name])

    async def config(request: Request):
        return JSONResponse(await asyncio.to_thread(state.config))

    async def new_game(request: Request):
        session = await state.new_game(await json_body(request))
        return JSONResponse(state.state(session), status_code=201)

    async def get_game(request: Request):
        return JSONResponse(state.state(state.session(request.path_params["game"])))

    async def game_position(request: Request):
        session = state.session(request.path_params["game"])
        return JSONResponse(state.position(session, whole(request.path_params["ply"], "ply")))

    async def opponents(request: Request):
        return JSONResponse({"opponents": await asyncio.to_thread(state.opponents)})

    def acting(action):
        async def handler(request: Request):
            session = state.session(request.path_params["game"])
            body = await json_body(request)
            if session.lock.locked():
                raise RequestError(409, "this game is busy with another request (an agent is thinking)")
            async with session.lock:
                await action(session, body)
            return JSONResponse(state.state(session))

        return handler

    async def move(session, body):
        await state.human_move(session, body)

    async def agent(session, body):
        await state.agent_move(session)

    async def takeback(session, body):
        state.take_back(session)

    async def league(request: Request):
        index = whole(request.path_params["league"], "league")
        return JSONResponse(await asyncio.to_thread(state.league_summary, index))

    async def league_position(request: Request):
        index = whole(request.path_params["league"], "league")
        number = whole(request.path_params["number"], "game")
        ply = whole(request.path_params["ply"], "ply")
        return JSONResponse(await asyncio.to_thread(state.league_position, index, number, ply))

    async def league_file(request: Request):
        index = whole(request.path_params["league"], "league")
        path, media = state.league_file(index, request.path_params["name"])
        return FileResponse(path, media_type=media)

    routes = [
        Route("/", endpoint(page)),
        Route("/web/{name}", endpoint(page)),
        Route("/api/config", endpoint(config)),
        Route("/api/games", endpoint(new_game), methods=["POST"]),
        Route("/api/opponents", endpoint(opponents)),
        Route("/api/games/{game}", endpoint(get_game)),
        Route("/api/games/{game}/positions/{ply}", endpoint(game_position)),
        Route("/api/games/{game}/move", endpoint(acting(move)), methods=["POST"]),
        Route("/api/games/{game}/agent", endpoint(acting(agent)), methods=["POST"]),
        Route("/api/games/{game}/takeback", endpoint(acting(takeback)), methods=["POST"]),
        Route("/api/leagues/{league}", endpoint(league)),
        Route("/api/leagues/{league}/games/{number}/{ply}", endpoint(league_position)),
        Route("/api/leagues/{league}/files/{name}", endpoint(league_file)),
    ]

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            state.pool.close()

    async def http_error(request: Request, error: Exception) -> Response:  # no such path, or not that method
        assert isinstance(error, HTTPException)  # the handler of that class only
        return JSONResponse({"error": error.detail}, status_code=error.status_code, headers=error.headers)

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(RequestGuard, host=host)],
        exception_handlers={HTTPException: http_error},
    )
    app.state.server = state
    return app


# -- the command ---------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_main(args: argparse.Namespace) -> int:
    """``checkers serve``: build the app and run it on uvicorn until Ctrl-C."""
    import signal

    from checkers_evaluation.cli import UsageError

    try:
        import uvicorn
    except ImportError:
        raise UsageError("checkers serve needs starlette and uvicorn: pip install 'checkers-suite[serve]'") from None
    egdb: Any = "auto"
    if args.egdb_folder is not None:
        from checkers_env.egdb import EndgameDatabase

        try:
            egdb = EndgameDatabase.cached(folder=args.egdb_folder)
        except CheckersError as error:
            raise UsageError(str(error)) from None
    try:
        server = Server(
            leagues=args.league or [],
            workers=args.workers,
            think_limit=args.think_limit,
            record=args.record,
            egdb=egdb,
            agents_dirs=args.agents_dir or [],
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    listening = bound_socket(args.host, args.port)  # before saying where to open it
    port = listening.getsockname()[1]
    if not is_loopback(args.host):
        print(f"warning: serving on {args.host}, reachable from other machines; the page has no login")
    print(f"checkers serve: open http://{args.host}:{port}/ (Ctrl-C stops it)", flush=True)

    interrupted = []

    class Uvicorn(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            interrupted.append(sig)
            server.pool.kill()  # a thinking agent ends now; uvicorn then finishes the requests at once
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        create_app(server, host=args.host), host=args.host, port=port, log_level="warning", timeout_graceful_shutdown=1
    )
    Uvicorn(config).run(sockets=[listening])  # after Ctrl-C, uvicorn raises SIGINT again: KeyboardInterrupt, status 130
    if signal.SIGINT in interrupted:  # a uvicorn that does not
        raise KeyboardInterrupt
    return 0
