"""``alphazero:weights=zoo,simulations=64,time=0.5``: the policy-value net's tree search as
an ``Agent``."""

from __future__ import annotations

import functools
import math
import time as clock
from dataclasses import dataclass, field

import numpy as np

from checkers_agents.search_parts.endgame_probe import probe_of
from checkers_env import egdb as _egdb
from checkers_env.agent import BaseAgent, FilePath, file_path_or
from checkers_env.board import Color, Move, move_from_row
from checkers_env.datasets import hop_action
from checkers_env.env_machine import (
    HOP_COMPLETES,
    HOP_ILLEGAL,
    NUM_ACTIONS,
    S_END,
    S_LAST_COUNT,
    hop,
    mask_words,
    new_batch,
    resume_board,
    write_mask,
)
from checkers_env.errors import IllegalMoveError, UnknownAgentError
from checkers_env.game import Game
from checkers_env.game_state import END_NONE

from .net import NetArrays, read_net, untrained_net
from .search import conclude, new_leaves, new_rows, principal_hops, root_value, run_simulations, start_searches
from .tree import METHODS, SearchConstants, Tree, follow_line, make_settings, new_tree, reroot

#: ``weights=untrained``: a net of initial weights (from the agent's seed), named as such.
UNTRAINED = "untrained"
#: Nodes kept per simulation (the tree stops growing past them; the search goes on).
NODES_PER_SIMULATION = 16
#: Simulations a clock may grant one search at most.
MAX_SIMULATIONS = 1 << 20
#: Nodes of the agent's tree at most (about 160 MB); a longer search goes on in a full tree.
MAX_NODES = 1 << 22
#: Simulations between two looks at the clock.
CHUNK = 128
#: With a clock, the simulations per second assumed before a search has measured them (a
#: first search too long for the clock stops at its deadline all the same).
FIRST_RATE = 20_000.0
#: With a clock, how far past its estimated count a PUCT search plans (it stops at the
#: deadline); the estimate rounded down to three bits would leave up to a quarter unused.
PUCT_MARGIN = 2.0


def load_net(weights: str, seed: int | None = None) -> NetArrays:
    """The net of ``weights``: ``zoo`` (``zoo/alphazero``), ``untrained`` or a file.

    Raises:
        WeightsError: the file is missing, corrupt or not an alphazero net.
    """
    if weights == UNTRAINED:
        return untrained_net(seed=seed or 0)
    if weights == "zoo":
        from checkers_agents.zoo import zoo_weights

        weights = str(zoo_weights("alphazero"))
    return read_net(weights)[0]


#: A search's settings, kept for the counts a clock asks for again (their schedule tables).
_settings = functools.lru_cache(maxsize=64)(make_settings)


def _clock_budget(simulations: float) -> int:
    """A simulation count from a clock, rounded down to three significant bits (so that few
    schedules are ever built)."""
    n = int(min(max(simulations, 8), MAX_SIMULATIONS))
    shift = max(n.bit_length() - 3, 0)
    return (n >> shift) << shift


@dataclass
class AlphaZeroSearch:
    """What the agent's last search found (``agent.last_search``)."""

    simulations: int = 0
    value: float = 0.0
    seconds: float = 0.0
    pv: list[Move] = field(default_factory=list)
    reused: int = 0  # visits kept from the last search at the root (``reuse``)


class AlphaZeroAgent(BaseAgent):
    """Gumbel AlphaZero's search (or PUCT's) with a policy-value net, one hop per tree level.

    Args:
        weights: ``zoo`` (``zoo/alphazero``), ``untrained`` (initial weights from ``seed``)
            or a safetensors file written by ``checkers train alphazero``.
        simulations: simulations per decision (after the root's evaluation), up to 1048576.
        time: seconds per move; when given, the simulations of each decision follow from
            the agent's measured speed, and the search stops at the deadline.
        search: ``gumbel`` (sequential halving at the root) or ``puct``.
        considered: hops sampled at the root by Gumbel's sequential halving.
        through_forced: a descent plays a hop that is the only legal one on, instead of
            stopping there for the net.
        widen: below the root, each hop's first visit comes once its node has ``widen``
            visits per hop (0: never forced; Gumbel's rule only, PUCT explores by itself).
        c_visit, c_scale: Gumbel's scale of the completed q-values, ``sigma(q) = (c_visit +
            max_b N(b)) * c_scale * q`` (mctx's ``maxvisit_init`` and ``value_scale``): the
            larger, the more the values outweigh the net's prior in the choice of a hop.
        c_puct: PUCT's weight of the prior and the visits against the mean value.
        c_puct_base: PUCT's weight grows to ``c_puct + log((1 + N + c_puct_base) /
            c_puct_base)`` at a node whose hops hold ``N`` visits (AlphaZero's; 0, the
            default: it stays ``c_puct``).
        prior_temperature: PUCT's prior is ``softmax(logits / prior_temperature)``: above
            1 the visits spread over more hops than the net's policy would give them.
        fpu_reduction: PUCT values a hop not yet visited this much below its node's net
            value, times the square root of the prior its visited siblings hold (0: at the
            net value).
        reuse: with PUCT, a search starts from the subtree of the last one that the moves
            since reached (AlphaZero's habit), so its visits count again; only when the game
            is the one the last search was for, continued. Gumbel's root always starts
            fresh: sequential halving schedules the visits of unvisited hops.
        egdb: play with the endgame database of up to this many pieces (2 to 6; 0, the
            default: off; it must be built, ``checkers egdb build --pieces 5``): a position
            it holds is a known end below the root, and at a root it holds the agent plays
            the first of its best moves by distance (``EndgameDatabase.best_moves``) without
            a search. Never part of training.
        egdb_folder: the database's folder (default ``checkers_env.egdb.default_folder()``).
        seed: for ``weights=untrained``; the search itself draws nothing when it plays.

    Raises:
        UnknownAgentError: a parameter out of range.
        WeightsError: the weights are missing, corrupt or not an alphazero net.
        EndgameDatabaseError: ``egdb`` names a database that is not built.
    """

    kind = "alphazero"
    #: Seconds any one move's search may take at most, whatever ``simulations`` asks
    #: (None: no limit). Whoever serves the agent to others sets it (``checkers serve``:
    #: its think limit); the search then looks at the clock every ``CHUNK`` simulations.
    think_limit: float | None = None

    def __init__(
        self,
        weights: file_path_or("zoo", UNTRAINED) = "zoo",
        simulations: int = 64,
        time: float | None = None,
        search: str = "gumbel",
        considered: int = 16,
        through_forced: bool = True,
        widen: int = 4,
        c_visit: float = 50.0,
        c_scale: float = 0.1,
        c_puct: float = 1.25,
        c_puct_base: float = 0.0,
        prior_temperature: float = 1.0,
        fpu_reduction: float = 0.0,
        reuse: bool = True,
        egdb: int = 0,
        egdb_folder: FilePath | None = None,
        seed: int | None = None,
    ):
        super().__init__(seed=seed)
        if search not in METHODS:
            raise UnknownAgentError(f"alphazero: search must be one of {', '.join(METHODS)}, got {search!r}")
        if not 1 <= simulations <= MAX_SIMULATIONS or considered < 1:
            raise UnknownAgentError(
                f"alphazero: simulations must be from 1 to {MAX_SIMULATIONS} and considered at"
                f" least 1, got {simulations} and {considered}"
            )
        if widen < 0:
            raise UnknownAgentError(f"alphazero: widen must be 0 or more visits per hop, got {widen}")
        if not (c_visit >= 0 and c_scale > 0 and c_puct > 0):
            raise UnknownAgentError(
                f"alphazero: c_visit must be 0 or more, c_scale and c_puct positive, got"
                f" {c_visit!r}, {c_scale!r} and {c_puct!r}"
            )
        if not (prior_temperature > 0 and fpu_reduction >= 0 and c_puct_base >= 0):
            raise UnknownAgentError(
                f"alphazero: prior_temperature must be positive, fpu_reduction and c_puct_base"
                f" 0 or more, got {prior_temperature!r}, {fpu_reduction!r} and {c_puct_base!r}"
            )
        if time is not None and not time > 0:
            raise UnknownAgentError(f"alphazero: time must be a positive number of seconds, got {time!r}")
        self.egdb = _egdb.check_pieces(egdb, f"{self.kind}: egdb", off=True)
        self.egdb_folder = None if egdb_folder is None else str(egdb_folder)
        self.database = _egdb.EndgameDatabase.cached(self.egdb, self.egdb_folder) if self.egdb else None
        self.probe = None if self.database is None else probe_of(self.database)
        self.weights, self.simulations, self.time = weights, simulations, time
        self.search, self.considered = search, considered
        self.through_forced, self.widen = through_forced, widen
        self.c_visit, self.c_scale, self.c_puct = float(c_visit), float(c_scale), float(c_puct)
        self.prior_temperature, self.fpu_reduction = float(prior_temperature), float(fpu_reduction)
        self.c_puct_base = float(c_puct_base)
        self.reuse = bool(reuse)
        # The game (start, rules, moves) whose position the tree's root holds, if it may be reused.
        self._kept: tuple | None = None
        self.net = load_net(weights, seed)
        self.leaves = new_leaves(1, self.net.scratch_size)
        self.tree = new_tree(1, min(NODES_PER_SIMULATION * (simulations + 1) + 48, MAX_NODES))
        self.rate: float | None = None  # simulations per second, measured
        # Compile (or load) the kernels now, so that no clock pays for it.
        self.time, self.simulations = None, 2
        self.select_move(Game())
        reroot(self.tree, 0, follow_line(self.tree, 0, np.zeros(0, np.int64), 0), _scratch(self.tree))
        self.time, self.simulations, self._kept = time, simulations, None
        self.last_search: AlphaZeroSearch | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._kept = None

    @staticmethod
    def _rows(game: Game):
        """Search rows whose root is the game's position, with its history."""
        rules = game.rules.as_array()
        rows = new_rows(1, rules)
        board = game.board
        resume_board(
            rows.root_state,
            rows.root_positions,
            rows.last,
            0,
            board.black,
            board.white,
            board.kings,
            int(board.turn),
            len(game.moves),
            np.array(game.position_keys_since_progress()),
            rules,
        )
        return rows

    def select_move(self, game: Game) -> Move:
        if game.is_over():
            raise IllegalMoveError(f"the game is over; no move to choose in {game.board.fen()}")
        began = clock.perf_counter()
        deadline = None if self.time is None else began + self.time
        stop = min(deadline or math.inf, began + (self.think_limit or math.inf))
        stop = None if stop == math.inf else stop
        board = game.board
        if self.database is not None and board in self.database:
            return self._database_move(board, began)
        rows = self._rows(game)
        _, _, _, move_record = new_batch(1, 1, 1)
        mask = np.zeros((1, NUM_ACTIONS), np.int8)
        words = mask_words(mask)
        report = AlphaZeroSearch(reused=self._reroot(game))
        kept = (game.start, game.rules, list(game.moves))
        # The hops the move's one search expects; the rest of a multi-jump follows them, so
        # each choice inside it has the whole search's visits, not a search of its own with
        # no time left.
        line: list[int] = []
        while True:
            write_mask(rows.root_state, 0, words[0])
            legal = np.flatnonzero(mask[0])
            if line and mask[0, line[0]]:
                action = line.pop(0)
            elif len(legal) == 1:
                action, line = int(legal[0]), []
            else:
                at_root = kept is not None  # the move's first hop, from the tree's root
                action, line = self._search(rows, deadline, report, reused=at_root and report.reused > 0, stop=stop)
                self._kept = kept if at_root and self._reusing else None
            kept = None
            status = hop(rows.root_state, rows.root_positions, move_record, 0, action, rows.rules)
            if status == HOP_ILLEGAL:  # the tree only holds legal hops
                raise AssertionError(f"the search chose an illegal hop {action} in {board.fen()}")
            if status == HOP_COMPLETES:
                report.seconds = clock.perf_counter() - began
                self.last_search = report
                return move_from_row(move_record[0, 0])

    @property
    def _reusing(self) -> bool:
        return self.reuse and self.search == "puct"

    def _reroot(self, game: Game) -> int:
        """Make the tree's root the game's position if the last search's tree reaches it
        (the game is the one searched, continued); returns the visits it keeps there."""
        kept, self._kept = self._kept, None
        if kept is None or not self._reusing:
            return 0
        start, rules, moves = kept
        if (
            (game.start, game.rules) != (start, rules)
            or len(game.moves) <= len(moves)
            or game.moves[: len(moves)] != moves
        ):
            return 0
        hops = [
            hop_action(board.turn == Color.BLACK, a, b)
            for board, move in zip(game.boards[len(moves) :], game.moves[len(moves) :])
            for a, b in zip(move.path, move.path[1:])
        ]
        node = follow_line(self.tree, 0, np.array(hops, np.int64), len(hops))
        if node < 0 or self.tree.children[0, node] == 0:
            return 0
        reroot(self.tree, 0, node, _scratch(self.tree))
        self._kept = (game.start, game.rules, list(game.moves))
        return int(self.tree.visits[0, 0])

    def _database_move(self, board, began: float) -> Move:
        """The first of the endgame database's best moves at a root it holds."""
        move = self.database.best_moves(board)[0]
        value = {_egdb.WIN: 1.0, _egdb.LOSS: -1.0}.get(self.database.probe(board).value, 0.0)
        self.last_search = AlphaZeroSearch(0, value, clock.perf_counter() - began, [move])
        return move

    def _search(
        self, rows, deadline: float | None, report: AlphaZeroSearch, reused: bool = False, stop: float | None = None
    ) -> tuple[int, list[int]]:
        """One decision's search from the root row (on from the tree's visits there if
        ``reused``); returns its hop and the hops the search expects after it. ``deadline``
        is ``time``'s, which sets the count; the search stops at ``stop`` (``deadline``
        within ``think_limit``) wherever it is."""
        started = clock.perf_counter()
        n = self.simulations
        if deadline is not None:
            # PUCT stops at the deadline wherever it is, so it may plan past the estimate and
            # use the whole time; Gumbel's sequential halving needs a count it can finish.
            margin = PUCT_MARGIN if self.search == "puct" else 1.0
            n = _clock_budget((self.rate or FIRST_RATE) * max(deadline - started, 0.0) * margin)
        settings = _settings(
            # By name: eleven numbers, several of one type, where a slip in order would type-check.
            SearchConstants(
                method=self.search,
                simulations=n,
                considered=self.considered,
                c_visit=self.c_visit,
                c_scale=self.c_scale,
                c_puct=self.c_puct,
                through_forced=self.through_forced,
                widen=self.widen,
                prior_temperature=self.prior_temperature,
                fpu_reduction=self.fpu_reduction,
                c_puct_base=self.c_puct_base,
            )
        )
        if self.probe is not None:
            settings = settings._replace(egdb=self.probe)
        kept = int(self.tree.size[0]) if reused else 0
        nodes = min(kept + NODES_PER_SIMULATION * (n + 1) + 48, MAX_NODES)
        if self.tree.parent.shape[1] < nodes:
            self.tree = _grown(self.tree, nodes, kept)
        live = np.ones(1, np.bool_)
        if not reused:
            start_searches(self.tree, rows, self.leaves, self.net, live)
        done = 0
        while done < n:
            step = n - done if stop is None else min(CHUNK, n - done)
            run_simulations(self.tree, rows, settings, self.leaves, self.net, live, done, done + step)
            done += step
            if stop is not None and clock.perf_counter() > stop:
                break
        seconds = clock.perf_counter() - started
        if deadline is not None and done >= CHUNK and seconds > 0:
            rate = done / seconds
            self.rate = rate if self.rate is None else (self.rate + rate) / 2
        policy = np.zeros(NUM_ACTIONS, np.float32)
        action = int(conclude(self.tree, settings, self.leaves, 0, policy))
        hops = np.zeros(64, np.int64)
        line = [int(h) for h in hops[: principal_hops(self.tree, 0, action, hops)]]
        if report.simulations == 0:
            report.value = float(root_value(self.tree, 0))
            report.pv = _moves_of(rows, line)
        report.simulations += done
        return action, line[1:]


def _scratch(tree: Tree) -> np.ndarray:
    """``reroot``'s scratch for ``tree``."""
    return np.empty(tree.parent.shape[1], np.int32)


def _grown(tree: Tree, nodes: int, kept: int) -> Tree:
    """A tree of ``nodes`` nodes holding the first ``kept`` nodes of ``tree``."""
    grown = new_tree(1, nodes)
    for old, new in zip(tree, grown):
        if old.ndim == 2:
            new[:, :kept] = old[:, :kept]
    grown.size[:] = tree.size
    return grown


def _moves_of(rows, line: list[int]) -> list[Move]:
    """The complete moves of the hops the search expects (the last may be cut short)."""
    state, positions = rows.root_state.copy(), rows.root_positions.copy()
    _, _, _, record = new_batch(1, 1, 1)
    moves = []
    for action in line:
        record[:] = 0
        state[0, S_LAST_COUNT] = 0  # record the next complete move in slot 0
        if hop(state, positions, record, 0, int(action), rows.rules) == HOP_COMPLETES:
            moves.append(move_from_row(record[0, 0]))
            if state[0, S_END] != END_NONE:
                break
    return moves


__all__ = ["AlphaZeroAgent", "AlphaZeroSearch", "load_net"]
