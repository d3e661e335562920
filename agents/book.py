"""An opening book from real games: the moves masters played, where their results say enough.

    >>> from checkers_agents.book import OpeningBook
    >>> from checkers_env import Board
    >>> book = OpeningBook.default()        # the ACF archive's 4,000 games, shipped built
    >>> move = book.choose(Board())          # a sound master move, or None

The book holds, for every position of the first :data:`MAX_PLIES` plies that at least
:data:`MIN_POSITION_GAMES` games reached, each move played there with its games and its
points for the side that played it (a win 1, a draw 0.5). :meth:`OpeningBook.choose` plays
a move only where the statistics are sound: played in at least :data:`MIN_MOVE_GAMES`
games, and of those the one whose points have the highest lower confidence bound (Wilson,
95 %), provided that bound is at least :data:`MIN_SCORE_BOUND` (the move does not lose in
master practice). Elsewhere it answers None and the agent searches.

Choices (the design document leaves them open): 24 plies (the 3-move ballot and about ten
moves a side after it), 8 games for a position, 4 for a move, a bound of 0.35 (a draw is
0.5; a move that masters drew or won with holds it once played often enough). The book
is JSON (no code runs when it is read); ``build_default`` rebuilds the shipped file from
the archive, and a test checks that the two agree.

**A searched book** (``checkers_agents.searched_book`` builds one by a fixed-depth search
after each ballot opening) is the same class read from a file of version 2,
``"source": "search"``: each position holds one :class:`SearchedMove` (the search's best
move, its value for the side to move and the depth searched), and ``built_by`` names the
searcher, depth and plies that built it. Its :meth:`OpeningBook.choose` plays the recorded
move wherever the position is in the book.
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from checkers_env import BLACK, Board, Game, Move
from checkers_env.files import input_file, write_atomic

#: Plies of each game the book keeps.
MAX_PLIES = 24
#: Games a position needs to be in the book, and a move to be played from it.
MIN_POSITION_GAMES, MIN_MOVE_GAMES = 8, 4
#: The lowest 95 % lower bound of a move's points that the book plays.
MIN_SCORE_BOUND = 0.35
#: The book built from the ACF archive (``checkers_env.datasets.acf_games``).
DEFAULT_BOOK = Path(__file__).resolve().parent / "data" / "book.json"
_POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


class BookError(ValueError):
    """A book file that cannot be read (its path and what is wrong)."""


@dataclass(frozen=True)
class BookMove:
    """A move of the book: how many games played it and their points for its side."""

    move: str
    games: int
    points: float

    @property
    def score(self) -> float:
        return self.points / self.games

    def lower_bound(self, z: float = 1.96) -> float:
        """Wilson's lower confidence bound of the move's score."""
        n, p = self.games, self.score
        centre = p + z * z / (2 * n)
        spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return (centre - spread) / (1 + z * z / n)


@dataclass(frozen=True)
class SearchedMove:
    """A move of a searched book: the search's best move, its value for the side to move (in
    the evaluator's units) and the depth searched."""

    move: str
    value: float
    depth: int


class OpeningBook:
    """Positions (by FEN) and the moves of the book there (see the module docstring).

    Args:
        positions: the master games' moves of each position, with their statistics.
        searched: a searched book's move of each position.
        built_by: what built a searched book (its searcher's spec, depth, plies, ballots).
    """

    def __init__(
        self,
        positions: dict[str, list[BookMove]] | None = None,
        searched: dict[str, SearchedMove] | None = None,
        built_by: dict | None = None,
    ):
        self.positions = positions or {}
        self.searched = searched or {}
        self.built_by = built_by or {}

    def __len__(self) -> int:
        return len(self.positions) + len(self.searched)

    @property
    def source(self) -> str:
        """``search`` for a searched book, ``games`` for a book of master games."""
        return "search" if self.searched else "games"

    def moves(self, board: Board) -> list[BookMove]:
        """The book's moves of ``board`` (none when it is not in the book)."""
        return self.positions.get(board.fen(), [])

    def choose(self, board: Board) -> Move | None:
        """The book's move for ``board``: a searched book's move wherever the position is in
        it; a master move where its statistics are sound (see the module docstring); else None."""
        entry = self.searched.get(board.fen())
        if entry is not None:
            return board.parse_move(entry.move)
        sound = [m for m in self.moves(board) if m.games >= MIN_MOVE_GAMES]
        if not sound:
            return None
        best = max(sound, key=lambda m: (m.lower_bound(), m.games))
        if best.lower_bound() < MIN_SCORE_BOUND:
            return None
        return board.parse_move(best.move)

    @classmethod
    def from_games(cls, games: list[Game]) -> OpeningBook:
        """The book of ``games`` (each with a decisive or drawn result; others are skipped)."""
        counts: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0.0]))
        for game in games:
            points = _POINTS.get(game.result)
            if points is None:
                continue
            board = game.start
            for move in game.moves[:MAX_PLIES]:
                entry = counts[board.fen()][str(move)]
                entry[0] += 1
                entry[1] += points[0] if board.turn == BLACK else points[1]
                board = board.play(move)
        positions = {}
        for fen, moves in counts.items():
            if sum(games for games, _ in moves.values()) >= MIN_POSITION_GAMES:
                positions[fen] = sorted(
                    (BookMove(move, int(games), float(points)) for move, (games, points) in moves.items()),
                    key=lambda m: (-m.games, m.move),
                )
        return cls(positions)

    def save(self, path: str | os.PathLike) -> None:
        """Write the book as JSON (version 1 for master games, 2 for a searched book)."""
        if self.searched:
            searched = {fen: [m.move, m.value, m.depth] for fen, m in sorted(self.searched.items())}
            data = {"format": "checkers-book", "version": 2, "source": "search", "built_by": self.built_by}
            data["positions"] = searched
        else:
            games = {fen: [[m.move, m.games, m.points] for m in moves] for fen, moves in sorted(self.positions.items())}
            data = {"format": "checkers-book", "version": 1, "positions": games}
        write_atomic(Path(path), (json.dumps(data, indent=0, allow_nan=False) + "\n").encode())

    @classmethod
    def load(cls, path: str | os.PathLike) -> OpeningBook:
        """Read a book written by :meth:`save` (either version).

        Raises:
            BookError: the file is missing, not JSON, not a book, or has a malformed entry
                (the message names the file and what is wrong).
        """
        try:
            data = json.loads(input_file(path, "opening book", BookError).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            if isinstance(error, BookError):
                raise
            raise BookError(f"cannot read the opening book {path}: {error}") from None
        if not isinstance(data, dict) or data.get("format") != "checkers-book" or data.get("version") not in (1, 2):
            raise BookError(f"{path} is not an opening book (format checkers-book, version 1 or 2)")
        if data["version"] == 2 and data.get("source") != "search":
            raise BookError(f"{path}: a version 2 book of source {data.get('source')!r}, not 'search'")
        try:
            if data["version"] == 2:
                searched = {
                    str(fen): _searched_move(str(fen), move, value, depth)
                    for fen, (move, value, depth) in data["positions"].items()
                }
                return cls(searched=searched, built_by=dict(data.get("built_by") or {}))
            return cls(
                {
                    fen: [BookMove(str(m), int(g), float(p)) for m, g, p in moves]
                    for fen, moves in data["positions"].items()
                }
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise BookError(f"{path}: a malformed book entry ({error})") from None

    @staticmethod
    @cache
    def default() -> OpeningBook:
        """The book of the ACF archive, shipped with the suite (read once per process)."""
        return OpeningBook.load(DEFAULT_BOOK)


def _searched_move(fen: str, move, value, depth) -> SearchedMove:
    """A searched book's entry, checked: a legal move of its position, a finite value, a
    depth of at least 0.

    Raises:
        ValueError: a bad position, an illegal move, or a value or depth out of range.
    """
    entry = SearchedMove(str(move), float(value), int(depth))
    if not math.isfinite(entry.value) or entry.depth < 0 or isinstance(depth, bool):
        raise ValueError(f"{fen}: value {value!r} and depth {depth!r} must be finite and at least 0")
    Board.from_fen(fen).parse_move(entry.move)
    return entry


def build_default(path: str | os.PathLike = DEFAULT_BOOK) -> OpeningBook:
    """Rebuild the shipped book from the ACF archive (about ten seconds) and write it."""
    from checkers_env.datasets import acf_games

    book = OpeningBook.from_games(acf_games())
    book.save(path)
    return book


__all__ = ["BookError", "BookMove", "OpeningBook", "SearchedMove", "build_default"]
