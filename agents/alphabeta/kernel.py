"""The one alpha-beta kernel: iterative negamax over complete moves, evaluator passed in.

See the package docstring (``checkers_agents.alphabeta``) for what the search does; this module
holds the numba kernel, its limits and the Zobrist hashing the table and the repetition
rule share.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from checkers_env.bitboard import (
    BB_ROW0,
    BB_ROW7,
    apply_move,
    has_moves,
    jumpers,
    lowest_bit_index,
    movers,
    popcount,
)
from checkers_env.egdb_kernels import probe
from checkers_env.encoding import half_turn
from checkers_env.game_state import is_progress, position_key
from checkers_env.kernels import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves, random_below

from .evaluators import (
    REWARD_MATERIAL_LOG,
    Scoring,
    WIN,
    MAX_ACTIVE,
    hand_value,
    material_log_reward,
    net_value,
)

# -- limits and scores ------------------------------------------------------------------

#: Deepest nominal search (iterative deepening with ``time`` stops here at the latest).
MAX_DEPTH = 64
#: Plies the stack holds: the nominal depth plus quiescence (each capture removes a piece,
#: so capture sequences add at most 24 plies); deeper nodes are evaluated statically.
MAX_PLY = 128
#: Beyond every score (wins included): the open window.
INF = 2 * WIN

#: Nodes with less remaining depth than this neither probe nor store the table (a table
#: access is a cache miss; near the leaves it costs more than it saves).
TT_MIN_DEPTH = 2
#: Transposition table size: ``2**TT_BITS`` entries of 16 bytes (16 MiB).
TT_BITS = 20
#: Columns of a table entry, one 16-byte row (a probe touches one cache line): int64
#: ``(hash >> 32) << 32 | depth | bound << 8 | move << 10 | generation << 18`` (the low
#: hash bits are the slot), and the float64 value, read through a float64 view of the
#: same array (``table.view(np.float64)``). A separate value array cost a second cache
#: miss per probe: 9 % of the search's time at depth 14 (benchmarks.search_ab).
TT_FIELDS = 2
_TT_ENTRY, _TT_VALUE = 0, 1
_TT_KEY_MASK = -(1 << 32)

# -- Zobrist keys ---------------------------------------------------------------------------

#: ``ZOBRIST[kind * 32 + bit]`` with kind 0 black man, 1 black king, 2 white man, 3 white
#: king; ``ZOBRIST[128]`` is xored in when White is to move. Fixed seed: hashes are stable.
ZOBRIST = np.random.default_rng(0x5EED_C4EC).integers(1, 2**63 - 1, size=129, dtype=np.int64)
_SIDE_KEY = 128

# -- transposition-table entry layout ---------------------------------------------------------

_BOUND_EXACT, _BOUND_LOWER, _BOUND_UPPER = 0, 1, 2
_NO_MOVE = 255

# -- stack fields -------------------------------------------------------------------------------

(
    _S_MOVER,
    _S_OPPONENT,
    _S_KINGS,
    _S_SIDE,  # 1 when Black is to move
    _S_HASH,
    _S_DEPTH,
    _S_BEST_INDEX,
    _S_INDEX,
    _S_COUNT,
    _S_REVERSIBLE,  # every move from the root to here was a king's non-capture
    _S_CAPTURES,  # the node's moves are captures
    _S_QUIET,  # plies since the last capture or man move, the game's included
    _S_ORDERED,  # the node's moves are searched best-ordered (else in generate_moves order)
) = range(13)
STACK_FIELDS = 13

# Float fields per ply.
_V_ALPHA, _V_BETA, _V_BEST, _V_ORIGINAL_ALPHA, _V_REWARD = range(5)
VALUE_FIELDS = 5

# Move-ordering scores.
_ORDER_TT = 1 << 40
_ORDER_CAPTURE = 1 << 30
_ORDER_CROWN = 1 << 29
_ORDER_KILLER1 = 1 << 28
_ORDER_KILLER2 = 1 << 27
_HISTORY_CAP = 1 << 26

_ENTER, _NEXT, _RETURN = 0, 1, 2

# -- the kernel's bundles (named tuples: numba takes them as typed tuples) ----------------------

#: A position with its side to move first: ``mover``'s pieces, ``opponent``'s, all kings,
#: and whether Black (``mover``) is to move.
Position = namedtuple("Position", "mover opponent kings black_to_move")
#: The game's draw rules as the search sees them: ``keys[:count]`` are the
#: ``game_state.position_key`` of the positions since the last capture or man move (the
#: current one included), ``quiet`` the plies since then, ``no_progress_plies`` the
#: no-progress limit (0: off).
DrawRules = namedtuple("DrawRules", "keys count quiet no_progress_plies")
#: The transposition table: ``entries``, ``int64[2**k, TT_FIELDS]``, and ``values``, its
#: ``float64`` view (the same memory: column 1 holds the values).
Table = namedtuple("Table", "entries values")
#: The search's working memory (see ``search_kernel``), views of two flat arrays
#: (:func:`memory_views`).
SearchMemory = namedtuple(
    "SearchMemory",
    "killers history_scores moves order_scores order_index stack active values root_scores scratch",
)
#: The search's memory as two flat arrays, ``int64[ints]`` and ``float64[floats]``
#: (:func:`memory_sizes` for a net of ``width``): two arrays cross from Python into numba
#: faster than ten (each is unboxed on every call).
FlatMemory = namedtuple("FlatMemory", "ints floats width")
#: The endgame database: ``EndgameDatabase.values``, ``.offsets`` and ``.pieces`` (0: off;
#: :func:`no_egdb` gives arrays to pass).
EndgameProbe = namedtuple("EndgameProbe", "values offsets pieces")


@numba.njit(cache=True)
def position_hash(black, white, kings, black_to_move):
    """Zobrist hash of a position (the search updates the same hash incrementally)."""
    h = 0
    for colour in range(2):
        pieces = black if colour == 0 else white
        while pieces:
            b = lowest_bit_index(pieces)
            pieces &= pieces - 1
            kind = 2 * colour + ((kings >> b) & 1)
            h ^= ZOBRIST[kind * 32 + b]
    if not black_to_move:
        h ^= ZOBRIST[_SIDE_KEY]
    return h


@numba.njit(cache=True, inline="always")
def terminal_value(mover, ply, loss, loss_per_ply, blockade_value):
    """Value of a position ``ply`` plies below the root whose side to move (``mover``) has
    no legal move: a loss, a smaller one the later it comes (the winner prefers the
    quickest win, the loser the slowest loss)."""
    value = loss - loss_per_ply * ply
    if mover != 0:  # pieces left: blocked
        return -blockade_value * value
    return -value


@numba.njit(cache=True, inline="always")
def egdb_value(byte, ply, loss, loss_per_ply):
    """Value of an endgame-database value byte (``egdb_kernels``: 0 draw, ``d + 1`` the
    game ends in ``d`` plies) for the side to move at a node ``ply`` plies below the root:
    the value of the terminal position ``d`` plies further down (a win, odd ``d``, scores
    as the opponent's loss at ``ply + d``; a loss as the mover's own), 0 for a draw."""
    if byte == 0:
        return 0.0
    distance = byte - 1
    value = loss - loss_per_ply * (ply + distance)
    return value if distance % 2 == 1 else -value


@numba.njit(cache=True)
def no_egdb():
    """The :data:`EndgameProbe` of a search without the endgame database, made in a kernel
    (``Searcher`` passes full-size arrays of its own): one byte and a single offset of -1,
    the types of ``EndgameDatabase.values`` and ``.offsets``, and 0 pieces, so the probe is
    never reached and neither array is read."""
    return EndgameProbe(np.zeros(1, dtype=np.uint8), np.full((1, 1, 1, 1), -1, dtype=np.int64), 0)


# Compiled without numba's reference counting (``_nrt=False``, the option numba's own
# allocation-free helpers use): the kernel allocates nothing and keeps no array beyond the
# call. Counted, each of its ~20 arrays, each row view and each array passed to an inlined
# evaluator took an atomic increment and decrement (over 50 per call, up to 18 more per net
# evaluation). Search alone, depth 2, zoo net, 1,000 positions, min of 31 alternating runs
# against the old td search: 0.92-0.94 counted, 0.97 without.
@numba.njit(cache=True, _nrt=False)
def search_kernel(position, depth, node_limit, root_in_order, scoring, net, draw_rules, generation, table, memory, egdb):
    """One depth-``depth`` negamax alpha-beta search of the position (iterative, no allocation).

    Args:
        position: the root (:data:`Position`).
        depth: the nominal depth in plies.
        node_limit: give up (returning ``aborted``) after this many nodes.
        root_in_order: search the root's moves in ``generate_moves`` order (for a caller
            that breaks ties by that order), else best-ordered like every other node.
        scoring: how positions are valued (:data:`Scoring`).
        net: the evaluator's ``net`` arrays (``evaluators.Evaluator.net``), None for the
            hand-written kinds (an argument of its own: ``net is None`` is then settled at
            compile time, and the hand-written kinds get a kernel without the net's code).
        draw_rules: the game's draw rules (:data:`DrawRules`). A position reached by king
            moves only that is one of ``draw_rules.keys`` scores as a draw: such positions
            share the root's men, and one with the same pieces has the same side to move
            (each king step changes a row's parity, so the sum of the rows changes parity
            with every ply). A node at or past the no-progress limit scores as a draw.
        generation: 1-255, the same for every iteration of one search: table values of
            another generation only order moves.
        table: the transposition table (:data:`Table`).
        memory: the working memory (:data:`SearchMemory`): ``killers``, ``int64[MAX_PLY,
            2]``, ``from * 32 + to + 1`` of quiet cut-off moves; ``history_scores``,
            ``int64[2, 32, 32]`` by side, from, to; ``moves``, ``int64[MAX_PLY, MAX_MOVES,
            MOVE_FIELDS]``, one move list per ply; ``order_scores``, ``order_index``,
            ``int64[MAX_PLY, MAX_MOVES]``; ``stack``, ``int64[MAX_PLY, STACK_FIELDS]``;
            ``values``, ``float64[MAX_PLY, VALUE_FIELDS]``; ``root_scores``,
            ``float64[MAX_MOVES]``, which receives each root move's score, exact for every
            move within the tie margin of the best (others hold an upper bound below it;
            with ``root_in_order``, exact for every move within the margin of the best of
            the moves before it); ``active``, ``scratch``: the net's buffers
            (``int64[MAX_ACTIVE]``, ``float64[2 * width]``).
        egdb: the endgame database (:data:`EndgameProbe`): every node below the root with
            at most ``egdb.pieces`` pieces that it holds scores its exact value
            (``egdb_value``) instead of being searched or evaluated, after the draw rules.

    Returns:
        ``(value, best_index, root_moves, nodes, aborted)``; indices are rows of ``moves[0]``.
    """
    mover, opponent, kings, black_to_move = position
    kind, codes, loss, loss_per_ply, blockade_value, win_bound, tie_margin, quiescence = scoring
    draws, n_draws, quiet, no_progress_plies = draw_rules
    entries, entry_values = table
    killers, history_scores, moves, order_scores, order_index, stack, active, values, root_scores, scratch = memory
    egdb_values, egdb_offsets, egdb_pieces = egdb
    rewarded = False if net is None else codes[2] == REWARD_MATERIAL_LOG
    # The no-progress rule makes a value depend on the path: within reach, the table only
    # orders moves.
    tt_cutoffs = no_progress_plies <= 0 or quiet + depth < no_progress_plies
    tt_mask = entries.shape[0] - 1
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
    stack[0, _S_REVERSIBLE] = 1
    stack[0, _S_QUIET] = quiet
    values[0, _V_ALPHA] = -INF
    values[0, _V_BETA] = INF
    values[0, _V_REWARD] = 0.0
    state = _ENTER
    value = 0.0
    while True:
        if state == _ENTER:
            nodes += 1
            if nodes > node_limit:
                return 0.0, -1, 0, nodes, True
            m = stack[ply, _S_MOVER]
            o = stack[ply, _S_OPPONENT]
            k = stack[ply, _S_KINGS]
            side = stack[ply, _S_SIDE] == 1
            h = stack[ply, _S_HASH]
            d = stack[ply, _S_DEPTH]
            if ply > 0:
                draw = no_progress_plies > 0 and stack[ply, _S_QUIET] >= no_progress_plies
                if not draw and stack[ply, _S_REVERSIBLE] == 1 and n_draws > 0:
                    key = position_key(m, o) if side else position_key(o, m)
                    for i in range(n_draws):
                        if draws[i] == key:
                            draw = True
                            break
                reward = 0.0
                if rewarded and not draw and has_moves(m, o, k, side):
                    p = ply - 1
                    reward = material_log_reward(
                        stack[p, _S_MOVER], stack[p, _S_OPPONENT], stack[p, _S_KINGS], m, o, k, side
                    )
                values[ply, _V_REWARD] = reward
                # The window of the parent, moved through the move's reward.
                if ply == 1:
                    best = values[0, _V_BEST]
                    # Root: lower the window by the margin so that every tie is exact.
                    values[1, _V_ALPHA] = reward - INF
                    values[1, _V_BETA] = INF if best <= -INF else reward - (best - tie_margin)
                else:
                    values[ply, _V_ALPHA] = reward - values[ply - 1, _V_BETA]
                    values[ply, _V_BETA] = reward - values[ply - 1, _V_ALPHA]
                if draw:
                    value = 0.0
                    state = _RETURN
                    continue
                # The endgame database: an exact value ends the search below this node (the
                # root is searched: its moves are wanted). Off, one comparison per node.
                if egdb_pieces > 0 and popcount(m | o) <= egdb_pieces:
                    if side:
                        byte = probe(egdb_values, egdb_offsets, m, o, k)
                    else:
                        byte = probe(egdb_values, egdb_offsets, half_turn(m), half_turn(o), half_turn(k))
                    if byte >= 0:
                        value = egdb_value(byte, ply, loss, loss_per_ply)
                        state = _RETURN
                        continue
            jumping = jumpers(m, o, k, side)
            if (d <= 0 and (jumping == 0 or not quiescence)) or ply >= MAX_PLY - 1:
                if jumping != 0 or movers(m, o, k, side) != 0:
                    # ``net is None`` is settled at compile time: the hand-written
                    # evaluations get a kernel of their own, without the net's code.
                    if net is None:
                        value = hand_value(m, o, k, side, kind)
                    else:
                        value = net_value(m, o, k, side, net, codes, active, scratch)
                else:
                    value = terminal_value(m, ply, loss, loss_per_ply, blockade_value)
                state = _RETURN
                continue
            alpha = values[ply, _V_ALPHA]
            beta = values[ply, _V_BETA]
            tt_move = -1
            slot = h & tt_mask
            entry = entries[slot, _TT_ENTRY] if d >= TT_MIN_DEPTH else 0
            if d >= TT_MIN_DEPTH and (entry & _TT_KEY_MASK) == (h & _TT_KEY_MASK):
                data = entry
                stored_move = (data >> 10) & 255
                if stored_move != _NO_MOVE:
                    tt_move = stored_move
                if tt_cutoffs and ply > 0 and ((data >> 18) & 255) == generation and (data & 255) == d:
                    v = entry_values[slot, _TT_VALUE]
                    if v > win_bound:
                        v -= loss_per_ply * ply
                    elif v < -win_bound:
                        v += loss_per_ply * ply
                    bound = (data >> 8) & 3
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
                value = terminal_value(m, ply, loss, loss_per_ply, blockade_value)
                state = _RETURN
                continue
            # A net's nodes just above the leaves (and in quiescence) keep the generator's
            # order: ordering them costs more than the cut-offs it wins, the net's leaves
            # being few and its values exact whatever the order (``net is None`` is settled
            # at compile time: the hand-written kinds order every node).
            ordered = not (ply == 0 and root_in_order) and (net is None or ply == 0 or d > 1)
            if not ordered:
                for i in range(n):
                    order_index[ply, i] = i
            else:
                crown = BB_ROW7 if side else BB_ROW0
                side_index = 1 if side else 0
                killer1 = killers[ply, 0]
                killer2 = killers[ply, 1]
                for i in range(n):
                    frm = buffer[i, FROM]
                    to = buffer[i, TO]
                    if i == tt_move:
                        score = _ORDER_TT
                    else:
                        crowned = ((k >> frm) & 1) == 0 and ((crown >> to) & 1) == 1
                        if jumping:
                            captured = buffer[i, CAPTURED]
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
            stack[ply, _S_BEST_INDEX] = -1
            stack[ply, _S_CAPTURES] = 1 if jumping else 0
            stack[ply, _S_ORDERED] = 1 if ordered else 0
            values[ply, _V_BEST] = -INF
            values[ply, _V_ORIGINAL_ALPHA] = alpha
            state = _NEXT
        elif state == _NEXT:
            i = stack[ply, _S_INDEX]
            n = stack[ply, _S_COUNT]
            if i >= n:
                # Node finished: store it and hand its value to the parent.
                best = values[ply, _V_BEST]
                h = stack[ply, _S_HASH]
                d = max(stack[ply, _S_DEPTH], 0)
                slot = h & tt_mask
                entry = entries[slot, _TT_ENTRY] if d >= TT_MIN_DEPTH else 0
                if d >= TT_MIN_DEPTH and (
                    (entry & _TT_KEY_MASK) == (h & _TT_KEY_MASK)
                    or ((entry >> 18) & 255) != generation
                    or d >= (entry & 255)
                ):
                    if best >= values[ply, _V_BETA]:
                        bound = _BOUND_LOWER
                    elif best <= values[ply, _V_ORIGINAL_ALPHA]:
                        bound = _BOUND_UPPER
                    else:
                        bound = _BOUND_EXACT
                    stored = best
                    if stored > win_bound:
                        stored += loss_per_ply * ply
                    elif stored < -win_bound:
                        stored -= loss_per_ply * ply
                    entries[slot, _TT_ENTRY] = (
                        (h & _TT_KEY_MASK) | d | (bound << 8) | ((stack[ply, _S_BEST_INDEX] & 255) << 10) | (generation << 18)
                    )
                    entry_values[slot, _TT_VALUE] = stored
                value = best
                state = _RETURN
                continue
            if stack[ply, _S_ORDERED] == 1:
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
            frm = moves[ply, mi, FROM]
            to = moves[ply, mi, TO]
            captured = moves[ply, mi, CAPTURED]
            m = stack[ply, _S_MOVER]
            o = stack[ply, _S_OPPONENT]
            k = stack[ply, _S_KINGS]
            side = stack[ply, _S_SIDE] == 1
            m2, o2, k2 = apply_move(m, o, k, side, frm, to, captured)
            was_king = (k >> frm) & 1
            child = ply + 1
            progress = is_progress(k, frm, captured)
            reversible = stack[ply, _S_REVERSIBLE] == 1 and not progress
            child_depth = stack[ply, _S_DEPTH] - 1
            # The child's hash serves the table only (depth >= TT_MIN_DEPTH, never deeper
            # down the line): most nodes, the leaves among them, do not need it.
            if child_depth >= TT_MIN_DEPTH:
                # Incremental Zobrist update.
                own_kind = 0 if side else 2
                h = stack[ply, _S_HASH] ^ ZOBRIST[_SIDE_KEY]
                h ^= ZOBRIST[(own_kind + was_king) * 32 + frm]
                h ^= ZOBRIST[(own_kind + ((k2 >> to) & 1)) * 32 + to]
                other_kind = 2 - own_kind
                rest = captured
                while rest:
                    b = lowest_bit_index(rest)
                    rest &= rest - 1
                    h ^= ZOBRIST[(other_kind + ((k >> b) & 1)) * 32 + b]
                stack[child, _S_HASH] = h
            stack[child, _S_MOVER] = o2
            stack[child, _S_OPPONENT] = m2
            stack[child, _S_KINGS] = k2
            stack[child, _S_SIDE] = 0 if side else 1
            stack[child, _S_DEPTH] = child_depth
            stack[child, _S_REVERSIBLE] = 1 if reversible else 0
            stack[child, _S_QUIET] = 0 if progress else stack[ply, _S_QUIET] + 1
            ply = child
            state = _ENTER
        else:  # _RETURN: ``value`` is the value of the node at ``ply``
            if ply == 0:
                return value, stack[0, _S_BEST_INDEX], stack[0, _S_COUNT], nodes, False
            score = values[ply, _V_REWARD] - value if rewarded else -value
            ply -= 1
            mi = order_index[ply, stack[ply, _S_INDEX] - 1]
            if ply == 0:
                root_scores[mi] = score
                if score > values[0, _V_BEST]:
                    values[0, _V_BEST] = score
                    stack[0, _S_BEST_INDEX] = mi
            elif score > values[ply, _V_BEST]:
                values[ply, _V_BEST] = score
                stack[ply, _S_BEST_INDEX] = mi
                if score > values[ply, _V_ALPHA]:
                    values[ply, _V_ALPHA] = score
                    if score >= values[ply, _V_BETA]:
                        if stack[ply, _S_CAPTURES] == 0:
                            frm = moves[ply, mi, FROM]
                            to = moves[ply, mi, TO]
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


@numba.njit(cache=True, inline="always")
def next_generation(generation, table):
    """The table generation of a new search (1-255; the table is wiped when it wraps, so
    no entry of an earlier search passes for this one's)."""
    generation = generation % 255 + 1
    if generation == 1:
        table[:] = 0
    return generation


@numba.njit(cache=True, inline="always")
def begin_search(generation, table, killers, history_scores):
    """What every new search does to the memory of the last one: the next table
    generation (1-255; the table is wiped when it wraps, so no entry of an earlier search
    passes for this one's), no killers, history halved. Returns the generation."""
    generation = next_generation(generation, table)
    killers[:] = 0
    flat = history_scores.reshape(-1)  # one contiguous loop (vectorised)
    for i in range(flat.shape[0]):
        flat[i] >>= 1
    return generation


@numba.njit(cache=True)
def pick_tied(root_scores, count, rng):
    """The row of the best root move, exact ties broken uniformly along ``generate_moves``
    order by a reservoir draw on the xorshift state ``rng``; returns ``(row, rng)``.

    ``root_scores`` must be exact wherever a move is not below the best of the moves
    before it (``search_kernel`` with ``root_in_order``)."""
    best = 0
    value = root_scores[0]
    ties = 1
    for i in range(1, count):
        score = root_scores[i]
        if score > value:
            value = score
            best = i
            ties = 1
        elif score == value:
            ties += 1
            rng, pick = random_below(rng, ties)
            if pick == 0:
                best = i
    return best, rng


def memory_sizes(width):
    """``(int64 count, float64 count)`` of the search's buffers in :func:`memory_views`'s layout."""
    ints = MAX_PLY * 2 + 2 * 32 * 32 + MAX_PLY * MAX_MOVES * MOVE_FIELDS + 2 * MAX_PLY * MAX_MOVES
    ints += MAX_PLY * STACK_FIELDS + MAX_ACTIVE
    return ints, MAX_PLY * VALUE_FIELDS + MAX_MOVES + 2 * width


@numba.njit(cache=True, inline="always")
def memory_views(ints, floats, width):
    """The search's buffers as views of two flat arrays (``memory_sizes``): the
    :data:`SearchMemory` that :func:`search_kernel` takes."""
    a = 0
    killers = ints[a : a + MAX_PLY * 2].reshape((MAX_PLY, 2))
    a += MAX_PLY * 2
    history_scores = ints[a : a + 2 * 32 * 32].reshape((2, 32, 32))
    a += 2 * 32 * 32
    moves = ints[a : a + MAX_PLY * MAX_MOVES * MOVE_FIELDS].reshape((MAX_PLY, MAX_MOVES, MOVE_FIELDS))
    a += MAX_PLY * MAX_MOVES * MOVE_FIELDS
    order_scores = ints[a : a + MAX_PLY * MAX_MOVES].reshape((MAX_PLY, MAX_MOVES))
    a += MAX_PLY * MAX_MOVES
    order_index = ints[a : a + MAX_PLY * MAX_MOVES].reshape((MAX_PLY, MAX_MOVES))
    a += MAX_PLY * MAX_MOVES
    stack = ints[a : a + MAX_PLY * STACK_FIELDS].reshape((MAX_PLY, STACK_FIELDS))
    a += MAX_PLY * STACK_FIELDS
    active = ints[a : a + MAX_ACTIVE]
    values = floats[: MAX_PLY * VALUE_FIELDS].reshape((MAX_PLY, VALUE_FIELDS))
    b = MAX_PLY * VALUE_FIELDS
    root_scores = floats[b : b + MAX_MOVES]
    b += MAX_MOVES
    scratch = floats[b : b + 2 * width]
    return SearchMemory(
        killers, history_scores, moves, order_scores, order_index, stack, active, values, root_scores, scratch
    )


@numba.njit(cache=True)
def search_to_depth(position, first_depth, depth, root_in_order, scoring, net, draw_rules, generation, table, flat, egdb, rng):
    """A whole search without a time limit in one call: :func:`begin_search`, then
    iterative deepening from ``first_depth`` to ``depth`` (stopping early at a forced result
    within the nominal depth, as ``Searcher.search`` does). Arguments as
    :func:`search_kernel`'s, the memory as :data:`FlatMemory`; ``moves[0]`` and
    ``root_scores`` hold the last iteration's root. With a nonzero xorshift state ``rng`` it
    also picks the move (:func:`pick_tied`, for a search ``root_in_order``): an agent's move
    in one call.

    Returns:
        ``(value, depth_reached, root_moves, nodes, generation, row, rng)``: ``row`` is the
        picked move's row of ``moves[0]`` (-1 without ``rng`` or without a legal move).
    """
    memory = memory_views(flat.ints, flat.floats, flat.width)
    generation = begin_search(generation, table.entries, memory.killers, memory.history_scores)
    nodes = 0
    value = 0.0
    count = 0
    reached = first_depth
    for d in range(first_depth, depth + 1):
        value, _best, count, used, _aborted = search_kernel(
            position, d, 1 << 62, root_in_order, scoring, net, draw_rules, generation, table, memory, egdb
        )
        nodes += used
        reached = d
        if count == 0 or (abs(value) > scoring.win_bound and abs(value) >= scoring.loss - scoring.loss_per_ply * d):
            break
    row = -1
    if rng != 0 and count > 0:
        row, rng = pick_tied(memory.root_scores, count, rng)
    return value, reached, count, nodes, generation, row, rng


@numba.njit(cache=True)
def search_from_python(position, first_depth, depth, root_in_order, scoring, net, draw_rules, generation, table, flat, egdb, rng):
    """:func:`search_to_depth` for a caller in Python (an agent's move, one call): the
    bundles come as plain tuples of their fields, in order (``tuple(bundle)``), and are
    named here. Numba's dispatcher types a plain tuple in C on every call, a named tuple in
    Python: tens of microseconds per call, a few percent of a shallow search."""
    return search_to_depth(
        Position(*position), first_depth, depth, root_in_order, Scoring(*scoring), net, DrawRules(*draw_rules),
        generation, Table(*table), FlatMemory(*flat), EndgameProbe(*egdb), rng,
    )


__all__ = [
    "DrawRules",
    "EndgameProbe",
    "FlatMemory",
    "INF",
    "MAX_DEPTH",
    "MAX_PLY",
    "Position",
    "STACK_FIELDS",
    "Scoring",
    "SearchMemory",
    "TT_BITS",
    "TT_FIELDS",
    "Table",
    "VALUE_FIELDS",
    "ZOBRIST",
    "begin_search",
    "egdb_value",
    "no_egdb",
    "next_generation",
    "memory_sizes",
    "memory_views",
    "pick_tied",
    "position_hash",
    "search_from_python",
    "search_kernel",
    "search_to_depth",
    "terminal_value",
]
