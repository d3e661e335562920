"""A drift set: the positions a loss autopsy (:mod:`checkers_evaluation.autopsy`) kept, where
an agent's value was about to fall and a deep search knows the move to play. Measure any
agent on it, or check its positions again with another deep search.

    >>> from checkers_evaluation.drift import recheck_drift, score_drift
    >>> score_drift("zoo/outcome-net-3/drift.jsonl", "zoo:outcome-net-4")                  # doctest: +SKIP
    >>> recheck_drift("runs/autopsy/drift.jsonl", "zoo:outcome-net-3,time=30,egdb=6", "runs/rechecked")  # doctest: +SKIP

Or ``checkers autopsy --drift FILE --agent SPEC``, ``checkers autopsy --drift FILE
--recheck --deep-spec SPEC --out DIR`` and ``checkers autopsy --drift FILE --agree OTHER --out
DIR``.

**The score.** A move is right when it is one of the deep search's best moves in the
position, or leads to the same position as one of them. Each position is searched as a new
game for the agent, with the history of the game it came from (its ``start`` and
``moves``), so that the agent knows the game's repetitions and its no-progress count; the
agent starts afresh at each position, breaking ties by a generator seeded by the line's
number. Every measurement is appended to ``scores.jsonl``.

**The recheck.** The positions of a set stand (they come from the agent's own search along
its games, which another run would time differently); only the verdict is made again: the
new deep search's best moves, value and value of the move played, and whether that move is
a mistake. The rechecked set is written line by line to ``OUT/drift.jsonl``, so a killed
recheck resumes (``resume=True``) at the first position it had not finished. With
``workers``, that many processes search positions at once, each with its own deep search;
the lines are still written in the set's order.

**The agreement.** One deep search's verdict can hang on a near-tie, and two searches (more
time, another net) may name different best moves. :func:`agree_drift` keeps the positions of
a set where its verdict and those of its rechecks share a best move: their ``deep`` holds the
moves every verdict counts best, and ``verdicts`` each verdict whole.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from checkers_env import Agent, Board, CheckersError, Game, Move, Rules, make_agent
from checkers_env.files import write_atomic
from checkers_env.parallel import run_pieces

from .autopsy import (
    DRIFT_FILE,
    SCORES_FILE,
    AutopsyError,
    append_line,
    deep_verdict,
    make_searching_agent,
    read_lines,
    replayed,
    same_position,
)


def drift_records(drift: str | os.PathLike) -> list[dict[str, Any]]:
    """The records of the drift set ``drift``.

    Raises:
        FileNotFoundError: the file does not exist.
        AutopsyError: it holds no position.
    """
    path = Path(drift)
    if not path.is_file():
        raise FileNotFoundError(f"no drift set {str(path)!r}")
    records = read_lines(path)
    if not records:
        raise AutopsyError(f"{path}: the drift set holds no position")
    return records


def drift_position(record: dict[str, Any], rules: Rules, where: str) -> Game:
    """The game of a drift record, replayed from its ``start`` through its ``moves`` (a
    record without them is a game from its ``fen``).

    Raises:
        AutopsyError: the record is no drift record (``where`` says which line).
    """
    try:
        return replayed(Board.from_fen(record.get("start", record["fen"])), record.get("moves", []), rules)
    except (KeyError, TypeError, AttributeError, CheckersError) as error:
        raise AutopsyError(f"{where} is not a drift record ({error})") from None


def score_drift(
    drift: str | os.PathLike, agent: str, rules: Rules | None = None, *, progress: bool = False
) -> dict[str, Any]:
    """How many positions of a drift set ``agent`` gets right: its move is one of the deep
    search's best moves there (or leads to the same position).

    Args:
        drift: a ``drift.jsonl`` file.
        agent: the agent's spec.
        rules: the draw rules the positions' games are replayed under (default ``Rules()``).
        progress: a progress bar over the positions, on stderr.

    Returns:
        ``agent``, ``drift``, ``positions``, ``right``, ``fraction`` and per position its
        ``game``, ``ply``, the agent's ``move``, whether it is ``right``, and for an agent
        that searched (``last_search``; a book move has none) its search's
        ``seconds`` and ``depth``.

    Raises:
        FileNotFoundError: the file does not exist.
        AutopsyError: it holds no position, or a line that is no drift record.
        UnknownAgentError: the spec names no agent.
    """
    records = drift_records(drift)
    rules = rules if rules is not None else Rules()
    player = make_agent(agent)
    from tqdm.auto import tqdm

    rows = []
    for number, record in enumerate(tqdm(records, unit="pos", desc=agent, disable=not progress), 1):
        game = drift_position(record, rules, f"{drift}: line {number}")
        try:
            best = [str(move) for move in record["deep"]["best_moves"]]
        except (KeyError, TypeError) as error:
            raise AutopsyError(f"{drift}: line {number} is not a drift record ({error})") from None
        player.reset(number)
        move = str(player.select_move(game))
        right = same_position(game.board, move, best)
        row = {"game": record.get("game"), "ply": record.get("ply"), "move": move, "right": right}
        search = getattr(player, "last_search", None)
        if search is not None:
            row.update(seconds=round(float(search.seconds), 4), depth=int(search.depth))
        rows.append(row)
    hits = sum(bool(row["right"]) for row in rows)
    return {
        "agent": agent,
        "drift": str(drift),
        "positions": len(rows),
        "right": hits,
        "fraction": hits / len(rows),
        "per_position": rows,
    }


def append_score(out: str | os.PathLike, score: dict[str, Any]) -> Path:
    """Append ``score`` (:func:`score_drift`'s) as a line of ``OUT/scores.jsonl``; returns its path."""
    path = Path(out) / SCORES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    append_line(path, score)
    return path


def recheck_drift(
    drift: str | os.PathLike,
    deep: str,
    out: str | os.PathLike,
    rules: Rules | None = None,
    *,
    resume: bool = False,
    progress: bool = False,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """Check every position of the drift set ``drift`` again with the deep search ``deep``.

    Each record keeps its position, game, drop and ``fast`` view; its ``deep`` verdict and
    ``mistake`` are the new search's, the search started afresh at each position (ties
    broken by a generator seeded by the line's number); an agreed set's ``verdicts`` are
    dropped.

    Args:
        drift: a ``drift.jsonl`` file.
        deep: the spec of the deep search.
        out: the folder of the rechecked ``drift.jsonl`` (not the set's own folder).
        rules: the draw rules the positions' games are replayed under (default ``Rules()``).
        resume: continue a recheck of the same set with the same search in ``out``; without
            it, a folder that holds a drift set is refused.
        progress: a progress bar over the positions, on stderr.
        workers: processes that search positions at once (a timed deep search takes a core
            each: at most one a core).

    Returns:
        The rechecked records, in the set's order.

    Raises:
        FileNotFoundError: the file does not exist.
        AutopsyError: it holds no position or a line that is no drift record; ``out`` is the
            set's folder, or holds a drift set and ``resume`` is off, or holds a recheck of
            another set or by another search; the deep search keeps no value.
        UnknownAgentError: the spec names no agent.
        EndgameDatabaseError: the spec's endgame database is not built.
        WorkerDiedError: with ``workers``, a worker process ended before its positions were
            searched (the lines written before it are kept).
    """
    records = drift_records(drift)
    rules = rules if rules is not None else Rules()
    target = Path(out) / DRIFT_FILE
    if target.resolve() == Path(drift).resolve():
        raise AutopsyError(f"{target} is the drift set itself: write the recheck to another --out")
    if target.exists() and not resume:
        raise AutopsyError(f"{out} already holds a drift set: give --resume to continue its recheck, or another --out")
    done = read_lines(target) if resume else []
    if len(done) > len(records):
        raise AutopsyError(f"{target} is not a recheck of {drift}: it holds more positions")
    for number, (old, new) in enumerate(zip(records, done, strict=False), 1):
        if _place(old) != _place(new):
            raise AutopsyError(f"{target} is not a recheck of {drift}: line {number} holds another position")
        spec = (new.get("deep") or {}).get("spec")
        if spec != deep:
            raise AutopsyError(f"{target} holds a recheck by {spec!r}, not {deep!r}")
    # Every position is read before the first search: a bad line is refused at once.
    games = [drift_position(record, rules, f"{drift}: line {number}") for number, record in enumerate(records, 1)]
    played = [
        _played(game, record, f"{drift}: line {number}") for number, (game, record) in enumerate(zip(games, records), 1)
    ]
    _deep_agent(deep)  # a spec that names no agent, or a database not built, fails here, before a worker starts
    target.parent.mkdir(parents=True, exist_ok=True)
    # A line a kill cut short is dropped: the file is rewritten to the finished lines.
    write_atomic(target, "".join(json.dumps(record) + "\n" for record in done).encode())
    from tqdm.auto import tqdm

    with tqdm(total=len(records), initial=len(done), unit="pos", desc=deep, disable=not progress) as bar:

        def keep(_piece: Any, rechecked: dict[str, Any]) -> None:
            append_line(target, rechecked)
            done.append(rechecked)
            bar.update()

        left = range(len(done), len(records))
        todo = [(index + 1, games[index], records[index], played[index]) for index in left]
        run_pieces(functools.partial(_recheck_position, deep), todo, keep, workers=workers, what="the recheck")
    return done


@functools.lru_cache(maxsize=1)
def _deep_agent(spec: str) -> Agent:
    """A recheck's deep search, made once in each process (each position starts it afresh)."""
    return make_searching_agent(spec)


def _recheck_position(deep: str, piece: tuple[int, Game, dict[str, Any], Move]) -> dict[str, Any]:
    """One position of a recheck (a worker's piece): its record with the new verdict."""
    number, game, record, move = piece
    verdict = deep_verdict(_deep_agent(deep), game, move, number)
    # An earlier agreement's verdicts are not this search's: the record drops them.
    return {
        **{key: value for key, value in record.items() if key != "verdicts"},
        "deep": {"spec": deep, **verdict},
        "mistake": not same_position(game.board, str(move), verdict["best_moves"]),
    }


def agree_drift(
    drift: str | os.PathLike, others: list[str | os.PathLike], out: str | os.PathLike, rules: Rules | None = None
) -> list[dict[str, Any]]:
    """The positions of the drift set ``drift`` on which the verdicts of ``others`` (rechecks
    of the same positions) agree with its own: a best move of every verdict.

    Each record kept is ``drift``'s, its ``deep`` made of the moves every verdict counts best
    (``best_moves``, in ``drift``'s order; ``spec``: the verdicts' specs joined by ``" & "``),
    its ``mistake`` whether the move played is not among them, and ``verdicts`` the ``deep``
    of each set (a set agreed before gives its own ``verdicts``, so agreeing again adds a
    verdict). The set is written to ``OUT/drift.jsonl``.

    Args:
        drift: a ``drift.jsonl`` file.
        others: drift sets of the same positions in the same order (``--recheck``'s output).
        out: the folder of the agreed ``drift.jsonl`` (none of the sets' own folders).
        rules: the draw rules the positions' games are replayed under (default ``Rules()``).

    Returns:
        The records kept, in the set's order.

    Raises:
        FileNotFoundError: a file does not exist.
        AutopsyError: no other set is given; a set holds no position, a line that is no drift
            record, or other positions than ``drift``; ``out`` holds one of the sets.
    """
    if not others:
        raise AutopsyError("give the drift sets whose verdicts must agree with the set's")
    rules = rules if rules is not None else Rules()
    target = Path(out) / DRIFT_FILE
    sets = [drift, *others]
    if any(target.resolve() == Path(path).resolve() for path in sets):
        raise AutopsyError(f"{target} is one of the drift sets: write the agreement to another --out")
    records = drift_records(drift)
    verdicts = [_verdicts(drift, records)]
    for other in others:
        theirs = drift_records(other)
        if len(theirs) != len(records):
            raise AutopsyError(f"{other} holds {len(theirs)} positions, {drift} {len(records)}: not the same set")
        for number, (mine, their) in enumerate(zip(records, theirs), 1):
            if _place(mine) != _place(their):
                raise AutopsyError(f"{other}: line {number} holds another position than {drift}'s")
        verdicts.append(_verdicts(other, theirs))
    kept = []
    for number, (record, *sets) in enumerate(zip(records, *verdicts), 1):
        where = f"{drift}: line {number}"
        deeps = [deep for found in sets for deep in found]
        game = drift_position(record, rules, where)
        board, played = game.board, _played(game, record, where)
        agreed = [
            move
            for move in deeps[0]["best_moves"]
            if all(same_position(board, move, deep["best_moves"]) for deep in deeps)
        ]
        if agreed:
            spec = " & ".join(str(deep.get("spec")) for deep in deeps)
            mistake = not same_position(board, str(played), agreed)
            kept.append({**record, "deep": {"spec": spec, "best_moves": agreed}, "mistake": mistake, "verdicts": deeps})
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, "".join(json.dumps(record) + "\n" for record in kept).encode())
    return kept


def _place(record: dict[str, Any]) -> tuple[Any, ...]:
    """What names a drift record's position: its game, ply and FEN."""
    return record.get("game"), record.get("ply"), record.get("fen")


def _verdicts(drift: str | os.PathLike, records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The verdicts of each record, their best moves as strings: those an earlier agreement
    joined (its ``verdicts``), or else its ``deep`` alone."""
    found = []
    for number, record in enumerate(records, 1):
        deeps = record.get("verdicts", [record.get("deep")])
        if not isinstance(deeps, list) or not all(
            isinstance(deep, dict) and isinstance(deep.get("best_moves"), list) for deep in deeps
        ):
            raise AutopsyError(f"{drift}: line {number} is not a drift record (no deep best moves)")
        found.append([{**deep, "best_moves": [str(move) for move in deep["best_moves"]]} for deep in deeps])
    return found


def _played(game: Game, record: dict[str, Any], where: str) -> Move:
    """The move the record says was played, legal in its position."""
    played = record.get("played")
    if not isinstance(played, str):
        raise AutopsyError(f"{where} is not a drift record (no move played)")
    try:
        return game.board.parse_move(played)
    except CheckersError as error:
        raise AutopsyError(f"{where}: the move played, {played!r}, is not legal there ({error})") from None


__all__ = ["agree_drift", "append_score", "drift_position", "drift_records", "recheck_drift", "score_drift"]
