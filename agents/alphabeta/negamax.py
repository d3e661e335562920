"""The one alpha-beta search: iterative negamax over complete moves, evaluator passed in.

See the package docstring (``checkers_agents.alphabeta``) for what the search does; this
module holds the numba search of one depth and its move ordering; iterative deepening and
the one-call searches are in ``checkers_agents.alphabeta.deepening``. Its memory is in
``checkers_agents.alphabeta.transposition`` (the table, Zobrist keys) and
``checkers_agents.alphabeta.stack`` (the per-ply stack and buffers).
"""

from __future__ import annotations

from collections import namedtuple

import numba

from checkers_agents.search_parts.evaluators import (
    REWARD_MATERIAL_LOG,
    WIN,
    hand_value,
    material_log_reward,
    net_value,
)
from checkers_agents.search_parts.net_layers import value_of_sums
from checkers_env.bitboard import (
    BB_ROW0,
    BB_ROW7,
    apply_move,
    has_moves,
    jumpers,
    movers,
    popcount,
)
from checkers_env.egdb.index import MAX_DISTANCE, WDL_DRAW, WDL_WIN, probe
from checkers_env.encoding import half_turn
from checkers_env.game_state import is_progress, position_key
from checkers_env.movegen import CAPTURED, FROM, TO, generate_moves

from .accumulators import arriving_move, keep_node_sums, keep_root_sums, leaf_sums
from .pruning import (
    KILLER_ORDER,
    aspiration_width,
    begin_moves,
    deeper_cutoff,
    extension,
    first_pass,
    pass_over,
    retry_move,
    scouted,
    spare_shot,
    threat_pending,
    transposed_cutoff,
    try_move,
)
from .stack import (
    MAX_PLY,
    S_BEST_INDEX,
    S_CAPTURES,
    S_COUNT,
    S_DEPTH,
    S_HASH,
    S_INDEX,
    S_KINGS,
    S_MOVER,
    S_OPPONENT,
    S_ORDERED,
    S_QUIET,
    S_REVERSIBLE,
    S_SIDE,
    V_ALPHA,
    V_BEST,
    V_BETA,
    V_ORIGINAL_ALPHA,
    V_REWARD,
)
from .transposition import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    NO_MOVE,
    TT_ENTRY,
    TT_KEY_MASK,
    TT_MIN_DEPTH,
    TT_VALUE,
    cached_leaf,
    child_hash,
    position_hash,
    store_leaf,
)

# -- limits and scores ------------------------------------------------------------------

#: Deepest nominal search (iterative deepening with ``time`` stops here at the latest).
MAX_DEPTH = 64
#: Beyond every score (wins included): the open window.
INF = 2 * WIN

# Move-ordering scores.
_ORDER_TT = 1 << 40
_ORDER_CAPTURE = 1 << 30
_ORDER_CROWN = 1 << 29
_ORDER_KILLER1 = 1 << 28
_ORDER_KILLER2 = KILLER_ORDER
_HISTORY_CAP = 1 << 26

_ENTER, _NEXT, _RETURN = 0, 1, 2


# -- the kernel's bundles (named tuples: numba takes them as typed tuples) ----------------------

#: The game's draw rules as the search sees them: ``keys[:count]`` are the
#: ``game_state.position_key`` of the positions since the last capture or man move (the
#: current one included), ``quiet`` the plies since then, ``no_progress_plies`` the
#: no-progress limit (0: off), ``contempt`` what a draw costs the root's side to move (a
#: draw scores ``-contempt`` where it is to move, ``contempt`` where its opponent is).
DrawRules = namedtuple("DrawRules", "keys count quiet no_progress_plies contempt")


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
    """Value of an endgame-database value byte (``checkers_env.egdb.index``: 0 draw, ``d + 1`` the
    game ends in ``d`` plies) for the side to move at a node ``ply`` plies below the root:
    the value of the terminal position ``d`` plies further down (a win, odd ``d``, scores
    as the opponent's loss at ``ply + d``; a loss as the mover's own), 0 for a draw."""
    if byte == 0:
        return 0.0
    distance = byte - 1
    value = loss - loss_per_ply * (ply + distance)
    return value if distance % 2 == 1 else -value


@numba.njit(cache=True, inline="always")
def draw_value(ply, contempt):
    """Value of a draw at a node ``ply`` plies below the root for its side to move:
    ``-contempt`` where the root's side is to move (even plies), ``contempt`` where its
    opponent is."""
    return -contempt if ply % 2 == 0 else contempt


@numba.njit(cache=True, inline="always")
def code_value(code, ply, loss, loss_per_ply):
    """Value of an endgame-database code (``checkers_env.egdb.index.WDL_*``, what the search probes) at a
    node ``ply`` plies below the root: 0 for a draw; a win as one 253 plies further down,
    the longest odd distance a value byte holds, and a loss as one 252 plies down (so a win
    and the loss one ply below it are the same end). The winner prefers a forced end it
    sees itself and, among the database's wins, the one reached soonest; the loser the
    other way round. The root, where the distance decides the move, reads it
    (``Searcher``)."""
    if code == WDL_DRAW:
        return 0.0
    return egdb_value(MAX_DISTANCE if code == WDL_WIN else MAX_DISTANCE - 1, ply, loss, loss_per_ply)


# Compiled without numba's reference counting (``_nrt=False``, the option numba's own
# allocation-free helpers use): the kernel allocates nothing and keeps no array beyond the
# call. Counted, each of its ~20 arrays, each row view and each array passed to an inlined
# evaluator took an atomic increment and decrement (over 50 per call, up to 18 more per net
# evaluation).
@numba.njit(cache=True, _nrt=False)
def search_kernel(position, depth, node_limit, options, valuation, net, draw_rules, generation, table, memory, egdb):
    """One depth-``depth`` negamax alpha-beta search of the position (iterative, no allocation).

    Args:
        position: the root (``search_parts.position.Position``).
        depth: the nominal depth in plies.
        node_limit: give up (returning ``aborted``) after this many nodes.
        options: how the tree is searched (``pruning.SearchOptions``).
        valuation: how positions are valued (``search_parts.evaluators.Valuation``).
        net: the evaluator's ``net`` arrays (``evaluators.Evaluator.net``), None for the
            hand-written kinds (an argument of its own: ``net is None`` is then settled at
            compile time, and the hand-written kinds get a kernel without the net's code).
        draw_rules: the game's draw rules (:data:`DrawRules`). A position reached by king
            moves only that is one of ``draw_rules.keys`` scores as a draw: such positions
            share the root's men, and one with the same pieces has the same side to move
            (each king step changes a row's parity, so the sum of the rows changes parity
            with every ply). A node at or past the no-progress limit scores as a draw, as
            does a database draw: ``draw_value`` of the rules' ``contempt``.
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
            with ``options.root_in_order``, exact for every move within the margin of the best of
            the moves before it); ``active``, ``scratch``: the net's buffers
            (``int64[MAX_ACTIVE]``, ``[2 * width]`` of the weights' dtype);
            ``accumulators``, ``[MAX_PLY, 2, H1]``: the first-layer sums of both
            colours' frames at every ply (``net_layers.child_sums``), updated move by move
            as the search makes its moves (``accumulators``); None: every leaf sums its
            first layer fresh (``net_value``), in a kernel compiled without the sums' code.
            ``tries``, ``int64[MAX_PLY, TRY_FIELDS]``: how each ply's current move is tried
            (``pruning``; untouched by the exact search).
        egdb: the endgame database (``search_parts.endgame_probe.EndgameProbe``): every node below the root with
            at most ``egdb.pieces`` pieces that it holds scores its exact value
            (``code_value``) instead of being searched or evaluated, after the draw rules.

    Returns:
        ``(value, best_index, root_moves, nodes, aborted)``; indices are rows of ``moves[0]``.
    """
    mover, opponent, kings, black_to_move = position
    root_in_order, pruning = options
    kind, net_functions, loss, loss_per_ply, blockade_value, win_bound, tie_margin, quiescence = valuation
    draws, n_draws, quiet, no_progress_plies, contempt = draw_rules
    entries, entry_values = table.entries, table.values
    (
        killers,
        history_scores,
        moves,
        order_scores,
        order_index,
        stack,
        active,
        values,
        root_scores,
        scratch,
        accumulators,
        tries,
    ) = memory
    egdb_tables, egdb_offsets, egdb_pieces = egdb
    rewarded = False if net is None else net_functions[2] == REWARD_MATERIAL_LOG
    if net is not None:
        black, white = (mover, opponent) if black_to_move else (opponent, mover)
        keep_root_sums(accumulators, black, white, kings, net[0], net[1], active)
    # The no-progress rule makes a value depend on the path: within reach, the table only
    # orders moves.
    tt_cutoffs = no_progress_plies <= 0 or quiet + depth < no_progress_plies
    tt_mask = entries.shape[0] - 1
    nodes = 0
    ply = 0
    stack[0, S_MOVER] = mover
    stack[0, S_OPPONENT] = opponent
    stack[0, S_KINGS] = kings
    stack[0, S_SIDE] = 1 if black_to_move else 0
    stack[0, S_HASH] = position_hash(
        mover if black_to_move else opponent, opponent if black_to_move else mover, kings, black_to_move
    )
    stack[0, S_DEPTH] = depth
    stack[0, S_REVERSIBLE] = 1
    stack[0, S_QUIET] = quiet
    # The root's moves, none until it lists them (a root without a move returns these).
    stack[0, S_COUNT] = 0
    stack[0, S_BEST_INDEX] = -1
    if aspiration_width(pruning) <= 0.0:  # else the caller's window is in values[0]
        values[0, V_ALPHA] = -INF
        values[0, V_BETA] = INF
    values[0, V_REWARD] = 0.0
    state = _ENTER
    value = 0.0
    while True:
        if state == _ENTER:
            nodes += 1
            if nodes > node_limit:
                return 0.0, -1, 0, nodes, True
            m = stack[ply, S_MOVER]
            o = stack[ply, S_OPPONENT]
            k = stack[ply, S_KINGS]
            side = stack[ply, S_SIDE] == 1
            h = stack[ply, S_HASH]
            d = stack[ply, S_DEPTH]
            if ply > 0:
                draw = no_progress_plies > 0 and stack[ply, S_QUIET] >= no_progress_plies
                if not draw and stack[ply, S_REVERSIBLE] == 1 and n_draws > 0:
                    key = position_key(m, o) if side else position_key(o, m)
                    for i in range(n_draws):
                        if draws[i] == key:
                            draw = True
                            break
                reward = 0.0
                if rewarded and not draw and has_moves(m, o, k, side):
                    p = ply - 1
                    reward = material_log_reward(
                        stack[p, S_MOVER], stack[p, S_OPPONENT], stack[p, S_KINGS], m, o, k, side
                    )
                values[ply, V_REWARD] = reward
                # The window of the parent, moved through the move's reward.
                if ply == 1:
                    best = values[0, V_BEST]
                    # Root: lower the window by the margin so that every tie is exact (its
                    # own window is open unless aspiration narrows it).
                    low = values[0, V_ALPHA] if best <= -INF else max(best - tie_margin, values[0, V_ALPHA])
                    values[1, V_ALPHA] = reward - values[0, V_BETA]
                    values[1, V_BETA] = INF if low <= -INF else reward - low
                else:
                    parent_alpha = values[ply - 1, V_ALPHA]
                    if scouted(pruning, tries, ply):
                        values[ply, V_ALPHA] = reward - (parent_alpha + tie_margin)
                    else:
                        values[ply, V_ALPHA] = reward - values[ply - 1, V_BETA]
                    values[ply, V_BETA] = reward - parent_alpha
                if draw:
                    value = draw_value(ply, contempt)
                    state = _RETURN
                    continue
                # The endgame database: an exact value ends the search below this node (the
                # root is searched: its moves are wanted). Off, one comparison per node.
                if egdb_pieces > 0 and popcount(m | o) <= egdb_pieces:
                    if side:
                        code = probe(egdb_tables, egdb_offsets, m, o, k)
                    else:
                        code = probe(egdb_tables, egdb_offsets, half_turn(m), half_turn(o), half_turn(k))
                    if code >= 0:
                        if code == WDL_DRAW:
                            value = draw_value(ply, contempt)
                        else:
                            value = code_value(code, ply, loss, loss_per_ply)
                        state = _RETURN
                        continue
            jumping = jumpers(m, o, k, side)
            if (
                d <= 0
                and (jumping == 0 or not quiescence)
                and not (quiescence and jumping == 0 and threat_pending(pruning, d, m, o, k, side))
            ) or ply >= MAX_PLY - 1:
                if jumping != 0 or movers(m, o, k, side) != 0:
                    # ``net is None`` is settled at compile time: the hand-written
                    # evaluations get a kernel of their own, without the net's code.
                    if net is None:
                        value = hand_value(m, o, k, side, kind)
                    else:
                        found, value = cached_leaf(table, h, generation)
                        if not found:
                            arrival = arriving_move(moves, order_index, stack, ply)
                            if leaf_sums(accumulators, ply, scratch, net[0], net[6], side, arrival, m, o, k):
                                # Kept sums (``accumulators`` not None, settled at compile
                                # time): the side to move's view from the parent's, and the move.
                                value = value_of_sums(net, net_functions, scratch, popcount(m | o))
                            else:
                                value = net_value(m, o, k, side, net, net_functions, active, scratch)
                            store_leaf(table, h, generation, value)
                else:
                    value = terminal_value(m, ply, loss, loss_per_ply, blockade_value)
                state = _RETURN
                continue
            alpha = values[ply, V_ALPHA]
            beta = values[ply, V_BETA]
            tt_move = -1
            slot = h & tt_mask
            entry = entries[slot, TT_ENTRY] if d >= TT_MIN_DEPTH else 0
            if d >= TT_MIN_DEPTH and (entry & TT_KEY_MASK) == (h & TT_KEY_MASK):
                data = entry
                stored_move = (data >> 10) & 255
                if stored_move != NO_MOVE:
                    tt_move = stored_move
                if (
                    tt_cutoffs
                    and ply > 0
                    and (
                        (((data >> 18) & 255) == generation and (data & 255) == d)
                        or deeper_cutoff(pruning, data & 255, d)
                    )
                ):
                    v = entry_values[slot, TT_VALUE]
                    if v > win_bound:
                        v -= loss_per_ply * ply
                    elif v < -win_bound:
                        v += loss_per_ply * ply
                    bound = (data >> 8) & 3
                    if (
                        bound == BOUND_EXACT
                        or (bound == BOUND_LOWER and v >= beta)
                        or (bound == BOUND_UPPER and v <= alpha)
                    ):
                        value = v
                        state = _RETURN
                        continue
            # A shallower first pass, with pruning (its window in ``values``). The three
            # hooks that take the node's arrays are called only with pruning (``pruning is
            # None`` is settled at compile time): the exact search's nodes, the self-play's
            # every one, pay no call for them.
            if pruning is not None:
                d, alpha = first_pass(pruning, stack, tries, values, ply, d, alpha, tt_move, valuation)
            if net is not None:
                # A node that is searched on: its children's sums start from its own.
                keep_node_sums(accumulators, ply, net[0], not side, arriving_move(moves, order_index, stack, ply), k)
            buffer = moves[ply]
            n = generate_moves(m, o, k, side, buffer)
            if n == 0:
                value = terminal_value(m, ply, loss, loss_per_ply, blockade_value)
                state = _RETURN
                continue
            if pruning is not None:
                usable = tt_cutoffs and not rewarded
                value = transposed_cutoff(
                    pruning, usable, table, generation, stack, buffer, n, ply, beta, valuation, draw_rules, egdb_pieces
                )
                if value > -INF:  # a child's entry cuts the node off
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
            stack[ply, S_COUNT] = n
            stack[ply, S_INDEX] = 0
            stack[ply, S_BEST_INDEX] = -1
            stack[ply, S_CAPTURES] = 1 if jumping else 0
            stack[ply, S_ORDERED] = 1 if ordered else 0
            begin_moves(pruning, tries, ply)
            values[ply, V_BEST] = -INF
            values[ply, V_ORIGINAL_ALPHA] = alpha
            state = _NEXT
        elif state == _NEXT:
            i = stack[ply, S_INDEX]
            n = stack[ply, S_COUNT]
            if i >= n:
                # Node finished: store it and hand its value to the parent.
                best = values[ply, V_BEST]
                h = stack[ply, S_HASH]
                d = max(stack[ply, S_DEPTH], 0)
                slot = h & tt_mask
                entry = entries[slot, TT_ENTRY] if d >= TT_MIN_DEPTH else 0
                if d >= TT_MIN_DEPTH and (
                    (entry & TT_KEY_MASK) == (h & TT_KEY_MASK)
                    or ((entry >> 18) & 255) != generation
                    or d >= (entry & 255)
                ):
                    if best >= values[ply, V_BETA]:
                        bound = BOUND_LOWER
                    elif best <= values[ply, V_ORIGINAL_ALPHA]:
                        bound = BOUND_UPPER
                    else:
                        bound = BOUND_EXACT
                    stored = best
                    if stored > win_bound:
                        stored += loss_per_ply * ply
                    elif stored < -win_bound:
                        stored -= loss_per_ply * ply
                    entries[slot, TT_ENTRY] = (
                        (h & TT_KEY_MASK)
                        | d
                        | (bound << 8)
                        | ((stack[ply, S_BEST_INDEX] & 255) << 10)
                        | (generation << 18)
                    )
                    entry_values[slot, TT_VALUE] = stored
                value = best
                state = _RETURN
                continue
            if stack[ply, S_ORDERED] == 1:
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
            stack[ply, S_INDEX] = i + 1
            mi = order_index[ply, i]
            # Below the root, with pruning: a null window after the first move, a reduced
            # depth for a late quiet move, each until a retry lifts it.
            reduced = try_move(pruning, stack, tries, values, order_scores, ply, i, tie_margin)
            frm = moves[ply, mi, FROM]
            to = moves[ply, mi, TO]
            captured = moves[ply, mi, CAPTURED]
            m = stack[ply, S_MOVER]
            o = stack[ply, S_OPPONENT]
            k = stack[ply, S_KINGS]
            side = stack[ply, S_SIDE] == 1
            m2, o2, k2 = apply_move(m, o, k, side, frm, to, captured)
            if reduced == 1:
                reduced = spare_shot(pruning, tries, ply, o2, m2, k2, not side)
            child = ply + 1
            progress = is_progress(k, frm, captured)
            reversible = stack[ply, S_REVERSIBLE] == 1 and not progress
            child_depth = stack[ply, S_DEPTH] - 1 - reduced + extension(pruning, stack, tries, ply, i, captured)
            # The child's hash serves the table (depth >= TT_MIN_DEPTH, never deeper down
            # the line) and the leaf cache: without a cache, most nodes, the leaves among
            # them, do not need it.
            if child_depth >= TT_MIN_DEPTH or table.leaves.shape[0] > 0:
                h = child_hash(stack[ply, S_HASH], k, k2, side, frm, to, captured)
                stack[child, S_HASH] = h
            stack[child, S_MOVER] = o2
            stack[child, S_OPPONENT] = m2
            stack[child, S_KINGS] = k2
            stack[child, S_SIDE] = 0 if side else 1
            stack[child, S_DEPTH] = child_depth
            stack[child, S_REVERSIBLE] = 1 if reversible else 0
            stack[child, S_QUIET] = 0 if progress else stack[ply, S_QUIET] + 1
            ply = child
            state = _ENTER
        else:  # _RETURN: ``value`` is the value of the node at ``ply``
            if pruning is not None and pass_over(pruning, stack, tries, values, ply, value):
                state = _ENTER  # the node's own search after its first pass
                continue
            if ply == 0:
                return value, stack[0, S_BEST_INDEX], stack[0, S_COUNT], nodes, False
            score = values[ply, V_REWARD] - value if rewarded else -value
            ply -= 1
            if retry_move(pruning, stack, tries, values, ply, score):
                state = _NEXT
                continue
            mi = order_index[ply, stack[ply, S_INDEX] - 1]
            if ply == 0:
                root_scores[mi] = score
                if score > values[0, V_BEST]:
                    values[0, V_BEST] = score
                    stack[0, S_BEST_INDEX] = mi
                    if score >= values[0, V_BETA]:
                        # Above an aspiration window: the iteration is searched again.
                        stack[0, S_INDEX] = stack[0, S_COUNT]
            elif score > values[ply, V_BEST]:
                values[ply, V_BEST] = score
                stack[ply, S_BEST_INDEX] = mi
                if score > values[ply, V_ALPHA]:
                    values[ply, V_ALPHA] = score
                    if score >= values[ply, V_BETA]:
                        if stack[ply, S_CAPTURES] == 0:
                            frm = moves[ply, mi, FROM]
                            to = moves[ply, mi, TO]
                            move_id = frm * 32 + to + 1
                            if killers[ply, 0] != move_id:
                                killers[ply, 1] = killers[ply, 0]
                                killers[ply, 0] = move_id
                            d = max(stack[ply, S_DEPTH], 1)
                            side_index = stack[ply, S_SIDE]
                            hist = history_scores[side_index, frm, to] + d * d
                            history_scores[side_index, frm, to] = min(hist, _HISTORY_CAP)
                        stack[ply, S_INDEX] = stack[ply, S_COUNT]  # cut-off
            state = _NEXT


__all__ = [
    "DrawRules",
    "INF",
    "MAX_DEPTH",
    "code_value",
    "draw_value",
    "egdb_value",
    "search_kernel",
    "terminal_value",
]
