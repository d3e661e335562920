"""Immutable positions and moves with standard notation (FEN and PDN move text).

>>> from checkers_env import Board
>>> board = Board()
>>> [str(m) for m in board.legal_moves()][:3]
['9-13', '9-14', '10-14']
>>> board = board.play(board.parse_move("11-15"))
>>> board.fen()
'W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache

from . import bitboard as bb
from .bitboard import BB_BLACK_START, BB_ROW0, BB_ROW7, BB_WHITE_START, FULL, Bitboard, Square
from .errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidPositionError,
)
from .movegen import CAPTURED, FROM, HOPS, PATH, generate_moves_kernel, new_move_buffer


class Color(IntEnum):
    """The side to move. Black moves first."""

    BLACK = 0
    WHITE = 1

    @property
    def opponent(self) -> Color:
        return Color(1 - self)

    def __str__(self) -> str:
        return self.name.lower()


BLACK = Color.BLACK
WHITE = Color.WHITE


def square_row_col(square: Square) -> tuple[int, int]:
    """(row, column) of a square on the 8x8 board seen from Black: row 0 is Black's back
    rank, column 0 Black's left (square 4 is (0, 0), square 1 is (0, 6))."""
    bit = bb.square_to_bit(square)
    row = bit // 4
    return row, 2 * (bit % 4) + row % 2


def square_at(row: int, col: int) -> Square | None:
    """Square number at (row, column) seen from Black, or None for a light square."""
    if not (0 <= row < 8 and 0 <= col < 8) or (row + col) % 2:
        return None
    return bb.bit_to_square(4 * row + col // 2)


_SQUARE_OF_BIT = tuple(bb.bit_to_square(b) for b in range(32))


def _check_square(square: int, text: str) -> int:
    if not 1 <= square <= 32:
        raise InvalidMoveError(f"square {square} in {text!r} is not between 1 and 32")
    return square


@dataclass(frozen=True, slots=True)
class Move:
    """A complete move: the squares the piece stands on, first to last, and what it captured.

    ``path`` holds every landing square, so ``str(move)`` is PDN with every landing
    (``9x18x27``); ``captured`` is the bitboard of the jumped pieces. Build one with
    ``Move.from_pdn`` (full form) or ``Board.parse_move`` (any form, checked for legality).
    """

    path: tuple[Square, ...]
    captured: Bitboard = 0

    @classmethod
    def from_pdn(cls, text: str) -> Move:
        """Parse a move written with every landing square (``11-15``, ``9x18x27``).

        The captured pieces follow from the geometry (each jump passes over the square
        between its ends). Legality is not checked: use ``Board.parse_move`` for that.

        Raises:
            InvalidMoveError: the text is not a step or a chain of jumps between squares.
        """
        squares, separator = _split_move_text(text)
        if separator == "-":
            if len(squares) != 2 or not _adjacent(squares[0], squares[1]):
                raise InvalidMoveError(f"{text!r} is not a step between diagonal neighbours")
            return cls(tuple(squares), 0)
        captured = 0
        for a, b in zip(squares, squares[1:]):
            over = _jumped_square(a, b)
            if over is None:
                raise InvalidMoveError(f"{text!r}: {a}x{b} is not a jump over one square")
            captured |= bb.BB_SQUARES[over - 1]
        return cls(tuple(squares), captured)

    @property
    def from_square(self) -> Square:
        return self.path[0]

    @property
    def to_square(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return self.captured != 0

    @property
    def captured_squares(self) -> list[Square]:
        return bb.squares_of(self.captured)

    def __str__(self) -> str:
        return ("x" if self.captured else "-").join(map(str, self.path))

    def __repr__(self) -> str:
        return f"Move.from_pdn({str(self)!r})"


# ASCII digits only, and few of them, so int() never sees a giant or non-ASCII number.
_MOVE_RE = re.compile(r"^\s*([0-9]{1,4})((?:\s*[-x:]\s*[0-9]{1,4})+)\s*[!?]*\s*$")


def move_from_row(row) -> Move:
    """The ``Move`` of a kernel move row ``(from, to, captured, path, hops, ...)`` (bit
    indices and packed landings, as ``kernels.generate_moves`` writes them): the one
    conversion from the kernels' rows to moves."""
    if hasattr(row, "tolist"):
        row = row.tolist()  # one conversion, not one per field
    return _move_of(row[FROM], row[CAPTURED], row[PATH], row[HOPS])


@lru_cache(maxsize=1 << 16)
def _move_of(frm: int, captured: int, path: int, hops: int) -> Move:
    # Moves are values and games repeat the same few thousand, so each is built once.
    squares = [_SQUARE_OF_BIT[frm]] + [_SQUARE_OF_BIT[(path >> (5 * i)) & 31] for i in range(hops)]
    return Move(tuple(squares), captured)


def move_to_row(move: Move) -> tuple[int, int, int, int, int]:
    """The kernel move row ``(from, to, captured, path, hops)`` of a ``Move``."""
    bits = [bb.square_to_bit(square) for square in move.path]
    path = 0
    for h, bit in enumerate(bits[1:]):
        path |= bit << (5 * h)
    return bits[0], bits[-1], move.captured, path, len(bits) - 1


def _split_move_text(text: str) -> tuple[tuple[int, ...], str]:
    """Squares and separator kind ('-', 'x' or ':') of a move text."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move must be text, got {type(text).__name__} {text!r}")
    return _split_move_str(text)


@lru_cache(maxsize=1 << 12)
def _split_move_str(text: str) -> tuple[tuple[int, ...], str]:
    # Game records repeat the same few hundred move texts; errors are raised, never kept.
    match = _MOVE_RE.match(text)
    if not match:
        raise InvalidMoveError(f"{text!r} is not a move in PDN notation (like 11-15 or 22x15)")
    separators = set(re.findall(r"[-x:]", match.group(2)))
    if len(separators) > 1:
        raise InvalidMoveError(f"{text!r} mixes separators {sorted(separators)}")
    squares = tuple(_check_square(int(s), text) for s in re.findall(r"[0-9]+", match.group(0)))
    separator = separators.pop()
    if separator == "-" and len(squares) > 2:
        raise InvalidMoveError(f"{text!r}: only captures have more than two squares")
    return squares, separator


def _adjacent(a: Square, b: Square) -> bool:
    (ra, ca), (rb, cb) = square_row_col(a), square_row_col(b)
    return abs(ra - rb) == 1 and abs(ca - cb) == 1


def _jumped_square(a: Square, b: Square) -> Square | None:
    (ra, ca), (rb, cb) = square_row_col(a), square_row_col(b)
    if abs(ra - rb) != 2 or abs(ca - cb) != 2:
        return None
    return square_at((ra + rb) // 2, (ca + cb) // 2)


def _validate(black: int, white: int, kings: int) -> str | None:
    """Why these bitboards are not a position, or None."""
    for name, value in (("black", black), ("white", white), ("kings", kings)):
        if not isinstance(value, int) or value < 0 or value > FULL:
            return f"{name} must be a 32-bit bitboard, got {value!r}"
    if black & white:
        return f"squares {bb.squares_of(black & white)} hold both a black and a white piece"
    if kings & ~(black | white):
        return f"kings on empty squares {bb.squares_of(kings & ~(black | white))}"
    if black & ~kings & BB_ROW7:
        return f"black men on White's back rank (squares {bb.squares_of(black & ~kings & BB_ROW7)}) must be kings"
    if white & ~kings & BB_ROW0:
        return f"white men on Black's back rank (squares {bb.squares_of(white & ~kings & BB_ROW0)}) must be kings"
    if bb.popcount(black) > 12 or bb.popcount(white) > 12:
        return "a side has more than 12 pieces"
    return None


@dataclass(frozen=True, slots=True)
class Board:
    """A position: the bitboards of black pieces, white pieces and kings, and the side to move.

    ``Board()`` is the start position. Boards are values: ``play`` returns a new one.
    Bitboards use the layout of ``checkers_env.bitboard`` (``square_to_bit`` converts).
    """

    black: Bitboard = BB_BLACK_START
    white: Bitboard = BB_WHITE_START
    kings: Bitboard = 0
    turn: Color = BLACK
    _legal: tuple[Move, ...] | None = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        problem = _validate(self.black, self.white, self.kings)
        if problem:
            raise InvalidPositionError(problem)
        if self.turn not in (0, 1):
            raise InvalidPositionError(f"turn must be BLACK or WHITE, got {self.turn!r}")
        object.__setattr__(self, "turn", Color(self.turn))

    # -- construction and notation ---------------------------------------------------

    @classmethod
    def from_fen(cls, fen: str) -> Board:
        """Read a PDN FEN such as ``B:W21,22,K30:B1,2,K9`` (ranges like ``W21-32`` allowed).

        Raises:
            InvalidFenError: the text does not describe a position; the message quotes it.
        """
        return _parse_fen(fen)

    @classmethod
    def from_squares(
        cls,
        black: tuple[Square, ...] = (),
        white: tuple[Square, ...] = (),
        kings: tuple[Square, ...] = (),
        turn: Color = BLACK,
    ) -> Board:
        """Board from square numbers: ``kings`` lists which of the pieces are kings."""
        return cls(bb.bitboard_of(black), bb.bitboard_of(white), bb.bitboard_of(kings), turn)

    def fen(self) -> str:
        """The position as PDN FEN, side to move first, kings prefixed with ``K``."""

        def side(letter: str, pieces: int) -> str:
            items = [("K" if self.kings & bb.BB_SQUARES[s - 1] else "") + str(s) for s in bb.squares_of(pieces)]
            return letter + ",".join(items)

        return f"{'B' if self.turn == BLACK else 'W'}:{side('W', self.white)}:{side('B', self.black)}"

    def __repr__(self) -> str:
        return f"Board.from_fen({self.fen()!r})"

    def __str__(self) -> str:
        from .rendering import board_to_ascii

        return board_to_ascii(self)

    def _repr_svg_(self) -> str:
        """Jupyter shows a board as its picture (``checkers_env.svg.board``)."""
        from .svg import board

        return str(board(self))

    # -- queries -----------------------------------------------------------------------

    @property
    def mover_bitboards(self) -> tuple[int, int]:
        """(pieces of the side to move, pieces of the opponent)."""
        return (self.black, self.white) if self.turn == BLACK else (self.white, self.black)

    def piece_at(self, square: Square) -> str | None:
        """``'b'``/``'w'`` for a man, ``'B'``/``'W'`` for a king, None for an empty square."""
        mask = bb.BB_SQUARES[square - 1]
        letter = "b" if self.black & mask else "w" if self.white & mask else None
        if letter and self.kings & mask:
            letter = letter.upper()
        return letter

    def pieces(self, color: Color, kings: bool | None = None) -> list[Square]:
        """Squares of ``color``'s pieces: all, only kings (True) or only men (False)."""
        own = self.black if color == BLACK else self.white
        if kings is True:
            own &= self.kings
        elif kings is False:
            own &= ~self.kings
        return bb.squares_of(own)

    def legal_moves(self) -> list[Move]:
        """Every legal complete move, captures only when one exists (they are mandatory),
        sorted by path."""
        return list(self._legal_tuple())

    def _legal_tuple(self) -> tuple[Move, ...]:
        legal = self._legal
        if legal is None:
            legal = self._generate_legal_moves()
            object.__setattr__(self, "_legal", legal)
        return legal

    def _generate_legal_moves(self) -> tuple[Move, ...]:
        mover, opponent = self.mover_bitboards
        buffer = new_move_buffer()
        n = generate_moves_kernel(mover, opponent, self.kings, self.turn == BLACK, buffer)
        moves = [move_from_row(row) for row in buffer[:n].tolist()]
        moves.sort(key=lambda move: move.path)
        return tuple(moves)

    def has_legal_moves(self) -> bool:
        mover, opponent = self.mover_bitboards
        return bb.count_moves(mover, opponent, self.kings, self.turn == BLACK) > 0

    def is_capture_position(self) -> bool:
        """Whether the side to move must capture."""
        mover, opponent = self.mover_bitboards
        return bb.jumpers(mover, opponent, self.kings, self.turn == BLACK) != 0

    # -- moves -------------------------------------------------------------------------

    def play(self, move: Move | str) -> Board:
        """The position after ``move`` (a ``Move`` or PDN text).

        Raises:
            TypeError: ``move`` is neither a ``Move`` nor text.
            IllegalMoveError: the move is not legal here.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        elif not isinstance(move, Move):
            raise TypeError(f"a move is a Move or PDN text like '11-15', got {type(move).__name__} {move!r}")
        elif move not in self._legal_tuple():
            raise IllegalMoveError(self._illegal_message(str(move)))
        frm = bb.square_to_bit(move.path[0])
        to = bb.square_to_bit(move.path[-1])
        mover, opponent = self.mover_bitboards
        mover, opponent, kings = bb.apply_move(mover, opponent, self.kings, self.turn == BLACK, frm, to, move.captured)
        mover, opponent, kings = int(mover), int(opponent), int(kings)
        if self.turn == BLACK:
            return Board._after_legal_move(mover, opponent, kings, WHITE)
        return Board._after_legal_move(opponent, mover, kings, BLACK)

    @classmethod
    def _after_legal_move(cls, black: Bitboard, white: Bitboard, kings: Bitboard, turn: Color) -> Board:
        # A legal move from a valid position gives a valid one: no need to check it again.
        board = object.__new__(cls)
        for name, value in (("black", black), ("white", white), ("kings", kings), ("turn", turn), ("_legal", None)):
            object.__setattr__(board, name, value)
        return board

    def parse_move(self, text: str) -> Move:
        """The legal move written as ``text``: ``11-15``, ``22x15``, ``9x18x27`` or the short
        ``9x27`` (any subset of the landing squares that keeps the first and last).

        Raises:
            InvalidMoveError: ``text`` is not move notation.
            IllegalMoveError: no legal move matches.
            AmbiguousMoveError: several capture paths match the short form.
        """
        squares, separator = _split_move_text(text)
        matches = []
        for move in self.legal_moves():
            if separator == "-" and move.is_capture or separator == "x" and not move.is_capture:
                continue
            if move.path[0] != squares[0] or move.path[-1] != squares[-1]:
                continue
            if _is_subsequence(squares, move.path):
                matches.append(move)
        if not matches:
            raise IllegalMoveError(self._illegal_message(text))
        if len(matches) > 1:
            raise AmbiguousMoveError(
                f"{text!r} is ambiguous in {self.fen()}: it fits " + ", ".join(str(m) for m in matches)
            )
        return matches[0]

    def _illegal_message(self, text: str) -> str:
        legal = ", ".join(str(m) for m in self.legal_moves()) or "none"
        return f"illegal move {text!r} in {self.fen()} ({self.turn} to move); legal moves: {legal}"


def _is_subsequence(short: tuple[int, ...], full: tuple[int, ...]) -> bool:
    it = iter(full)
    return all(square in it for square in short)


_FEN_SECTION_RE = re.compile(r"^([BW])(.*)$")


def _parse_fen(fen: str) -> Board:
    if not isinstance(fen, str):
        raise InvalidFenError(f"FEN must be text, got {type(fen).__name__} {fen!r}")
    text = fen.strip().strip('"').rstrip(".")
    parts = [p.strip() for p in text.split(":")]
    if len(parts) != 3 or parts[0] not in ("B", "W"):
        raise InvalidFenError(f"bad FEN {fen!r}: expected 'B' or 'W' then two piece lists, like 'B:W21,22:B1,2'")
    turn = BLACK if parts[0] == "B" else WHITE
    sides: dict[str, tuple[int, int]] = {}
    for part in parts[1:]:
        match = _FEN_SECTION_RE.match(part)
        if not match:
            raise InvalidFenError(f"bad FEN {fen!r}: piece list {part!r} must start with 'W' or 'B'")
        letter, body = match.groups()
        if letter in sides:
            raise InvalidFenError(f"bad FEN {fen!r}: two piece lists for {letter!r}")
        pieces = kings = 0
        for item in filter(None, (i.strip() for i in body.split(","))):
            is_king = item.startswith("K")
            squares = _fen_squares(item[1:] if is_king else item, fen)
            for square in squares:
                mask = bb.BB_SQUARES[square - 1]
                if pieces & mask:
                    raise InvalidFenError(f"bad FEN {fen!r}: square {square} listed twice")
                pieces |= mask
                if is_king:
                    kings |= mask
        sides[letter] = (pieces, kings)
    (white, white_kings), (black, black_kings) = sides["W"], sides["B"]
    if black & white:
        both = ", ".join(map(str, bb.squares_of(black & white)))
        raise InvalidFenError(f"bad FEN {fen!r}: square(s) {both} listed for both sides")
    try:
        return Board(black, white, black_kings | white_kings, turn)
    except InvalidPositionError as error:
        raise InvalidFenError(f"bad FEN {fen!r}: {error}") from None


def _fen_squares(item: str, fen: str) -> list[int]:
    match = re.fullmatch(r"([0-9]{1,4})(?:-([0-9]{1,4}))?", item)
    if not match:
        raise InvalidFenError(f"bad FEN {fen!r}: {item!r} is not a square number")
    first = int(match.group(1))
    last = int(match.group(2) or first)
    for square in (first, last):
        if not 1 <= square <= 32:
            raise InvalidFenError(f"bad FEN {fen!r}: square {square} is not between 1 and 32")
    if last < first:
        raise InvalidFenError(f"bad FEN {fen!r}: range {item!r} runs backwards")
    return list(range(first, last + 1))


__all__ = ["BLACK", "WHITE", "Board", "Color", "Move", "square_at", "square_row_col"]
