"""The alpha-beta agent: the search (``searcher.Searcher``) behind the agent protocol, with its
spec's options, the clock of a game and the opening book."""

from __future__ import annotations

import math
from dataclasses import replace
from time import perf_counter

import numpy as np

from checkers_agents.book import OpeningBook
from checkers_agents.search_parts.evaluators import Evaluator
from checkers_env import BaseAgent, Board, Game, Move
from checkers_env import egdb as _egdb
from checkers_env.agent import FilePath, file_path_or
from checkers_env.board import move_from_row

from .clock import banked_budget, move_budget
from .deepening import pick_tied
from .draws import Draws
from .evaluator_registry import evaluator_names, make_evaluator
from .negamax import MAX_DEPTH
from .searcher import DEPTH, Searcher, SearchResult
from .transposition import LEAF_BITS, TT_BITS


class AlphaBetaAgent(BaseAgent):
    """Alpha-beta search (minimax with pruning, in numba) with a swappable evaluation of the
    positions at its leaves: depth 6 by default, or as deep as ``time`` allows.

    See the package docstring for the search, ``evaluators`` for the evaluations.

    Args:
        depth: nominal search depth in plies, 1-64 (captures are searched on beyond it, so
            the leaves are quiet positions).
            Default: 6 without ``time``; with ``time``, as deep as the time allows.
        time: seconds per move; iterative deepening stops when it runs out (hard limit
            through a node budget). Timed searches are not reproducible.
        game_time: seconds for the whole game instead (this side's clock; not with
            ``time``): each move gets a share of what is left, more when the search's best
            move or score is still moving, none for a forced move (``clock``). A game is
            new (a full clock) after ``reset``, or when it is not the last one moved on:
            another start, or moves that do not extend the last call's.
        bank: with ``time``, spend it as Cake's clock does (``clock``): what a move leaves
            of ``time`` (all of it, for a book move) is banked for the game's later moves;
            a move's nominal time is ``time`` and half the bank, and a search starts no
            iteration past 0.4 of it unless its best move or score is still moving. A move
            may take up to three times ``time`` while the game's moves take no more than
            ``time`` each on average (a move is charged at most its limit). A game is new
            as with ``game_time``. Off by default.
        book: play the opening book's move where it has one with sound statistics
            (``checkers_agents.book``: the ACF archive's master games), without a search
            (``last_search`` is then None); off by default.
        book_file: play the opening book of this file instead (not with ``book``): a
            searched book (``checkers data book``) plays its recorded move wherever the
            position is in it, a master book as ``book`` does; elsewhere the agent searches.
        eval: the evaluation: ``positional`` (default: material plus back-rank,
            centre, mobility, advancement and trading-down terms), ``material`` (man 100,
            king 140), or a learned net,
            ``td-minimax``, ``slow-fast``, ``mcrd-net`` or ``outcome-net``.
        weights: the net's weights, for a learned ``eval``: ``zoo`` (the default: the zoo
            agent's), a file, or ``untrained``.
        egdb: probe the endgame database of up to this many pieces (2 to 6; 0, the
            default: off) at every node with that few pieces: an exact value there ends
            the search, and a position it holds is played from it without a search (a
            fastest win, a longest loss or a drawing move). It must be built
            (``checkers egdb build --pieces 5``, about a minute; the folder is
            ``$CHECKERS_EGDB`` or the cache folder) and is loaded once per process.
        egdb_folder: the database's folder (default ``checkers_env.egdb.default_folder()``).
        seed: seed of the generator that breaks ties between equally good moves (and of
            an ``untrained`` net).
        table_cutoffs: let table entries of earlier searches and iterations cut the search
            off (``pruning.SearchOptions``; off by default, as are the two below).
        pvs: principal variation search below the root (null windows after the first move).
        reductions: late-move reductions (late quiet moves searched a ply shallower first).
        extensions: a forced move (one legal move) does not use up a ply below the root.
        spare_shots: with ``reductions``, a move that offers the opponent a capture (the
            start of an exchange or a shot) is never reduced.
        threats: a horizon position whose side to move has no capture is searched on
            while the opponent has one pending (``pruning.THREAT_PLIES`` plies past the
            depth at most), instead of scored with the shot unseen.
        etc: enhanced transposition cut-offs: a node looks up its children in the table
            before it searches a move, and cuts off on a child's bound that refutes it.
        iid: internal iterative deepening: a node with no move in the table is searched
            two plies shallower first, for a move to try first.
        probcut: a verified ProbCut: a node is searched four plies shallower first, with
            a null window a margin above its own, and cuts off when that search reaches
            it (``pruning.PROBCUT_POINTS``, ``PROBCUT_NET``).
        fractional: fractional-ply extensions (Cake's rule): below the root a capture, a
            forced move and a move along the principal variation each earn half a ply, and
            every two halves down a line extend it by a ply (up to twice the depth).
        aspiration: each iteration of iterative deepening searches the root in a narrow
            window around the value of the one before, and again where the value falls
            outside (root values and ties stay exact).
        partial: with ``time`` or ``game_time``, use the whole time: iterations go on
            until it runs out, and the last one, unfinished, still decides the move when
            it finished the best move of the one before (``Searcher``'s ``partial``).
        contempt: what a draw costs this side, in the evaluation's units (an expected
            result for the nets: 0.1 is a tenth of a win; points for the hand-written
            ones: a man is 100). Every draw the search sees (repetition, no progress, the
            endgame database's draws) scores ``-contempt`` for it and ``contempt`` for the
            opponent, so it keeps playing where it can stay within ``contempt`` of level,
            and walks into a draw only from a position worse than that. 0 (default): a
            draw is 0 for both. Against a stronger opponent it is a risk to take with care.

    Raises:
        EndgameDatabaseError: ``egdb`` names a database that is not built (the message
            names the missing slice and the command that builds it).
        BookError: ``book_file`` is missing or not an opening book (``make_agent`` reports
            it as an ``UnknownAgentError`` of the spec, which names the file).

    Attributes:
        last_search: the ``SearchResult`` of the last ``select_move`` (depth reached,
            nodes, nodes/s, score, principal variation), or None.
    """

    kind = "alphabeta"
    #: How exact ties between the best moves are broken. False: uniformly among the moves
    #: within the evaluator's tie margin, by the agent's generator. True (``td-minimax``):
    #: the root is searched in ``generate_moves`` order and its exact ties are broken along
    #: that order by a reservoir draw (``deepening.pick_tied``) on a xorshift stream drawn
    #: from the agent's generator; a search without ``time`` is one kernel call.
    ties_in_order = False
    #: The transposition table holds ``2**tt_bits`` entries.
    tt_bits = TT_BITS
    #: A net's leaf cache holds ``2**leaf_bits`` values (0: none; ``Searcher``).
    leaf_bits = LEAF_BITS
    #: Search captures on at the horizon (see the package docstring).
    quiescence = True
    #: The search's pruning (``pruning.SearchOptions``), off unless the spec asks for it.
    table_cutoffs = pvs = reductions = extensions = False
    #: Late-move reductions spare moves that offer a capture.
    spare_shots = False
    #: Horizon positions with a capture pending for the opponent are searched on.
    threats = False
    #: Enhanced transposition cut-offs.
    etc = False
    #: Internal iterative deepening.
    iid = False
    #: ProbCut.
    probcut = False
    #: Fractional-ply extensions.
    fractional = False
    #: A timed search's unfinished last iteration may decide the move.
    partial = False
    #: Aspiration windows at the root.
    aspiration = False
    #: Seconds for the whole game (None: ``time`` per move, or ``depth``).
    game_time: float | None = None
    #: ``time`` is a nominal time a move, its savings banked for later moves.
    bank = False
    #: Play the opening book's moves.
    book = False
    #: The opening book file played instead of the master book (None: none).
    book_file: str | None = None
    #: The book played: the master book, that of ``book_file``, or None.
    opening_book: OpeningBook | None = None
    #: What a draw costs this side, in the evaluation's units.
    contempt = 0.0
    #: Seconds any one search may take at most, whatever ``depth`` asks (None: no limit).
    #: Whoever serves the agent to others sets it (``checkers serve``: its think limit);
    #: a limited search deepens from depth 1 and stops at the limit, keeping its last
    #: complete iteration (a ``td-minimax`` may then play below its ``depth``).
    think_limit: float | None = None

    def __init__(
        self,
        depth: int | None = None,
        time: float | None = None,
        eval: str = "positional",
        weights: file_path_or("zoo", "untrained") | None = None,
        egdb: int = 0,
        egdb_folder: FilePath | None = None,
        seed: int | None = None,
        table_cutoffs: bool = False,
        pvs: bool = False,
        reductions: bool = False,
        extensions: bool = False,
        game_time: float | None = None,
        book: bool = False,
        partial: bool = False,
        aspiration: bool = False,
        spare_shots: bool = False,
        contempt: float = 0.0,
        threats: bool = False,
        etc: bool = False,
        iid: bool = False,
        probcut: bool = False,
        fractional: bool = False,
        bank: bool = False,
        book_file: FilePath | None = None,
    ):
        self._check_limits(depth, time)
        if (
            isinstance(contempt, bool)
            or not isinstance(contempt, (int, float, np.integer, np.floating))
            or not (math.isfinite(contempt))
        ):
            raise ValueError(f"{self.kind}: contempt must be a finite number, got {contempt!r}")
        self.contempt = float(contempt)
        self.book = bool(book)
        if book_file is not None:
            if self.book:
                raise ValueError(f"{self.kind}: give book (the master book) or book_file, not both")
            self.book_file = str(book_file)
            self.opening_book = OpeningBook.load(self.book_file)
        elif self.book:
            self.opening_book = OpeningBook.default()
        if game_time is not None:
            self._check_limits(None, game_time)
            if time is not None:
                raise ValueError(f"{self.kind}: give time (per move) or game_time (per game), not both")
            self.game_time = float(game_time)
        self.bank = bool(bank)
        if self.bank and time is None:
            raise ValueError(f"{self.kind}: bank banks what each move leaves of its time: give time too")
        self.table_cutoffs, self.pvs, self.reductions = bool(table_cutoffs), bool(pvs), bool(reductions)
        self.extensions, self.partial, self.aspiration = bool(extensions), bool(partial), bool(aspiration)
        self.spare_shots, self.threats, self.etc = bool(spare_shots), bool(threats), bool(etc)
        self.iid, self.probcut, self.fractional = bool(iid), bool(probcut), bool(fractional)
        if eval not in evaluator_names():
            raise ValueError(f"alphabeta: eval must be one of {', '.join(evaluator_names())}, got {eval!r}")
        egdb = _egdb.check_pieces(egdb, f"{self.kind}: egdb", off=True)
        super().__init__(seed=seed)
        self.eval = eval
        self.weights = weights
        self._start(make_evaluator(eval, weights, seed), depth, time, egdb, egdb_folder)

    def _check_limits(self, depth, time) -> None:
        """Refuse a ``depth`` or ``time`` the search cannot take (before any work)."""
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_DEPTH
        ):
            raise ValueError(f"{self.kind}: depth must be an integer from 1 to {MAX_DEPTH}, got {depth!r}")
        if time is not None and (
            isinstance(time, bool)
            or not isinstance(time, (int, float, np.floating, np.integer))
            or not math.isfinite(time)
            or time <= 0
        ):
            raise ValueError(f"{self.kind}: time must be a positive number of seconds per move, got {time!r}")

    def _start(self, evaluator: Evaluator, depth, time, egdb: int = 0, egdb_folder=None) -> None:
        """Set up the search of ``evaluator`` (the limits checked, the generator seeded)."""
        self.depth = None if depth is None else int(depth)
        self.time = None if time is None else float(time)
        self.evaluator = evaluator
        self.egdb = int(egdb)
        self.egdb_folder = None if egdb_folder is None else str(egdb_folder)
        self.database = _egdb.EndgameDatabase.cached(self.egdb, self.egdb_folder) if self.egdb else None
        self.last_search: SearchResult | None = None
        self._searcher: Searcher | None = None
        # Seconds and searches this game so far, and (start, moves) of the last move's game.
        self._clock_used, self._clock_moves, self._clock_game = 0.0, 0, None
        if self.ties_in_order:
            self._rng_state = self._fresh_rng_state()

    def _fresh_rng_state(self) -> int:
        return int(self.rng.integers(1, 2**62))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._searcher is not None:
            self._searcher.clear()
        self.last_search = None
        self._clock_used, self._clock_moves, self._clock_game = 0.0, 0, None
        if self.ties_in_order and seed is not None:
            self._rng_state = self._fresh_rng_state()

    @property
    def searcher(self) -> Searcher:
        """The search's memory and driver, made on first use."""
        if self._searcher is None:
            self._searcher = Searcher(
                self.evaluator,
                self.tt_bits,
                self.quiescence,
                egdb=self.database,
                leaf_bits=self.leaf_bits,
                table_cutoffs=self.table_cutoffs,
                pvs=self.pvs,
                reductions=self.reductions,
                extensions=self.extensions,
                spare_shots=self.spare_shots,
                threats=self.threats,
                etc=self.etc,
                iid=self.iid,
                probcut=self.probcut,
                fractional=self.fractional,
                partial=self.partial,
                aspiration=self.aspiration,
                contempt=self.contempt,
            )
        return self._searcher

    def search(self, game: Game) -> SearchResult:
        """Search the game's current position under the game's draw rules (and this
        side's clock, with ``game_time`` or ``bank``)."""
        if self.game_time is None and not self.bank:
            if self.think_limit is None or self.time is not None:
                return self.searcher.search(game.board, self.depth, self._limited(self.time), Draws.of_game(game))
            depth = DEPTH if self.depth is None else self.depth  # a depth search, under the limit
            return self.searcher.search(game.board, depth, self.think_limit, Draws.of_game(game))
        soft, hard = self._clock_budget(game)
        result = self.searcher.search(
            game.board, self.depth, self._limited(hard), Draws.of_game(game), soft_seconds=soft
        )
        # A banked move is charged no more than it was allowed: an overrun that is not the
        # search's (the first call's compilation, a loaded machine) does not empty the bank.
        self._charge(game, result.seconds if self.game_time is not None else min(result.seconds, hard))
        return result

    def _clock_budget(self, game: Game) -> tuple[float, float]:
        """``(soft, hard)`` seconds for this side's next move in ``game``."""
        self._follow_game(game)
        if self.game_time is not None:
            return move_budget(self.game_time - self._clock_used, len(game.moves) // 2)
        nominal = float(self.time or 0.0)  # bank is refused without time
        return banked_budget(nominal, self._clock_moves * nominal - self._clock_used)

    def _follow_game(self, game: Game) -> None:
        """Start a full clock, an empty bank, if ``game`` is not the one this side last
        moved in: another start, or moves that do not extend that move's."""
        if self._clock_game is None:
            return
        start, before = self._clock_game
        moves = game.moves
        if start != game.start or len(moves) <= len(before) or tuple(moves[: len(before)]) != before:
            self._clock_used, self._clock_moves = 0.0, 0

    def _charge(self, game: Game, seconds: float) -> None:
        """Charge this side's clock ``seconds`` for the move it chooses in ``game``."""
        self._clock_used += seconds
        self._clock_moves += 1
        self._clock_game = (game.start, tuple(game.moves))

    def _limited(self, seconds: float | None) -> float | None:
        """``seconds`` of a timed search, within ``think_limit``."""
        if self.think_limit is None:
            return seconds
        return self.think_limit if seconds is None else min(seconds, self.think_limit)

    def select_move(self, game: Game) -> Move:
        if self.ties_in_order:
            return self._select_in_order(game)
        if self.opening_book is not None:
            move = self.opening_book.choose(game.board)
            if move is not None:
                if self.bank or self.game_time is not None:
                    # A book move takes none of its time: the bank keeps it for later moves.
                    self._follow_game(game)
                    self._charge(game, 0.0)
                self.last_search = None
                return move
        result = self.search(game)
        moves = result.best_moves
        move = moves[0] if len(moves) == 1 else moves[int(self.rng.integers(len(moves)))]
        if result.depth > 0:  # a searched move (not the endgame database's)
            result = replace(result, pv=self.searcher.principal_variation(game.board, move, result.depth))
        self.last_search = result
        return move

    def _select_in_order(self, game: Game | Board) -> Move:
        """The move of a search whose root is in ``generate_moves`` order, exact ties
        broken along it (see ``ties_in_order``)."""
        board = game.board if isinstance(game, Game) else game
        searcher = self.searcher
        started = perf_counter()
        if self.time is None and self.think_limit is None:
            row, self._rng_state, nodes, count = searcher.pick_row(
                board, self.depth, Draws.of_game(game), self._rng_state
            )
            if row < 0:
                raise ValueError(f"{self} has no legal move in {board.fen()}")
            depth, rows, scores = self.depth, searcher.moves[0, :count].copy(), searcher.root_scores[:count].copy()
        else:
            if not board.has_legal_moves():
                raise ValueError(f"{self} has no legal move in {board.fen()}")
            # Under a think limit, from depth 1, so that the limit can stop it.
            limited = self.think_limit is not None
            result = searcher.search(
                board,
                MAX_DEPTH if self.time is not None else self.depth,
                self._limited(self.time),
                Draws.of_game(game),
                first_depth=1 if limited else self.depth,
                root_in_order=True,
            )
            depth, nodes, scores, rows = result.depth, result.nodes, result.root_scores, result.rows
            row, self._rng_state = pick_tied(scores, len(rows), self._rng_state)
        # A root has a few dozen moves at most: a list beats numpy's calls here.
        best = float(scores[row])
        ties = tuple(i for i, score in enumerate(scores.tolist()) if score == best)
        move = move_from_row(rows[row])
        self.last_search = SearchResult(
            best,
            depth,
            nodes,
            perf_counter() - started,
            rows,
            scores,
            ties,
            board,
            searcher.principal_variation(board, move, depth),
        )
        return move


__all__ = ["AlphaBetaAgent"]
