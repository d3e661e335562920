"""Reading and writing PDN 3.0 game files (Portable Draughts Notation).

``read_pdn`` accepts tag pairs, move numbers (``1.`` and ``1...``), moves in short or long
form, comments ``{...}``, variations ``(...)`` (skipped), NAGs ``$n``, move marks ``!``/``?``
and the results ``1-0``, ``0-1``, ``1/2-1/2``, ``*`` (and the draughts forms ``2-0``,
``0-2``, ``1-1``). Anything else is a ``PdnError`` that names the line, unless the file is
read with ``lenient=True``: then the reader reads on as far as it can and records each
repair on the game (``warnings``) and each move it cannot read (``error``).

The result a file states is the game's result, even where the final position implies
another (a loss on time, a typo): each such disagreement is kept in the game's ``warnings``.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .board import BLACK, Board
from .errors import CheckersError, PdnError
from .game import RESULTS, Game, Rules
from .pdn_source import naming_the_file, source_lines, text_blocks

_TOKEN_RE = re.compile(
    r"""
    (?P<tag>\[\s*(?P<tag_name>[A-Za-z0-9_]+)\s+"(?P<tag_value>(?:[^"\\\n]|\\.)*)"\s*\])
  | (?P<comment>\{[^}]*\})
  | (?P<open>\()
  | (?P<close>\))
  | (?P<result>(?:1/2-1/2|1-0|0-1|2-0|0-2|1-1|\*))(?=\s|$|\))
  | (?P<number>[0-9]+\.(?:\.\.)?)
  | (?P<move>[0-9]{1,4}(?:[-x:][0-9]{1,4})+[!?]*)
  | (?P<nag>\$[0-9]+)
  | (?P<space>\s+)
  | (?P<line_comment>^%[^\n]*)
  | (?P<bad>\S+)
    """,
    re.VERBOSE | re.MULTILINE,
)


@dataclass
class PdnGame(Game):
    """A game read from PDN: its ``result`` is the one the file states.

    ``Game.result`` prefers the rules' result once they end the game; a game read from a
    file keeps the file's (its ``Result`` tag or result token) for as long as its moves
    are those read. Once moves are played or taken back, the rules decide again.

    Attributes:
        warnings: what the file says that the moves contradict, one sentence each (for
            example a stated ``0-1`` where the final position is a win for Black), and in
            lenient mode every repair and skipped fragment, each ``"line N: ..."``.
        error: lenient mode: why the game's moves end early (a move that fits no legal
            move, a bad ``FEN``), ``"line N: ..."``; None when every move was read.
    """

    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.stated_result: str | None = None
        self.stated_ply: int | None = None

    @property
    def result(self) -> str:
        if self.stated_result is not None and self.ply == self.stated_ply:
            return self.stated_result
        return super().result

    def state_result(self, stated: str, line: int) -> None:
        """Keep ``stated`` as the result of the moves read so far; warn where the rules
        (which ended the game) give another."""
        self.stated_result, self.stated_ply = None, None
        implied = self.result
        if self.is_over() and stated != implied:
            self.warnings.append(
                f"line {line}: the file states {stated}, but the final position gives {implied} "
                f"({self.termination}); keeping {stated}"
            )
        self.stated_result, self.stated_ply = stated, self.ply

    def copy(self) -> PdnGame:
        """A copy that keeps the stated result and the warnings."""
        game = PdnGame(
            self.start, self.rules, dict(self.headers), list(self.moves), warnings=list(self.warnings), error=self.error
        )
        game.stated_result, game.stated_ply = self.stated_result, self.stated_ply
        return game


_RESULT_ALIASES = {"2-0": "1-0", "0-2": "0-1", "1-1": "1/2-1/2"}
_ROSTER = ("Event", "Site", "Date", "Round", "Black", "White", "Result")

# What lenient mode reads beyond PDN: bare tag values, capital X, mixed separators, the
# Latin-1 half sign, move numbers with any dots; every use of them is a warning.
_LENIENT_TOKEN_RE = re.compile(
    r"""
    (?P<tag>\[\s*(?P<tag_name>[A-Za-z0-9_]+)\s*
        (?:"(?P<tag_value>(?:[^"\\\n]|\\.)*)"|(?P<bare_value>[^\]"\n]*?))\s*\])
  | (?P<comment>\{[^}]*\})
  | (?P<open>\()
  | (?P<close>\))
  | (?P<result>(?:1/2-1/2|1-0|0-1|2-0|0-2|1-1|\*|\u00bd-\u00bd))(?=\s|$|\)|\[)
  | (?P<number>[0-9]+\.+)
  | (?P<move>[0-9]{1,2}(?:[-xX:][0-9]{1,2})+(?P<glyph>[!?]*))
  | (?P<nag>\$[0-9]+)
  | (?P<space>\s+)
  | (?P<line_comment>^%[^\n]*)
  | (?P<bad>[^\s\[\](){}]+|[\[\]{}])
    """,
    re.VERBOSE | re.MULTILINE,
)
_STRICT_NUMBER_RE = re.compile(r"[0-9]+\.(?:\.\.)?")
#: Tag names whose meaning this reader uses, by their lower-case spelling.
_KNOWN_TAGS = {name.lower(): name for name in (*_ROSTER, "FEN", "SetUp", "GameType")}


def read_pdn(
    source: str | bytes | os.PathLike | IO, rules: Rules | None = None, *, lenient: bool = False
) -> list[Game]:
    """Read every game of a PDN file or text, checking that each move is legal.

    The list of what :func:`iter_pdn` yields: for a file too large to hold as games (each
    game read keeps its positions), iterate over :func:`iter_pdn` instead.

    **Strict** (the default) reads PDN 3.0 as specified and raises ``PdnError`` at the
    first departure from it. **Lenient** (``lenient=True``) reads files as old programs
    wrote them, the python-chess way: it reads on, and records on each game what it
    repaired. Strict is the default because a caller that asked for nothing in particular
    (``Game.from_pdn``, the league's own files, a test) must never get a game that differs
    from its text without an exception; reading an archive of the wild is a choice the
    caller makes, and then reads ``game.warnings`` and ``game.error``.

    Both modes skip a UTF-8 byte order mark at the start of the text.

    Lenient mode:

    - matches each written move to the legal move with the same first and last squares
      (and the same intermediate squares where given), whatever separators it uses:
      ``10x14`` for the step ``10-14``, ``22-15`` or ``9-18-27`` for a capture;
    - accepts tag names in any case (``[result "1-0"]``), unquoted tag values, bytes that
      are not UTF-8 (read as Latin-1, line by line), CR or CRLF line ends, ``½-½``, move
      numbers with any count of dots, a game without a result (ended by the next game's
      tags or the end of the file, with its ``Result`` tag or ``*``), a result after the
      moves that disagrees with the tag (the tag is kept), an unknown ``Result`` tag
      (dropped) and stray text or marks (skipped);
    - records each of these on the game as a warning ``"line N: ..."`` in ``game.warnings``
      (text outside any game goes to the next game, or the last one at the end of the file),
      and a byte order mark too;
    - ends a game's moves at a move that matches no legal move (or several), at a bad
      ``FEN`` tag or a ``GameType`` other than English draughts: the game keeps the moves
      before it, ``game.error`` says what and where (``"line N: ..."``), and the reader goes
      on with the next game. No game and no move is dropped without such a record.

    Args:
        source: a path (``os.PathLike``, or a one-line string naming an existing file or
            ending in ``.pdn``, ``.pdn.gz`` or ``.pdn.xz``; ``.gz`` and ``.xz`` files are
            decompressed as they are read), an open file (binary or text), bytes, or the
            PDN text itself.
        rules: draw rules for the returned games. By default none: human games end by
            claim, so a record is never cut short by an automatic draw.
        lenient: read on past what PDN does not allow, recording each repair (see above).

    Returns:
        The games (``PdnGame``), each with its ``headers``, ``moves``, the result the file
        states as ``result`` and ``Result`` tag, ``warnings`` where the moves disagree (and
        the repairs, in lenient mode), and ``error`` (lenient mode; None when every move
        was read).

    Raises:
        PdnError: the text is not PDN or a move is illegal (strict mode), no game is found
            (both modes), or the path names no regular file (a folder, a named pipe) or a
            compressed file that is corrupt; the message names the line, and the file when
            ``source`` is a path.
        FileNotFoundError: ``source`` names a file that does not exist.

    Example:
        >>> game = read_pdn("1. 11x15 22-18 2. 15-22 *", lenient=True)[0]
        >>> [str(move) for move in game.moves]
        ['11-15', '22-18', '15x22']
        >>> for warning in game.warnings:
        ...     print(warning)
        line 1: move 1 '11x15' is written with 'x' but is a step; read as 11-15
        line 1: move 2 '15-22' is written with '-' but is a capture; read as 15x22
    """
    return list(iter_pdn(source, rules, lenient=lenient))


def iter_pdn(
    source: str | bytes | os.PathLike | IO, rules: Rules | None = None, *, lenient: bool = False
) -> Iterator[PdnGame]:
    """The games of a PDN file or text, one at a time, each as soon as its result is read.

    The file is read a block of lines at a time and each game is handed out before the
    next is read, so memory does not grow with the file. Arguments, modes and errors are
    :func:`read_pdn`'s (an open file is read from where it stands and left open); an error
    is raised where the iteration reaches it, after the games before it.

    Yields:
        Each game (``PdnGame``) in the order of the file.

    Raises:
        PdnError: as :func:`read_pdn`, where the iteration reaches the fault.
        FileNotFoundError: ``source`` names a file that does not exist (raised at once).

    Example:
        >>> from itertools import islice
        >>> from checkers_env.datasets import ACF_GAMES
        >>> games = iter_pdn(ACF_GAMES)  # the file is opened; nothing is read yet
        >>> [game.headers["Result"] for game in islice(games, 3)]
        ['1/2-1/2', '1-0', '1/2-1/2']
    """
    rules = rules if rules is not None else Rules.without_draws()
    path, lines = source_lines(source)
    reader = _PdnReader(rules, lenient)
    return naming_the_file(reader.read(text_blocks(lines, lenient, reader.notes)), path)


#: The start of a tag that may end on a later line (whitespace, line ends too, may part it).
_OPEN_TAG_RE = re.compile(r'\[\s*(?:[A-Za-z0-9_]+(?:\s+(?:"(?:[^"\\\n]|\\.)*"\s*)?)?)?\Z')
_OPEN_LENIENT_TAG_RE = re.compile(r'\[\s*(?:[A-Za-z0-9_]+\s*(?:(?:"(?:[^"\\\n]|\\.)*"|[^\]"\n]*)\s*)?)?\Z')


class _PdnReader:
    """One pass over PDN text, fed in blocks of whole lines: tokens in, games out (strict
    or lenient, see ``read_pdn``)."""

    def __init__(self, rules: Rules, lenient: bool):
        self.rules, self.lenient = rules, lenient
        self.notes: dict[int, str] = {}  # line -> a repair made while decoding that line
        self.ready: list[PdnGame] = []  # games ended, to hand out
        self.last: PdnGame | None = None  # lenient: the game ended last, until no text can add to it
        self.count = 0  # games ended
        self.headers: dict[str, str] = {}
        self.game: PdnGame | None = None
        self.pending: list[str] = []  # lenient warnings not yet on a game
        self.skipped_moves = 0  # moves after a game's error
        self.variation_depth = 0
        self.line = 1  # the line of the token being read
        self.newlines = 0  # line ends from that token's start to the start of the next block
        self.skipping: tuple | None = None  # (line, warnings list, index, text) of stray text
        self.token_re = _LENIENT_TOKEN_RE if lenient else _TOKEN_RE
        self.open_tag_re = _OPEN_LENIENT_TAG_RE if lenient else _OPEN_TAG_RE

    def _skip(self, value: str) -> None:
        """Warn of stray text, one warning for each run of it on a line."""
        if self.skipping is not None and self.skipping[0] == self.line:
            _, target, index, words = self.skipping
            words = f"{words} {value}"
            target[index] = f"line {self.line}: skipped {words!r}: not PDN"
        else:
            self.warn(f"skipped {value!r}: not PDN")
            target = self.game.warnings if self.game is not None else self.pending
            index, words = len(target) - 1, value
        self.skipping = (self.line, target, index, words)

    def warn(self, message: str, line: int | None = None) -> None:
        target = self.game.warnings if self.game is not None else self.pending
        target.append(f"line {self.line if line is None else line}: {message}")

    def read(self, blocks: Iterator[str]) -> Iterator[PdnGame]:
        """The games of the text that ``blocks`` hold, each block whole lines."""
        carry = ""  # whitespace, a tag or a comment that may go on in the next block
        for block in blocks:
            if carry.startswith("{") and "}" not in block:
                carry += block  # the comment goes on
                continue
            carry = yield from self._tokens(carry + block, final=False)
        if carry:
            yield from self._tokens(carry, final=True)
        yield from self._end_of_text()

    def _tokens(self, text: str, final: bool) -> Generator[PdnGame, None, str]:
        """Read the tokens of ``text``, handing out each game as it ends; returns the text
        left for the next block (whitespace, a tag or a comment that may go on there), unless
        ``final``."""
        position, newlines = 0, self.newlines
        for match in self.token_re.finditer(text):
            kind, start = match.lastgroup, match.start()
            assert kind is not None  # every alternative of the token pattern is a named group
            cut = kind == "space" and match.end() == len(text) or kind == "bad" and self._may_go_on(text, start)
            if cut and not final:
                self.newlines = newlines + text.count("\n", position, start)
                return text[start:]
            self.line += newlines + text.count("\n", position, start)
            position, newlines = start, 0
            if self.notes:
                self._decoding_notes(match)
            if kind == "space" or kind == "line_comment" or kind == "comment" or kind == "nag":
                continue
            if self.lenient:
                self._lenient_token(kind, match)
            else:
                self._strict_token(kind, match, text)
            if self.ready:
                games, self.ready = self.ready, []
                yield from games
        self.newlines = newlines + text.count("\n", position)
        return ""

    def _may_go_on(self, text: str, start: int) -> bool:
        """Whether the text at ``start``, not a token so far, may be the start of a tag or a
        comment that ends in text not yet read."""
        if text.startswith("{", start):
            return True  # no '}' after it yet
        return text.startswith("[", start) and self.open_tag_re.match(text, start) is not None

    # -- strict ------------------------------------------------------------------------------

    def _strict_token(self, kind: str, match: re.Match, text: str) -> None:
        value, line = match.group(0), self.line
        if kind == "bad":
            if value.startswith("{"):
                raise PdnError("comment '{' is never closed", line)
            if value.startswith("["):
                raise PdnError(f"malformed tag {_quote(text, match.start())}", line)
            raise PdnError(f"unexpected text {value!r}", line)
        if kind == "open":
            self.variation_depth += 1
            return
        if kind == "close":
            if self.variation_depth == 0:
                raise PdnError("')' closes no variation", line)
            self.variation_depth -= 1
            return
        if self.variation_depth:
            return
        if kind == "tag":
            if self.game is not None:
                raise PdnError(
                    f"tag {value!r} inside the moves of a game: the previous game has no result (truncated?)", line
                )
            self.headers[match.group("tag_name")] = re.sub(r"\\(.)", r"\1", match.group("tag_value"))
            return
        if self.game is None:
            self.game = _start_game(self.headers, self.rules, line)
        if kind == "number":
            return
        if kind == "move":
            _play(self.game, value, line)
            return
        # kind == "result": the game ends here
        result = _RESULT_ALIASES.get(value, value)
        tagged = self.game.headers.get("Result")
        if tagged not in (None, "*", result) and result != "*":
            raise PdnError(f"result {value!r} disagrees with the tag [Result {tagged!r}]", line)
        self._finish(result)

    # -- lenient -----------------------------------------------------------------------------

    def _lenient_token(self, kind: str, match: re.Match) -> None:
        value = match.group(0)
        if kind == "bad":
            self._skip(value)
            return
        self.skipping = None
        if kind == "open":
            self.variation_depth += 1
            return
        if kind == "close":
            if self.variation_depth == 0:
                self.warn("skipped ')': it closes no variation")
            else:
                self.variation_depth -= 1
            return
        if self.variation_depth and kind != "tag":
            return
        if kind == "tag":
            if self.variation_depth:
                self.warn(f"a variation '(' is never closed before the tag {value!r}; it ends here")
                self.variation_depth = 0
            if self.game is not None:
                tagged = self.game.headers.get("Result", "*")
                self.warn(f"the game has no result before the tag {value!r}; ending it with {tagged}")
                self._finish(tagged)
            self._lenient_tag(match)
            return
        game = self.game if self.game is not None else self._start_lenient_game()
        if kind == "number":
            if not _STRICT_NUMBER_RE.fullmatch(value):
                self.warn(f"move number {value!r} read as {value.rstrip('.')}.")
            return
        if kind == "move":
            self._lenient_move(game, value)
            return
        # kind == "result"
        result = "1/2-1/2" if value == "\u00bd-\u00bd" else _RESULT_ALIASES.get(value, value)
        if value == "\u00bd-\u00bd":
            self.warn(f"result {value!r} read as 1/2-1/2")
        tagged = game.headers.get("Result", "*")
        if tagged not in ("*", result) and result != "*":
            self.warn(f"result {value!r} after the moves disagrees with the tag [Result {tagged!r}]; keeping {tagged}")
            result = tagged
        self._finish(result)

    def _lenient_tag(self, match: re.Match) -> None:
        name = match.group("tag_name")
        if match.group("tag_value") is not None:
            value = re.sub(r"\\(.)", r"\1", match.group("tag_value"))
        else:
            value = match.group("bare_value").strip()
            self.warn(f'tag {match.group(0)!r} has no quotes; read as [{name} "{value}"]')
        canonical = _KNOWN_TAGS.get(name.lower(), name)
        if canonical != name:
            self.warn(f"tag [{name}] read as [{canonical}]")
        if canonical == "Result":
            result = "1/2-1/2" if value == "\u00bd-\u00bd" else _RESULT_ALIASES.get(value, value)
            if result not in RESULTS:
                self.warn(f"unknown result {value!r} in the Result tag; dropped")
                return
            value = result
        self.headers[canonical] = value

    def _start_lenient_game(self) -> PdnGame:
        try:
            game = _start_game(self.headers, self.rules, self.line)
        except PdnError as error:
            headers = dict(self.headers)
            game = PdnGame(start=Board(), rules=self.rules, headers=headers)
            game.error = str(error)
            if "FEN" in headers:
                headers.setdefault("SetUp", "1")  # kept as read; the moves cannot be
        self.game = game
        game.warnings[:0] = self.pending
        self.pending = []
        if self.last is not None:  # no text can add to the game before any more
            self.ready.append(self.last)
            self.last = None
        self.skipped_moves = 0
        return game

    def _lenient_move(self, game: PdnGame, text: str) -> None:
        if game.error is not None:
            self.skipped_moves += 1
            return
        written = text.rstrip("!?")
        squares = [int(square) for square in re.findall(r"[0-9]+", written)]
        separators = set(re.findall(r"[-xX:]", written))
        number = game.ply // 2 + 1 if game.start.turn == BLACK else (game.ply + 1) // 2 + 1
        board = game.board
        fits = [
            move
            for move in board.legal_moves()
            if move.path[0] == squares[0] and move.path[-1] == squares[-1] and _in_order(squares, move.path)
        ]
        if game.is_over() or len(fits) != 1:
            if game.is_over():
                why = f"the game is over ({game.termination})"
            elif fits:
                why = "it is ambiguous: it fits " + ", ".join(str(m) for m in fits)
            else:
                legal = ", ".join(str(m) for m in board.legal_moves()) or "none"
                why = f"no legal move fits in {board.fen()}; legal moves: {legal}"
            game.error = f"line {self.line}: move {number} {text!r}: {why}"
            self.skipped_moves = 0
            return
        move = fits[0]
        game.play(move)
        wanted = "x" if move.is_capture else "-"
        if separators == {"X"}:
            separators = {"x"}
        if separators - {wanted, ":"} or len(separators) > 1:
            kind = "a capture" if move.is_capture else "a step"
            shown = "' and '".join(sorted(separators))
            self.warn(f"move {number} {text!r} is written with '{shown}' but is {kind}; read as {move}")

    # -- both ----------------------------------------------------------------------------------

    def _finish(self, result: str) -> None:
        game = self.game
        assert game is not None  # a result ends the game being read
        if game.error is not None and self.skipped_moves:
            plural = "s" if self.skipped_moves > 1 else ""
            game.error += f" ({self.skipped_moves} later move{plural} of the game skipped)"
        if game.headers.get("Result") in (None, "*"):
            game.headers["Result"] = result
        game.state_result(game.headers["Result"], self.line)
        self.count += 1
        if self.lenient:
            self.last = game  # text after it, outside any game, may still warn on it
        else:
            self.ready.append(game)
        self.game, self.headers = None, {}

    def _end_of_text(self) -> Iterator[PdnGame]:
        line = self.line
        if not self.lenient:
            if self.variation_depth:
                raise PdnError("a variation '(' is never closed", line)
            if self.game is not None or self.headers:
                raise PdnError("the last game has no result (truncated?)", line)
            if not self.count:
                raise PdnError("no game found in the PDN text")
            return
        if self.variation_depth:
            self.warn("a variation '(' is never closed before the end of the text")
        game = self._start_lenient_game() if self.headers and self.game is None else self.game
        if game is not None:
            tagged = game.headers.get("Result", "*")
            self.warn(f"the game has no result at the end of the text; ending it with {tagged}")
            self._finish(tagged)
        if not self.count:
            found = f" ({'; '.join(self.pending)})" if self.pending else ""
            raise PdnError(f"no game found in the PDN text{found}")
        yield from self.ready
        last = self.last
        assert last is not None  # the last game to end (``self.count`` > 0) waits here
        if self.pending:
            last.warnings.extend(f"{note} (after the last game)" for note in self.pending)
        yield last

    def _decoding_notes(self, match: re.Match) -> None:
        """Move the decoding notes of the lines this token spans onto the game."""
        last = self.line + match.group(0).count("\n")
        for line in [n for n in self.notes if self.line <= n <= last]:
            self.warn(self.notes.pop(line), line)


def _in_order(squares: list[int], path: tuple[int, ...]) -> bool:
    """Whether ``squares`` appear in ``path`` in that order (``9, 27`` in ``9, 18, 27``)."""
    it = iter(path)
    return all(square in it for square in squares)


def _start_game(headers: dict[str, str], rules: Rules, line: int) -> PdnGame:
    game_type = headers.get("GameType", "21").split(",")[0].strip()
    if game_type != "21":
        raise PdnError(f"GameType {game_type!r} is not English draughts (21)", line)
    result = headers.get("Result")
    if result is not None:
        result = _RESULT_ALIASES.get(result, result)
        if result not in RESULTS:
            raise PdnError(f"unknown result {headers['Result']!r} in the Result tag", line)
        headers["Result"] = result
    start = Board()
    if "FEN" in headers:
        try:
            start = Board.from_fen(headers["FEN"])
        except CheckersError as error:
            raise PdnError(str(error), line) from None
    return PdnGame(start=start, rules=rules, headers=dict(headers))


def _play(game: Game, text: str, line: int) -> None:
    number = game.ply // 2 + 1 if game.start.turn == BLACK else (game.ply + 1) // 2 + 1
    try:
        game.play(text.rstrip("!?"))
    except CheckersError as error:
        raise PdnError(f"move {number} {text!r}: {error}", line) from None


def _quote(text: str, start: int) -> str:
    end = text.find("\n", start)
    return repr(text[start : end if end >= 0 else len(text)][:60])


def game_to_pdn(game: Game) -> str:
    """PDN text of a game: the seven-tag roster, other tags, FEN if needed, moves, result."""
    headers = dict(game.headers)
    headers["Result"] = game.result
    if game.start != Board():
        headers["SetUp"] = "1"
        headers["FEN"] = game.start.fen()
    # The roster tags first, then the others; only tags the game has (so text round-trips).
    names = [n for n in _ROSTER if n in headers] + [n for n in headers if n not in _ROSTER]
    lines = [f'[{name} "{_escape(headers[name])}"]' for name in names]
    tokens = []
    black_first = game.start.turn == BLACK
    for ply, move in enumerate(game.moves):
        offset = ply if black_first else ply + 1
        if offset % 2 == 0:
            tokens.append(f"{offset // 2 + 1}.\u00a0{move}")  # keep a number with its move
        elif ply == 0:
            tokens.append(f"1...\u00a0{move}")
        else:
            tokens.append(str(move))
    tokens.append(game.result)
    lines.append("")
    wrapped = textwrap.wrap(" ".join(tokens), width=79, break_on_hyphens=False)
    lines.extend(line.replace("\u00a0", " ") for line in wrapped)
    return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pdn(games, path: str | os.PathLike) -> None:
    """Write games to a PDN file, separated by blank lines."""
    Path(path).write_text("\n".join(game_to_pdn(g) for g in games), encoding="utf-8")


__all__ = ["PdnGame", "game_to_pdn", "iter_pdn", "read_pdn", "write_pdn"]
