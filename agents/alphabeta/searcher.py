"""The search's memory and driver: :class:`Searcher`, :class:`SearchResult`, the game's draws."""

from __future__ import annotations

import time as _time
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from checkers_agents.search_parts.endgame_probe import probe_of
from checkers_agents.search_parts.evaluators import POSITIONAL, WIN, Evaluator, Valuation
from checkers_agents.search_parts.position import Position
from checkers_env import BLACK, WHITE, Board, Move
from checkers_env.bitboard import BB_SQUARES, apply_move
from checkers_env.board import move_from_row
from checkers_env.game_state import position_key
from checkers_env.movegen import generate_moves_kernel, new_move_buffer

from .clock import DROP_NET, DROP_POINTS, keep_deepening
from .deepening import NO_NODE_LIMIT, search_from_python, search_iteration
from .draws import NO_DRAWS, Draws
from .negamax import INF, MAX_DEPTH, DrawRules, egdb_value, search_kernel
from .pruning import ASPIRATION_NET, ASPIRATION_POINTS, PROBCUT_NET, PROBCUT_POINTS, search_options
from .stack import S_INDEX, V_ALPHA, V_BETA, FlatMemory, flat_memory, memory_views
from .transposition import (
    LEAF_BITS,
    NO_MOVE,
    TT_BITS,
    TT_ENTRY,
    TT_KEY_MASK,
    Table,
    new_table,
    next_generation,
    position_hash,
)

#: The nominal depth of a search given neither a depth nor a time.
DEPTH = 6


def memory_for(evaluator: Evaluator, incremental: bool | None = None) -> FlatMemory:
    """The search's memory (``stack.flat_memory``) for ``evaluator``, keeping first-layer
    sums per ply when ``incremental`` (None: for float32 nets; see :class:`Searcher`).

    Raises:
        ValueError: ``incremental=True`` with a float64 net.
    """
    exact = evaluator.net is not None and evaluator.dtype == np.float32
    if incremental and evaluator.net is not None and not exact:
        raise ValueError(
            f"incremental first-layer sums need a float32 net (mlp(..., dtype=np.float32)), got {evaluator.dtype}"
        )
    on = exact if incremental is None else bool(incremental) and exact
    return flat_memory(evaluator.width, evaluator.dtype, evaluator.w_in.shape[1] if on else None)


def table_for(evaluator: Evaluator, tt_bits: int = TT_BITS, leaf_bits: int = LEAF_BITS) -> Table:
    """The search's :data:`~checkers_agents.alphabeta.transposition.Table` for
    ``evaluator``: ``2**tt_bits`` entries, and for a net a leaf cache of ``2**leaf_bits``
    slots (0: none; the hand-written evaluations cost less than a look-up and have none).

    Raises:
        ValueError: ``leaf_bits`` is neither 0 nor at least 8 (256 slots).
    """
    return new_table(1 << tt_bits, 1 << leaf_bits if leaf_bits and evaluator.net is not None else 0)


def board_key(board: Board) -> int:
    """``game_state.position_key`` of a ``Board`` (what ``Draws.keys`` holds)."""
    return int(position_key(board.black, board.white))


@dataclass(frozen=True)
class SearchResult:
    """What one search found.

    Attributes:
        value: the root value for the side to move (points, or ``WIN - plies`` for a win
            with the hand-written evaluations; the net's scale with a net).
        best_moves: the legal moves whose value is within the evaluator's tie margin of
            ``value`` (the agent picks one).
        depth: the depth of the last complete iteration.
        nodes: nodes visited by all iterations (quiescence and aborted work included).
        seconds: wall time of the search.
        rows: the root's moves as the kernel lists them (``generate_moves`` rows).
        root_scores: each row's score: exact for the best moves (see ``search_kernel``).
        ties: the rows of ``best_moves``, in ``generate_moves`` order.
        pv: the principal variation: the move played, then the replies the search expects
            (read from its transposition table, as deep as the table holds them); empty
            when the searcher was not asked for it (``Searcher.principal_variation``).
    """

    value: float
    depth: int
    nodes: int
    seconds: float
    rows: np.ndarray
    root_scores: np.ndarray
    ties: tuple[int, ...]
    board: Board
    pv: tuple[Move, ...] = ()

    @cached_property
    def best_moves(self) -> tuple[Move, ...]:
        """The legal moves of ``ties`` (two capture paths to the same position are one move
        for the search: the first in PDN order stands for both)."""
        by_row = _moves_by_row(self.board)
        rows = self.rows
        return tuple(dict.fromkeys(by_row[(int(rows[i, 0]), int(rows[i, 1]), int(rows[i, 2]))] for i in self.ties))

    @property
    def nodes_per_s(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def win_in(self) -> int | None:
        """Plies to a forced win (positive) or loss (negative) under the hand-written
        evaluations, None if not forced."""
        if self.value > WIN - 1000:
            return int(WIN - self.value)
        if self.value < -(WIN - 1000):
            return -int(WIN + self.value)
        return None

    def as_dict(self) -> dict:
        return {
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "nodes_per_s": self.nodes_per_s,
            "score": self.value,
            "best_moves": [str(move) for move in self.best_moves],
            "pv": [str(move) for move in self.pv],
        }


class Searcher:
    """The search's memory (transposition table, killers, history, buffers) and its driver.

    Args:
        evaluator: the leaf evaluator (``evaluators.Evaluator``).
        tt_bits: the table holds ``2**tt_bits`` entries of 16 bytes.
        quiescence: search captures on at the horizon (see the package docstring).
        egdb: an endgame database (``checkers_env.egdb.EndgameDatabase``) to probe at every
            node below the root with at most ``egdb.pieces`` pieces, and at the root
            (``search``); None: none.
        incremental: a net's first-layer sums are updated move by move as the search makes
            its moves (``net_layers.child_sums``), instead of summed at every leaf; the
            values are the same to the last bit. Needs float32 weights
            (``mlp(..., dtype=np.float32)``, whose sums are exact). None (default): on for
            float32 nets, where it is faster (1.06x the nodes per second for the MCRD CNN
            to 1.17x for the outcome net, 1.47x for a net with pattern inputs, whose
            leaves add their block rows to the kept sums of the squares:
            ``python -m benchmarks net_door``, ``docs/experiments.md``), off otherwise.
        leaf_bits: a net's leaf values are kept for the rest of the search, by position,
            in ``2**leaf_bits`` slots of 16 bytes (``transposition.cached_leaf``; 0: not
            kept): a leaf met again (a transposition, a re-search, a shallower first pass)
            is not evaluated again. The values and the tree are the same; only the net's
            work shrinks. No effect without a net.
        table_cutoffs, pvs, reductions, extensions, spare_shots, threats, etc, iid: the pruning and
            extensions of ``pruning.SearchOptions`` (each off by default: the root values
            are then the exact minimax values).
        aspiration: each iteration searches the root in a window around the value of the
            one before (``pruning.ASPIRATION_POINTS``, ``ASPIRATION_NET``), again with
            the side it fell out of open (``deepening.search_iteration``).
        probcut: a verified ProbCut below the root, its margin ``pruning.PROBCUT_POINTS``
            or ``PROBCUT_NET``.
        fractional: fractional-ply extensions below the root: half a ply for a capture, for
            a forced move and for a move along the principal variation, the halves carried
            down the line (``pruning.SearchOptions``).
        partial: a timed search uses its whole time: under a time per move it starts
            another iteration while any time is left, and an iteration the time cuts short
            still decides the move when its finished root moves include the best move of
            the iteration before (searched first, from the table): the best of those
            moves is the best at the deeper depth among moves that include the last
            choice. Off: a search starts no iteration it does not expect to finish (one
            takes about three times the one before), and an unfinished one is dropped.
        contempt: what a draw costs the side to move at the root, in the evaluator's
            units: every draw in the tree (repetition, no progress, the database's draws)
            scores ``-contempt`` for that side, so it plays on where it can keep its
            position within ``contempt`` of level (0, the default: a draw is 0).

    Raises:
        ValueError: ``incremental=True`` with a float64 net; ``leaf_bits`` neither 0 nor
            at least 8, with a net.
    """

    def __init__(
        self,
        evaluator: Evaluator = POSITIONAL,
        tt_bits: int = TT_BITS,
        quiescence: bool = True,
        egdb=None,
        incremental: bool | None = None,
        leaf_bits: int = LEAF_BITS,
        table_cutoffs: bool = False,
        pvs: bool = False,
        reductions: bool = False,
        extensions: bool = False,
        spare_shots: bool = False,
        partial: bool = False,
        aspiration: bool = False,
        contempt: float = 0.0,
        threats: bool = False,
        etc: bool = False,
        iid: bool = False,
        probcut: bool = False,
        fractional: bool = False,
    ):
        self.evaluator = evaluator
        self.contempt = float(contempt)
        self._root_turn = None  # the side the table's values are for, with contempt
        width = (ASPIRATION_NET if evaluator.net is not None else ASPIRATION_POINTS) if aspiration else 0.0
        # By name: many switches of one type, where a slip in order would go unnoticed.
        self.options = search_options(
            table_cutoffs=table_cutoffs,
            pvs=pvs,
            reductions=reductions,
            extensions=extensions,
            spare_shots=spare_shots,
            aspiration=width,
            threats=threats,
            etc=etc,
            iid=iid,
            probcut=(PROBCUT_NET if evaluator.net is not None else PROBCUT_POINTS) if probcut else 0.0,
            fractional=fractional,
        )
        self.partial = bool(partial)
        self.quiescence = bool(quiescence)
        self.egdb = egdb
        self.egdb_probe = probe_of(egdb)
        self.egdb_pieces = self.egdb_probe.pieces
        self.table_bundle = table_for(evaluator, tt_bits, leaf_bits)
        self.table = self.table_bundle.entries
        # The kernel's buffers: views of two flat arrays (``stack.memory_views``), which is
        # how one agent's call passes them.
        self.width = evaluator.width
        self.flat = memory_for(evaluator, incremental)
        self.incremental = self.flat.accumulators is not None
        self.memory = memory_views(self.flat)
        self.killers, self.history_scores = self.memory.killers, self.memory.history_scores
        self.moves, self.root_scores = self.memory.moves, self.memory.root_scores
        self.net = evaluator.net
        self.valuation = evaluator.valuation(self.quiescence)
        self.generation = 0
        # The bundles as plain tuples, how an agent's call passes them (``search_from_python``).
        self._valuation_fields = tuple(self.valuation)
        self._table_fields = tuple(self.table_bundle)
        self._flat_fields = tuple(self.flat)
        self._egdb_fields = tuple(self.egdb_probe)
        self._kernel_bound = False

    def _bind_kernel(self) -> None:
        """Load the search kernel's own machine code for this searcher's types, once, before
        its first search.

        Each numba function that calls ``search_kernel`` (``search_iteration``,
        ``search_from_python``) holds a copy of it, a weak symbol: the process runs the
        first one loaded. Compiled afresh, the kernel's own code comes first; loaded from
        numba's cache, only the caller's copy is, compiled within the caller's module, and
        that copy ran the pruned search with a net about a fifth slower. So a searcher's
        first search calls the kernel itself first, at depth 1 from the starting position,
        and clears what that wrote."""
        if self._kernel_bound:
            return
        search_kernel(
            _position(Board()),
            1,
            NO_NODE_LIMIT,
            self.options,
            self.valuation,
            self.net,
            NO_DRAWS.rules(self.contempt),
            self.generation,
            self.table_bundle,
            self.memory,
            self.egdb_probe,
        )
        self.clear()
        self._kernel_bound = True

    def _options_fields(self, root_in_order: bool) -> tuple:
        pruning = self.options.pruning
        return bool(root_in_order), None if pruning is None else tuple(pruning)

    def principal_variation(self, board: Board, first: Move, plies: int = MAX_DEPTH) -> tuple[Move, ...]:
        """The line the last search expects after ``first`` (a legal move of ``board``, the
        position it searched): ``first``, then each position's table move while the table
        holds one from that search, at most ``plies`` moves in all, stopping at a repeated
        position."""
        line = [first]
        seen = set()
        position = board
        mask = self.table.shape[0] - 1
        buffer = new_move_buffer()
        while len(line) < plies:  # a line's last position is never needed: played when used
            position = position.play(line[-1])
            h = int(position_hash(position.black, position.white, position.kings, position.turn == BLACK))
            entry = int(self.table[h & mask, TT_ENTRY])
            row = (entry >> 10) & 255
            if (entry & TT_KEY_MASK) != (h & TT_KEY_MASK) or ((entry >> 18) & 255) != self.generation or row == NO_MOVE:
                break
            if h in seen:
                break
            seen.add(h)
            mover, opponent = position.mover_bitboards
            count = generate_moves_kernel(mover, opponent, position.kings, position.turn == BLACK, buffer)
            if row >= count:
                break
            line.append(move_from_row(buffer[row]))
        return tuple(line)

    def _draw_rules(self, board: Board, draws: Draws | None) -> DrawRules:
        """The kernel's draw rules for a search of ``board``. With ``contempt`` a value
        depends on which side the root's is, so the table is cleared when it changes."""
        if self.contempt != 0.0 and board.turn != self._root_turn:
            self.clear()
            self._root_turn = board.turn
        return (draws or NO_DRAWS).rules(self.contempt)

    def clear(self) -> None:
        """Forget everything learned (table, killers, history)."""
        for array in (self.table, self.table_bundle.leaves, self.killers, self.history_scores):
            array.fill(0)
        self.generation = 0

    def _search_timed(self, board, depth, seconds, draws, first_depth, root_in_order, valuation, started, soft):
        """The iterations of a search within ``seconds``, aiming at ``soft`` (``clock``):
        ``((value, depth, count, root scores, root rows) of the last complete iteration,
        nodes)``."""
        if len(board.legal_moves()) == 1:
            depth = first_depth  # a forced move: no time to spend
        self._bind_kernel()
        draw_rules = self._draw_rules(board, draws)
        evaluator = self.evaluator
        position = _position(board)
        self.generation = next_generation(self.generation, self.table_bundle)
        self.killers.fill(0)
        self.history_scores >>= 1

        nodes = 0
        done = None  # (value, depth) of the last complete iteration
        last_took = 0.0
        best_changed, score_drop = False, 0.0
        drop_margin = DROP_NET if self.net is not None else DROP_POINTS
        # Only a root searched best-first puts the last choice first (see ``partial``).
        partial = self.partial and not root_in_order
        for d in range(first_depth, depth + 1):
            now = _time.perf_counter()
            limit = NO_NODE_LIMIT
            if d > first_depth:
                if partial and soft is None:
                    if now - started >= seconds:
                        break
                elif not keep_deepening(now - started, last_took, soft, seconds, best_changed, score_drop, drop_margin):
                    break
                left = seconds - (now - started)
                rate = nodes / max(now - started, 1e-6)
                limit = max(int(left * rate), 1000)
            iteration_started = now
            value, _best, count, used, aborted = search_iteration(
                position,
                d,
                limit,
                self.options._replace(root_in_order=root_in_order),
                valuation,
                self.net,
                draw_rules,
                self.generation,
                self.table_bundle,
                self.memory,
                self.egdb_probe,
                np.nan if done is None else done[0],
            )
            nodes += used
            last_took = _time.perf_counter() - iteration_started
            if aborted:
                if partial and done is not None:
                    done = self._unfinished_iteration(done, valuation.tie_margin)
                break
            if count == 0:
                raise ValueError(f"no legal move to search in {board.fen()}")
            scores = self.root_scores[:count].copy()
            if done is not None:
                best_changed = int(np.argmax(scores)) != int(np.argmax(done[3]))
                score_drop = done[0] - float(value)
            done = (float(value), d, int(count), scores, self.moves[0, :count].copy())
            if abs(value) > evaluator.win_bound and abs(value) >= evaluator.loss - evaluator.loss_per_ply * d:
                # A forced result within the nominal depth: every deeper iteration gives the
                # same value and the same best moves. (One found beyond it, through the
                # capture extension, is real too, but a deeper search may find more moves
                # that win as fast: go on.)
                break
        return done, nodes

    def _unfinished_iteration(self, done: tuple, tie_margin: float) -> tuple:
        """The result of an iteration the clock cut short, where it may decide the move
        (``partial``): ``done`` (the last complete iteration's) otherwise. The root moves
        it finished keep their scores (exact within ``tie_margin`` of their best, as in a
        complete one); the others score NaN, never a best move. The depth stays the
        complete iteration's."""
        value, depth, count, scores, rows = done
        finished = self.memory.order_index[0, : max(int(self.memory.stack[0, S_INDEX]) - 1, 0)]
        if int(np.argmax(scores)) not in finished:
            return done
        best = float(self.root_scores[finished].max())
        alpha, beta = self.memory.values[0, V_ALPHA], self.memory.values[0, V_BETA]
        if not alpha <= best - tie_margin or best >= beta:
            return done  # outside an aspiration window: bounds, not values
        deeper = np.full(count, np.nan)
        deeper[finished] = self.root_scores[finished]
        return best, depth, count, deeper, rows

    def _kernel_search(self, board, first_depth, depth, root_in_order, valuation_fields, draws, rng):
        """The whole search of ``board`` in one kernel call (``deepening.search_from_python``),
        over this searcher's table, memory and endgame probe, keeping the table's new
        generation: ``(value, depth reached, root moves, nodes, picked row, rng)``."""
        self._bind_kernel()
        value, reached, count, nodes, self.generation, row, rng = search_from_python(
            _position_fields(board),
            first_depth,
            depth,
            self._options_fields(root_in_order),
            valuation_fields,
            self.net,
            tuple(self._draw_rules(board, draws)),
            self.generation,
            self._table_fields,
            self._flat_fields,
            self._egdb_fields,
            rng,
        )
        return value, reached, count, nodes, row, rng

    def search_rows(
        self,
        board: Board,
        depth: int,
        draws: Draws | None = None,
        first_depth: int = 1,
        root_in_order: bool = False,
        valuation: Valuation | None = None,
    ) -> tuple[float, int, int, int]:
        """The search of :meth:`search` without a time limit, in one kernel call and
        without a result object (an agent's fast path, one call per move):
        ``(value, depth reached, root moves, nodes)``; the root's move rows are
        ``self.moves[0, :root moves]`` and their scores ``self.root_scores[:root moves]``
        (overwritten by the next search). ``valuation`` replaces the evaluator's scores.
        An endgame database is probed below the root only (``search`` answers a root it
        holds from it)."""
        fields = self._valuation_fields if valuation is None else tuple(valuation)
        value, reached, count, nodes, _row, _rng = self._kernel_search(
            board, min(first_depth, depth), depth, root_in_order, fields, draws, 0
        )
        return float(value), int(reached), int(count), int(nodes)

    def pick_row(self, board: Board, depth: int, draws: Draws, rng: int) -> tuple[int, int, int, int]:
        """An agent's move in one kernel call: a fixed-depth search of ``board``'s moves in
        ``generate_moves`` order, exact ties broken by the xorshift state ``rng``
        (``deepening.pick_tied``). Returns ``(row, rng, nodes, count)``: ``row`` indexes
        ``self.moves[0]`` (scored in ``self.root_scores``) and is -1 when the side to move
        has no legal move; ``count`` is the number of root moves. An endgame database is
        probed below the root only."""
        _value, _reached, count, nodes, row, rng = self._kernel_search(
            board, depth, depth, True, self._valuation_fields, draws, rng
        )
        return row, rng, nodes, count

    def search(
        self,
        board: Board,
        depth: int | None = None,
        seconds: float | None = None,
        draws: Draws | None = None,
        first_depth: int = 1,
        root_in_order: bool = False,
        exact_root: bool = False,
        soft_seconds: float | None = None,
    ) -> SearchResult:
        """Iterative deepening from ``first_depth`` to ``depth``, within ``seconds`` if given.

        Args:
            depth: the nominal depth; default 6, or ``MAX_DEPTH`` when ``seconds`` is given.
            seconds: time for the search (hard limit through a node budget; the first
                iteration always completes).
            draws: the game's draw rules (``Draws.of_game``); default none.
            first_depth: the first iteration's depth.
            root_in_order: search the root's moves in ``generate_moves`` order (see
                ``search_kernel``).
            exact_root: search every root move with the full window, so that every
                ``root_scores`` entry is exact (a policy over all moves; slower).
            soft_seconds: with ``seconds``, the time the search aims at: it starts no
                iteration past it unless the last one changed the best move or dropped
                the score, and then none past twice it (``clock.keep_deepening``).

        With an endgame database that holds ``board``, nothing is searched: the result is
        the database's (``database_result``).

        Raises:
            ValueError: the side to move has no legal move.
        """
        started = _time.perf_counter()
        if self.egdb is not None:
            result = self.database_result(board, started)
            if result is not None:
                return result
        if depth is None:
            depth = MAX_DEPTH if seconds is not None else DEPTH
        first_depth = min(first_depth, depth)
        valuation = self.valuation
        if exact_root:
            valuation = valuation._replace(tie_margin=2 * INF)
        if seconds is None:
            value, reached, count, nodes = self.search_rows(board, depth, draws, first_depth, root_in_order, valuation)
            if count == 0:
                raise ValueError(f"no legal move to search in {board.fen()}")
            done = (value, reached, count, self.root_scores[:count].copy(), self.moves[0, :count].copy())
        else:
            done, nodes = self._search_timed(
                board,
                depth,
                seconds,
                draws,
                first_depth,
                root_in_order,
                valuation,
                started,
                soft_seconds,
            )
        value, reached, count, scores, rows = done
        ties = tuple(int(i) for i in np.flatnonzero(scores > value - self.evaluator.tie_margin))
        return SearchResult(value, reached, nodes, _time.perf_counter() - started, rows, scores, ties, board)

    def database_result(self, board: Board, started: float | None = None) -> SearchResult | None:
        """The endgame database's answer for ``board``, as a search result of depth 0 and
        no node: each move scores as the database values the position it leads to (with the
        evaluator's win and loss scores, as the kernel scores them), and the best moves are
        the database's (``EndgameDatabase.best_moves``: the fastest wins, the longest
        losses, or the drawing moves). None when the database does not hold ``board``.

        The database knows no draw rule: a win it plays may run into the no-progress limit
        or a repetition of the game (at the root only; below it the kernel checks them
        first).

        Raises:
            ValueError: the side to move has no legal move.
        """
        if self.egdb is None or (board.black | board.white).bit_count() > self.egdb_pieces:
            return None
        if self.egdb.probe_code(board) < 0:
            return None
        started = _time.perf_counter() if started is None else started
        mover, opponent = board.mover_bitboards
        black_to_move = board.turn == BLACK
        buffer = new_move_buffer()
        count = generate_moves_kernel(mover, opponent, board.kings, black_to_move, buffer)
        if count == 0:
            raise ValueError(f"no legal move to search in {board.fen()}")
        rows = buffer[:count].copy()
        scores = np.empty(count, dtype=np.float64)
        for i in range(count):
            m, o, k = apply_move(mover, opponent, board.kings, black_to_move, rows[i, 0], rows[i, 1], rows[i, 2])
            black, white = (m, o) if black_to_move else (o, m)
            byte = self.egdb.probe_byte(Board(black, white, k, WHITE if black_to_move else BLACK))
            scores[i] = -egdb_value(byte, 1, self.evaluator.loss, self.evaluator.loss_per_ply)
        by_row = _moves_by_row(board)
        best = set(self.egdb.best_moves(board))
        ties = tuple(i for i in range(count) if by_row[(int(rows[i, 0]), int(rows[i, 1]), int(rows[i, 2]))] in best)
        value = float(max(scores[i] for i in ties))
        return SearchResult(value, 0, 0, _time.perf_counter() - started, rows, scores, ties, board)


def _position(board: Board) -> Position:
    """The kernel's :data:`Position` of ``board``."""
    mover, opponent = board.mover_bitboards
    return Position(mover, opponent, board.kings, board.turn == BLACK)


def _position_fields(board: Board) -> tuple[int, int, int, bool]:
    """The fields of ``_position(board)`` as a plain tuple (``search_from_python``)."""
    mover, opponent = board.mover_bitboards
    return mover, opponent, board.kings, board.turn == BLACK


def _moves_by_row(board: Board) -> dict[tuple[int, int, int], Move]:
    """Legal moves keyed by the kernel's (from_bit, to_bit, captured).

    Two capture paths with the same ends and the same captured pieces are the same move
    for the search (the same resulting position); the first in PDN order stands for both.
    """
    result: dict[tuple[int, int, int], Move] = {}
    for move in board.legal_moves():
        frm = BB_SQUARES[move.path[0] - 1].bit_length() - 1
        to = BB_SQUARES[move.path[-1] - 1].bit_length() - 1
        result.setdefault((frm, to, move.captured), move)
    return result


__all__ = ["DEPTH", "SearchResult", "Searcher", "board_key", "memory_for", "table_for"]
