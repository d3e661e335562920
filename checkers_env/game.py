"""A game: a start position, the moves played, the draw rules, the result and PDN tags."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from . import game_state
from .bitboard import square_to_bit
from .board import BLACK, Board, Color, Move
from .errors import IllegalMoveError, PdnError

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


@dataclass(frozen=True)
class Rules:
    """The automatic draw rules (each on by default; ``None`` turns one off).

    Attributes:
        repetition: the game is drawn when the same position with the same side to move
            occurs this many times (at least 2: the start position already counts once).
        no_progress_plies: drawn after this many plies in a row with no capture and no
            man move (80 plies = 40 moves each).
        max_plies: a hard cap on the game's length; the Gymnasium env reports it as
            truncation rather than termination.
    """

    repetition: int | None = 3
    no_progress_plies: int | None = 80
    max_plies: int | None = 400

    @classmethod
    def without_draws(cls) -> Rules:
        """No automatic draws: human games, where draws are claimed or agreed."""
        return cls(repetition=None, no_progress_plies=None, max_plies=None)

    def __post_init__(self) -> None:
        for name in ("repetition", "no_progress_plies", "max_plies"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"Rules.{name} must be a positive integer or None, got {value!r}")
        if self.repetition is not None and self.repetition < 2:
            # The start position has occurred once before any move: 1 would draw every game there.
            raise ValueError(
                f"Rules.repetition must be at least 2 (the number of times a position occurs before "
                f"the game is drawn; the start counts once already), got {self.repetition}; None turns the rule off"
            )

    def as_array(self, max_plies: int | None = None) -> np.ndarray:
        """The rules as the kernels read them: ``int64[game_state.RULE_FIELDS]``, indexed by
        ``game_state.RULE_*``, 0 for a rule that is off.

        Args:
            max_plies: replaces the move cap (an environment's truncation length).
        """
        cap = max_plies if max_plies is not None else self.max_plies
        return game_state.rules_array(self.repetition or 0, self.no_progress_plies or 0, cap or 0)


class Termination(str, Enum):  # noqa: UP042 (StrEnum would change what str() gives users)
    """Why a game ended (the values are ``game_state.END_NAMES``; ``Termination(END_NAMES[end])``
    reads a kernel's end code)."""

    NO_MOVES = "no_moves"  #: the side to move has no legal move (or no pieces) and loses
    REPETITION = "repetition"
    NO_PROGRESS = "no_progress"
    MAX_PLIES = "max_plies"

    def __str__(self) -> str:
        return self.value


@dataclass
class Game:
    """A game from a start position under a set of draw rules.

        >>> game = Game()
        >>> game.play("11-15")
        Move.from_pdn('11-15')
        >>> game.result, game.board.turn
        ('*', <Color.WHITE: 1>)

    Attributes:
        start: the first position.
        moves: the moves played, in order.
        rules: the automatic draw rules.
        headers: PDN tags (``Event``, ``Black``, ``White``, ``Result``, ...).
    """

    start: Board = field(default_factory=Board)
    rules: Rules = field(default_factory=Rules)
    headers: dict[str, str] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)

    def __post_init__(self) -> None:
        moves, self.moves = list(self.moves), []
        self._boards = [self.start]
        self._rules = self.rules.as_array()
        # The game state of ``game_state``, per position of the game (so ``pop`` is a step
        # back): its key, and the plies since the last capture or man move.
        self._keys = np.zeros(64, dtype=np.int64)
        self._keys[0] = game_state.position_key(self.start.black, self.start.white)
        self._quiet = [0]
        self._termination: Termination | None = None
        self._winner: Color | None = None
        self._update_end()
        for move in moves:
            self.play(move)

    # -- state -------------------------------------------------------------------------

    @property
    def board(self) -> Board:
        """The current position."""
        return self._boards[-1]

    @property
    def boards(self) -> list[Board]:
        """Every position of the game, the start first."""
        return list(self._boards)

    @property
    def ply(self) -> int:
        return len(self.moves)

    def legal_moves(self) -> list[Move]:
        """Legal moves now (none once the game is over)."""
        return [] if self.is_over() else self.board.legal_moves()

    def is_over(self) -> bool:
        return self._termination is not None

    @property
    def termination(self) -> Termination | None:
        """Why the game ended under the rules, or None while it goes on."""
        return self._termination

    @property
    def winner(self) -> Color | None:
        """The winner under the rules; None for a draw or an unfinished game."""
        return self._winner

    @property
    def result(self) -> str:
        """``1-0`` (Black won), ``0-1`` (White won), ``1/2-1/2`` or ``*``.

        A game ended by the rules gives its own result; otherwise the ``Result`` tag (a
        human game ended by resignation or agreement), otherwise ``*``.
        """
        if self._termination is not None:
            if self._winner is None:
                return "1/2-1/2"
            return "1-0" if self._winner == BLACK else "0-1"
        return self.headers.get("Result", "*")

    def repetitions(self) -> int:
        """How many times the current position has occurred."""
        board = self.board
        key = game_state.position_key(board.black, board.white)
        return int(game_state.repetitions(self._keys_since_progress(), 0, self._quiet[-1], key))

    @property
    def plies_since_progress(self) -> int:
        """Plies played since the last capture or man move (the no-progress count)."""
        return self._quiet[-1]

    def positions_since_progress(self) -> list[Board]:
        """The positions since the last capture or man move, oldest first, the current one
        last: the only positions a later move can repeat (men never move back, and a
        capture never comes undone)."""
        return self._boards[len(self._boards) - 1 - self._quiet[-1] :]

    def position_keys_since_progress(self) -> np.ndarray:
        """``game_state.position_key`` of each of :meth:`positions_since_progress`, oldest
        first: the game state's own record (``int64``, a read-only view, no copy), as a
        search compares positions with the game's (see ``game_state.position_key``)."""
        ply = len(self.moves)
        keys = self._keys[ply - self._quiet[-1] : ply + 1]
        keys.flags.writeable = False
        return keys

    # -- moves -------------------------------------------------------------------------

    def play(self, move: Move | str) -> Move:
        """Play a move (a ``Move`` or PDN text) and apply the draw rules.

        Raises:
            TypeError: ``move`` is neither a ``Move`` nor text.
            IllegalMoveError: the game is over or the move is not legal.
        """
        if self._termination is not None:
            raise IllegalMoveError(f"the game is over ({self._termination}, {self.result}); cannot play {str(move)!r}")
        board = self.board
        if isinstance(move, str):
            move = board.parse_move(move)
        new = board.play(move)
        self.moves.append(move)
        self._boards.append(new)
        progress = game_state.is_progress(board.kings, square_to_bit(move.path[0]), move.captured)
        self._quiet.append(int(game_state.quiet_after(self._quiet[-1], progress)))
        if len(self.moves) == len(self._keys):
            self._keys = np.concatenate([self._keys, np.zeros_like(self._keys)])
        self._keys[len(self.moves)] = game_state.position_key(new.black, new.white)
        self._update_end()
        return move

    def pop(self) -> Move:
        """Take back the last move."""
        if not self.moves:
            raise IndexError("no move to take back")
        move = self.moves.pop()
        self._boards.pop()
        self._quiet.pop()
        self._update_end()
        return move

    def _keys_since_progress(self) -> np.ndarray:
        """``game_state``'s keys (one row): those of the positions since the last progress,
        oldest first."""
        ply = len(self.moves)
        return self._keys[None, ply - self._quiet[-1] : ply + 1]

    def _update_end(self) -> None:
        """The end under the rules, decided by the kernel every game loop uses."""
        board = self.board
        end, winner = game_state.decide_end(
            board.black,
            board.white,
            board.kings,
            int(board.turn),
            len(self.moves),
            self._quiet[-1],
            self._keys_since_progress(),
            0,
            self._rules,
        )
        self._termination = Termination(game_state.END_NAMES[end]) if end else None
        self._winner = Color(winner) if winner != game_state.NO_WINNER else None

    def copy(self) -> Game:
        return Game(self.start, self.rules, dict(self.headers), list(self.moves))

    # -- pictures ----------------------------------------------------------------------

    def _repr_svg_(self) -> str:
        """Jupyter's picture of a game: its current position, the last move highlighted."""
        from .svg import board

        return str(board(self.board, last_move=self.moves[-1] if self.moves else None))

    def _repr_html_(self) -> str:
        """Jupyter's rich view of a game: the position beside the numbered move list."""
        from .svg import game_html

        return game_html(self)

    # -- PDN ---------------------------------------------------------------------------

    def to_pdn(self) -> str:
        """The game as PDN text: tags, numbered moves, result."""
        from .pdn import game_to_pdn

        return game_to_pdn(self)

    @classmethod
    def from_pdn(cls, text: str, rules: Rules | None = None) -> Game:
        """Read exactly one game from PDN text (see ``read_pdn``)."""
        from .pdn import read_pdn

        games = read_pdn(text, rules=rules)
        if len(games) != 1:
            raise PdnError(f"expected one game, found {len(games)}")
        return games[0]


__all__ = ["RESULTS", "Game", "Rules", "Termination"]
