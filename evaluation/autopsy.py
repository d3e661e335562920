"""A loss autopsy: where an agent's own value fell in the games it lost, and what a deep search
says it should have played there.

    >>> from checkers_evaluation.autopsy import autopsy
    >>> summary = autopsy(["runs/league/games.pdn"], "outcome-net-3", "runs/autopsy")  # doctest: +SKIP

Or ``checkers autopsy runs/league/games.pdn --player outcome-net-3 --out runs/autopsy``.

**The losses.** The games come from PDN files (a league's ``games.pdn``, or any ``.pdn``,
``.pdn.gz``, ``.pdn.xz``). The player is named as the file names it: its ``Black`` or
``White`` tag, or the ``BlackAgent`` / ``WhiteAgent`` tag where a league wrote the agent's
spec beside a display name. A game is the player's loss when its result is a win for the
other side.

**The drop.** Each lost game is replayed from its start under the draw rules (``rules``,
the league's by default), so that every search knows the game's history (repetitions, the
no-progress count). Before each of the player's moves the agent (``agent``, the player's
own spec) searches the position, and its value (for the side to move, in its evaluator's
units: an expected result in [-1, 1] for the nets, points for the hand-written
evaluations) is kept. Two kinds of move are passed over: those of a forced opening (the
``Opening`` tag a league writes, when the game begins with its moves: the ballot chose
them, not the player), and those the agent plays from its opening book (no search, no
value). The **drop** is the first of the player's positions whose value is
below ``threshold``; the replay stops there.

**The checked move.** A value that is low before the player's move ``k`` was lost by an
earlier move: the move checked is the player's last move *before* the drop that was a
choice (a forced move, the only legal one, is passed over), played from a position the
agent still valued at ``threshold`` or above (when there is none, the move at the drop
itself). On the position before the checked
move the deep search (``deep``: more time, the endgame database) gives its best moves and
its value; the value of the move played is the deep search's value of the position after
it, negated (its value when the move played is among its best). Either search may answer
from the endgame database (depth 0).

**The drift set.** Each checked position is one line of ``OUT/drift.jsonl``::

    {"fen": ..., "game": "games.pdn#3", "ply": 24, "played": "11-15",
     "start": ..., "moves": [...], "drop": {"ply": 28, "value": -0.41},
     "fast": {"spec", "move", "value", "depth", "nodes", "best_moves", "pv", "choices"},
     "deep": {"spec", "best_moves", "value", "played_value", "depth", "nodes", "pv"},
     "mistake": true}

``fast`` is what the agent's search saw there (``choices``: the legal moves), ``mistake`` whether the move played is not
among the deep search's best moves. :mod:`checkers_evaluation.drift` measures any agent on the set,
and checks its positions again with another deep search.

**The files.** ``OUT/games.jsonl`` has a line per lost game examined (its values and drop),
appended after each game as is ``drift.jsonl``; ``OUT/autopsy.json`` the settings, which a
resumed run must share; ``OUT/report.md`` the table of the checked moves and where the
values fell. A run killed at any point resumes (``resume=True``) at the first game it had
not finished.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from checkers_env import BLACK, WHITE, Agent, Board, CheckersError, Color, Game, Move, Rules, iter_pdn, make_agent
from checkers_env.files import json_lines, write_atomic

#: The agent whose value is followed: the zoo's third outcome net, at its own 0.5 s a move.
DEFAULT_AGENT = "zoo:outcome-net-3"
#: The deep search: the same net with twenty times the time and the 6-piece database
#: (``checkers egdb build --pieces 6``).
DEFAULT_DEEP = "zoo:outcome-net-3,time=10,egdb=6"
#: The value below which the agent's position counts as lost, in the evaluator's units.
DEFAULT_THRESHOLD = -0.3
#: Plies per row of the report's table of where the values fell.
PLY_BAND = 10

#: The files of the folder.
GAMES_FILE, DRIFT_FILE, SETTINGS_FILE, REPORT_FILE, SCORES_FILE = (
    "games.jsonl",
    "drift.jsonl",
    "autopsy.json",
    "report.md",
    "scores.jsonl",
)


class AutopsyError(CheckersError):
    """Input the autopsy cannot use: a player not in the games, an agent without a search
    value, an output folder of another autopsy, a drift set that is not one."""


@dataclass(frozen=True)
class LostGame:
    """A game the player lost, as read from its file.

    Attributes:
        key: ``FILE#N``, the game's file and its place in it (1 for the first game).
        game: the game as read (its start, moves and tags).
        colour: the player's colour in it.
    """

    key: str
    game: Game
    colour: Color


@dataclass
class Summary:
    """What an autopsy found, over every game of its folder (a resumed run's included).

    Attributes:
        games: games read from the files.
        played: games the player played.
        losses: games the player lost.
        examined: losses replayed and searched.
        drops: losses where the agent's value fell below the threshold.
        mistakes: checked moves that are not among the deep search's best moves.
        skipped: losses that could not be replayed under the draw rules.
        drop_plies: the drops counted by bands of plies (``"20-29"`` -> count).
    """

    games: int = 0
    played: int = 0
    losses: int = 0
    examined: int = 0
    drops: int = 0
    mistakes: int = 0
    skipped: int = 0
    drop_plies: dict[str, int] | None = None


# -- the games ---------------------------------------------------------------------------------


def player_colour(game: Game, player: str) -> Color | None:
    """The colour ``player`` has in ``game`` by its tags (``Black``, ``BlackAgent``, ...), or None."""
    for colour, side in ((BLACK, "Black"), (WHITE, "White")):
        if player in (game.headers.get(side), game.headers.get(f"{side}Agent")):
            return colour
    return None


def lost_games(paths: Sequence[str | os.PathLike], player: str, counts: Summary | None = None) -> list[LostGame]:
    """The games of ``paths`` that ``player`` lost, in file order.

    Args:
        paths: PDN files (``.pdn``, ``.pdn.gz``, ``.pdn.xz``).
        player: the player's name in the ``Black`` / ``White`` (or ``...Agent``) tags.
        counts: filled with the games read, played by the player and lost.

    Raises:
        FileNotFoundError: a file does not exist.
        PdnError: a file is not PDN (the message names the file and the line).
        AutopsyError: no game names the player (the message lists names the files have).
    """
    counts = counts if counts is not None else Summary()
    lost, names = [], Counter[str]()
    for path in paths:
        for number, game in enumerate(iter_pdn(Path(path)), 1):
            counts.games += 1
            names.update(game.headers.get(side, "?") for side in ("Black", "White"))
            colour = player_colour(game, player)
            if colour is None:
                continue
            counts.played += 1
            if game.result == ("0-1" if colour == BLACK else "1-0"):
                counts.losses += 1
                lost.append(LostGame(f"{path}#{number}", game, colour))
    if not counts.played:
        seen = ", ".join(repr(name) for name, _ in names.most_common(8)) or "none"
        raise AutopsyError(f"no game of {player!r} in {', '.join(map(str, paths))} (the players there: {seen})")
    return lost


def forced_plies(game: Game) -> int:
    """How many of ``game``'s first moves a forced opening played: the moves of its
    ``Opening`` tag when the game begins with them (a league's ballot), else 0 (a tag that
    names an opening instead of listing its moves, or none)."""
    opening = game.headers.get("Opening", "").split()
    played = [str(move) for move in game.moves[: len(opening)]]
    return len(opening) if opening and played == opening else 0


def replayed(start: Board, moves: Iterable[Move | str], rules: Rules) -> Game:
    """The game from ``start`` after ``moves`` under ``rules`` (its history, for the draw rules).

    Raises:
        AutopsyError: the rules end the game before its last move.
    """
    game = Game(start=start, rules=rules)
    for move in moves:
        if game.is_over():
            raise AutopsyError(f"the draw rules end the game at ply {game.ply} ({game.termination})")
        game.play(move)
    return game


# -- the searches ------------------------------------------------------------------------------


def make_searching_agent(spec: str) -> Agent:
    """The agent of ``spec``, checked to leave its search's value (``last_search``).

    Raises:
        UnknownAgentError: the spec names no agent.
        AutopsyError: the agent keeps no search value (only the alpha-beta kinds do).
    """
    agent = make_agent(spec)
    if not hasattr(agent, "last_search"):
        raise AutopsyError(f"{spec!r} leaves no search value to follow: give an alphabeta agent or zoo entry")
    return agent


def search(agent: Agent, game: Game) -> dict[str, Any] | None:
    """What ``agent`` sees in ``game``'s position: its move, and its search's value (for the
    side to move), depth, nodes, best moves and principal variation; None when no search was
    made (a move from the opening book)."""
    move = agent.select_move(game)
    result = getattr(agent, "last_search", None)
    if result is None:
        return None
    return {
        "move": str(move),
        "value": float(result.value),
        "depth": int(result.depth),
        "nodes": int(result.nodes),
        "best_moves": [str(best) for best in result.best_moves],
        "pv": [str(step) for step in result.pv],
    }


def same_position(board: Board, move: str, others: Iterable[str]) -> bool:
    """Whether ``move`` leads from ``board`` where one of ``others`` leads (two capture paths
    to one position are one move for the searches)."""
    after = board.play(move)
    return any(board.play(other) == after for other in others)


def deep_verdict(deep: Agent, game: Game, played: Move, seed: int = 0) -> dict[str, Any]:
    """The deep search's best moves and value in ``game``'s position, and its value of the
    move ``played`` there (the position after it searched, negated; a draw by the rules is 0).
    The search starts afresh, its ties broken by a generator of ``seed``.

    Raises:
        AutopsyError: the deep search made no search.
    """
    deep.reset(seed)
    seen = search(deep, game)
    if seen is None:
        raise AutopsyError(f"the deep search {deep} played from its opening book: give it book=0")
    if same_position(game.board, str(played), seen["best_moves"]):
        seen["played_value"] = seen["value"]
    else:
        after = game.copy()
        after.play(played)
        reply = None if after.is_over() else search(deep, after)
        seen["played_value"] = 0.0 if reply is None else -reply["value"]
    del seen["move"]
    return seen


# -- one game ---------------------------------------------------------------------------------


def examine(
    lost: LostGame,
    agent: Agent,
    deep: Agent,
    threshold: float,
    rules: Rules,
    specs: tuple[str, str],
    seed: int = 0,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Follow the agent's value along one lost game, and check the move before its drop.

    Args:
        lost: the game.
        agent: the agent whose value is followed.
        deep: the deep search.
        threshold: the value below which the player's position counts as lost.
        rules: the draw rules the game is replayed under.
        specs: the specs of ``agent`` and ``deep``, for the record.
        seed: both agents start the game afresh (their tables cleared), breaking ties by a
            generator of this seed, so that a game's record does not depend on the games
            examined before it.

    Returns:
        The game's line of ``games.jsonl`` and its drift record (None without a drop).
    """
    game, moves = lost.game, lost.game.moves
    line: dict[str, Any] = {
        "game": lost.key,
        "black": game.headers.get("Black", "?"),
        "white": game.headers.get("White", "?"),
        "result": game.result,
        "plies": len(moves),
        "values": [],
        "drop": None,
        "skipped": None,
    }
    agent.reset(seed)
    seen: list[tuple[int, dict[str, Any]]] = []
    forced = forced_plies(game)
    replay = Game(start=game.start, rules=rules)
    for ply, move in enumerate(moves):
        if replay.is_over():
            line["skipped"] = f"the draw rules end the game at ply {ply} ({replay.termination})"
            return line, None
        if replay.board.turn == lost.colour and ply >= forced:
            view = search(agent, replay)
            if view is not None:
                view["choices"] = len(replay.legal_moves())
                seen.append((ply, view))
                line["values"].append([ply, round(view["value"], 4)])
                if view["value"] < threshold:
                    break
        replay.play(move)
    else:
        return line, None
    drop_ply, drop = seen[-1]
    line["drop"] = {"ply": drop_ply, "value": drop["value"]}
    # The last move before the drop that was a choice (a forced move is no mistake).
    choices = [(ply, view) for ply, view in seen[:-1] if view["choices"] > 1] or seen[-1:]
    ply, fast = choices[-1]
    position = replayed(game.start, moves[:ply], rules)
    verdict = deep_verdict(deep, position, moves[ply], seed)
    record = {
        "fen": position.board.fen(),
        "game": lost.key,
        "ply": ply,
        "played": str(moves[ply]),
        "start": game.start.fen(),
        "moves": [str(move) for move in moves[:ply]],
        "drop": line["drop"],
        "fast": {"spec": specs[0], **fast},
        "deep": {"spec": specs[1], **verdict},
        "mistake": not same_position(position.board, str(moves[ply]), verdict["best_moves"]),
    }
    line["checked_ply"] = ply
    return line, record


# -- the folder -------------------------------------------------------------------------------


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file, without a last line cut short by a kill ([] for
    no file).

    Raises:
        AutopsyError: a line other than the last is not a JSON object.
    """
    if not path.exists():
        return []
    found = []
    for number, _line, value in json_lines(path, AutopsyError, "JSON object"):
        if not isinstance(value, dict):
            raise AutopsyError(f"{path}: line {number} is not a JSON object")
        found.append(value)
    return found


def append_line(path: Path, value: dict[str, Any]) -> None:
    """Append ``value`` as one line of the JSON-lines file ``path``, on disk before it returns
    (a kill loses no line it wrote)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(value) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def _write_lines(path: Path, values: list[dict[str, Any]]) -> None:
    write_atomic(path, "".join(json.dumps(value) + "\n" for value in values).encode())


def _start_folder(out: Path, settings: dict[str, Any], resume: bool) -> list[dict[str, Any]]:
    """Open ``out`` for the autopsy of ``settings``: the lines of the games already examined
    (none unless ``resume``), the files rewritten to hold those games only.

    Raises:
        AutopsyError: ``out`` holds an autopsy and ``resume`` is off, or one of other settings.
    """
    saved = out / SETTINGS_FILE
    if saved.exists() and not resume:
        raise AutopsyError(f"{out} already holds an autopsy: give --resume to continue it, or another --out")
    if resume and saved.exists():
        before = json.loads(saved.read_text(encoding="utf-8"))
        changed = [name for name in settings if before.get(name) != settings[name]]
        if changed:
            name = changed[0]
            raise AutopsyError(f"{out} holds an autopsy with {name} {before.get(name)!r}, not {settings[name]!r}")
    done = read_lines(out / GAMES_FILE) if resume else []
    keys = {line["game"] for line in done}
    drift = [record for record in read_lines(out / DRIFT_FILE) if record.get("game") in keys] if resume else []
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(saved, (json.dumps(settings, indent=2) + "\n").encode())
    _write_lines(out / GAMES_FILE, done)
    _write_lines(out / DRIFT_FILE, drift)
    return done


def autopsy(
    paths: Sequence[str | os.PathLike],
    player: str,
    out: str | os.PathLike,
    agent: str = DEFAULT_AGENT,
    deep: str = DEFAULT_DEEP,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    rules: Rules | None = None,
    resume: bool = False,
    progress: bool = False,
) -> Summary:
    """Examine every game of ``paths`` that ``player`` lost; write the drift set and report.

    Args:
        paths: PDN files of games.
        player: the player's name in the games' tags.
        out: the folder of ``games.jsonl``, ``drift.jsonl``, ``autopsy.json`` and ``report.md``.
        agent: the spec whose value is followed (the player's own).
        deep: the spec of the deep search that checks the move before each drop.
        threshold: the value below which the player's position counts as lost.
        rules: the draw rules the games are replayed under (default ``Rules()``, the league's).
        resume: continue the autopsy in ``out`` (the same settings), from the first game it
            had not finished (a folder without one starts it); without it, a folder that
            holds an autopsy is refused.
        progress: a progress bar over the lost games, on stderr.

    Returns:
        The counts over every game of the folder.

    Raises:
        FileNotFoundError: a PDN file does not exist.
        PdnError: a file is not PDN.
        UnknownAgentError: a spec names no agent.
        EndgameDatabaseError: a spec's endgame database is not built.
        AutopsyError: see :func:`lost_games`, :func:`make_searching_agent`, and a folder
            that holds another autopsy.
    """
    rules = rules if rules is not None else Rules()
    fast_agent, deep_agent = make_searching_agent(agent), make_searching_agent(deep)
    summary = Summary()
    lost = lost_games(paths, player, summary)
    out = Path(out)
    settings = {
        "games": [str(path) for path in paths],
        "player": player,
        "agent": agent,
        "deep": deep,
        "threshold": threshold,
        "rules": asdict(rules),
    }
    lines = _start_folder(out, settings, resume)
    done = {line["game"] for line in lines}
    todo = [(seed, game) for seed, game in enumerate(lost) if game.key not in done]
    from tqdm.auto import tqdm

    with tqdm(total=len(lost), initial=len(lost) - len(todo), unit="game", desc=player, disable=not progress) as bar:
        for seed, game in todo:
            line, record = examine(game, fast_agent, deep_agent, threshold, rules, (agent, deep), seed)
            if record is not None:
                append_line(out / DRIFT_FILE, record)
            append_line(out / GAMES_FILE, line)
            lines.append(line)
            bar.update()
    drift = read_lines(out / DRIFT_FILE)
    summary.examined = len(lines)
    summary.drops = sum(line["drop"] is not None for line in lines)
    summary.skipped = sum(line["skipped"] is not None for line in lines)
    summary.mistakes = sum(bool(record["mistake"]) for record in drift)
    summary.drop_plies = drop_bands(line["drop"]["ply"] for line in lines if line["drop"] is not None)
    write_atomic(out / REPORT_FILE, report_markdown(summary, drift, settings).encode())
    return summary


def drop_bands(plies: Iterable[int]) -> dict[str, int]:
    """Drops counted by bands of :data:`PLY_BAND` plies, in the order of the plies."""
    counts = Counter(ply // PLY_BAND for ply in plies)
    return {f"{band * PLY_BAND}-{band * PLY_BAND + PLY_BAND - 1}": counts[band] for band in sorted(counts)}


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def report_markdown(summary: Summary, drift: list[dict[str, Any]], settings: dict[str, Any]) -> str:
    """``report.md``: the counts, a row per checked move, and where the values fell."""
    lines = [
        f"# Loss autopsy of {settings['player']}",
        "",
        f"Value followed: `{settings['agent']}`; deep search: `{settings['deep']}`; threshold {settings['threshold']}.",
        "",
        f"- games read: {summary.games}, of {settings['player']}: {summary.played}, lost: {summary.losses}",
        f"- lost games examined: {summary.examined} (not replayable under the draw rules: {summary.skipped})",
        f"- drops below the threshold: {summary.drops}; checked moves the deep search would not play: "
        f"{summary.mistakes}",
        "",
        "| game | ply | played | fast move (value) | deep best moves (value) | played, deep value | drop at ply (value) |",
        "|:--|--:|:--|:--|:--|--:|:--|",
    ]
    for record in drift:
        fast, deep, drop = record["fast"], record["deep"], record["drop"]
        mark = " **x**" if record["mistake"] else ""
        lines.append(
            f"| {record['game']} | {record['ply']} | {record['played']}{mark} | {fast['move']} ({_value(fast['value'])}) "
            f"| {' '.join(deep['best_moves'])} ({_value(deep['value'])}) | {_value(deep['played_value'])} "
            f"| {drop['ply']} ({_value(drop['value'])}) |"
        )
    lines += ["", "Where the values fell:", "", "| plies | drops |", "|:--|--:|"]
    lines += [f"| {band} | {count} |" for band, count in (summary.drop_plies or {}).items()]
    return "\n".join(lines) + "\n"


__all__ = [
    "DEFAULT_AGENT",
    "DEFAULT_DEEP",
    "DEFAULT_THRESHOLD",
    "AutopsyError",
    "LostGame",
    "Summary",
    "append_line",
    "autopsy",
    "deep_verdict",
    "drop_bands",
    "examine",
    "forced_plies",
    "lost_games",
    "make_searching_agent",
    "player_colour",
    "read_lines",
    "replayed",
    "report_markdown",
    "search",
]
