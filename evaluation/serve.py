"""``checkers serve``: play, watch and replay games in the browser.

A local web app (Starlette on uvicorn, the ``serve`` extra) with three tabs:

- **Play**: any agent spec as the opponent, either colour, from the start, a ballot opening
  or a FEN; moves by clicking squares; the agent's reply with its thinking time and what
  its search reports; take back; PDN and FEN to copy; the endgame database's value.
- **Watch**: two agent specs play each other at a chosen speed.
- **League**: a league's output folder (``--league DIR``): ratings, heatmap, crosstable,
  and any game replayed move by move.

Safety, by design:

- It binds to 127.0.0.1 unless told otherwise.
- Every request is validated: agent specs through ``make_agent`` (and a ``time=`` above
  the thinking limit is refused), FEN and moves through the parsers, request bodies and
  strings have size limits, and games in memory are capped (the oldest is dropped).
- The client never names a file: league folders are the ones given on the command line,
  chosen by index, and only the report's own file names are served from them.
- Agents think in worker processes (``AgentPool``), so a numba search cannot hold up the
  server; a move that takes longer than ``think_limit`` seconds stops its worker (a new
  one replaces it) and the request fails with 504. Any error inside one game fails that
  request only; games are independent (each has its own lock and record).
- With ``record``, every finished game is appended to a ``games.jsonl`` as one whole line
  (the league's format), so the League tab can open the folder.

The HTTP API (JSON; errors are ``{"error": message}`` with status 400, 404, 409, 413, 422 or 504):

=======  ===============================  ===================================================
method   path                              what
=======  ===============================  ===================================================
GET      /api/config                       agent kinds, ballot openings, leagues, limits
POST     /api/games                        new game ``{black, white, fen?, opening?, seed?}``
GET      /api/games/{id}                   the game's state
POST     /api/games/{id}/move              a player's move ``{move: "11-15"}``
POST     /api/games/{id}/agent             the agent to move plays
POST     /api/games/{id}/takeback          back to the last position a human had to move in
GET      /api/leagues/{n}                  ratings, crosstable and the list of games
GET      /api/leagues/{n}/games/{g}/{ply}  a league game's position after ``ply`` plies
GET      /api/leagues/{n}/files/{name}     a report file (heatmap.png, ratings.png, ...)
=======  ===============================  ===================================================

A player is ``"human"`` or an agent spec.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import ipaddress
import json
import math
import multiprocessing
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from checkers_env import Board, Game, Rules, make_agent
from checkers_env.agent import parse_spec
from checkers_env.errors import CheckersError
from checkers_env.match import GameRecord, ballot_openings
from checkers_env import svg

HUMAN = "human"
#: Largest request body accepted, in bytes.
MAX_BODY = 16 * 1024
#: Longest agent spec, FEN or move text accepted, in characters.
MAX_TEXT = 300
#: Games kept in memory; past this the least recently used one is dropped.
MAX_GAMES = 500
#: Default limit on one agent move, in seconds.
THINK_LIMIT = 10.0
#: The draw rules of served games: the usual ones, so every game ends.
SERVE_RULES = Rules()
#: The report files of a league folder that the page may fetch (``evaluation/reports.py``).
LEAGUE_FILES = {
    "heatmap.png": "image/png",
    "ratings.png": "image/png",
    "games.pdn": "text/plain; charset=utf-8",
    "crosstable.csv": "text/csv; charset=utf-8",
    "ratings.csv": "text/csv; charset=utf-8",
    "crosstable.md": "text/markdown; charset=utf-8",
    "ratings.md": "text/markdown; charset=utf-8",
}
#: The page's own files (``evaluation/web``).
WEB_FILES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript", "style.css": "text/css"}


class RequestError(Exception):
    """A request that cannot be served: its HTTP status and a message naming what was wrong."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


# -- agents in worker processes ----------------------------------------------------------------


def _search_info(agent: Any) -> dict[str, Any]:
    """What the agent's last search reports, as JSON: depth, value, nodes and best moves of
    an alpha-beta search; per-move win rates and playouts of MCRD; nothing for the others."""
    result = getattr(agent, "last_search", None)
    if result is None:
        return {}
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items() if isinstance(_plain(v), (int, float, str))}
    info: dict[str, Any] = {}
    for name in ("depth", "value", "nodes", "seconds", "backend"):
        value = getattr(result, name, None)
        if value is not None:
            info[name] = _plain(value)
    best = getattr(result, "best_moves", None)
    if best:
        info["best_moves"] = [str(move) for move in best]
    pv = getattr(result, "pv", None)
    if pv:
        info["pv"] = [str(move) for move in pv]
    moves, rates = getattr(result, "moves", None), getattr(result, "rates", None)
    if moves is not None and rates is not None:
        playouts = getattr(result, "playouts", [0] * len(moves))
        info["win_rates"] = [
            {"move": str(move), "rate": round(float(rate), 4), "playouts": int(count)}
            for move, rate, count in zip(moves, rates, playouts)
        ]
    return info


def _plain(value: Any) -> Any:
    """A JSON-ready number (numpy scalars become Python ones; inf and nan become text)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else str(value)
    return value


#: A position with one legal move, which ends the game: a new agent plays it once, so that
#: loading its kernels (numba's compile, on a cold cache) is not counted as thinking.
WARM_UP_FEN = "B:W14:B9"
#: Seconds a worker may take to start, or to build and warm up an agent, before giving up.
BUILD_LIMIT = 180.0


def _agent_worker(connection) -> None:
    """A worker process: answer each ``(spec, seed, start FEN, moves)`` with ``("started",)``
    once the agent is built and warm, then the move, its thinking time and its search's
    report; errors are answered, not raised."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C stops it, through the pool
    agents: OrderedDict[str, Any] = OrderedDict()  # built agents by spec: zoo weights load once
    connection.send(("ready",))
    while True:
        try:
            spec, seed, start, moves = connection.recv()
        except (EOFError, OSError):
            return
        try:
            agent = agents.pop(spec, None)
            if agent is None:
                agent = make_agent(spec)
                agent.select_move(Game(start=Board.from_fen(WARM_UP_FEN), rules=SERVE_RULES))
            agents[spec] = agent
            while len(agents) > 8:
                agents.popitem(last=False)
            agent.reset(seed=seed)
            game = Game(start=Board.from_fen(start), rules=SERVE_RULES, moves=moves)
            connection.send(("started",))
            began = time.perf_counter()
            move = agent.select_move(game)
            seconds = time.perf_counter() - began
            connection.send(("move", str(move), seconds, _search_info(agent)))
        except Exception as error:  # reported to the request that asked
            connection.send(("error", f"{type(error).__name__}: {error}"))


class _Worker:
    def __init__(self, context):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_agent_worker, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.ready = False

    def receive(self, limit: float) -> tuple | None:
        """The worker's next answer, or None after ``limit`` seconds or if it died."""
        deadline = time.monotonic() + limit
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if self.connection.poll(min(left, 0.2)):
                try:
                    return self.connection.recv()
                except (EOFError, OSError):
                    return None
            if not self.process.is_alive():
                return None

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(2)
        self.connection.close()


class AgentPool:
    """Worker processes that think for the agents, one move at a time each.

    Args:
        workers: how many moves can be thought about at once.
        think_limit: seconds one move may take; past it the worker is stopped and replaced.
            Starting a worker and building an agent (its first move in a worker plays the
            one move of ``WARM_UP_FEN`` first, so that loading its kernels is done) have
            their own limit, ``BUILD_LIMIT``.
    """

    def __init__(self, workers: int = 2, think_limit: float = THINK_LIMIT):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.think_limit = think_limit
        self._context = multiprocessing.get_context("spawn")  # numba's threads do not survive fork
        self._size = workers
        self._idle: asyncio.Queue | None = None
        self._all: list[_Worker] = []
        self._lock = threading.Lock()

    async def _take(self) -> _Worker | None:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self._size):
                self._idle.put_nowait(None)  # a slot; its worker starts on first use
        return await self._idle.get()

    def _start_worker(self) -> _Worker:
        worker = _Worker(self._context)
        with self._lock:
            self._all.append(worker)
        answer = worker.receive(BUILD_LIMIT)  # importing the suite; not counted as thinking
        if answer != ("ready",):
            self._drop(worker)
            raise RequestError(500, "an agent worker process failed to start")
        return worker

    def _drop(self, worker: _Worker) -> None:
        worker.stop()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    async def select_move(self, spec: str, seed: int, start_fen: str, moves: list[str]) -> tuple[str, float, dict]:
        """The move of ``spec`` in the game ``start_fen`` + ``moves``: (PDN, seconds, search report).

        Raises:
            RequestError: 504 when it took longer than ``think_limit`` (its worker is
                stopped), 422 when the agent failed.
        """
        worker = await self._take()
        keep: _Worker | None = None
        try:
            if worker is None:
                worker = await asyncio.to_thread(self._start_worker)
            worker.connection.send((spec, seed, start_fen, moves))
            # Building the agent (and compiling its kernels) is not thinking: a limit of its own.
            answer = await asyncio.to_thread(worker.receive, BUILD_LIMIT)
            if answer == ("started",):
                answer = await asyncio.to_thread(worker.receive, self.think_limit)
            if answer is None:
                self._drop(worker)
                raise RequestError(
                    504, f"the agent {spec!r} thought for more than the limit of {self.think_limit:g} s "
                    "and was stopped (ask for less time or depth)"
                )
            keep = worker
            if answer[0] == "error":
                raise RequestError(422, f"the agent {spec!r} failed: {answer[1]}")
            _, move, seconds, info = answer
            return move, seconds, info
        finally:
            self._idle.put_nowait(keep)

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            workers, self._all = list(self._all), []
        for worker in workers:
            worker.stop()


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


def _text(body: dict, name: str, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None or value == "":
        if required:
            raise RequestError(400, f"missing {name!r}")
        return None
    if not isinstance(value, str):
        raise RequestError(400, f"{name!r} must be a string, got {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise RequestError(413, f"{name!r} is longer than {MAX_TEXT} characters")
    return value.strip()


class Server:
    """The app's state: games, the agent pool, league folders, the endgame database.

    Args:
        leagues: league output folders the League tab may open.
        workers, think_limit: see ``AgentPool``.
        record: a folder; every finished game is appended to its ``games.jsonl``.
        egdb: an ``EndgameDatabase``, None for none, or ``"auto"``: the default folder's,
            when one is built.
    """

    def __init__(
        self,
        leagues: list[str | Path] = (),
        workers: int = 2,
        think_limit: float = THINK_LIMIT,
        record: str | Path | None = None,
        egdb: Any = "auto",
    ):
        self.leagues = [Path(folder).resolve() for folder in leagues]
        for folder in self.leagues:
            if not (folder / "games.jsonl").is_file():
                raise ValueError(f"{folder} is not a league output folder (no games.jsonl)")
        self.pool = AgentPool(workers, think_limit)
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
                self._egdb = EndgameDatabase.open()
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
        """``human`` or a spec ``make_agent`` accepts, with thinking time within the limit."""
        if text == HUMAN:
            return text
        try:
            kind, params = parse_spec(text)
            agent = make_agent(text)
        except (ValueError, TypeError, ImportError) as error:  # UnknownAgentError, WeightsError, ...
            raise RequestError(422, f"bad agent spec {text!r}: {error}") from None
        if "time" in params:
            try:
                seconds = float(params["time"])
            except ValueError:
                seconds = math.inf
            if not seconds <= self.pool.think_limit:
                raise RequestError(
                    422, f"bad agent spec {text!r}: time={params['time']} is over this server's "
                    f"thinking limit of {self.pool.think_limit:g} s"
                )
        return str(agent)

    def session(self, game_id: str) -> Session:
        found = self.games.get(game_id)
        if found is None:
            raise RequestError(404, f"no game {game_id!r} (games are kept in memory; it may have been dropped)")
        self.games.move_to_end(game_id)
        return found

    # -- game actions

    async def new_game(self, body: dict) -> Session:
        black = self.check_player(_text(body, "black"))
        white = self.check_player(_text(body, "white"))
        fen = _text(body, "fen", required=False)
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
                raise RequestError(422, f"bad opening: {opening!r} is not a ballot number from 0 to {len(self.openings) - 1}")
            for text in self.openings[opening].split():
                game.play(text)
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31 - 1)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
            raise RequestError(422, f"bad seed: {seed!r} is not a whole number from 0 to 2**31 - 1")
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
        game.play(move)
        session.replies.append({"ply": game.ply, "move": str(move), "agent": spec, "seconds": round(seconds, 4), "info": info})
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
        session.replies.pop()
        session.recorded = False

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
            black=session.black, white=session.white, opening=" ".join(str(m) for m in game.moves[: session.opening_plies]),
            moves=[str(m) for m in game.moves], result=game.result, termination=str(game.termination),
            seed=session.seed, key=session.id, seconds={k: round(v, 4) for k, v in seconds.items()},
            start_fen="" if game.start == Board() else game.start.fen(),
        )
        line = json.dumps(record.to_dict()) + "\n"
        with self._record_lock:  # one write of a whole line per game
            self.record.mkdir(parents=True, exist_ok=True)
            with open(self.record / "games.jsonl", "a", encoding="utf-8") as out:
                out.write(line)
        session.recorded = True

    def state(self, session: Session) -> dict:
        """Everything the page shows of a game."""
        game = session.game
        board = game.board
        last = game.moves[-1] if game.moves else None
        legal = game.legal_moves()
        return {
            "id": session.id,
            "black": session.black,
            "white": session.white,
            "turn": str(board.turn),
            "to_move": None if game.is_over() else session.to_move,
            "over": game.is_over(),
            "result": game.result,
            "termination": None if game.termination is None else str(game.termination),
            "fen": board.fen(),
            "start_fen": game.start.fen(),
            "pdn": self._pdn(session),
            "moves": [str(m) for m in game.moves],
            "opening_plies": session.opening_plies,
            "legal": [{"text": str(m), "path": list(m.path), "capture": m.is_capture} for m in legal],
            "must_capture": bool(legal) and legal[0].is_capture,
            "last_move": None if last is None else list(last.path),
            "flipped": session.flipped,
            "svg": str(svg.board(board, size=480, flipped=session.flipped, last_move=last)),
            "replies": [reply for reply in session.replies if reply is not None][-20:],
            "egdb": self.probe(board),
        }

    @staticmethod
    def _pdn(session: Session) -> str:
        game = session.game.copy()
        game.headers.update({"Event": "checkers serve", "Black": session.black, "White": session.white})
        return game.to_pdn()

    # -- leagues

    def league(self, index: int) -> Path:
        if not 0 <= index < len(self.leagues):
            raise RequestError(404, f"no league {index} (this server was given {len(self.leagues)})")
        return self.leagues[index]

    def league_records(self, index: int) -> list[GameRecord]:
        from checkers_evaluation.league import load_records

        path = self.league(index) / "games.jsonl"
        changed = path.stat().st_mtime
        cached = self._league_cache.get(index)
        if cached is None or cached[0] != changed:
            cached = (changed, load_records(path))
            self._league_cache[index] = cached
        return cached[1]

    def league_summary(self, index: int) -> dict:
        folder = self.league(index)
        records = self.league_records(index)
        return {
            "index": index,
            "name": folder.name,
            "ratings": _read_csv(folder / "ratings.csv"),
            "crosstable": _read_csv(folder / "crosstable.csv"),
            "files": [name for name in LEAGUE_FILES if (folder / name).is_file()],
            "games": [
                {"index": number, "black": r.black, "white": r.white, "result": r.result, "plies": r.plies,
                 "opening": r.opening, "termination": r.termination}
                for number, r in enumerate(records)
            ],
        }

    def league_position(self, index: int, number: int, ply: int) -> dict:
        records = self.league_records(index)
        if not 0 <= number < len(records):
            raise RequestError(404, f"no game {number} in league {index} ({len(records)} games)")
        record = records[number]
        game = record.to_game()
        plies = record.plies
        ply = max(0, min(ply, plies))
        boards = game.boards
        last = game.moves[ply - 1] if ply else None
        return {
            "index": number, "ply": ply, "plies": plies, "black": record.black, "white": record.white,
            "result": record.result, "termination": record.termination, "moves": record.moves,
            "move": None if last is None else str(last), "fen": boards[ply].fen(),
            "svg": str(svg.board(boards[ply], size=480, last_move=last)),
        }

    def league_file(self, index: int, name: str) -> tuple[Path, str]:
        if name not in LEAGUE_FILES:
            raise RequestError(404, f"{name!r} is not a league report file ({', '.join(LEAGUE_FILES)})")
        path = self.league(index) / name
        if not path.is_file():
            raise RequestError(404, f"league {index} has no {name}")
        return path, LEAGUE_FILES[name]

    def config(self) -> dict:
        from checkers_env import agent_kinds

        return {
            "agent_kinds": sorted(agent_kinds()),
            "openings": self.openings,
            "leagues": [folder.name for folder in self.leagues],
            "think_limit": self.pool.think_limit,
            "egdb_pieces": None if self.egdb is None else self.egdb.pieces,
        }


def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


# -- the ASGI app --------------------------------------------------------------------------


def create_app(server: Server | None = None, **options):
    """The Starlette app serving ``server`` (or a ``Server(**options)``).

    Raises:
        MissingDependencyError: starlette is not installed (``pip install 'checkers-suite[serve]'``).
    """
    try:
        from starlette.applications import Starlette
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
                return JSONResponse({"error": str(error)}, status_code=error.status)
            except CheckersError as error:  # a parser's complaint that got this far
                return JSONResponse({"error": str(error)}, status_code=422)

        return wrapped

    async def body_of(request: Request) -> dict:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            raise RequestError(413, f"request body over {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise RequestError(413, f"request body over {MAX_BODY} bytes")
        if not raw:
            return {}
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RequestError(400, "the request body is not JSON") from None
        if not isinstance(body, dict):
            raise RequestError(400, "the request body must be a JSON object")
        return body

    def whole(text: str, what: str) -> int:
        if not text.isdigit() or len(text) > 6:
            raise RequestError(404, f"{what} must be a whole number, got {text!r}")
        return int(text)

    async def page(request: Request):
        name = request.path_params.get("name", "index.html")
        if name not in WEB_FILES:
            return JSONResponse({"error": f"no page {name!r}"}, status_code=404)
        text = resources.files("checkers_evaluation").joinpath("web", name).read_text(encoding="utf-8")
        return Response(text, media_type=WEB_FILES[name])

    async def config(request: Request):
        return JSONResponse(await asyncio.to_thread(state.config))

    async def new_game(request: Request):
        session = await state.new_game(await body_of(request))
        return JSONResponse(state.state(session), status_code=201)

    async def get_game(request: Request):
        return JSONResponse(state.state(state.session(request.path_params["game"])))

    def acting(action):
        async def handler(request: Request):
            session = state.session(request.path_params["game"])
            body = await body_of(request)
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
        Route("/api/games/{game}", endpoint(get_game)),
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

    app = Starlette(routes=routes, lifespan=lifespan)
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
    from checkers_evaluation.cli import UsageError

    try:
        import uvicorn
    except ImportError:
        raise UsageError("checkers serve needs starlette and uvicorn: pip install 'checkers-suite[serve]'") from None
    egdb: Any = "auto"
    if args.egdb_folder is not None:
        from checkers_env.egdb import EndgameDatabase

        try:
            egdb = EndgameDatabase.open(folder=args.egdb_folder)
        except CheckersError as error:
            raise UsageError(str(error)) from None
    try:
        server = Server(leagues=args.league or [], workers=args.workers, think_limit=args.think_limit,
                        record=args.record, egdb=egdb)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not is_loopback(args.host):
        print(f"warning: serving on {args.host}, reachable from other machines; the page has no login")
    print(f"checkers serve: open http://{args.host}:{args.port}/ (Ctrl-C stops it)", flush=True)
    uvicorn.run(create_app(server), host=args.host, port=args.port, log_level="warning")
    return 0
