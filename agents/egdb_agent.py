"""The ``egdb`` agent: perfect play inside the endgame database, the alpha-beta outside it.

    >>> from checkers_env import Board, make_agent
    >>> agent = make_agent("egdb:pieces=4,depth=6,seed=1")   # doctest: +SKIP
    >>> agent.select_move(Board.from_fen("B:WK14:BK1,K2"))    # doctest: +SKIP

It is ``alphabeta:egdb=P`` under its own name (one search for every agent): a position with at
most ``pieces`` pieces is played from the database (``EndgameDatabase.best_moves``: a
fastest win, a longest loss, or a drawing move; ties broken by the seeded generator),
every other one is searched by the alpha-beta, which scores every node the database holds
exactly (the package docstring of ``checkers_agents.alphabeta``, "Endgame database").

The database must be built first: ``checkers egdb build --pieces 5`` (about a minute,
78 MB in ``$CHECKERS_EGDB`` or the platform's cache folder, or ``folder=DIR``);
``pieces=4`` takes seconds and 2.7 MB.
"""

from __future__ import annotations

from checkers_agents.alphabeta import AlphaBetaAgent
from checkers_env.agent import FilePath
from checkers_env.egdb import check_pieces


class EgdbAgent(AlphaBetaAgent):
    """Perfect play in the endgame database (a fastest win, a longest loss or a drawing
    move), and outside it the alpha-beta search that probes the database at every node with
    that few pieces.

    Args:
        pieces: the database's size, 2 to 6 (default 5: build it once with
            ``checkers egdb build --pieces 5``, about a minute; the folder is
            ``$CHECKERS_EGDB`` or the platform's cache folder).
        depth: the search's nominal depth outside the database (default 6, or as deep as
            ``time`` allows).
        time: seconds per move for the search (iterative deepening).
        eval: the search's evaluation (``positional``, ``material``, or a zoo net:
            ``td-minimax``, ``slow-fast``, ``mcrd-net``).
        folder: the database's folder (default ``$CHECKERS_EGDB`` or the platform's cache
            folder: ``checkers_env.egdb.default_folder()``).
        seed: seed of the generator that breaks ties between equally good moves.

    Raises:
        EndgameDatabaseError: the database is not built (the message names the missing
            slice and the command that builds it).
    """

    kind = "egdb"

    def __init__(
        self,
        pieces: int = 5,
        depth: int | None = None,
        time: float | None = None,
        eval: str = "positional",
        folder: FilePath | None = None,
        seed: int | None = None,
    ):
        pieces = check_pieces(pieces, f"{self.kind}: pieces")
        super().__init__(depth=depth, time=time, eval=eval, egdb=pieces, egdb_folder=folder, seed=seed)
        self.pieces = pieces
        self.folder = self.egdb_folder


__all__ = ["EgdbAgent"]
