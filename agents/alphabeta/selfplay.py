"""The one self-play kernel: whole games of the alpha-beta search against itself, every
position written out, each move chosen by a policy switch.

Game ``g`` plays on the xorshift stream ``seed_state(seed, g)`` from start row ``g mod S``,
so a game depends on the seed, its index and the settings only, never on the batch it falls
in. The game ends by the core's numba game state (``checkers_env.game_state.end_of_game``:
no legal move, the move cap, repetition, no progress), or, with an endgame database that
adjudicates, at the first position the database holds.

Policies (:data:`MovePolicy`), after ``random_plies`` uniformly random moves:

- ``POLICY_RANDOM``: every move uniformly random;
- ``POLICY_SEARCH``: every move the search's;
- ``POLICY_MIXED``: each move draws ``r = random_below(rng, 2**30)``; the search's move
  when ``r < int(rate * 2**30)``, else a uniformly random one;
- ``POLICY_EPSILON``: with ``rate > 0`` each move draws ``r`` as above; a uniformly random
  move when ``r < rate * 2**30``, else the search's.

A uniformly random move is ``random_below(rng, n)`` among the ``n`` moves that
``generate_moves`` lists; the search's is a new search each move, as
``alphabeta.deepening.search_to_depth``'s: iterative deepening from ``first_depth`` to
``depth``, its root in generator order, exact ties broken on the game's stream.

The game loop is built of four numba pieces, each inlined where it is used, that every
self-play loop of the suite composes: :func:`start_game`, :func:`game_over` (the core's end
decision, then the endgame database's adjudication), :func:`choose_move` (the policy switch,
then the search or a random move) and :func:`advance` (the move played, counted in the
core's game state), on a :data:`GameState`. :func:`play_games` is the loop that writes
every position; a learner that changes its net between moves (td-minimax's) runs the same
pieces with its learning step between :func:`advance` and the next :func:`game_over`. The
pieces are composed rather than one loop taking a hook because numba has no cheap function
argument for a cached kernel: a loop calls its learning step directly, and the pieces
compile into it with the loop's own settings.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from checkers_agents.search_parts.bundles import zeroed
from checkers_agents.search_parts.endgame_probe import END_EGDB
from checkers_agents.search_parts.position import Position
from checkers_env.bitboard import apply_move, popcount
from checkers_env.egdb.index import WDL_DRAW, WDL_WIN, probe_board
from checkers_env.game_state import (
    COLOR_BLACK,
    COLOR_WHITE,
    END_NONE,
    NO_WINNER,
    RULE_MAX_PLIES,
    RULE_NO_PROGRESS_PLIES,
    RULE_REPETITION,
    count_move,
    end_of_game,
    history_for,
    is_progress,
    position_key,
    winner_of,
)
from checkers_env.movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves, random_below, seed_state

from .deepening import deepen, pick_tied
from .negamax import DrawRules
from .pruning import SearchOptions
from .stack import begin_search, memory_views
from .transposition import next_generation

POLICY_RANDOM, POLICY_SEARCH, POLICY_MIXED, POLICY_EPSILON = 0, 1, 2, 3
#: ``move_kind`` of a position: its move was uniformly random, the search's, or it is the
#: game's last position (no move).
MOVE_RANDOM, MOVE_SEARCH, MOVE_NONE = 0, 1, -1

#: Which games: game ``first_game + j`` for ``j < count`` on stream ``seed_state(seed,
#: first_game + j)`` from row ``(first_game + j) mod S`` of ``starts`` (``int64[S, 4]``:
#: black, white, kings, black to move), under ``rules`` (``int64[RULE_FIELDS]``; a move cap
#: is required: it bounds the buffers).
GameBatch = namedtuple("GameBatch", "seed first_game count starts rules")
#: How moves are chosen (see the module docstring): ``policy`` one of ``POLICY_*``,
#: ``rate`` its share, ``random_plies`` uniformly random moves first, then the search from
#: ``first_depth`` to ``depth`` plies.
MovePolicy = namedtuple("MovePolicy", "policy rate random_plies first_depth depth")
#: The search's setup: ``valuation`` (``evaluators.Valuation``), ``table``
#: (``transposition.Table``), ``flat`` (``stack.FlatMemory``), ``egdb``
#: (``search_parts.endgame_probe.EndgameProbe``)
#: and ``adjudicate``: end a game at the first position the database holds.
SearchSetup = namedtuple("SearchSetup", "valuation table flat egdb adjudicate")
#: Where the games go: per position ``black``, ``white``, ``kings``, ``black_to_move``,
#: ``game``, ``ply``, ``move_kind`` (``MOVE_*``) and ``search_value`` (the search's root
#: value, NaN where the move was not searched); per game (index ``j``) ``game_length``
#: (plies), ``game_result`` (+1 Black won, -1 White won, 0 drawn) and ``game_end``
#: (``END_*``). Position arrays need ``count * (max plies + 1)`` rows.
GameRecord = namedtuple(
    "GameRecord",
    "black white kings black_to_move game ply move_kind search_value game_length game_result game_end",
)


@numba.njit(cache=True, inline="always")
def searches(kind, rate, random_plies, ply, rng):
    """The policy switch (see the module docstring): whether the move at ``ply`` is the
    search's (else a uniformly random one) under policy ``kind`` (``POLICY_*``) with its
    ``rate``, after ``random_plies`` random plies; returns ``(searched, rng)``, the xorshift
    state after any draw."""
    if ply < random_plies or kind == POLICY_RANDOM:
        return False, rng
    if kind == POLICY_MIXED:
        rng, r = random_below(rng, 1 << 30)
        return r < np.int64(rate * (1 << 30)), rng
    if kind == POLICY_EPSILON and rate > 0.0:
        rng, r = random_below(rng, 1 << 30)
        return not r < rate * (1 << 30), rng
    return True, rng


#: A game in play, what the pieces pass on: ``position`` (``search_parts.position.Position``),
#: ``ply`` (plies played), ``quiet`` (plies since the last capture or man move), and the game's
#: buffers: ``keys`` (``int64[1, history_for(rules)]``, the core's game state), ``rules``
#: (``int64[RULE_FIELDS]``) and ``moves`` (``int64[MAX_MOVES, MOVE_FIELDS]``: the
#: position's moves once :func:`game_over` listed them).
GameState = namedtuple("GameState", "position ply quiet keys rules moves")


@numba.njit(cache=True, inline="always")
def start_game(position, keys, rules, moves):
    """The :data:`GameState` of a game starting at ``position``
    (``search_parts.position.Position``) in the buffers ``keys``, ``rules`` and ``moves``."""
    mover, opponent, _kings, black = position
    keys[0, 0] = position_key(mover if black else opponent, opponent if black else mover)
    return GameState(position, 0, 0, keys, rules, moves)


@numba.njit(cache=True, inline="always")
def game_over(state, egdb, adjudicate):
    """Whether the game is over: lists the position's moves into ``state.moves``, then
    decides the end by the core's ``end_of_game`` and, with ``adjudicate``, at a position
    the endgame database ``egdb`` (``search_parts.endgame_probe.EndgameProbe``) holds
    (``END_EGDB``, its result).

    Returns:
        ``(moves listed, end, winner)``: an ``END_*`` code (``END_NONE``: the game goes on)
        and a colour or ``NO_WINNER``.
    """
    mover, opponent, kings, black = state.position
    count = generate_moves(mover, opponent, kings, black, state.moves)
    b = mover if black else opponent
    w = opponent if black else mover
    end = end_of_game(count > 0, state.ply, state.quiet, state.keys, 0, position_key(b, w), state.rules)
    if end != END_NONE:
        return count, end, winner_of(end, COLOR_BLACK if black else COLOR_WHITE)
    if adjudicate and popcount(mover | opponent) <= egdb.pieces:
        code = probe_board(egdb.tables, egdb.offsets, b, w, kings, black)
        if code >= 0:
            if code == WDL_DRAW:
                return count, END_EGDB, NO_WINNER
            if code == WDL_WIN:  # for the side to move
                return count, END_EGDB, COLOR_BLACK if black else COLOR_WHITE
            return count, END_EGDB, COLOR_WHITE if black else COLOR_BLACK
    return count, END_NONE, NO_WINNER


@numba.njit(cache=True, inline="always")
def choose_move(state, count, policy, setup, memory, net, generation, rng, fresh):
    """The move at ``state``: the policy switch (:func:`searches`), then a uniformly random
    move among the ``count`` listed or the search's (``deepening.deepen`` from
    ``policy.first_depth`` to ``policy.depth``, its root in generator order, exact ties
    broken on ``rng``).

    Args:
        state: the game (:data:`GameState`), its moves listed (:func:`game_over`).
        count: how many moves :func:`game_over` listed.
        policy: how moves are chosen (:data:`MovePolicy`).
        setup: the search (:data:`SearchSetup`).
        memory: the search's memory, ``setup.flat`` as views (``stack.memory_views``,
            made once per game or batch).
        net: the evaluator's ``net`` arrays, None for a hand-written kind.
        generation: the table generation of the game's last search.
        rng: the xorshift state.
        fresh: begin each search as an agent's begins (``stack.begin_search``: no
            killers, history halved); else only a new table generation, the killers and
            history of the game's last search kept.

    Returns:
        ``(row, searched, value, nodes, generation, rng)``: the move's row of
        ``state.moves``, whether the search chose it, its root value (NaN when not
        searched), the nodes searched, the table generation and the xorshift state.
    """
    searched, rng = searches(policy.policy, policy.rate, policy.random_plies, state.ply, rng)
    if not searched:
        rng, row = random_below(rng, count)
        return row, False, np.nan, 0, generation, rng
    keys = state.keys
    quiet = state.quiet
    rules = state.rules
    draw_rules = DrawRules(
        keys[0],
        min(quiet + 1, keys.shape[1]) if rules[RULE_REPETITION] > 0 else 0,
        quiet,
        rules[RULE_NO_PROGRESS_PLIES],
        0.0,
    )
    table = setup.table
    if fresh:
        generation = begin_search(generation, table, memory.killers, memory.history_scores)
    else:
        generation = next_generation(generation, table)
    in_order = SearchOptions(True, None)  # the exact search, its root in generator order
    value, _reached, searched_count, nodes = deepen(
        state.position,
        policy.first_depth,
        policy.depth,
        in_order,
        setup.valuation,
        net,
        draw_rules,
        generation,
        table,
        memory,
        setup.egdb,
    )
    row, rng = pick_tied(memory.root_scores, searched_count, rng)
    return row, True, value, nodes, generation, rng


@numba.njit(cache=True, inline="always")
def advance(state, row):
    """The :data:`GameState` after the move in row ``row`` of ``state.moves``, counted in
    the core's game state."""
    mover, opponent, kings, black = state.position
    moves = state.moves
    frm = moves[row, FROM]
    captured = moves[row, CAPTURED]
    progress = is_progress(kings, frm, captured)
    m, o, k = apply_move(mover, opponent, kings, black, frm, moves[row, TO], captured)
    quiet = count_move(state.keys, 0, state.quiet, progress, m if black else o, o if black else m)
    return GameState(Position(o, m, k, not black), state.ply + 1, quiet, state.keys, state.rules, moves)


@numba.njit(cache=True)
def play_games(batch, policy, setup, net, record):
    """Play a batch of games and write every position (see the module docstring).

    Args:
        batch: which games (:data:`GameBatch`).
        policy: how moves are chosen (:data:`MovePolicy`).
        setup: the search (:data:`SearchSetup`).
        net: the evaluator's ``net`` arrays, None for a hand-written kind (an argument of
            its own, so that the search settles ``net is None`` at compile time).
        record: where the positions and games go (:data:`GameRecord`).

    Returns:
        ``(positions written, nodes searched)``.

    Raises:
        ValueError: the rules have no move cap, or the record has too few rows for it.
    """
    cap = batch.rules[RULE_MAX_PLIES]
    if cap <= 0:
        raise ValueError("play_games needs a move cap (rules[RULE_MAX_PLIES] > 0): it bounds the record")
    if record.black.shape[0] < batch.count * (cap + 1) or record.game_length.shape[0] < batch.count:
        raise ValueError("play_games: the record is too small for count games of the move cap (see empty_record)")
    keys = np.zeros((1, history_for(batch.rules)), dtype=np.int64)
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    return _play_batch(batch, policy, setup, net, record, keys, moves)


# The loop, compiled without numba's reference counting (as the search kernel is, see
# ``negamax.search_kernel``): it allocates nothing, and counted, every game state and every
# bundle the pieces pass on took atomic increments and decrements per move.
@numba.njit(cache=True, _nrt=False)
def _play_batch(batch, policy, setup, net, record, keys, moves):
    """:func:`play_games`'s loop, in the buffers it allocated (the game state's ``keys``
    and ``moves``)."""
    rules = batch.rules
    starts = batch.starts
    adjudicate = setup.adjudicate and setup.egdb.pieces > 0
    memory = memory_views(setup.flat)
    generation = 0
    n = 0
    nodes = 0
    for j in range(batch.count):
        g = batch.first_game + j
        rng = seed_state(batch.seed, g)
        s = g % starts.shape[0]
        black = starts[s, 3] != 0
        mover, opponent = (starts[s, 0], starts[s, 1]) if black else (starts[s, 1], starts[s, 0])
        state = start_game(Position(mover, opponent, starts[s, 2], black), keys, rules, moves)
        while True:
            mover, opponent, kings, black = state.position
            record.black[n] = mover if black else opponent
            record.white[n] = opponent if black else mover
            record.kings[n] = kings
            record.black_to_move[n] = black
            record.game[n] = g
            record.ply[n] = state.ply
            record.search_value[n] = np.nan
            record.move_kind[n] = MOVE_NONE
            count, end, winner = game_over(state, setup.egdb, adjudicate)
            if end != END_NONE:
                n += 1
                break
            row, searched, value, used, generation, rng = choose_move(
                state, count, policy, setup, memory, net, generation, rng, True
            )
            if searched:
                nodes += used
                record.search_value[n] = value
                record.move_kind[n] = MOVE_SEARCH
            else:
                record.move_kind[n] = MOVE_RANDOM
            n += 1
            state = advance(state, row)
        record.game_length[j] = state.ply
        record.game_result[j] = 1 if winner == COLOR_BLACK else (-1 if winner == COLOR_WHITE else 0)
        record.game_end[j] = end
    return n, nodes


def empty_record(games: int, max_plies: int) -> GameRecord:
    """A :data:`GameRecord` for ``games`` games of at most ``max_plies`` plies."""
    rows = games * (int(max_plies) + 1)
    return zeroed(GameRecord, (rows, "i8 i8 i8 ? i8 i4 i1 f4"), (games, "i4 i1 i1"))


__all__ = [
    "GameBatch",
    "GameRecord",
    "GameState",
    "MOVE_NONE",
    "MOVE_RANDOM",
    "MOVE_SEARCH",
    "MovePolicy",
    "POLICY_EPSILON",
    "POLICY_MIXED",
    "POLICY_RANDOM",
    "POLICY_SEARCH",
    "SearchSetup",
    "advance",
    "choose_move",
    "empty_record",
    "game_over",
    "play_games",
    "searches",
    "start_game",
]
