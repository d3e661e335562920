"""One self-play training game of td-minimax as a single numba function.

The same net plays both sides. Each turn the side to move chooses its move by the search;
then one backpropagation step takes the current position (inputs from the mover's view) to
the net's output for the chosen position *seen from the same player*: the chosen position
has the opponent to move, so its outputs ``(opponent's, mover's)`` are swapped into
``(mover's, opponent's)`` to form the target. At the end, two corrections on the final
position: the winner's view towards ``(1, 0)``, then the loser's view towards ``(0, 1)``;
on a draw both views towards ``(0, 0)``.

The game ends under the suite's draw rules, decided by the core's
``checkers_env.game_state.end_of_game`` after every move, as in ``Game`` and the envs.
Its moves follow the one self-play kernel's policy switch (``alphabeta.selfplay.searches``,
``POLICY_EPSILON``: random plies, then epsilon). The game keeps a loop of its own beside
``alphabeta.selfplay.play_games`` because it learns between moves (the net its search
reads changes after every searched move) and keeps the search's killers and history from
one move to the next.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from checkers_env.bitboard import BB_BLACK_START, BB_WHITE_START, apply_move
from checkers_env.encoding import active_inputs
from checkers_env.game_state import (
    COLOR_BLACK,
    COLOR_WHITE,
    END_NO_MOVES,
    END_NONE,
    NO_WINNER,
    count_move,
    end_of_game,
    history_for,
    is_progress,
    position_key,
    rules_array,
    winner_of,
)
from checkers_env.movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves, random_below

from checkers_agents.alphabeta.evaluators import EVAL_NET, REWARD_NONE, SIGMOID, Valuation
from checkers_agents.alphabeta.memory import (
    MAX_PLY,
    STACK_FIELDS,
    TT_FIELDS,
    TT_MIN_DEPTH,
    VALUE_FIELDS,
    SearchMemory,
    Table,
    next_generation,
)
from checkers_agents.alphabeta.negamax import DrawRules, Position, no_egdb, pick_tied, search_kernel
from checkers_agents.alphabeta.selfplay import POLICY_EPSILON, searches

from .agent import TT_BITS
from .net import LOSS, LOSS_PER_PLY, MAX_ACTIVE, forward, sgd_step

# The results in ``result[R_WINNER]``: the core's winner encoding.
BLACK_WON = COLOR_BLACK
WHITE_WON = COLOR_WHITE
DRAW = NO_WINNER

#: Fields of the ``result`` array that :func:`play_training_game` fills.
(
    R_WINNER,  # BLACK_WON, WHITE_WON or DRAW (the game's result under the rules)
    R_TERMINATION,  # checkers_env.game_state END_* code
    R_BLOCKADE,  # 1 if the loser still had pieces (a win by blockade)
    R_COUNTED_AS_DRAW,  # 1 if the curriculum scored this win as a draw
    R_PLIES,
    R_STEPS,  # in-game backpropagation steps
    R_NODES,  # positions the searches visited
) = range(7)
RESULT_FIELDS = 7

#: How a training game is played and learnt from:
#:
#: - ``depth``: search depth in plies; ``quiescence``: search capture positions at the
#:   leaves on (see ``search``);
#: - ``lr_game``, ``lr_end``: in-game and after-game learning rates;
#: - ``blockade_counts``: False in the curriculum's first phase: a win by blockade (the
#:   loser has pieces but no move) is scored as a draw, in the search and at the end;
#: - ``epsilon``: probability of a uniformly random move instead of the searched one
#:   (exploration; such moves are not learnt from). 0 in the design document;
#: - ``random_plies``: the first plies are uniformly random (a random opening; not learnt
#:   from): the move ``random_below(rng, n)`` of the ``n`` moves ``generate_moves`` lists,
#:   so a game of random plies only can be replayed move for move;
#: - ``max_plies``, ``no_progress_plies``, ``repetition``: the draw rules (0 turns one off).
TrainingGame = namedtuple(
    "TrainingGame",
    "depth quiescence lr_game lr_end blockade_counts epsilon random_plies max_plies no_progress_plies repetition",
)


def training_game(
    depth: int, quiescence: bool, lr_game: float, lr_end: float, blockade_counts: bool, epsilon: float,
    random_plies: int, max_plies: int, no_progress_plies: int, repetition: int,
) -> TrainingGame:
    """A :data:`TrainingGame` with the types its kernel is compiled for."""
    return TrainingGame(
        int(depth), bool(quiescence), float(lr_game), float(lr_end), bool(blockade_counts), float(epsilon),
        int(random_plies), int(max_plies), int(no_progress_plies), int(repetition),
    )


#: The game loop's own buffers: the net's inputs of the position and of the chosen child,
#: its hidden units, the position's moves, the game's positions, the draw rules and the
#: core's game state (``game_state.rules_array``, ``history_for``).
GameBuffers = namedtuple("GameBuffers", "active child_active hidden moves history rules keys")


@numba.njit(cache=True)
def play_training_game(w1, b1, w2, b2, game, rng, result):
    """Play one self-play game from the start position and learn from it in place (see
    :func:`play_training_game_from` for the arguments and the return value)."""
    return play_training_game_from(Position(BB_BLACK_START, BB_WHITE_START, 0, True), w1, b1, w2, b2, game, rng, result)


@numba.njit(cache=True)
def play_training_game_from(start, w1, b1, w2, b2, game, rng, result):
    """Play one self-play game from a position and learn from it in place (the weights
    change).

    Args:
        start: the start position (``alphabeta.negamax.Position``; ``mover`` is Black when
            ``black_to_move``).
        w1, b1, w2, b2: the net (updated in place).
        game: how the game is played and learnt from (:data:`TrainingGame`).
        rng: xorshift64 state.
        result: ``int64[RESULT_FIELDS]`` receives the game's summary.

    Returns:
        ``(rng, loss_sum)``: the new generator state and the sum of the in-game steps'
        squared errors (the final corrections' errors are not included).
    """
    start_black = start.mover if start.black_to_move else start.opponent
    start_white = start.opponent if start.black_to_move else start.mover
    width = w1.shape[1]
    cap = game.max_plies if game.max_plies > 0 else 100000
    rules = rules_array(game.repetition, game.no_progress_plies, cap)
    keys = np.empty((1, history_for(rules)), dtype=np.int64)  # the core's game state, with ply and quiet
    keys[0, 0] = position_key(start_black, start_white)
    child_active = np.empty(MAX_ACTIVE, dtype=np.int64)
    buffers = GameBuffers(
        np.empty(MAX_ACTIVE, dtype=np.int64), child_active, np.empty(width, dtype=np.float64),
        np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64), np.empty((cap + 1, 4), dtype=np.int64), rules, keys,
    )
    # The search: the suite's alpha-beta with this net (updated in place) at the leaves;
    # its repetition test reads the game state's keys (``keys[0, :quiet + 1]``).
    net = (w1, b1, np.zeros((0, width)), np.zeros(0), w2, b2)
    net_functions = np.array([SIGMOID, SIGMOID, REWARD_NONE], dtype=np.int64)
    valuation = Valuation(
        EVAL_NET, net_functions, LOSS, LOSS_PER_PLY, 1.0 if game.blockade_counts else 0.0, 1.0, 1e-9, game.quiescence
    )
    # At depth TT_MIN_DEPTH or less only the root reaches the table, and a root searched in
    # generator order takes nothing from it: one entry (zeroing a full table per game costs).
    entries = np.zeros((1 << TT_BITS if game.depth > TT_MIN_DEPTH else 1, TT_FIELDS), dtype=np.int64)
    memory = SearchMemory(
        np.zeros((MAX_PLY, 2), dtype=np.int64),
        np.zeros((2, 32, 32), dtype=np.int64),
        np.empty((MAX_PLY, MAX_MOVES, MOVE_FIELDS), dtype=np.int64),
        np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64),
        np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64),
        np.empty((MAX_PLY, STACK_FIELDS), dtype=np.int64),
        child_active,
        np.empty((MAX_PLY, VALUE_FIELDS), dtype=np.float64),
        np.empty(MAX_MOVES, dtype=np.float64),
        np.empty(2 * width, dtype=np.float64),
        np.empty((0, 2, width), dtype=np.float64),  # no per-ply sums: every leaf sums afresh
    )
    # The design's self-play knows no endgame database.
    return _play(start, net, game, rng, result, buffers, valuation, Table(entries, entries.view(np.float64)), memory, no_egdb())


# The game's loop, compiled without numba's reference counting (as the search kernel is,
# see ``checkers_agents.alphabeta.negamax``): it allocates nothing, and counted, the arrays it hands
# each search and each learning step took atomic increments and decrements per move.
@numba.njit(cache=True, _nrt=False)
def _play(start, net, game, rng, result, buffers, valuation, table, memory, egdb):
    """:func:`play_training_game_from`'s game, in the buffers it allocated (``net``: the
    search's six arrays, ``w1, b1`` first and ``w2, b2`` last)."""
    w1, b1, _w_mid, _b_mid, w2, b2 = net
    active, child_active, hidden, moves, history, rules, keys = buffers
    root_scores = memory.root_scores
    depth = game.depth
    epsilon = game.epsilon
    random_plies = game.random_plies
    lr_game = game.lr_game
    repetition = game.repetition
    no_progress_plies = game.no_progress_plies
    generation = 0

    mover, opponent, kings, black = start
    quiet = 0
    ply = 0
    steps = 0
    nodes = 0
    loss_sum = 0.0
    # Positions of the game, absolute colours: (black, white, kings, black to move).
    history[0, 0] = mover if black else opponent
    history[0, 1] = opponent if black else mover
    history[0, 2] = kings
    history[0, 3] = 1 if black else 0
    termination = END_NONE
    while True:
        n = generate_moves(mover, opponent, kings, black, moves)
        key = position_key(history[ply, 0], history[ply, 1])
        termination = end_of_game(n > 0, ply, quiet, keys, 0, key, rules)
        if termination != END_NONE:
            break

        # The policy switch of the one self-play kernel: random plies, then epsilon.
        learn, rng = searches(POLICY_EPSILON, epsilon, random_plies, ply, rng)
        if not learn:
            rng, choice = random_below(rng, n)
        else:
            # A new table generation only: killers and history only order moves, and a
            # net's values are exact whatever the order; clearing them before each search
            # of a few dozen nodes is a cost of its own.
            generation = next_generation(generation, table.entries)
            draw_rules = DrawRules(
                keys[0], min(quiet + 1, keys.shape[1]) if repetition > 0 else 0, quiet, no_progress_plies
            )
            _, _, count, visited, _ = search_kernel(
                Position(mover, opponent, kings, black), depth, 1 << 62, True, valuation, net, draw_rules,
                generation, table, memory, egdb,
            )
            choice, rng = pick_tied(root_scores, count, rng)
            nodes += visited
        frm = moves[choice, FROM]
        captured = moves[choice, CAPTURED]
        progress = is_progress(kings, frm, captured)
        m, o, k = apply_move(mover, opponent, kings, black, frm, moves[choice, TO], captured)

        if learn:
            # Target: the chosen position's outputs seen from the same player. The net
            # sees it from its side to move (the opponent), so swap the two outputs.
            cn = active_inputs(o, m, k, not black, child_active)
            c0, c1 = forward(child_active, cn, w1, b1, w2, b2, hidden)
            na = active_inputs(mover, opponent, kings, black, active)
            loss_sum += sgd_step(active, na, c1, c0, lr_game, w1, b1, w2, b2, hidden)
            steps += 1

        mover, opponent, kings, black = o, m, k, not black
        ply += 1
        if black:
            history[ply, 0] = mover
            history[ply, 1] = opponent
        else:
            history[ply, 0] = opponent
            history[ply, 1] = mover
        history[ply, 2] = kings
        history[ply, 3] = 1 if black else 0
        quiet = count_move(keys, 0, quiet, progress, history[ply, 0], history[ply, 1])

    # The game is over in (mover, opponent, kings) with ``black`` to move.
    winner = winner_of(termination, COLOR_BLACK if black else COLOR_WHITE)
    blockade = 0
    counted_as_draw = 0
    if termination == END_NO_MOVES:
        blockade = 1 if mover != 0 else 0
        if blockade == 1 and not game.blockade_counts:
            counted_as_draw = 1
    _final_steps(
        Position(mover, opponent, kings, black), winner == DRAW or counted_as_draw == 1,
        game.lr_end, w1, b1, w2, b2, active, child_active, hidden,
    )

    result[R_WINNER] = winner
    result[R_TERMINATION] = termination
    result[R_BLOCKADE] = blockade
    result[R_COUNTED_AS_DRAW] = counted_as_draw
    result[R_PLIES] = ply
    result[R_STEPS] = steps
    result[R_NODES] = nodes
    return rng, loss_sum


@numba.njit(cache=True, inline="always")
def _final_steps(final, draw, lr, w1, b1, w2, b2, loser_active, winner_active, hidden):
    """The design document's two end-of-game corrections on the final position (a
    ``Position``), whose side to move has just lost unless the game is a ``draw``:
    first the winner's view (the board seen from the side that made the last move) towards
    (1, 0), then the loser's view towards (0, 1); on a draw both views towards (0, 0)."""
    mover, opponent, kings, black = final
    winner_n = active_inputs(opponent, mover, kings, not black, winner_active)
    loser_n = active_inputs(mover, opponent, kings, black, loser_active)
    if draw:
        sgd_step(winner_active, winner_n, 0.0, 0.0, lr, w1, b1, w2, b2, hidden)
        sgd_step(loser_active, loser_n, 0.0, 0.0, lr, w1, b1, w2, b2, hidden)
    else:
        sgd_step(winner_active, winner_n, 1.0, 0.0, lr, w1, b1, w2, b2, hidden)
        sgd_step(loser_active, loser_n, 0.0, 1.0, lr, w1, b1, w2, b2, hidden)


__all__ = [
    "BLACK_WON",
    "DRAW",
    "RESULT_FIELDS",
    "TrainingGame",
    "WHITE_WON",
    "play_training_game",
    "play_training_game_from",
    "training_game",
]
