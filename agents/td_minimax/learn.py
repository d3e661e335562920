"""One self-play training game of seed 002 as a single numba kernel.

The same net plays both sides. Each turn the side to move chooses its move by the search;
then one backpropagation step takes the current position (inputs from the mover's view) to
the net's output for the chosen position *seen from the same player*: the chosen position
has the opponent to move, so its outputs ``(opponent's, mover's)`` are swapped into
``(mover's, opponent's)`` to form the target. At the end, two corrections on the final
position: the winner's view towards ``(1, 0)``, then the loser's view towards ``(0, 1)``;
on a draw both views towards ``(0, 0)``.

The game ends under the default ``Rules`` of the suite (checked in this order after every
move, as ``Game`` does): no legal move (the side to move loses), threefold repetition, 80
plies without a capture or a man move, 400 plies.
"""

from __future__ import annotations

import numba
import numpy as np

from checkers_env.bitboard import BB_BLACK_START, BB_WHITE_START, apply_move
from checkers_env.kernels import MAX_MOVES, MOVE_FIELDS, generate_moves, random_below

from agents.alphabeta.evaluators import EVAL_NET, REWARD_NONE, SIGMOID
from agents.alphabeta.kernel import (
    MAX_PLY,
    STACK_FIELDS,
    TT_FIELDS,
    VALUE_FIELDS,
    begin_search,
    position_hash,
    search_kernel,
)

from .agent import TT_BITS, pick_tied
from .net import LOSS, LOSS_PER_PLY, MAX_ACTIVE, encode, forward, sgd_step

# Termination codes (as ``checkers_env.env_core``'s END_*).
END_NO_MOVES = 1
END_REPETITION = 2
END_NO_PROGRESS = 3
END_MAX_PLIES = 4

# Result codes returned in ``result[0]``.
BLACK_WON = 0
WHITE_WON = 1
DRAW = -1

#: Fields of the ``result`` array that :func:`play_training_game` fills.
(
    R_WINNER,  # BLACK_WON, WHITE_WON or DRAW (the game's result under the rules)
    R_TERMINATION,  # END_* code
    R_BLOCKADE,  # 1 if the loser still had pieces (a win by blockade)
    R_COUNTED_AS_DRAW,  # 1 if the curriculum scored this win as a draw
    R_PLIES,
    R_STEPS,  # in-game backpropagation steps
    R_NODES,  # positions the searches visited
) = range(7)
RESULT_FIELDS = 7


@numba.njit(cache=True)
def play_training_game(
    w1, b1, w2, b2,
    depth, quiescence, lr_game, lr_end, blockade_counts, epsilon, random_plies,
    max_plies, no_progress_plies, repetition, rng, result,
):
    """Play one self-play game and learn from it in place (the weights change).

    Args:
        w1, b1, w2, b2: the net (updated in place).
        depth: search depth in plies.
        quiescence: search capture positions at the leaves on (see ``search``).
        lr_game, lr_end: in-game and after-game learning rates.
        blockade_counts: False in the curriculum's first phase: a win by blockade (the
            loser has pieces but no move) is scored as a draw, in the search and at the end.
        epsilon: probability of a uniformly random move instead of the searched one
            (exploration; such moves are not learnt from). 0 in the seed.
        random_plies: the first plies are uniformly random (a random opening; not learnt from).
        max_plies, no_progress_plies, repetition: the draw rules (0 turns one off).
        rng: xorshift64 state.
        result: ``int64[RESULT_FIELDS]`` receives the game's summary.

    Returns:
        ``(rng, loss_sum)``: the new generator state and the sum of the in-game steps'
        squared errors (the final corrections' errors are not included).
    """
    active = np.empty(MAX_ACTIVE, dtype=np.int64)
    child_active = np.empty(MAX_ACTIVE, dtype=np.int64)
    hidden = np.empty(w1.shape[1], dtype=np.float64)
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    cap = max_plies if max_plies > 0 else 100000
    history = np.empty((cap + 1, 4), dtype=np.int64)
    # The search: the suite's alpha-beta with this net (updated in place) at the leaves.
    hashes = np.empty(cap + 1, dtype=np.int64)
    net = (w1, b1, np.zeros((0, w1.shape[1])), np.zeros(0), w2, b2)
    codes = np.array([SIGMOID, SIGMOID, REWARD_NONE], dtype=np.int64)
    scoring = np.array([LOSS, LOSS_PER_PLY, 1.0 if blockade_counts else 0.0, 1.0, 1e-9])
    table = np.zeros((1 << TT_BITS, TT_FIELDS), dtype=np.int64)
    table_values = table.view(np.float64)
    killers = np.zeros((MAX_PLY, 2), dtype=np.int64)
    history_scores = np.zeros((2, 32, 32), dtype=np.int64)
    tree_moves = np.empty((MAX_PLY, MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    order_scores = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    order_index = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
    stack = np.empty((MAX_PLY, STACK_FIELDS), dtype=np.int64)
    values = np.empty((MAX_PLY, VALUE_FIELDS), dtype=np.float64)
    root_scores = np.empty(MAX_MOVES, dtype=np.float64)
    scratch = np.empty((2, w1.shape[1]), dtype=np.float64)
    generation = 0

    mover = BB_BLACK_START
    opponent = BB_WHITE_START
    kings = 0
    black = True
    quiet = 0
    ply = 0
    steps = 0
    nodes = 0
    loss_sum = 0.0
    # Positions of the game, absolute colours: (black, white, kings, black to move).
    history[0, 0] = mover
    history[0, 1] = opponent
    history[0, 2] = kings
    history[0, 3] = 1
    hashes[0] = position_hash(mover, opponent, kings, True)
    termination = 0
    while True:
        n = generate_moves(mover, opponent, kings, black, moves)
        if n == 0:
            termination = END_NO_MOVES
            break
        # Only positions since the last capture or man move can recur.
        since = ply - quiet
        if repetition > 0 and quiet >= 4:
            seen = 0
            for h in range(since, ply + 1):
                if (
                    history[h, 0] == history[ply, 0] and history[h, 1] == history[ply, 1]
                    and history[h, 2] == kings and history[h, 3] == history[ply, 3]
                ):
                    seen += 1
            if seen >= repetition:
                termination = END_REPETITION
                break
        if no_progress_plies > 0 and quiet >= no_progress_plies:
            termination = END_NO_PROGRESS
            break
        if ply >= cap:
            termination = END_MAX_PLIES
            break

        learn = True
        explore = ply < random_plies
        if not explore and epsilon > 0.0:
            rng, r = random_below(rng, 1 << 30)
            explore = r < epsilon * (1 << 30)
        if explore:
            rng, choice = random_below(rng, n)
            learn = False
        else:
            generation = begin_search(generation, table, killers, history_scores)
            _, _, count, visited, _ = search_kernel(
                mover, opponent, kings, black, depth, 1 << 62, EVAL_NET, net, codes, scoring, quiescence, True,
                hashes[since:], quiet + 1 if repetition > 0 else 0, quiet, no_progress_plies,
                generation, table, table_values, killers, history_scores, tree_moves, order_scores, order_index,
                stack, values, root_scores, child_active, scratch,
            )
            choice, rng = pick_tied(root_scores, count, rng)
            nodes += visited
        frm = moves[choice, 0]
        captured = moves[choice, 2]
        was_king = (kings >> frm) & 1
        m, o, k = apply_move(mover, opponent, kings, black, frm, moves[choice, 1], captured)

        if learn:
            # Target: the chosen position's outputs seen from the same player. The net
            # sees it from its side to move (the opponent), so swap the two outputs.
            cn = encode(o, m, k, not black, child_active)
            c0, c1 = forward(child_active, cn, w1, b1, w2, b2, hidden)
            na = encode(mover, opponent, kings, black, active)
            loss_sum += sgd_step(active, na, c1, c0, lr_game, w1, b1, w2, b2, hidden)
            steps += 1

        if captured != 0 or was_king == 0:
            quiet = 0
        else:
            quiet += 1
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
        hashes[ply] = position_hash(history[ply, 0], history[ply, 1], kings, black)

    # The game is over in (mover, opponent, kings) with ``black`` to move.
    winner = DRAW
    blockade = 0
    counted_as_draw = 0
    if termination == END_NO_MOVES:
        winner = WHITE_WON if black else BLACK_WON
        blockade = 1 if mover != 0 else 0
        if blockade == 1 and not blockade_counts:
            counted_as_draw = 1
    _final_steps(
        mover, opponent, kings, black, winner == DRAW or counted_as_draw == 1,
        lr_end, w1, b1, w2, b2, active, child_active, hidden,
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
def _final_steps(mover, opponent, kings, black, draw, lr, w1, b1, w2, b2, loser_active, winner_active, hidden):
    """The seed's two end-of-game corrections on the final position, whose side to move
    (``mover``, Black if ``black``) has just lost unless the game is a ``draw``: first the
    winner's view (the board seen from the side that made the last move) towards (1, 0),
    then the loser's view towards (0, 1); on a draw both views towards (0, 0)."""
    winner_n = encode(opponent, mover, kings, not black, winner_active)
    loser_n = encode(mover, opponent, kings, black, loser_active)
    if draw:
        sgd_step(winner_active, winner_n, 0.0, 0.0, lr, w1, b1, w2, b2, hidden)
        sgd_step(loser_active, loser_n, 0.0, 0.0, lr, w1, b1, w2, b2, hidden)
    else:
        sgd_step(winner_active, winner_n, 1.0, 0.0, lr, w1, b1, w2, b2, hidden)
        sgd_step(loser_active, loser_n, 0.0, 1.0, lr, w1, b1, w2, b2, hidden)


@numba.njit(cache=True)
def final_corrections(mover, opponent, kings, black, draw, lr, w1, b1, w2, b2):
    """Python entry point of the end-of-game corrections (as :func:`play_training_game`
    applies them): ``(mover, opponent, kings)`` is the final position with ``mover`` to
    move (Black if ``black``); unless ``draw``, the side to move is the loser, as it always
    is when a checkers game ends with a win (it has no legal move)."""
    loser_active = np.empty(MAX_ACTIVE, dtype=np.int64)
    winner_active = np.empty(MAX_ACTIVE, dtype=np.int64)
    hidden = np.empty(w1.shape[1], dtype=np.float64)
    _final_steps(mover, opponent, kings, black, draw, lr, w1, b1, w2, b2, loser_active, winner_active, hidden)


__all__ = [
    "BLACK_WON",
    "DRAW",
    "RESULT_FIELDS",
    "WHITE_WON",
    "final_corrections",
    "play_training_game",
]
