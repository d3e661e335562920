"""The match loop under everything that plays games: one game between two agents.

    >>> import numpy as np
    >>> from checkers_env import make_agent, Rules
    >>> from checkers_env.match import play_game
    >>> record = play_game(make_agent("greedy"), make_agent("random"), "9-13 22-17 13x22",
    ...                    Rules(), np.random.default_rng(0))
    >>> record.result in ("1-0", "0-1", "1/2-1/2")
    True

**Adjudication.** With ``adjudicate=db`` (an ``egdb.EndgameDatabase``) a game ends as soon
as it reaches, after its opening, a position the database holds: the database's value for
the side to move is the result (its win, its loss, or a draw), the termination is
``egdb`` (``ADJUDICATED``), and the moves up to that position are kept. The database's
values assume unlimited play (no draw rules): an adjudicated win is the game-theoretic
one, which perfect play converts but not always within the no-progress limit (the longest
5-piece win takes 161 plies; ``checkers egdb stats``).

**Forfeits.** An agent that raises ``ForfeitError`` from ``select_move`` (an outside
engine that crashed, went silent past its time, answered garbage or played an illegal
move: ``checkers_agents.engine``) loses the game there: termination ``forfeit``
(``FORFEITED``), the error's message in ``GameRecord.forfeit``, the moves up to that point
kept. Any other exception of an agent is a bug and propagates, as does an illegal move
returned by an agent of the suite.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from .agent import Agent
from .board import BLACK, Board, Color
from .errors import ForfeitError, IllegalMoveError
from .game import Game, Rules

if TYPE_CHECKING:
    from .egdb import EndgameDatabase

#: ``GameRecord.termination`` of a game ended by an endgame database (``adjudicate``).
ADJUDICATED = "egdb"

#: ``GameRecord.termination`` of a game lost by an agent that raised ``ForfeitError``.
FORFEITED = "forfeit"


def forfeit_reason(side: str, agent: object, error: Exception) -> str:
    """Why a game was lost by forfeit, as its record says it: ``white (engine:cmd=x)
    forfeited: engine 'x' exited ...``."""
    return f"{side} ({agent}) forfeited: {error}"


@dataclass
class GameRecord:
    """One finished game, as the league stores it (one JSON line per game).

    Attributes:
        black, white: the players' spec strings.
        opening: the forced opening moves in PDN, space-separated ("" for none).
        moves: every move of the game in PDN, the opening's included.
        result: ``1-0`` (Black won), ``0-1`` (White won) or ``1/2-1/2``.
        termination: why it ended (``no_moves``, ``repetition``, ``no_progress``, ``max_plies``,
            ``egdb``: adjudicated by an endgame database, or ``forfeit``: a player could
            not go on; see ``play_game``).
        seed: the seed the agents were reset with.
        key: identifies the game within a league (pair, opening and colours).
        seconds: wall time of each side, ``{"black": s, "white": s}``.
        start_fen: the position before the opening (the start position by default).
        acf_number: the ACF number of the opening when it is one of the 3-move deck's
            (``ballot_opening``) played from the start position, else None. The PDN of
            the game carries it as the tag ``[ACFNumber "5"]``, with ``[OpeningName]``
            where the opening has a name.
        forfeit: why the loser forfeited (``termination`` ``forfeit``), naming the side
            and what went wrong; ``""`` for a game played to its end. The PDN of the game
            carries it as the tag ``[Forfeit "..."]``.
        move_seconds: wall time of each move the players chose, in the game's order (the
            moves after the opening); empty where it was not kept.
    """

    black: str
    white: str
    opening: str
    moves: list[str]
    result: str
    termination: str
    seed: int = 0
    key: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    start_fen: str = ""
    acf_number: int | None = None
    forfeit: str = ""
    move_seconds: list[float] = field(default_factory=list)

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def start(self) -> Board:
        """The position before the opening."""
        return Board.from_fen(self.start_fen) if self.start_fen else Board()

    def score(self, player: str) -> float:
        """Points of ``player`` (a spec) in this game: 1, 0.5 or 0."""
        black_points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[self.result]
        if player == self.black:
            return black_points
        if player == self.white:
            return 1.0 - black_points
        raise ValueError(f"{player!r} did not play this game ({self.black} vs {self.white})")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        return cls(**data)

    def to_game(self) -> Game:
        """The game with PDN tags for the players, opening, result and termination."""
        game = Game(start=self.start, rules=Rules.without_draws())
        for move in self.moves:
            game.play(move)
        game.headers.update(
            {
                "Event": "checkers league",
                "Black": self.black,
                "White": self.white,
                "Result": self.result,
                "Opening": self.opening,
                "Termination": self.termination,
                "GameType": "21",
            }
        )
        if self.forfeit:
            game.headers["Forfeit"] = self.forfeit
        if self.acf_number is not None:
            game.headers["ACFNumber"] = str(self.acf_number)
            deck_opening = ballot_opening(self.opening)
            if deck_opening is not None and deck_opening.number == self.acf_number and deck_opening.name:
                game.headers["OpeningName"] = deck_opening.name
        return game


def _adjudicated_result(value: str, turn: Color) -> str:
    """The PDN result of a database ``value`` (``win``, ``loss``, ``draw``) for the side
    ``turn`` to move."""
    if value == "draw":
        return "1/2-1/2"
    black_wins = (value == "win") == (turn == BLACK)
    return "1-0" if black_wins else "0-1"


@dataclass(frozen=True)
class BallotOpening:
    """One opening of the ACF 3-move deck.

    Attributes:
        number: its ACF number (1-174; the 18 barred numbers are not in the deck).
        moves: the three moves in PDN, space-separated (``"9-13 22-17 13x22"``).
        crossboard: True for the 144 openings of crossboard play, False for the 12 that
            are for mail play only.
        name: the opening's name (``"Dreaded Edinburgh"``), or ``""`` where it has none.
    """

    number: int
    moves: str
    crossboard: bool
    name: str = ""

    @property
    def label(self) -> str:
        """``"ACF 5 Dreaded Edinburgh"``, or ``"ACF 4"`` for an opening with no name."""
        return f"ACF {self.number} {self.name}".rstrip()


@functools.cache
def ballot_deck() -> tuple[BallotOpening, ...]:
    """The ACF 3-move deck shipped with the package: 156 openings (174 three-move
    sequences less the 18 barred ones), in ACF order, with their numbers, kinds and names.

    The file (``checkers_env/data/ballots_3move.txt``, tab-separated, source in the data
    folder's README) is checked as it is read.

    Raises:
        ValueError: a line of the shipped file is malformed (names the line).
    """
    text = resources.files("checkers_env").joinpath("data/ballots_3move.txt").read_text(encoding="utf-8")
    deck = []
    for line_number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 3 or not fields[0].isdigit() or fields[2] not in ("crossboard", "mailplay"):
            raise ValueError(
                f"ballots_3move.txt line {line_number}: expected 'NUMBER<TAB>MOVES<TAB>crossboard|mailplay"
                f"<TAB>NAME', got {line!r}"
            )
        name = fields[3].strip() if len(fields) > 3 else ""
        deck.append(BallotOpening(int(fields[0]), fields[1].strip(), fields[2] == "crossboard", name))
    return tuple(deck)


def ballot_openings(crossboard_only: bool = False) -> list[str]:
    """The openings of the ACF 3-move deck as PDN move strings, in ACF order.

    Args:
        crossboard_only: only the 144 crossboard openings (leave out the 12 for mail play).
    """
    return [o.moves for o in ballot_deck() if o.crossboard or not crossboard_only]


@functools.cache
def _deck_by_moves() -> dict[str, BallotOpening]:
    return {o.moves: o for o in ballot_deck()}


def ballot_opening(moves: str | Sequence[str]) -> BallotOpening | None:
    """The deck's opening played by ``moves`` (PDN, as in ``"9-13 22-17 13x22"``), or None
    when these moves are not one of its openings."""
    return _deck_by_moves().get(" ".join(opening_moves(moves)))


def opening_moves(opening: str | Sequence[str]) -> list[str]:
    """The moves of an opening given as ``"9-13 22-17 13x22"`` or a list."""
    if isinstance(opening, str):
        return opening.split()
    return list(opening)


def play_game(
    black: Agent,
    white: Agent,
    opening: str | Sequence[str] = "",
    rules: Rules | None = None,
    rng: np.random.Generator | None = None,
    key: str = "",
    start: Board | None = None,
    adjudicate: EndgameDatabase | None = None,
) -> GameRecord:
    """Play one game: the opening's moves, then the agents in turn until the rules end it.

    Args:
        black, white: the players.
        opening: forced first moves (PDN).
        rules: draw rules; the default ``Rules()`` ends every game (``max_plies`` 400).
        rng: seeds both agents, so a game is reproducible from its seed.
        key: stored in the record.
        start: the position before the opening (default: the start position).
        adjudicate: an endgame database (``checkers_env.egdb.EndgameDatabase``), or None.
            A game that reaches a position it holds (after the opening) ends there with
            the database's result, termination ``egdb``; positions where the rules
            already end the game (no legal move, repetition, no progress, the move cap)
            end by the rules.

    A player that raises ``ForfeitError`` loses the game there (termination ``forfeit``,
    the reason in ``GameRecord.forfeit``).

    Raises:
        IllegalMoveError: the opening is illegal, or an agent returned an illegal move.
    """
    rules = rules if rules is not None else Rules()
    if rules.max_plies is None and rules.no_progress_plies is None:
        raise ValueError("play_game needs rules that end every game (max_plies or no_progress_plies)")
    rng = rng if rng is not None else np.random.default_rng()
    seed = int(rng.integers(0, 2**31 - 1))
    black.reset(seed=seed)
    white.reset(seed=seed + 1)
    game = Game(start=start or Board(), rules=rules)
    for text in opening_moves(opening):
        game.play(text)
    seconds = {"black": 0.0, "white": 0.0}
    move_seconds: list[float] = []
    result = termination = None
    forfeit = ""
    while not game.is_over():
        if adjudicate is not None:
            verdict = adjudicate.probe(game.board)
            if verdict is not None:
                result, termination = _adjudicated_result(verdict.value, game.board.turn), ADJUDICATED
                break
        side, agent = ("black", black) if game.board.turn == 0 else ("white", white)
        began = time.perf_counter()
        try:
            move = agent.select_move(game)
        except ForfeitError as error:
            seconds[side] += time.perf_counter() - began
            result, termination = ("0-1" if side == "black" else "1-0"), FORFEITED
            forfeit = forfeit_reason(side, agent, error)
            break
        took = time.perf_counter() - began
        seconds[side] += took
        move_seconds.append(round(took, 4))
        try:
            game.play(move)
        except IllegalMoveError as error:
            raise IllegalMoveError(f"agent {agent} ({side}) played an illegal move: {error}") from None
    return GameRecord(
        black=str(black),
        white=str(white),
        opening=" ".join(opening_moves(opening)),
        moves=[str(m) for m in game.moves],
        result=result or game.result,
        termination=termination or str(game.termination),
        seed=seed,
        key=key,
        seconds={k: round(v, 4) for k, v in seconds.items()},
        start_fen="" if start is None else start.fen(),
        acf_number=_acf_number(opening, start),
        forfeit=forfeit,
        move_seconds=move_seconds,
    )


def _acf_number(opening: str | Sequence[str], start: Board | None) -> int | None:
    """The ACF number of ``opening`` played from ``start``, or None outside the deck."""
    if start is not None and start != Board():
        return None
    deck_opening = ballot_opening(opening)
    return None if deck_opening is None else deck_opening.number
