"""A searched opening book: after each ballot opening of the ACF deck, the moves of one fixed
alpha-beta searcher at one fixed depth, for both colours.

    >>> from checkers_agents.searched_book import build_book, ballot_board
    >>> book = build_book("runs/book", "alphabeta:eval=positional", depth=4, plies=4, ballots=2)
    >>> book.choose(ballot_board("9-13 21-17 5-9"))    # the searcher's move after the ballot

For each of the 156 ballots (``checkers_env.match.ballot_openings``, in ACF order) the
build starts from the position after the ballot's three moves and follows the searcher's own
line for ``plies`` plies: at each position it searches at ``depth`` and records the best
move, its value for the side to move and the depth. Up to ``branch_plies`` plies after the
ballot it also records the answer to every other move there: each legal move of the side
to move other than the best is played, and the resulting position searched for the other
side's reply. So an opponent that leaves the line at once still meets a book move; deeper
side lines are left to the search, which keeps the cost at about ``plies + 7 *
branch_plies`` searches a ballot (7 to 8 legal moves a position in the opening).

Each search starts from a cleared table and ignores the draw rules (no repetition is
possible within a few plies of a ballot), so its result is a pure function of the position,
the searcher and the depth: the book is reproducible, a position reached from two ballots
gets the same entry, and among several equally good moves the first in the move
generator's order is recorded (``SearchResult.best_moves[0]``).

The work of one ballot is one shard of a shard folder (``checkers_env.shards``): a killed
build resumes where it stopped when run again with the same parameters (others are refused,
naming them), and gives the same book. The shards are merged in ballot order into
``OUT/book.json`` (``checkers_agents.book.OpeningBook``, version 2), which the alpha-beta
agent plays with ``book_file=OUT/book.json``.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from checkers_env import Board, Game, make_agent
from checkers_env.match import ballot_openings, opening_moves
from checkers_env.shards import ShardFormat, write_card

from .book import OpeningBook, SearchedMove

#: Plies after the ballot whose other moves get an answer in the book, by default.
BRANCH_PLIES = 2
#: The merged book's file in the build's folder.
BOOK_FILE = "book.json"
#: A shard's arrays: the ballot it searched (one row), then one row per book position.
BOOK_ARRAYS = ("fen", "move", "value", "depth", "ballot")


def _ballot_shard(params: dict, seed: int, shard: int) -> dict[str, np.ndarray]:
    """The arrays of shard ``shard``: the book positions of ballot ``shard``."""
    ballot = ballot_openings()[shard]
    entries = ballot_entries(ballot, params["agent"], params["depth"], params["plies"], params["branch_plies"])
    return {
        "fen": np.array(list(entries), dtype=np.str_),
        "move": np.array([entry.move for entry in entries.values()], dtype=np.str_),
        "value": np.array([entry.value for entry in entries.values()], dtype=np.float64),
        "depth": np.array([entry.depth for entry in entries.values()], dtype=np.int64),
        "ballot": np.array([shard], dtype=np.int64),
    }


#: One shard a ballot (``seed`` unused: the search draws nothing).
SEARCHED_BOOK = ShardFormat(
    1, BOOK_ARRAYS, _ballot_shard, kind="searched-book", unit="ballots", counted="ballot", card=True
)


@functools.lru_cache(maxsize=2)
def _searcher(spec: str):
    """The searcher of an alpha-beta spec, made once a process.

    Raises:
        ValueError: the spec is not an alpha-beta agent's (``alphabeta:...`` or a zoo
            entry of that kind).
    """
    from checkers_agents.alphabeta import AlphaBetaAgent

    agent = make_agent(spec)
    if not isinstance(agent, AlphaBetaAgent):
        raise ValueError(f"a searched book needs an alpha-beta agent's spec, got {spec!r} ({type(agent).__name__})")
    return agent.searcher


def search_move(board: Board, spec: str, depth: int) -> SearchedMove:
    """The best move of ``board`` for the searcher of ``spec`` at ``depth`` (a cleared
    table, no draw rules; the first of several equally good moves in the move generator's
    order), its value for the side to move and the depth searched.

    Raises:
        ValueError: a spec that is not an alpha-beta agent's, or a board without a legal move.
    """
    searcher = _searcher(spec)
    searcher.clear()
    result = searcher.search(board, depth, None, None)
    return SearchedMove(str(result.best_moves[0]), float(result.value), int(result.depth))


def ballot_board(ballot: str) -> Board:
    """The position after the three moves of ``ballot`` (``9-13 21-17 5-9``).

    Raises:
        IllegalMoveError: a move of ``ballot`` that is not legal where it is played.
    """
    return Game(moves=opening_moves(ballot)).board


def ballot_entries(
    ballot: str, spec: str, depth: int, plies: int, branch_plies: int = BRANCH_PLIES
) -> dict[str, SearchedMove]:
    """The book positions of one ballot (the module docstring), by FEN, in the order found:
    the line's position, then the answers to its other moves, ply by ply."""
    entries: dict[str, SearchedMove] = {}

    def record(board: Board) -> SearchedMove | None:
        fen = board.fen()
        if fen not in entries and board.has_legal_moves():
            entries[fen] = search_move(board, spec, depth)
        return entries.get(fen)

    board = ballot_board(ballot)
    for ply in range(plies):
        best = record(board)
        if best is None:  # the game is over
            break
        if ply < branch_plies:
            for move in board.legal_moves():
                if str(move) != best.move:
                    record(board.play(move))
        board = board.play(board.parse_move(best.move))
    return entries


def book_params(
    agent: str, depth: int, plies: int, branch_plies: int = BRANCH_PLIES, ballots: int | None = None
) -> dict[str, Any]:
    """The build's parameters (its card and book state them), checked.

    Raises:
        ValueError: a count out of range, or a spec that is not an alpha-beta agent's.
    """
    deck = len(ballot_openings())
    if depth < 1 or plies < 1 or branch_plies < 0 or (ballots is not None and not 1 <= ballots <= deck):
        raise ValueError(
            f"depth and plies must be at least 1, branch_plies at least 0 and ballots from 1 to {deck}, "
            f"got {depth}, {plies}, {branch_plies}, {ballots}"
        )
    _searcher(agent)  # refuse a bad spec before anything is written
    return {
        "agent": agent,
        "depth": int(depth),
        "plies": int(plies),
        "branch_plies": int(branch_plies),
        "ballots": deck if ballots is None else int(ballots),
        "shard_size": 1,
    }


def build_book(
    out: str | os.PathLike,
    agent: str,
    depth: int,
    plies: int,
    branch_plies: int = BRANCH_PLIES,
    ballots: int | None = None,
    workers: int = 1,
    progress: bool = False,
) -> OpeningBook:
    """Build the searched book of ``agent`` into ``out`` (the module docstring): a shard a
    ballot, then ``out/book.json``; returns the book. The card (``out/card.json``) says
    how many ballots were searched now (``built_now``), the book's positions and the time.

    The shards missing or unreadable are built (a killed build resumes); the others are
    kept, and the book is merged from all of them in ballot order.

    Args:
        out: the build's folder (its card, its shards and ``book.json``).
        agent: an alpha-beta spec (``alphabeta:eval=positional``, ``zoo:outcome-net-3``):
            its evaluator, pruning switches, endgame database and contempt search; its
            ``depth``, ``time`` and books are not used.
        depth: the depth of every search.
        plies: plies of the searcher's line after each ballot.
        branch_plies: plies after the ballot whose other moves get an answer.
        ballots: the first this many ballots of the deck (None: all 156).
        workers: processes over the ballots.
        progress: show a progress bar over ballots.

    Raises:
        ShardError: ``out`` was built with other parameters (use another folder).
        ValueError: a count out of range, or a spec that is not an alpha-beta agent's.
    """
    started = time.perf_counter()
    params = book_params(agent, depth, plies, branch_plies, ballots)
    SEARCHED_BOOK.generate(out, params, seed=0, workers=workers, progress=progress)
    data = SEARCHED_BOOK.load(out)
    searched: dict[str, SearchedMove] = {}
    for fen, move, value, depth_searched in zip(data["fen"], data["move"], data["value"], data["depth"]):
        searched.setdefault(str(fen), SearchedMove(str(move), float(value), int(depth_searched)))
    built_by = {key: params[key] for key in ("agent", "depth", "plies", "branch_plies", "ballots")}
    book = OpeningBook(searched=searched, built_by=built_by)
    book.save(Path(out) / BOOK_FILE)
    card = SEARCHED_BOOK.read_card(out)
    card.update(book=BOOK_FILE, book_positions=len(book), wall_s=round(time.perf_counter() - started, 3))
    write_card(out, card)
    return book


__all__ = [
    "BOOK_ARRAYS",
    "BOOK_FILE",
    "BRANCH_PLIES",
    "SEARCHED_BOOK",
    "ballot_board",
    "ballot_entries",
    "book_params",
    "build_book",
    "search_move",
]
