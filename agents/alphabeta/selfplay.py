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
``generate_moves`` lists; the search's is ``alphabeta.negamax.search_to_depth`` from
``first_depth`` to ``depth``, its root in generator order, exact ties broken on the game's
stream.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from checkers_env.bitboard import apply_move, popcount
from checkers_env.egdb_index import probe_board
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

from .negamax import DrawRules, Position, search_to_depth

POLICY_RANDOM, POLICY_SEARCH, POLICY_MIXED, POLICY_EPSILON = 0, 1, 2, 3
#: ``move_kind`` of a position: its move was uniformly random, the search's, or it is the
#: game's last position (no move).
MOVE_RANDOM, MOVE_SEARCH, MOVE_NONE = 0, 1, -1
#: ``game_end`` of a game ended by the endgame database (the game state's ``END_*`` values are below 10).
END_EGDB = 10

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
#: (``memory.Table``), ``flat`` (``memory.FlatMemory``), ``egdb`` (``negamax.EndgameProbe``)
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
    """
    rules = batch.rules
    starts = batch.starts
    cap = rules[RULE_MAX_PLIES]
    keys = np.zeros((1, history_for(rules)), dtype=np.int64)
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    repetition = rules[RULE_REPETITION]
    no_progress = rules[RULE_NO_PROGRESS_PLIES]
    kind = policy.policy
    egdb = setup.egdb
    adjudicate = setup.adjudicate and egdb.pieces > 0
    generation = 0
    n = 0
    nodes = 0
    for j in range(batch.count):
        g = batch.first_game + j
        rng = seed_state(batch.seed, g)
        s = g % starts.shape[0]
        black = starts[s, 3] != 0
        mover = starts[s, 0] if black else starts[s, 1]
        opponent = starts[s, 1] if black else starts[s, 0]
        kings = starts[s, 2]
        quiet = 0
        ply = 0
        keys[0, 0] = position_key(starts[s, 0], starts[s, 1])
        end = END_NONE
        winner = NO_WINNER
        while True:
            count = generate_moves(mover, opponent, kings, black, moves)
            b = mover if black else opponent
            w = opponent if black else mover
            record.black[n] = b
            record.white[n] = w
            record.kings[n] = kings
            record.black_to_move[n] = black
            record.game[n] = g
            record.ply[n] = ply
            record.search_value[n] = np.nan
            record.move_kind[n] = MOVE_NONE
            end = end_of_game(count > 0, ply, quiet, keys, 0, position_key(b, w), rules)
            if end != END_NONE or ply >= cap:
                winner = winner_of(end, COLOR_BLACK if black else COLOR_WHITE)
                n += 1
                break
            if adjudicate and popcount(mover | opponent) <= egdb.pieces:
                byte = probe_board(egdb.values, egdb.offsets, b, w, kings, black)
                if byte >= 0:
                    end = END_EGDB
                    if byte == 0:
                        winner = NO_WINNER
                    elif (byte - 1) % 2 == 1:  # a win for the side to move
                        winner = COLOR_BLACK if black else COLOR_WHITE
                    else:
                        winner = COLOR_WHITE if black else COLOR_BLACK
                    n += 1
                    break
            searched, rng = searches(kind, policy.rate, policy.random_plies, ply, rng)
            if searched:
                draw_rules = DrawRules(
                    keys[0], min(quiet + 1, keys.shape[1]) if repetition > 0 else 0, quiet, no_progress
                )
                value, _d, _c, used, generation, choice, rng = search_to_depth(
                    Position(mover, opponent, kings, black), policy.first_depth, policy.depth, True,
                    setup.valuation, net, draw_rules, generation, setup.table, setup.flat, egdb, rng,
                )
                nodes += used
                record.search_value[n] = value
                record.move_kind[n] = MOVE_SEARCH
            else:
                rng, choice = random_below(rng, count)
                record.move_kind[n] = MOVE_RANDOM
            n += 1
            frm = moves[choice, FROM]
            captured = moves[choice, CAPTURED]
            progress = is_progress(kings, frm, captured)
            m, o, k = apply_move(mover, opponent, kings, black, frm, moves[choice, TO], captured)
            mover, opponent, kings, black = o, m, k, not black
            ply += 1
            quiet = count_move(keys, 0, quiet, progress, mover if black else opponent, opponent if black else mover)
        record.game_length[j] = ply
        record.game_result[j] = 1 if winner == COLOR_BLACK else (-1 if winner == COLOR_WHITE else 0)
        record.game_end[j] = end
    return n, nodes


def empty_record(games: int, max_plies: int) -> GameRecord:
    """A :data:`GameRecord` for ``games`` games of at most ``max_plies`` plies."""
    rows = games * (int(max_plies) + 1)
    return GameRecord(
        np.zeros(rows, np.int64), np.zeros(rows, np.int64), np.zeros(rows, np.int64), np.zeros(rows, np.bool_),
        np.zeros(rows, np.int64), np.zeros(rows, np.int32), np.zeros(rows, np.int8), np.zeros(rows, np.float32),
        np.zeros(games, np.int32), np.zeros(games, np.int8), np.zeros(games, np.int8),
    )


__all__ = [
    "END_EGDB",
    "GameBatch",
    "GameRecord",
    "MOVE_NONE",
    "MOVE_RANDOM",
    "MOVE_SEARCH",
    "MovePolicy",
    "POLICY_EPSILON",
    "POLICY_MIXED",
    "POLICY_RANDOM",
    "POLICY_SEARCH",
    "SearchSetup",
    "empty_record",
    "play_games",
    "searches",
]
