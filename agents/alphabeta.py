"""The ``alphabeta`` baseline: a numba negamax search with alpha-beta pruning.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("alphabeta:depth=4,eval=material,seed=1")
    >>> move = agent.select_move(Game())
    >>> agent.last_search.depth
    4

The search
----------
One iterative kernel (an explicit stack, one move buffer per ply, no allocation, no
recursion) runs a fail-soft negamax with alpha-beta pruning over complete moves; Python
drives iterative deepening (depth 1, 2, ... up to ``depth``, or until ``time`` runs out).

- **Quiescence.** At depth 0 a position where the side to move must capture is not
  evaluated: its captures are searched on (captures are mandatory, so there is no
  "stand pat") until a quiet position is reached.
- **Terminal positions.** A side with no legal move loses: ``-WIN + ply``, so that a
  shorter win (and a longer loss) scores better. A search that finds a forced win or loss
  within its nominal depth stops deepening: a deeper search gives the same value and moves.
- **Move ordering.** The transposition-table move first; then, for captures, the number
  of pieces (and kings) captured and crowning; for quiet moves, crowning, two killer moves
  per ply and a history heuristic (``depth**2`` per cut-off, halved between searches).
- **Transposition table.** Zobrist hashing (``ZOBRIST``: a fixed random int64 per square x
  piece kind, plus one for the side to move, updated incrementally move by move), a table of
  ``2**TT_BITS`` entries (key, and value/depth/bound/move/generation packed in one int64)
  with depth-preferred replacement. A stored value cuts the search off only when it was
  stored *in the same search* at *exactly the same* remaining depth; entries of earlier
  searches only order moves. That keeps every root value exactly the depth-``d`` minimax
  value (the tests check it against a plain minimax), so the choice among moves never
  depends on what the table happened to hold.
- **Ties.** Root moves are searched with the window lowered by one point, so every move
  whose value equals the best is known exactly; the agent picks one of them with its
  seeded generator (deterministic for a fixed seed at a fixed depth).
- **Repetitions.** The positions of the game since its last irreversible move (a capture or
  a man move) are passed in as hashes; inside the search a position equal to one of them
  scores as a draw (0). So an agent that is ahead does not walk back into a position that
  would repeat (a second occurrence already counts: conservative, and it keeps the rule
  simple), and one that is behind steers toward repetitions. Repetitions arising only
  inside the search tree are not detected (they would make values depend on the path and
  break the table's exactness); the 80-ply no-progress rule is ignored.
- **Time.** With ``time`` the next iteration starts only if it is expected to finish
  (its predecessor took less than a third of what is left), and the kernel gets a node
  budget of (time left x measured nodes/s) as a hard limit; an iteration cut off by the
  budget is discarded and the last complete one decides. Depth 1 always completes.

Evaluation
----------
Both evaluations are from the view of the side to move, in points where a man is 100.

``material``: man 100, king 140.

``positional`` (weights in the ``W_*`` constants), each term own minus the opponent's:

======================  =====  ===========================================================
term                    points
======================  =====  ===========================================================
man / king              100 /  material
                        140
back rank guard         8      per man on its own back rank, while the opponent has men
                               (guards the crowning squares)
centre control          4 / 8  per man / king on the 8 central squares (10, 11, 14, 15,
                               18, 19, 22, 23: ranks 3-6, the middle two columns)
mobility                2      per non-capturing move available
tempo / advancement     3      per row a man has advanced from its back rank
trading down            2      x (24 - pieces on the board) for the side ahead in material
                               (exchanges help the stronger side)
======================  =====  ===========================================================
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from checkers_env import BLACK, BaseAgent, Board, Game, Move
from checkers_env.bitboard import (
    BB_ROW0,
    BB_ROW7,
    BB_SQUARES,
    FULL,
    apply_move,
    jumpers,
    step,
)
from checkers_env.bitboard import count_steps
from checkers_env.kernels import MAX_MOVES, MOVE_FIELDS, generate_moves

# -- limits and scores ------------------------------------------------------------------

#: Deepest nominal search (iterative deepening with ``time`` stops here at the latest).
MAX_DEPTH = 64
#: Plies the stack holds: the nominal depth plus quiescence (each capture removes a piece,
#: so capture sequences add at most 24 plies); deeper nodes are evaluated statically.
MAX_PLY = 128
#: Score of a won position at the root; a win in ``n`` plies scores ``WIN - n``.
WIN = 1_000_000
INF = 2 * WIN
#: Scores beyond this are forced wins or losses (distance-to-win encoded).
WIN_BOUND = WIN - 1000

#: Nodes with less remaining depth than this neither probe nor store the table (a table
#: access is a cache miss; near the leaves it costs more than it saves).
TT_MIN_DEPTH = 2
#: Transposition table size: ``2**TT_BITS`` entries of 16 bytes (16 MiB).
TT_BITS = 20

EVAL_MATERIAL = 0
EVAL_POSITIONAL = 1
EVALS = {"material": EVAL_MATERIAL, "positional": EVAL_POSITIONAL}

# -- evaluation weights (points; a man is 100) --------------------------------------------

W_MAN = 100
W_KING = 140
W_BACK_RANK = 8
W_CENTRE_MAN = 4
W_CENTRE_KING = 8
W_MOBILITY = 2
W_ADVANCE = 3
W_TRADE = 2

# Rows are 4 bits each (bitboard.py): the bits of a row index, as masks.
_ROW_BIT0 = 0xF0F0F0F0  # odd rows
_ROW_BIT1 = 0xFF00FF00  # rows 2, 3, 6, 7
_ROW_BIT2 = 0xFFFF0000  # rows 4-7
#: The middle two columns (bits 1, 2 of each row) of rows 2-5 (squares 10, 11, 14, 15, 18,
#: 19, 22, 23): symmetric under the half turn, so it is the same centre for both sides.
BB_CENTRE = 0x00666600

# -- Zobrist keys ---------------------------------------------------------------------------

#: ``ZOBRIST[kind * 32 + bit]`` with kind 0 black man, 1 black king, 2 white man, 3 white
#: king; ``ZOBRIST[128]`` is xored in when White is to move. Fixed seed: hashes are stable.
ZOBRIST = np.random.default_rng(0x5EED_C4EC).integers(1, 2**63 - 1, size=129, dtype=np.int64)
_SIDE_KEY = 128

# -- transposition-table entry layout (one int64) ---------------------------------------------

_BOUND_EXACT, _BOUND_LOWER, _BOUND_UPPER = 0, 1, 2
_NO_MOVE = 255
_VALUE_OFFSET = 1 << 31

# -- stack fields -------------------------------------------------------------------------------

(
    _S_MOVER,
    _S_OPPONENT,
    _S_KINGS,
    _S_SIDE,  # 1 when Black is to move
    _S_HASH,
    _S_DEPTH,
    _S_ALPHA,
    _S_BETA,
    _S_BEST,
    _S_BEST_INDEX,
    _S_INDEX,
    _S_COUNT,
    _S_ORIGINAL_ALPHA,
    _S_REVERSIBLE,  # every move from the root to here was a king's non-capture
    _S_CAPTURES,  # the node's moves are captures
) = range(15)
_STACK_FIELDS = 15

# Move-ordering scores.
_ORDER_TT = 1 << 40
_ORDER_CAPTURE = 1 << 30
_ORDER_CROWN = 1 << 29
_ORDER_KILLER1 = 1 << 28
_ORDER_KILLER2 = 1 << 27
_HISTORY_CAP = 1 << 26

_ENTER, _NEXT, _RETURN = 0, 1, 2


# -- kernels ------------------------------------------------------------------------------------


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's ``ctpop`` on an int64 (one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.ctpop(value)

    return types.int64(x), codegen


@numba.njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits."""
    return _ctpop(x)


@intrinsic
def _cttz(typingctx, x):
    """LLVM's ``cttz`` on an int64: the index of the lowest set bit of a non-zero value."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.cttz(value, ir.Constant(ir.IntType(1), 1))

    return types.int64(x), codegen


@numba.njit(cache=True)
def position_hash(black, white, kings, black_to_move):
    """Zobrist hash of a position (the search updates the same hash incrementally)."""
    h = 0
    for colour in range(2):
        pieces = black if colour == 0 else white
        while pieces:
            b = _cttz(pieces)
            pieces &= pieces - 1
            kind = 2 * colour + ((kings >> b) & 1)
            h ^= ZOBRIST[kind * 32 + b]
    if not black_to_move:
        h ^= ZOBRIST[_SIDE_KEY]
    return h


@numba.njit(cache=True, inline="always")
def _side_terms(own, opponent, kings, black):
    """Positional points of one side (material, back rank, centre, advancement)."""
    men = own & ~kings
    own_kings = own & kings
    n_men = popcount(men)
    score = W_MAN * n_men + W_KING * popcount(own_kings)
    rows = popcount(men & _ROW_BIT0) + 2 * popcount(men & _ROW_BIT1) + 4 * popcount(men & _ROW_BIT2)
    if black:
        back = BB_ROW0
    else:
        rows = 7 * n_men - rows
        back = BB_ROW7
    score += W_ADVANCE * rows
    if opponent & ~kings:
        score += W_BACK_RANK * popcount(men & back)
    score += W_CENTRE_MAN * popcount(men & BB_CENTRE) + W_CENTRE_KING * popcount(own_kings & BB_CENTRE)
    return score


@numba.njit(cache=True, inline="always")
def evaluate(mover, opponent, kings, black_to_move, eval_kind):
    """Static value of a position for the side to move (see the module docstring)."""
    if eval_kind == EVAL_MATERIAL:
        return (
            W_MAN * popcount(mover & ~kings)
            + W_KING * popcount(mover & kings)
            - W_MAN * popcount(opponent & ~kings)
            - W_KING * popcount(opponent & kings)
        )
    score = _side_terms(mover, opponent, kings, black_to_move) - _side_terms(
        opponent, mover, kings, not black_to_move
    )
    score += W_MOBILITY * (
        count_steps(mover, opponent, kings, black_to_move)
        - count_steps(opponent, mover, kings, not black_to_move)
    )
    material = (
        W_MAN * (popcount(mover & ~kings) - popcount(opponent & ~kings))
        + W_KING * (popcount(mover & kings) - popcount(opponent & kings))
    )
    fewer = 24 - popcount(mover | opponent)
    if material > 0:
        score += W_TRADE * fewer
    elif material < 0:
        score -= W_TRADE * fewer
    return score


@numba.njit(cache=True, inline="always")
def _has_step(mover, opponent, kings, black_to_move):
    """Whether the side to move has a non-capturing move."""
    empty = ~(mover | opponent) & FULL
    if black_to_move:
        men_targets = step(mover, 0) | step(mover, 1)
        king_targets = step(mover & kings, 2) | step(mover & kings, 3)
    else:
        men_targets = step(mover, 2) | step(mover, 3)
        king_targets = step(mover & kings, 0) | step(mover & kings, 1)
    return ((men_targets | king_targets) & empty) != 0


@numba.njit(cache=True)
def search_kernel(
    mover,
    opponent,
    kings,
    black_to_move,
    depth,
    node_limit,
    eval_kind,
    generation,
    history,
    n_history,
    table,
    killers,
    history_scores,
    moves,
    order_scores,
    order_index,
    stack,
    root_scores,
):
    """One depth-``depth`` negamax alpha-beta search of the position (iterative, no allocation).

    Args:
        mover, opponent, kings, black_to_move: the root position.
        node_limit: give up (returning ``aborted``) after this many nodes.
        eval_kind: ``EVAL_MATERIAL`` or ``EVAL_POSITIONAL``.
        generation: 1-255, the same for every iteration of one search: table values of
            another generation only order moves.
        history, n_history: hashes of the positions that score as draws (repetitions).
        table: the transposition table, ``int64[2**k, 2]``: key, packed entry.
        killers: ``int64[MAX_PLY, 2]``, ``from * 32 + to + 1`` of quiet cut-off moves.
        history_scores: ``int64[2, 32, 32]`` by side, from, to.
        moves: ``int64[MAX_PLY, MAX_MOVES, MOVE_FIELDS]``, one move list per ply.
        order_scores, order_index: ``int64[MAX_PLY, MAX_MOVES]`` ordering scratch.
        stack: ``int64[MAX_PLY, _STACK_FIELDS]``.
        root_scores: ``int64[MAX_MOVES]``; receives each root move's score, exact for
            every move whose value equals the best (others hold an upper bound below it).

    Returns:
        ``(value, best_index, root_moves, nodes, aborted)``; indices are rows of ``moves[0]``.
    """
    tt_mask = table.shape[0] - 1
    nodes = 0
    ply = 0
    stack[0, _S_MOVER] = mover
    stack[0, _S_OPPONENT] = opponent
    stack[0, _S_KINGS] = kings
    stack[0, _S_SIDE] = 1 if black_to_move else 0
    stack[0, _S_HASH] = position_hash(
        mover if black_to_move else opponent, opponent if black_to_move else mover, kings, black_to_move
    )
    stack[0, _S_DEPTH] = depth
    stack[0, _S_ALPHA] = -INF
    stack[0, _S_BETA] = INF
    stack[0, _S_REVERSIBLE] = 1
    state = _ENTER
    value = 0
    while True:
        if state == _ENTER:
            nodes += 1
            if nodes > node_limit:
                return 0, -1, 0, nodes, True
            m = stack[ply, _S_MOVER]
            o = stack[ply, _S_OPPONENT]
            k = stack[ply, _S_KINGS]
            side = stack[ply, _S_SIDE] == 1
            h = stack[ply, _S_HASH]
            d = stack[ply, _S_DEPTH]
            if ply > 0 and stack[ply, _S_REVERSIBLE] == 1:
                repeated = False
                for i in range(n_history):
                    if history[i] == h:
                        repeated = True
                        break
                if repeated:
                    value = 0
                    state = _RETURN
                    continue
            jumping = jumpers(m, o, k, side)
            if jumping == 0 and (d <= 0 or ply >= MAX_PLY - 1):
                if _has_step(m, o, k, side):
                    value = evaluate(m, o, k, side, eval_kind)
                else:
                    value = -WIN + ply
                state = _RETURN
                continue
            if ply >= MAX_PLY - 1:  # never reached in practice: a guard for the stack
                value = evaluate(m, o, k, side, eval_kind)
                state = _RETURN
                continue
            alpha = stack[ply, _S_ALPHA]
            beta = stack[ply, _S_BETA]
            tt_move = -1
            slot = h & tt_mask
            if d >= TT_MIN_DEPTH and table[slot, 0] == h:
                data = table[slot, 1]
                stored_move = (data >> 42) & 255
                if stored_move != _NO_MOVE:
                    tt_move = stored_move
                if ply > 0 and ((data >> 50) & 255) == generation and ((data >> 32) & 255) == max(d, 0):
                    v = (data & 0xFFFFFFFF) - _VALUE_OFFSET
                    if v > WIN_BOUND:
                        v -= ply
                    elif v < -WIN_BOUND:
                        v += ply
                    bound = (data >> 40) & 3
                    if (
                        bound == _BOUND_EXACT
                        or (bound == _BOUND_LOWER and v >= beta)
                        or (bound == _BOUND_UPPER and v <= alpha)
                    ):
                        value = v
                        state = _RETURN
                        continue
            buffer = moves[ply]
            n = generate_moves(m, o, k, side, buffer)
            if n == 0:
                value = -WIN + ply
                state = _RETURN
                continue
            crown = BB_ROW7 if side else BB_ROW0
            side_index = 1 if side else 0
            killer1 = killers[ply, 0]
            killer2 = killers[ply, 1]
            for i in range(n):
                frm = buffer[i, 0]
                to = buffer[i, 1]
                if i == tt_move:
                    score = _ORDER_TT
                else:
                    crowned = ((k >> frm) & 1) == 0 and ((crown >> to) & 1) == 1
                    if jumping:
                        captured = buffer[i, 2]
                        score = _ORDER_CAPTURE + 64 * popcount(captured) + 16 * popcount(captured & k)
                        if crowned:
                            score += 8
                    else:
                        move_id = frm * 32 + to + 1
                        score = history_scores[side_index, frm, to]
                        if crowned:
                            score += _ORDER_CROWN
                        elif move_id == killer1:
                            score += _ORDER_KILLER1
                        elif move_id == killer2:
                            score += _ORDER_KILLER2
                order_scores[ply, i] = score
                order_index[ply, i] = i
            stack[ply, _S_COUNT] = n
            stack[ply, _S_INDEX] = 0
            stack[ply, _S_BEST] = -INF
            stack[ply, _S_BEST_INDEX] = -1
            stack[ply, _S_ORIGINAL_ALPHA] = alpha
            stack[ply, _S_CAPTURES] = 1 if jumping else 0
            state = _NEXT
        elif state == _NEXT:
            i = stack[ply, _S_INDEX]
            n = stack[ply, _S_COUNT]
            if i >= n:
                # Node finished: store it and hand its value to the parent.
                best = stack[ply, _S_BEST]
                h = stack[ply, _S_HASH]
                d = max(stack[ply, _S_DEPTH], 0)
                slot = h & tt_mask
                if d >= TT_MIN_DEPTH and (
                    table[slot, 0] == h
                    or ((table[slot, 1] >> 50) & 255) != generation
                    or d >= ((table[slot, 1] >> 32) & 255)
                ):
                    if best >= stack[ply, _S_BETA]:
                        bound = _BOUND_LOWER
                    elif best <= stack[ply, _S_ORIGINAL_ALPHA]:
                        bound = _BOUND_UPPER
                    else:
                        bound = _BOUND_EXACT
                    stored = best
                    if stored > WIN_BOUND:
                        stored += ply
                    elif stored < -WIN_BOUND:
                        stored -= ply
                    table[slot, 0] = h
                    table[slot, 1] = (
                        (stored + _VALUE_OFFSET)
                        | (d << 32)
                        | (bound << 40)
                        | (stack[ply, _S_BEST_INDEX] << 42)
                        | (generation << 50)
                    )
                value = best
                state = _RETURN
                continue
            # Pick the best-ordered remaining move (selection sort, one step per move).
            pick = i
            pick_score = order_scores[ply, i]
            for j in range(i + 1, n):
                if order_scores[ply, j] > pick_score:
                    pick_score = order_scores[ply, j]
                    pick = j
            if pick != i:
                order_scores[ply, pick] = order_scores[ply, i]
                order_scores[ply, i] = pick_score
                swap = order_index[ply, pick]
                order_index[ply, pick] = order_index[ply, i]
                order_index[ply, i] = swap
            stack[ply, _S_INDEX] = i + 1
            mi = order_index[ply, i]
            frm = moves[ply, mi, 0]
            to = moves[ply, mi, 1]
            captured = moves[ply, mi, 2]
            m = stack[ply, _S_MOVER]
            o = stack[ply, _S_OPPONENT]
            k = stack[ply, _S_KINGS]
            side = stack[ply, _S_SIDE] == 1
            m2, o2, k2 = apply_move(m, o, k, side, frm, to, captured)
            # Incremental Zobrist update.
            own_kind = 0 if side else 2
            h = stack[ply, _S_HASH] ^ ZOBRIST[_SIDE_KEY]
            was_king = (k >> frm) & 1
            h ^= ZOBRIST[(own_kind + was_king) * 32 + frm]
            h ^= ZOBRIST[(own_kind + ((k2 >> to) & 1)) * 32 + to]
            other_kind = 2 - own_kind
            rest = captured
            while rest:
                b = _cttz(rest)
                rest &= rest - 1
                h ^= ZOBRIST[(other_kind + ((k >> b) & 1)) * 32 + b]
            child = ply + 1
            stack[child, _S_MOVER] = o2
            stack[child, _S_OPPONENT] = m2
            stack[child, _S_KINGS] = k2
            stack[child, _S_SIDE] = 0 if side else 1
            stack[child, _S_HASH] = h
            stack[child, _S_DEPTH] = stack[ply, _S_DEPTH] - 1
            stack[child, _S_REVERSIBLE] = 1 if (stack[ply, _S_REVERSIBLE] == 1 and captured == 0 and was_king == 1) else 0
            if ply == 0:
                # Root: lower the window by one so that every move tying the best is exact.
                best = stack[0, _S_BEST]
                stack[child, _S_ALPHA] = -INF
                stack[child, _S_BETA] = INF if best <= -INF else 1 - best
            else:
                stack[child, _S_ALPHA] = -stack[ply, _S_BETA]
                stack[child, _S_BETA] = -stack[ply, _S_ALPHA]
            ply = child
            state = _ENTER
        else:  # _RETURN: ``value`` is the value of the node at ``ply``
            if ply == 0:
                return value, stack[0, _S_BEST_INDEX], stack[0, _S_COUNT], nodes, False
            ply -= 1
            score = -value
            mi = order_index[ply, stack[ply, _S_INDEX] - 1]
            if ply == 0:
                root_scores[mi] = score
                if score > stack[0, _S_BEST]:
                    stack[0, _S_BEST] = score
                    stack[0, _S_BEST_INDEX] = mi
            elif score > stack[ply, _S_BEST]:
                stack[ply, _S_BEST] = score
                stack[ply, _S_BEST_INDEX] = mi
                if score > stack[ply, _S_ALPHA]:
                    stack[ply, _S_ALPHA] = score
                    if score >= stack[ply, _S_BETA]:
                        if stack[ply, _S_CAPTURES] == 0:
                            frm = moves[ply, mi, 0]
                            to = moves[ply, mi, 1]
                            move_id = frm * 32 + to + 1
                            if killers[ply, 0] != move_id:
                                killers[ply, 1] = killers[ply, 0]
                                killers[ply, 0] = move_id
                            d = max(stack[ply, _S_DEPTH], 1)
                            side_index = stack[ply, _S_SIDE]
                            hist = history_scores[side_index, frm, to] + d * d
                            history_scores[side_index, frm, to] = min(hist, _HISTORY_CAP)
                        stack[ply, _S_INDEX] = stack[ply, _S_COUNT]  # cut-off
            state = _NEXT


# -- Python side ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    """What one search found.

    Attributes:
        value: the root value for the side to move (points, or ``WIN - plies`` for a win).
        best_moves: the legal moves whose value equals ``value`` (the agent picks one).
        depth: the depth of the last complete iteration.
        nodes: nodes visited by all iterations (quiescence and aborted work included).
        seconds: wall time of the search.
    """

    value: int
    best_moves: tuple[Move, ...]
    depth: int
    nodes: int
    seconds: float

    @property
    def nodes_per_s(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def win_in(self) -> int | None:
        """Plies to a forced win (positive) or loss (negative), None if not forced."""
        if self.value > WIN_BOUND:
            return WIN - self.value
        if self.value < -WIN_BOUND:
            return -(WIN + self.value)
        return None

    def as_dict(self) -> dict:
        return {
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "nodes_per_s": self.nodes_per_s,
            "score": self.value,
            "best_moves": [str(move) for move in self.best_moves],
        }


class Searcher:
    """The search's memory (transposition table, killers, history, buffers) and its driver.

    Args:
        tt_bits: the table holds ``2**tt_bits`` entries of 16 bytes.
    """

    def __init__(self, tt_bits: int = TT_BITS):
        self.table = np.zeros((1 << tt_bits, 2), dtype=np.int64)
        self.killers = np.zeros((MAX_PLY, 2), dtype=np.int64)
        self.history_scores = np.zeros((2, 32, 32), dtype=np.int64)
        self.moves = np.zeros((MAX_PLY, MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
        self.order_scores = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.order_index = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.stack = np.zeros((MAX_PLY, _STACK_FIELDS), dtype=np.int64)
        self.root_scores = np.zeros(MAX_MOVES, dtype=np.int64)
        self.generation = 0

    def clear(self) -> None:
        """Forget everything learned (table, killers, history)."""
        for array in (self.table, self.killers, self.history_scores):
            array.fill(0)
        self.generation = 0

    def search(
        self,
        board: Board,
        depth: int | None = None,
        seconds: float | None = None,
        eval: str = "positional",
        draws: np.ndarray | list[int] = (),
    ) -> SearchResult:
        """Iterative deepening to ``depth``, within ``seconds`` if given.

        Args:
            depth: the nominal depth; default 6, or ``MAX_DEPTH`` when ``seconds`` is given.
            seconds: time for the search (hard limit through a node budget).
            eval: ``material`` or ``positional``.
            draws: hashes (``position_hash``) of positions that score as draws.

        Raises:
            ValueError: the side to move has no legal move.
        """
        started = _time.perf_counter()
        if not board.has_legal_moves():
            raise ValueError(f"no legal move to search in {board.fen()}")
        if depth is None:
            depth = MAX_DEPTH if seconds is not None else 6
        if seconds is not None and len(board.legal_moves()) == 1:
            depth = 1  # a forced move: no time to spend
        eval_kind = EVALS[eval]
        mover, opponent = board.mover_bitboards
        black_to_move = board.turn == BLACK
        history = np.asarray(draws, dtype=np.int64).reshape(-1)
        self.generation = self.generation % 255 + 1
        if self.generation == 1:
            # Generations wrap around: no entry of an earlier search may pass for this one's.
            self.table.fill(0)
        self.killers.fill(0)
        self.history_scores //= 2

        nodes = 0
        done = None  # (value, ties, depth) of the last complete iteration
        last_took = 0.0
        for d in range(1, depth + 1):
            now = _time.perf_counter()
            limit = 1 << 62
            if seconds is not None and d > 1:
                left = seconds - (now - started)
                if left <= 0 or last_took * 3 > left:
                    break
                rate = nodes / max(now - started, 1e-6)
                limit = max(int(left * rate), 1000)
            iteration_started = now
            value, best, count, used, aborted = search_kernel(
                mover,
                opponent,
                board.kings,
                black_to_move,
                d,
                limit,
                eval_kind,
                self.generation,
                history,
                len(history),
                self.table,
                self.killers,
                self.history_scores,
                self.moves,
                self.order_scores,
                self.order_index,
                self.stack,
                self.root_scores,
            )
            nodes += used
            last_took = _time.perf_counter() - iteration_started
            if aborted:
                break
            ties = [int(i) for i in range(count) if self.root_scores[i] == value]
            done = (int(value), ties, d)
            if WIN - abs(value) <= d:
                # A forced result within the nominal depth: every deeper iteration gives the
                # same value and the same best moves. (One found beyond it, through the
                # capture extension, is real too, but a deeper search may find more moves
                # that win as fast: go on.)
                break
        value, ties, reached = done
        rows = self.moves[0]
        by_row = _moves_by_row(board)
        best_moves = tuple(dict.fromkeys(by_row[(int(rows[i, 0]), int(rows[i, 1]), int(rows[i, 2]))] for i in ties))
        return SearchResult(value, best_moves, reached, nodes, _time.perf_counter() - started)


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


def board_hash(board: Board) -> int:
    """``position_hash`` of a ``Board``."""
    return int(position_hash(board.black, board.white, board.kings, board.turn == BLACK))


def repetition_hashes(game: Game) -> list[int]:
    """Hashes of the positions since the game's last irreversible move (a capture or a man
    move), the current one included: returning to any of them would repeat a position."""
    boards = game.boards
    start = len(boards) - 1
    for i in range(len(game.moves) - 1, -1, -1):
        move, before = game.moves[i], boards[i]
        if move.is_capture or not before.kings & BB_SQUARES[move.path[0] - 1]:
            break
        start = i
    return [board_hash(b) for b in boards[start:]]  # the hash includes the side to move


class AlphaBetaAgent(BaseAgent):
    """Alpha-beta search in numba: depth 6 by default, or as deep as ``time`` allows.

    See the module docstring for the search and the evaluation.

    Args:
        depth: nominal search depth in plies, 1-64 (quiescence searches captures beyond it).
            Default: 6 without ``time``; with ``time``, as deep as the time allows.
        time: seconds per move; iterative deepening stops when it runs out (hard limit
            through a node budget). Timed searches are not reproducible.
        eval: ``positional`` (default) or ``material``.
        seed: seed of the generator that breaks ties between equally good moves.

    Attributes:
        last_search: the ``SearchResult`` of the last ``select_move`` (depth reached,
            nodes, nodes/s, score), or None.
    """

    kind = "alphabeta"

    def __init__(
        self,
        depth: int | None = None,
        time: float | None = None,
        eval: str = "positional",
        seed: int | None = None,
    ):
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_DEPTH
        ):
            raise ValueError(f"alphabeta: depth must be an integer from 1 to {MAX_DEPTH}, got {depth!r}")
        if time is not None and (
            isinstance(time, bool)
            or not isinstance(time, (int, float, np.floating, np.integer))
            or not math.isfinite(time)
            or time <= 0
        ):
            raise ValueError(f"alphabeta: time must be a positive number of seconds per move, got {time!r}")
        if eval not in EVALS:
            raise ValueError(f"alphabeta: eval must be one of {', '.join(EVALS)}, got {eval!r}")
        super().__init__(seed=seed)
        self.depth = None if depth is None else int(depth)
        self.time = None if time is None else float(time)
        self.eval = eval
        self.last_search: SearchResult | None = None
        self._searcher: Searcher | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._searcher is not None:
            self._searcher.clear()
        self.last_search = None

    def search(self, game: Game) -> SearchResult:
        """Search the game's current position (repetitions of the game score as draws)."""
        if self._searcher is None:
            self._searcher = Searcher()
        draws = repetition_hashes(game) if game.rules.repetition is not None else []
        return self._searcher.search(game.board, self.depth, self.time, self.eval, draws)

    def select_move(self, game: Game) -> Move:
        result = self.search(game)
        self.last_search = result
        moves = result.best_moves
        if len(moves) == 1:
            return moves[0]
        return moves[int(self.rng.integers(len(moves)))]


__all__ = [
    "AlphaBetaAgent",
    "MAX_DEPTH",
    "SearchResult",
    "Searcher",
    "WIN",
    "board_hash",
    "evaluate",
    "position_hash",
    "repetition_hashes",
    "search_kernel",
]
