"""numba kernels of the slow/fast learner: children of a batch of positions, the material
reward, feature planes, which moves a subtree explores, the softmax expected value, and one
ply of many generated games.

Every kernel works on plain integer and float arrays. A batch of positions is four arrays
of one length: ``black``, ``white``, ``kings`` (int64 bitboards, ``checkers_env.bitboard``
layout) and ``black_to_move`` (int8, 1 when Black moves). All rules come from the core
(``generate_moves``, ``apply_move``, ``count_moves``, ``jumpers``; material points from
``checkers_env.baselines``); nothing here re-implements them.

Values are from White's view throughout: ``f`` is the network's output in (0, 1) (1 = sure
White win), ``V = 2 f - 1`` the same on the reward scale.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from checkers_env.baselines import material
from checkers_env.bitboard import apply_move, count_moves, jumpers
from checkers_env.game_state import is_progress
from checkers_env.movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves, xorshift64

#: How a position stands: the game goes on, or it is over with this result.
ONGOING, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3

#: Coefficient of the design document's material reward
#: ``MATERIAL_REWARD_SCALE * ln(mB / mA)``.
MATERIAL_REWARD_SCALE = 0.1


_njit = numba.njit(cache=True)
_inline = numba.njit(cache=True, inline="always")


# -- rewards -------------------------------------------------------------------------------


@_inline
def material_ratio(black, white, kings):
    """``m``: White's material points over Black's (man 2, king 3; both sides have pieces)."""
    return material(white, kings) / material(black, kings)


@_inline
def terminal_reward(outcome):
    """Reward of a move that ends the game: 1 White wins, -1 Black wins, 0 draw."""
    if outcome == WHITE_WINS:
        return 1.0
    if outcome == BLACK_WINS:
        return -1.0
    return 0.0


@_njit
def move_reward(black_a, white_a, kings_a, black_b, white_b, kings_b, outcome_b):
    """The design document's reward of a move from position A to position B, from White's
    view.

    ``0.1 * ln(mB / mA)`` with ``m`` the ratio of White's material to Black's, or, for a
    move that ends the game (``outcome_b`` not ``ONGOING``), 1 / 0 / -1 for a White win /
    draw / Black win whatever the material.
    """
    if outcome_b != ONGOING:
        return terminal_reward(outcome_b)
    return MATERIAL_REWARD_SCALE * math.log(
        material_ratio(black_b, white_b, kings_b) / material_ratio(black_a, white_a, kings_a)
    )


@_inline
def _movers(black, white, black_to_move):
    if black_to_move:
        return black, white
    return white, black


@_inline
def legal_moves_of(black, white, kings, black_to_move):
    """How many legal moves the side to move has."""
    mover, opponent = _movers(black, white, black_to_move)
    return count_moves(mover, opponent, kings, black_to_move)


@_inline
def outcome_of(black, white, kings, black_to_move):
    """``ONGOING``, or the win of the side not to move when the mover has no legal move."""
    if legal_moves_of(black, white, kings, black_to_move) > 0:
        return ONGOING
    return BLACK_WINS if not black_to_move else WHITE_WINS


@_inline
def capture_moves_of(black, white, kings, black_to_move):
    """How many capturing moves the side to move has (0 when it has none)."""
    mover, opponent = _movers(black, white, black_to_move)
    if jumpers(mover, opponent, kings, black_to_move) == 0:
        return 0
    return count_moves(mover, opponent, kings, black_to_move)


#: What :func:`batch_counts` gives of each position: ``legal_moves_of``,
#: ``capture_moves_of`` or ``outcome_of``.
LEGAL_MOVES, CAPTURE_MOVES, OUTCOMES = 0, 1, 2


@_njit
def batch_counts(black, white, kings, black_to_move, what):
    """One of ``LEGAL_MOVES``, ``CAPTURE_MOVES``, ``OUTCOMES`` for each position of a
    batch, as ``int64``."""
    n = black.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        side = black_to_move[i] != 0
        if what == CAPTURE_MOVES:
            out[i] = capture_moves_of(black[i], white[i], kings[i], side)
        elif what == OUTCOMES:
            out[i] = outcome_of(black[i], white[i], kings[i], side)
        else:
            out[i] = legal_moves_of(black[i], white[i], kings[i], side)
    return out


def capture_moves_batch(black, white, kings, black_to_move) -> np.ndarray:
    """``capture_moves_of`` over a batch."""
    return batch_counts(black, white, kings, black_to_move, CAPTURE_MOVES)


def outcome_batch(black, white, kings, black_to_move) -> np.ndarray:
    """``outcome_of`` over a batch, as ``int8``."""
    return batch_counts(black, white, kings, black_to_move, OUTCOMES).astype(np.int8)


# -- children ------------------------------------------------------------------------------


def count_children(black, white, kings, black_to_move) -> np.ndarray:
    """Number of legal moves of each position of a batch."""
    return batch_counts(black, white, kings, black_to_move, LEGAL_MOVES)


@_njit
def expand_children(black, white, kings, black_to_move, offsets, total):
    """Every child of every position, in ``generate_moves`` order.

    The children of position ``i`` land at rows ``offsets[i] .. offsets[i + 1] - 1``.

    Returns:
        ``(black, white, kings, black_to_move, parent, reward, outcome, progress,
        captures)``: the children, the index of each one's parent in the batch, the reward
        of the move that made it (White's view), its outcome (``ONGOING`` or the mover's
        win), whether the move was progress (a capture or a man move, for the no-progress
        draw rule) and the capturing moves it offers its own mover.
    """
    out_black = np.empty(total, dtype=np.int64)
    out_white = np.empty(total, dtype=np.int64)
    out_kings = np.empty(total, dtype=np.int64)
    out_btm = np.empty(total, dtype=np.int8)
    out_parent = np.empty(total, dtype=np.int64)
    out_reward = np.empty(total, dtype=np.float64)
    out_outcome = np.empty(total, dtype=np.int8)
    out_progress = np.empty(total, dtype=np.int8)
    out_captures = np.empty(total, dtype=np.int64)
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    for i in range(black.shape[0]):
        side = black_to_move[i] != 0
        b, w, k = black[i], white[i], kings[i]
        mover, opponent = _movers(b, w, side)
        n = generate_moves(mover, opponent, k, side, moves)
        row = offsets[i]
        for j in range(n):
            frm, to, captured = moves[j, FROM], moves[j, TO], moves[j, CAPTURED]
            m2, o2, k2 = apply_move(mover, opponent, k, side, frm, to, captured)
            if side:
                cb, cw = m2, o2
            else:
                cb, cw = o2, m2
            child_side = not side
            outcome = outcome_of(cb, cw, k2, child_side)
            out_black[row] = cb
            out_white[row] = cw
            out_kings[row] = k2
            out_btm[row] = 1 if child_side else 0
            out_parent[row] = i
            out_outcome[row] = outcome
            out_reward[row] = move_reward(b, w, k, cb, cw, k2, outcome)
            out_progress[row] = 1 if is_progress(k, frm, captured) else 0
            out_captures[row] = 0 if outcome != ONGOING else capture_moves_of(cb, cw, k2, child_side)
            row += 1
    return (out_black, out_white, out_kings, out_btm, out_parent, out_reward, out_outcome, out_progress, out_captures)


# -- random numbers ------------------------------------------------------------------------


@_inline
def uniform01(state):
    """(new state, uniform float in [0, 1)) from a xorshift64 state."""
    state = xorshift64(state)
    return state, ((state >> 11) & 0x1FFFFFFFFFFFFF) / 9007199254740992.0


@_inline
def normal01(state):
    """(new state, standard normal) by Box-Muller."""
    state, u1 = uniform01(state)
    state, u2 = uniform01(state)
    return state, math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


# -- exploration and the expected value ---------------------------------------------------


@_inline
def known_value(f, outcome):
    """The network's value of a child, or the exact one when the game is over there."""
    if outcome == WHITE_WINS:
        return 1.0
    if outcome == BLACK_WINS:
        return 0.0
    if outcome == DRAW:
        return 0.5
    return f


#: What the explored moves (and the generated games' moves) are chosen by, with the noise:
#: the net's value of the position a move leads to, or the move's expected reward (its own
#: reward plus that value, as the agent plays). Keys are the trainer's ``--exploration``.
EXPLORE_BY_VALUE, EXPLORE_BY_EXPECTED_REWARD = 0, 1
EXPLORE_BY = {"value": EXPLORE_BY_VALUE, "expected-reward": EXPLORE_BY_EXPECTED_REWARD}


@_inline
def exploration_value(f, outcome, reward, explore_by):
    """White's evaluation of a child that the exploration standardises.

    ``EXPLORE_BY_VALUE``: the child position's value (``known_value``, on the (0, 1) scale).
    ``EXPLORE_BY_EXPECTED_REWARD``: the move's reward plus the value after it on the reward
    scale, ``R + 2 f - 1``, where the value is 0 once the game is over (the +-1 is the
    reward), so a won game counts 1 and a capture its material gain on top of the value.
    """
    if explore_by == EXPLORE_BY_EXPECTED_REWARD:
        if outcome != ONGOING:
            return reward
        return reward + 2.0 * f - 1.0
    return known_value(f, outcome)


@_njit
def exploration_scores(f, outcome, reward, offsets, black_to_move, explore_by, noise_weight, state):
    """The linear combination that decides which moves are explored (and played).

    For the children of parent ``i`` (rows ``offsets[i] .. offsets[i+1]-1``), from the
    mover's side ``s`` (+1 White, -1 Black): ``(1 - noise_weight) * z + noise_weight * g``
    with ``z`` the standardised ``s * exploration_value`` over the siblings (the child's
    value, or the move's expected reward, as ``explore_by`` says) and ``g`` standard normal
    noise. Standardising makes ``noise_weight`` mean the same whatever the spread of the
    network's outputs (an untrained net gives values within 0.01 of each other).

    Returns:
        ``(scores, state)``.
    """
    total = f.shape[0]
    scores = np.empty(total, dtype=np.float64)
    for i in range(offsets.shape[0] - 1):
        lo, hi = offsets[i], offsets[i + 1]
        n = hi - lo
        if n == 0:
            continue
        sign = -1.0 if black_to_move[i] != 0 else 1.0
        mean = 0.0
        for c in range(lo, hi):
            mean += sign * exploration_value(f[c], outcome[c], reward[c], explore_by)
        mean /= n
        var = 0.0
        for c in range(lo, hi):
            d = sign * exploration_value(f[c], outcome[c], reward[c], explore_by) - mean
            var += d * d
        std = math.sqrt(var / n)
        for c in range(lo, hi):
            z = 0.0
            if std > 1e-9:
                z = (sign * exploration_value(f[c], outcome[c], reward[c], explore_by) - mean) / std
            state, g = normal01(state)
            scores[c] = (1.0 - noise_weight) * z + noise_weight * g
    return scores, state


@_njit
def select_explored(
    f,
    outcome,
    reward,
    offsets,
    black_to_move,
    explore_by,
    explore_fraction,
    min_explored,
    noise_weight,
    temperature,
    forced,
    state,
):
    """Which children each parent explores, and the softmax "probability of playing" each.

    A parent with ``n`` moves explores ``k = min(n, max(min_explored, ceil(explore_fraction
    * n)))`` of them: those with the highest ``exploration_scores`` (by ``explore_by``, with
    ``reward`` the reward of the move to each child); a child named in
    ``forced[i]`` (a local move index, -1 for none) is explored as well (the kind-2 line).

    The softmax is over *all* ``n`` children (the design document's
    ``softmax(f(Bm), f(B))``), taken from the mover's side: ``p_m = exp(s f_m / T) / sum_j
    exp(s f_j / T)`` with ``s`` +1 when White moves and -1 when Black moves, so each side is
    expected to play what the network thinks is its strongest move; a child where the game
    is over counts with its exact value (1 White win, 0 Black win).

    Returns:
        ``(explored int8[children], probability float64[children], breadth int64[parents],
        state)``.
    """
    total = f.shape[0]
    parents = offsets.shape[0] - 1
    explored = np.zeros(total, dtype=np.int8)
    probability = np.zeros(total, dtype=np.float64)
    breadth = np.zeros(parents, dtype=np.int64)
    scores, state = exploration_scores(f, outcome, reward, offsets, black_to_move, explore_by, noise_weight, state)
    for i in range(parents):
        lo, hi = offsets[i], offsets[i + 1]
        n = hi - lo
        if n == 0:
            continue
        sign = -1.0 if black_to_move[i] != 0 else 1.0
        best = -1e300
        for c in range(lo, hi):
            x = sign * known_value(f[c], outcome[c]) / temperature
            if x > best:
                best = x
        norm = 0.0
        for c in range(lo, hi):
            e = math.exp(sign * known_value(f[c], outcome[c]) / temperature - best)
            probability[c] = e
            norm += e
        for c in range(lo, hi):
            probability[c] /= norm
        k = int(math.ceil(explore_fraction * n - 1e-9))
        if k < min_explored:
            k = min_explored
        if k > n:
            k = n
        for _ in range(k):
            top = -1
            top_score = -1e300
            for c in range(lo, hi):
                if explored[c] == 0 and scores[c] > top_score:
                    top, top_score = c, scores[c]
            explored[top] = 1
        if forced[i] >= 0 and forced[i] < n:
            explored[lo + forced[i]] = 1
        count = 0
        for c in range(lo, hi):
            count += explored[c]
        breadth[i] = count
    return explored, probability, breadth, state


@_njit
def expected_value_backup(child_start, child_count, breadth, explored, probability, reward, outcome, f):
    """The design document's expected value of all future rewards at every node of a subtree
    forest.

    Nodes are numbered so that children come after their parent (rows ``child_start[i] ..
    child_start[i] + child_count[i] - 1``). Going backwards, an expanded node gets::

        V(A) = breadth / len(B) * sum over explored m of p_m * (R(A, Bm) + V(Bm))

    (``p_m`` the mover's softmax over all of ``B``); an unexpanded node where the game goes
    on is a leaf with ``V = 2 f - 1`` (the network's (0, 1) output on the reward scale), and
    a node where the game is over has ``V = 0`` (no reward follows; the final ``+-1`` is
    already the reward of the move into it). The damping ``breadth / len(B)`` compounds
    level by level, so rewards found deeper in a narrow tree count less.

    Returns:
        ``float64[nodes]``, White's view on the reward scale.
    """
    nodes = child_start.shape[0]
    value = np.zeros(nodes, dtype=np.float64)
    for i in range(nodes - 1, -1, -1):
        n = child_count[i]
        if n > 0:
            acc = 0.0
            for c in range(child_start[i], child_start[i] + n):
                if explored[c]:
                    acc += probability[c] * (reward[c] + value[c])
            value[i] = breadth[i] / n * acc
        elif outcome[i] != ONGOING:
            value[i] = 0.0
        else:
            value[i] = 2.0 * f[i] - 1.0
    return value


# -- generated games -----------------------------------------------------------------------


@_njit
def choose_game_moves(scores, offsets):
    """For each game, the local index of its child with the highest exploration score."""
    games = offsets.shape[0] - 1
    chosen = np.zeros(games, dtype=np.int64)
    for i in range(games):
        best = -1e300
        for c in range(offsets[i], offsets[i + 1]):
            if scores[c] > best:
                best = scores[c]
                chosen[i] = c - offsets[i]
    return chosen


@_njit
def skewed_points(captures, lengths, capture_skew, state):
    """One ply of each generated game, chosen with probability proportional to
    ``1 + capture_skew * captures[g, t]`` over its positions ``t < lengths[g]``: positions
    where more captures are available next move are picked more often.

    Returns:
        ``(int64[games] plies, state)``; -1 for a game of length 0.
    """
    games = captures.shape[0]
    out = np.full(games, -1, dtype=np.int64)
    for g in range(games):
        total = 0.0
        for t in range(lengths[g]):
            total += 1.0 + capture_skew * captures[g, t]
        if total <= 0.0:
            continue
        state, u = uniform01(state)
        u *= total
        acc = 0.0
        out[g] = lengths[g] - 1
        for t in range(lengths[g]):
            acc += 1.0 + capture_skew * captures[g, t]
            if u < acc:
                out[g] = t
                break
    return out, state
