"""Reading and writing PDN 3.0 game files (Portable Draughts Notation).

``read_pdn`` accepts tag pairs, move numbers (``1.`` and ``1...``), moves in short or long
form, comments ``{...}``, variations ``(...)`` (skipped), NAGs ``$n``, move marks ``!``/``?``
and the results ``1-0``, ``0-1``, ``1/2-1/2``, ``*`` (and the draughts forms ``2-0``,
``0-2``, ``1-1``). Anything else is a ``PdnError`` that names the line.

The result a file states is the game's result, even where the final position implies
another (a loss on time, a resignation recorded against the wrong side, a typo): a reader
reports what the file says. Each such disagreement is kept, in words, in the game's
``warnings`` list (``PdnGame``), and nothing is silently replaced.
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from .board import BLACK, Board
from .errors import CheckersError, PdnError
from .game import RESULTS, Game, Rules

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
            example a stated ``0-1`` where the final position is a win for Black).
    """

    warnings: list[str] = field(default_factory=list)

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
        game = PdnGame(self.start, self.rules, dict(self.headers), list(self.moves), warnings=list(self.warnings))
        game.stated_result, game.stated_ply = self.stated_result, self.stated_ply
        return game


_RESULT_ALIASES = {"2-0": "1-0", "0-2": "0-1", "1-1": "1/2-1/2"}
_ROSTER = ("Event", "Site", "Date", "Round", "Black", "White", "Result")


def read_pdn(source: str | bytes | os.PathLike, rules: Rules | None = None) -> list[Game]:
    """Read every game of a PDN file or text, checking that each move is legal.

    Args:
        source: a path (``os.PathLike``, or a one-line string naming an existing file or
            ending in ``.pdn``), bytes, or the PDN text itself.
        rules: draw rules for the returned games. By default none: human games end by
            claim, so a record is never cut short by an automatic draw.

    Returns:
        The games (``PdnGame``), each with its ``headers``, ``moves``, the result the file
        states as ``result`` and ``Result`` tag, and ``warnings`` where the moves disagree.

    Raises:
        PdnError: the text is not PDN or a move is illegal; the message names the line.
        FileNotFoundError: ``source`` names a file that does not exist.
    """
    text = _read_source(source)
    rules = rules if rules is not None else Rules.without_draws()
    games: list[Game] = []
    headers: dict[str, str] = {}
    game: Game | None = None
    variation_depth = 0
    line = 1
    position = 0
    for match in _TOKEN_RE.finditer(text):
        kind = match.lastgroup
        value = match.group(0)
        line += text.count("\n", position, match.start())
        position = match.start()
        if kind in ("space", "comment", "nag", "line_comment"):
            continue
        if kind == "bad":
            if value.startswith("{"):
                raise PdnError("comment '{' is never closed", line)
            if value.startswith("["):
                raise PdnError(f"malformed tag {_quote(text, match.start())}", line)
            raise PdnError(f"unexpected text {value!r}", line)
        if kind == "open":
            variation_depth += 1
            continue
        if kind == "close":
            if variation_depth == 0:
                raise PdnError("')' closes no variation", line)
            variation_depth -= 1
            continue
        if variation_depth:
            continue
        if kind == "tag":
            if game is not None:
                raise PdnError(
                    f"tag {value!r} inside the moves of a game: the previous game has no result"
                    " (truncated?)",
                    line,
                )
            name = match.group("tag_name")
            headers[name] = re.sub(r"\\(.)", r"\1", match.group("tag_value"))
            continue
        if game is None:
            game = _start_game(headers, rules, line)
        if kind == "number":
            continue
        if kind == "move":
            _play(game, value, line)
            continue
        # kind == "result": the game ends here
        result = _RESULT_ALIASES.get(value, value)
        tagged = game.headers.get("Result")
        if tagged not in (None, "*", result) and result != "*":
            raise PdnError(f"result {value!r} disagrees with the tag [Result {tagged!r}]", line)
        if tagged is None or tagged == "*":
            game.headers["Result"] = result
        game.state_result(game.headers["Result"], line)
        games.append(game)
        game, headers = None, {}
    if variation_depth:
        raise PdnError("a variation '(' is never closed", line)
    if game is not None or headers:
        raise PdnError("the last game has no result (truncated?)", line)
    if not games:
        raise PdnError("no game found in the PDN text")
    return games


def _read_source(source) -> str:
    if isinstance(source, os.PathLike):
        data = Path(source).read_bytes()
    elif isinstance(source, bytes):
        data = source
    elif isinstance(source, str):
        # A one-line string naming an existing file (or ending in .pdn) is a path.
        one_line = "\n" not in source and "\x00" not in source and len(source) < 4096
        if one_line and (source.strip().lower().endswith(".pdn") or os.path.isfile(source)):
            try:
                data = Path(source).read_bytes()
            except FileNotFoundError:
                raise
            except OSError as error:
                raise PdnError(f"cannot read PDN file {source[:80]!r}: {error.strerror}") from None
        else:
            return source
    else:
        raise PdnError(f"expected PDN text, bytes or a path, got {type(source).__name__}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PdnError(f"not UTF-8 text: {error}") from None


def _start_game(headers: dict[str, str], rules: Rules, line: int) -> Game:
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


__all__ = ["PdnGame", "game_to_pdn", "read_pdn", "write_pdn"]
