"""What the Play tab of ``checkers serve`` shows of a game: its state, any earlier position
of it, the opponents it offers, and the evaluation bar of an agent's reply.

Nothing here reads a file a request names: the opponents come from the zoo's cards, the
zoo league's ratings (``zoo/league/ratings.csv``, the table of ``zoo/README.md``) and the
server's ``--agents-dir`` folders; a position is chosen by game and ply.
"""

from __future__ import annotations

import csv
import io
import math
from typing import TYPE_CHECKING, Any

from checkers_env import svg
from checkers_env.errors import CheckersError

from .http import RequestError

if TYPE_CHECKING:
    from checkers_env import Board

#: The baselines the page offers, weakest first (``alphabeta:time=0.5`` only where the
#: server's think limit allows it).
BASELINES = ("random", "greedy", "alphabeta:depth=2", "alphabeta:depth=4", "alphabeta:depth=6", "alphabeta:time=0.5")
#: Values beyond this are forced results (``WIN - plies`` of the hand-written evaluations).
WIN_BOUND = 999_000.0
#: Points (a man is 100) that move the evaluation bar from even to three quarters.
BAR_POINTS = 200.0


def zoo_league_ratings() -> dict[str, float]:
    """Elo of each player of the zoo's league (``zoo/league/ratings.csv``; random = 0),
    by the player's spec; empty when the zoo has no league table."""
    from checkers_agents.zoo import zoo_dir

    path = zoo_dir() / "league" / "ratings.csv"
    if not path.is_file():
        return {}
    ratings = {}
    for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))):
        try:
            ratings[row["player"]] = float(row["elo"])
        except (KeyError, TypeError, ValueError):
            continue
    return ratings


def evaluation_bar(info: dict[str, Any], black_moved: bool) -> dict[str, Any] | None:
    """Where the evaluation bar of a reply stands, from its search report's ``value``
    (the mover's view): ``{"black": share, "text": ...}``, ``share`` from 0 (White wins)
    to 1 (Black wins); None when the agent reports no value.

    The scale depends on the agent: a forced result (``WIN - plies``), an expected result
    from -1 to 1 (AlphaZero's, which reports ``simulations``, and a net's fraction), or
    points (whole points of a hand-written evaluation, a man is 100; any larger number).
    The text gives the agent's own number.
    """
    value = info.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    for_black = (value if black_moved else -value) + 0.0  # no "-0"
    if abs(value) >= WIN_BOUND:
        plies = int(1_000_000 - abs(value))
        winner = "Black" if for_black > 0 else "White"
        return {"black": 1.0 if for_black > 0 else 0.0, "text": f"{winner} wins in {plies} plies (forced)"}
    if "simulations" in info or (abs(value) <= 1 and not float(value).is_integer()):  # AlphaZero's, a net's
        return {
            "black": round((1 + for_black) / 2, 4),
            "text": f"{for_black:+.2f} for Black (-1 White wins, +1 Black wins)",
        }
    share = 1 / (1 + 3 ** (-for_black / BAR_POINTS))
    return {"black": round(share, 4), "text": f"{for_black:+g} points for Black"}


class GameViews:
    """The views of a game that the page reads (mixed into ``serve.Server``)."""

    # serve.Server gives: agents_dirs, probe(board) and check_player(spec).
    agents_dirs: tuple
    _opponents: list[dict] | None = None

    if TYPE_CHECKING:

        def probe(self, board: Board) -> dict | None: ...

        def check_player(self, text: str) -> str: ...

    def state(self, session) -> dict:
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

    def position(self, session, ply: int) -> dict:
        """The game's position after ``ply`` plies, the move that led there, the agent's
        reply that played it (if an agent did) and the database's verdict.

        Raises:
            RequestError: 404 for a ply past the game's end, naming its last ply.
        """
        game = session.game
        if ply > game.ply:
            raise RequestError(404, f"ply {ply} is past the end of game {session.id}: its last ply is {game.ply}")
        board = game.boards[ply]
        last = game.moves[ply - 1] if ply else None
        return {
            "id": session.id,
            "ply": ply,
            "plies": game.ply,
            "turn": str(board.turn),
            "fen": board.fen(),
            "move": None if last is None else str(last),
            "reply": session.replies[ply - 1] if ply else None,
            "svg": str(svg.board(board, size=480, flipped=session.flipped, last_move=last)),
            "egdb": self.probe(board),
        }

    @staticmethod
    def _pdn(session) -> str:
        game = session.game.copy()
        game.headers.update({"Event": "checkers serve", "Black": session.black, "White": session.white})
        return game.to_pdn()

    def opponents(self) -> list[dict]:
        """The agents the page offers by name: the baselines, then the zoo's entries (and
        the ``--agents-dir`` ones), each with its Elo in the zoo's league or None (unrated).
        An agent this server cannot build (a missing extra) or whose time is over the
        think limit is left out. Computed once."""
        if self._opponents is None:
            from checkers_agents.zoo import load_card, zoo_names

            ratings = zoo_league_ratings()
            offered: list[dict[str, Any]] = [
                {"spec": spec, "name": spec, "group": "baseline", "rating": ratings.get(spec), "description": ""}
                for spec in BASELINES
            ]
            rated = {player.split(",")[0]: player for player in ratings if player.startswith("zoo:")}
            for name in zoo_names(self.agents_dirs):
                try:
                    card, _ = load_card(name, self.agents_dirs)
                except CheckersError:
                    continue
                spec = rated.get(f"zoo:{name}", f"zoo:{name}")  # as the league played it: its rating is that one's
                rating = ratings.get(spec, (card.get("measures", {}).get("zoo_league") or {}).get("elo"))
                offered.append(
                    {"spec": spec, "name": name, "group": "zoo", "rating": rating, "description": card["description"]}
                )
            self._opponents = [entry for entry in offered if self._playable(entry["spec"])]
        return self._opponents

    def _playable(self, spec: str) -> bool:
        try:
            self.check_player(spec)
        except RequestError:
            return False
        return True


#: Most digits of a whole number in a path (a larger one is past any game's end anyway).
MAX_DIGITS = 30


def whole(text: str, what: str) -> int:
    """A path's whole number (``/api/games/{id}/positions/12``).

    Raises:
        RequestError: 404 for anything but ASCII digits, or more than ``MAX_DIGITS`` of them.
    """
    if not (text.isascii() and text.isdigit()):  # "²".isdigit() too
        raise RequestError(404, f"{what} must be a whole number, got {text[:MAX_DIGITS]!r}")
    if len(text) > MAX_DIGITS:
        raise RequestError(404, f"{what} has more than {MAX_DIGITS} digits")
    return int(text)
