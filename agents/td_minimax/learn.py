"""One self-play training game of td-minimax as a single numba function.

The same net plays both sides. Each turn the side to move chooses its move by the search;
then one backpropagation step takes the current position (inputs from the mover's view) to
the net's output for the chosen position *seen from the same player*: the chosen position
has the opponent to move, so its outputs ``(opponent's, mover's)`` are swapped into
``(mover's, opponent's)`` to form the target. At the end, two corrections on the final
position: the winner's view towards ``(1, 0)``, then the loser's view towards ``(0, 1)``;
on a draw both views towards ``(0, 0)``.

The game is the suite's one self-play loop (``checkers_agents.alphabeta.selfplay``: its
pieces ``start_game``, ``game_over``, ``choose_move`` and ``advance``), under the suite's
draw rules (the core's ``checkers_env.game_state.end_of_game``, as in ``Game`` and the
envs), with the policy ``POLICY_EPSILON`` (random plies, then epsilon) and a search of one
depth. What is td-minimax's own is here: the learning step after each searched move (the
net the next search reads has changed), the end-of-game corrections, and a search that
keeps its killers and history from one move to the next (``choose_move`` not ``fresh``:
they only order moves, a net's values are exact whatever the order, and clearing them
before each search of a few dozen nodes cost 7 % of the trainer's time,
``docs/experiments.md``).
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from checkers_agents.alphabeta import (
    POLICY_EPSILON,
    TT_MIN_DEPTH,
    MovePolicy,
    SearchSetup,
    advance,
    choose_move,
    flat_memory,
    game_over,
    memory_views,
    new_table,
    start_game,
)
from checkers_agents.search_parts.endgame_probe import no_egdb
from checkers_agents.search_parts.evaluators import EVAL_NET, REWARD_NONE, SIGMOID, Valuation
from checkers_agents.search_parts.position import Position
from checkers_env.bitboard import BB_BLACK_START, BB_WHITE_START
from checkers_env.encoding import active_inputs
from checkers_env.game_state import (
    COLOR_BLACK,
    COLOR_WHITE,
    END_NO_MOVES,
    END_NONE,
    NO_WINNER,
    history_for,
    rules_array,
)
from checkers_env.movegen import MAX_MOVES, MOVE_FIELDS

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
    depth: int,
    quiescence: bool,
    lr_game: float,
    lr_end: float,
    blockade_counts: bool,
    epsilon: float,
    random_plies: int,
    max_plies: int,
    no_progress_plies: int,
    repetition: int,
) -> TrainingGame:
    """A :data:`TrainingGame` with the types its kernel is compiled for."""
    return TrainingGame(
        int(depth),
        bool(quiescence),
        float(lr_game),
        float(lr_end),
        bool(blockade_counts),
        float(epsilon),
        int(random_plies),
        int(max_plies),
        int(no_progress_plies),
        int(repetition),
    )


#: The learning step's buffers: the net's inputs of the position and of the chosen child,
#: and its hidden units.
LearnBuffers = namedtuple("LearnBuffers", "active child_active hidden")


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
        start: the start position (``search_parts.position.Position``; ``mover`` is Black when
            ``black_to_move``).
        w1, b1, w2, b2: the net (updated in place).
        game: how the game is played and learnt from (:data:`TrainingGame`).
        rng: xorshift64 state.
        result: ``int64[RESULT_FIELDS]`` receives the game's summary.

    Returns:
        ``(rng, loss_sum)``: the new generator state and the sum of the in-game steps'
        squared errors (the final corrections' errors are not included).
    """
    width = w1.shape[1]
    rules = rules_array(game.repetition, game.no_progress_plies, game.max_plies if game.max_plies > 0 else 100000)
    state = start_game(
        start, np.empty((1, history_for(rules)), dtype=np.int64), rules, np.empty((MAX_MOVES, MOVE_FIELDS), np.int64)
    )
    # The search: the suite's alpha-beta with this net (updated in place) at the leaves.
    net = (
        w1,
        b1,
        np.zeros((0, width)),
        np.zeros(0),
        w2,
        b2,
        np.zeros((0, 0)),
        np.zeros((0, 0)),
        np.zeros(0),
        np.zeros(0, np.int64),
    )
    net_functions = np.array([SIGMOID, SIGMOID, REWARD_NONE], dtype=np.int64)
    valuation = Valuation(
        EVAL_NET, net_functions, LOSS, LOSS_PER_PLY, 1.0 if game.blockade_counts else 0.0, 1.0, 1e-9, game.quiescence
    )
    # At depth TT_MIN_DEPTH or less only the root reaches the table, and a root searched in
    # generator order takes nothing from it: one entry (zeroing a full table per game costs).
    table = new_table(1 << TT_BITS if game.depth > TT_MIN_DEPTH else 1)
    # The design's self-play knows no endgame database.
    setup = SearchSetup(valuation, table, flat_memory(width), no_egdb(), False)
    policy = MovePolicy(POLICY_EPSILON, game.epsilon, game.random_plies, game.depth, game.depth)
    buffers = LearnBuffers(
        np.empty(MAX_ACTIVE, dtype=np.int64), np.empty(MAX_ACTIVE, dtype=np.int64), np.empty(width, dtype=np.float64)
    )
    return _play(state, policy, setup, net, game, rng, result, buffers)


# The game's loop, compiled without numba's reference counting (as the search kernel is,
# see ``checkers_agents.alphabeta.negamax``): it allocates nothing, and counted, the arrays it hands
# each search and each learning step took atomic increments and decrements per move.
@numba.njit(cache=True, _nrt=False)
def _play(state, policy, setup, net, game, rng, result, buffers):
    """:func:`play_training_game_from`'s game from ``state`` (``selfplay.GameState``), in
    the buffers it allocated (``net``: the search's ten arrays, ``w1, b1`` first, then
    ``w2, b2`` after the absent middle layer, and no block rows or phases)."""
    w1, b1, _w_mid, _b_mid, w2, b2, _w_blocks, _w_mid2, _b_mid2, _phase_of = net
    active, child_active, hidden = buffers
    memory = memory_views(setup.flat)
    generation = 0
    steps = 0
    nodes = 0
    loss_sum = 0.0
    termination = END_NONE
    winner = DRAW
    while True:
        count, termination, winner = game_over(state, setup.egdb, False)
        if termination != END_NONE:
            break
        row, learn, _value, visited, generation, rng = choose_move(
            state, count, policy, setup, memory, net, generation, rng, False
        )
        nodes += visited
        child = advance(state, row)
        if learn:
            loss_sum += _in_game_step(state.position, child.position, game.lr_game, w1, b1, w2, b2, buffers)
            steps += 1
        state = child

    # The game is over at ``state``, whose side to move has lost unless it is a draw.
    blockade = 0
    counted_as_draw = 0
    if termination == END_NO_MOVES:
        blockade = 1 if state.position.mover != 0 else 0
        if blockade == 1 and not game.blockade_counts:
            counted_as_draw = 1
    _final_steps(
        state.position,
        winner == DRAW or counted_as_draw == 1,
        game.lr_end,
        w1,
        b1,
        w2,
        b2,
        active,
        child_active,
        hidden,
    )

    result[R_WINNER] = winner
    result[R_TERMINATION] = termination
    result[R_BLOCKADE] = blockade
    result[R_COUNTED_AS_DRAW] = counted_as_draw
    result[R_PLIES] = state.ply
    result[R_STEPS] = steps
    result[R_NODES] = nodes
    return rng, loss_sum


@numba.njit(cache=True, inline="always")
def _in_game_step(position, chosen, lr, w1, b1, w2, b2, buffers):
    """The step after a searched move: ``position`` (a ``Position``) towards the net's
    outputs for the ``chosen`` position seen from the same player. The net sees ``chosen``
    from its side to move (the opponent), so its two outputs are swapped. Returns the
    step's squared error."""
    active, child_active, hidden = buffers
    cm, co, ck, cblack = chosen
    cn = active_inputs(cm, co, ck, cblack, child_active)
    c0, c1 = forward(child_active, cn, w1, b1, w2, b2, hidden)
    m, o, k, black = position
    na = active_inputs(m, o, k, black, active)
    return sgd_step(active, na, c1, c0, lr, w1, b1, w2, b2, hidden)


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
