"""Alpha-beta minimax over complete moves with the value net at the leaves (numba).

Negamax form: every node's value is from the point of view of its side to move, a child's
value is negated for its parent. The walk is iterative (one move buffer and one row of
bounds per ply, no recursion), as the rules core's perft is.

Quiescence (``quiescence=True``, a checkers adaptation, on by default): a position
``depth`` plies below the root in which the side to move must capture is not scored -- its
captures are searched on (capturing is mandatory, so there is no "stand pat") until a
position without captures is reached. Without it a depth-2 search scores positions in the
middle of an exchange, where the material about to be taken back is not yet on the board.

Leaves (``depth`` plies below the root, quiet ones when quiescence is on) are scored by
the net, ``out[0] - out[1]`` seen from the leaf's side to move, a number in (-1, 1). Terminal positions -- the side to move
has no legal move, wherever that happens in the tree -- are scored exactly: a loss for the
side to move, ``-(2 - 0.01 * ply)`` at ``ply`` plies below the root (outside the net's range,
and a win sooner is worth a little more than a win later). With ``blockade_value = 0`` (the first phase of the
curriculum) a loss by blockade -- no legal move but pieces left -- scores 0, a draw.

The draw rules are seen at the root only: a move that repeats a position of the game (since
the last capture or man move) or that completes the quiet plies of the no-progress rule is
scored 0, a draw -- as chess and checkers engines score a first repetition -- so a side
ahead avoids shuffling and a side behind seeks it. Deeper in the tree repetitions are not
tracked (the net does not see the history either); the ply cap is not seen.

At the root, moves whose values tie exactly are chosen between uniformly at random (the
root searches every move with a window just below the best value so that ties are exact).
"""

from __future__ import annotations

import numba
import numpy as np

from checkers_env.bitboard import FULL, apply_move, jumpers, step
from checkers_env.kernels import MAX_MOVES, MOVE_FIELDS, generate_moves, random_below

from .net import MAX_ACTIVE, evaluate_position

#: Deepest nominal search.
MAX_DEPTH = 40
#: Most plies of captures searched beyond ``depth`` (each capture removes a piece, so 24
#: is enough; past it the position is scored by the net as it stands).
MAX_QUIESCENCE = 24
INFINITY = 1.0e9
#: Root window below the best value, so that equal values are exact, not bounds.
TIE_MARGIN = 1.0e-9
#: A terminal node ``ply`` plies below the root is worth ``-(LOSS - LOSS_PER_PLY * ply)`` to
#: its side to move: beyond the net's (-1, 1) at any ply the buffers allow (at most 64).
LOSS = 2.0
LOSS_PER_PLY = 0.01

# Columns of the per-ply integer stack.
_MOVER, _OPPONENT, _KINGS, _BLACK, _COUNT, _NEXT = range(6)


@numba.njit(cache=True, inline="always")
def has_moves(mover, opponent, kings, black_to_move):
    """Whether the side to move has any legal move (a capture or a step)."""
    if jumpers(mover, opponent, kings, black_to_move) != 0:
        return True
    empty = ~(mover | opponent) & FULL
    own_kings = mover & kings
    if black_to_move:
        if (step(mover, 0) | step(mover, 1) | step(own_kings, 2) | step(own_kings, 3)) & empty:
            return True
    elif (step(mover, 2) | step(mover, 3) | step(own_kings, 0) | step(own_kings, 1)) & empty:
        return True
    return False


@numba.njit(cache=True, inline="always")
def terminal_value(mover, ply, blockade_value):
    """Value of a position ``ply`` plies below the root whose side to move (``mover``) has
    no legal move: a loss, a smaller one the later it comes (so the winner prefers the
    quickest win and the loser the slowest loss)."""
    loss = LOSS - LOSS_PER_PLY * ply
    if mover != 0:  # pieces left: blocked
        return -blockade_value * loss
    return -loss


@numba.njit(cache=True, inline="always")
def repeats(black, white, kings, black_to_move, history, count):
    """Whether the position occurs among ``history[:count]`` (rows ``(black, white, kings,
    black_to_move)``, absolute colours)."""
    side = 1 if black_to_move else 0
    for h in range(count):
        if history[h, 0] == black and history[h, 1] == white and history[h, 2] == kings and history[h, 3] == side:
            return True
    return False


@numba.njit(cache=True)
def search(
    mover, opponent, kings, black_to_move, depth, quiescence, w1, b1, w2, b2, blockade_value, rng,
    history, history_count, quiet, no_progress_plies,
):
    """Alpha-beta to ``depth`` plies from a position whose side to move has moves.

    The game's draw rules are seen at the root: a move into a position that already
    occurred in ``history[:history_count]`` (the positions since the last capture or man
    move, absolute colours, see :func:`repeats`), or a quiet king move that reaches
    ``no_progress_plies`` plies without progress (``quiet`` so far; 0 turns it off), is
    scored 0, a draw, without searching further. So a side that thinks it is ahead avoids
    repeating, and one that thinks it is behind seeks it.

    Returns:
        ``(best_index, best_value, rng, nodes, moves)``: the chosen move's row in
        ``moves`` (``generate_moves`` order; -1 if there is no legal move), its value for
        the side to move, the new xorshift state, the number of positions visited, and the
        root's move list (``int64[MAX_MOVES, 5]``).
    """
    if depth < 1:
        depth = 1
    if depth > MAX_DEPTH:
        depth = MAX_DEPTH
    rows = depth + MAX_QUIESCENCE if quiescence else depth
    moves = np.empty((rows, MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    stack = np.empty((rows, 6), dtype=np.int64)
    alpha = np.empty(rows, dtype=np.float64)
    beta = np.empty(rows, dtype=np.float64)
    value = np.empty(rows, dtype=np.float64)
    active = np.empty(MAX_ACTIVE, dtype=np.int64)
    hidden = np.empty(w1.shape[1], dtype=np.float64)

    n = generate_moves(mover, opponent, kings, black_to_move, moves[0])
    if n == 0:
        return -1, terminal_value(mover, 0, blockade_value), rng, 1, moves[0]
    stack[0, _MOVER] = mover
    stack[0, _OPPONENT] = opponent
    stack[0, _KINGS] = kings
    stack[0, _BLACK] = 1 if black_to_move else 0
    stack[0, _COUNT] = n
    stack[0, _NEXT] = 0
    alpha[0] = -INFINITY
    beta[0] = INFINITY
    value[0] = -INFINITY
    best = 0
    ties = 0
    nodes = 1
    p = 0
    while True:
        if stack[p, _NEXT] >= stack[p, _COUNT] or alpha[p] >= beta[p]:
            # Node finished (all moves searched or a cut-off): hand its value up.
            if p == 0:
                break
            score = -value[p]
            p -= 1
        else:
            i = stack[p, _NEXT]
            stack[p, _NEXT] = i + 1
            m, o, k = apply_move(
                stack[p, _MOVER], stack[p, _OPPONENT], stack[p, _KINGS], stack[p, _BLACK] != 0,
                moves[p, i, 0], moves[p, i, 1], moves[p, i, 2],
            )
            # The child's side to move is the opponent: mover o, opponent m.
            child_black = stack[p, _BLACK] == 0
            c = p + 1
            nodes += 1
            draw = False
            if p == 0:
                if child_black:
                    draw = repeats(o, m, k, True, history, history_count)
                else:
                    draw = repeats(m, o, k, False, history, history_count)
                if no_progress_plies > 0 and moves[0, i, 2] == 0 and (kings >> moves[0, i, 0]) & 1:
                    draw = draw or quiet + 1 >= no_progress_plies
            if draw:
                score = 0.0
            elif c >= depth and (
                not quiescence or c + 1 >= rows or jumpers(o, m, k, child_black) == 0
            ):
                if has_moves(o, m, k, child_black):
                    o0, o1 = evaluate_position(o, m, k, child_black, w1, b1, w2, b2, active, hidden)
                    score = -(o0 - o1)
                else:
                    score = -terminal_value(o, c, blockade_value)
            else:
                # Below ``depth`` only capture positions get here (quiescence): their
                # moves are all captures, since capturing is mandatory.
                cn = generate_moves(o, m, k, child_black, moves[c])
                if cn == 0:
                    score = -terminal_value(o, c, blockade_value)
                else:
                    stack[c, _MOVER] = o
                    stack[c, _OPPONENT] = m
                    stack[c, _KINGS] = k
                    stack[c, _BLACK] = 1 if child_black else 0
                    stack[c, _COUNT] = cn
                    stack[c, _NEXT] = 0
                    alpha[c] = -beta[p]
                    beta[c] = -alpha[p]
                    value[c] = -INFINITY
                    p = c
                    continue
        # ``score`` is the value of move stack[p, _NEXT] - 1 for node p's side to move.
        if p == 0:
            i = stack[0, _NEXT] - 1
            if score > value[0]:
                value[0] = score
                best = i
                ties = 1
            elif score == value[0]:
                ties += 1
                rng, pick = random_below(rng, ties)
                if pick == 0:
                    best = i
            alpha[0] = value[0] - TIE_MARGIN
        else:
            if score > value[p]:
                value[p] = score
            if score > alpha[p]:
                alpha[p] = score
    return best, value[0], rng, nodes, moves[0]


__all__ = ["MAX_DEPTH", "has_moves", "search", "terminal_value"]
