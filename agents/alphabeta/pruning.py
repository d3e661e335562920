"""The alpha-beta's pruning switches and the kernel's pieces that apply them.

``SearchOptions.pruning`` is None for the exact search: None is a type of its own to numba,
and each function here settles ``pruning is None`` at compile time, so the exact search's
kernel has none of this code (no test per node, no extra stack traffic).
"""

from __future__ import annotations

from collections import namedtuple

import numba
from numba.core import types
from numba.extending import overload

from checkers_agents.search_parts.evaluators import WIN
from checkers_env.bitboard import apply_move, jumpers, popcount
from checkers_env.game_state import is_progress, position_key
from checkers_env.movegen import CAPTURED, FROM, TO

from . import stack as layout  # the node stack's slots and stages, named where they are read
from .transposition import BOUND_LOWER, TT_ENTRY, TT_KEY_MASK, TT_VALUE, child_hash

#: Move-ordering scores at or above this are the table's move, captures, crownings and
#: killers (``negamax``'s ordering): moves that are never reduced.
KILLER_ORDER = 1 << 27
#: Late-move reductions: at a node with at least ``REDUCE_MIN_DEPTH`` plies left whose moves
#: are not captures, the moves after the first ``REDUCE_AFTER`` (in search order) that are
#: neither the table's move, a killer nor a crowning (nor, with ``spare_shots``, a move that
#: offers the opponent a capture) are searched one ply shallower first.
REDUCE_AFTER = 3
REDUCE_MIN_DEPTH = 3
#: With ``threats``: the deepest horizon node searched on for a pending capture is this
#: many plies past the nominal depth (each capture of quiescence uses a ply too), which
#: bounds the extra search of a line of threats.
THREAT_PLIES = 3
#: With ``etc``: the least plies left at a node that looks up its children in the table
#: (its children, one ply less, are the shallowest nodes the table holds).
ETC_MIN_DEPTH = 3
#: With ``iid``: a node below the root with at least ``IID_MIN_DEPTH`` plies left and no
#: move in the table is searched ``IID_REDUCTION`` plies shallower first.
IID_MIN_DEPTH = 4
IID_REDUCTION = 2
#: With ``probcut``: a node below the root with at least ``PROBCUT_MIN_DEPTH`` plies left is
#: searched ``PROBCUT_REDUCTION`` plies shallower first, with a null window the margin
#: above its own.
PROBCUT_MIN_DEPTH = 5
PROBCUT_REDUCTION = 4

#: How the tree is searched (every switch off: each root value is the exact depth-``d``
#: minimax value):
#:
#: - ``root_in_order``: the root's moves in ``generate_moves`` order (for a caller that
#:   breaks ties by that order), else best-ordered like every other node;
#: - ``table_cutoffs``: a table entry of any earlier search or iteration cuts the search
#:   off when it was searched at least as deep (else only an entry of this iteration at
#:   exactly this depth does; older ones only order moves);
#: - ``pvs``: principal variation search below the root: a node's first move with its
#:   window, each later move with a null window above alpha, searched again with the full
#:   window only when it lands inside;
#: - ``reductions``: late-move reductions (``REDUCE_AFTER``, ``REDUCE_MIN_DEPTH``), searched
#:   again at full depth when the reduced search beats alpha;
#: - ``spare_shots``: with ``reductions``, a move that offers the opponent a capture (an
#:   exchange, a sacrifice) is never reduced: in checkers a quiet-looking move is often the
#:   first of a shot, whose point lies a ply or more below the capture it offers;
#: - ``extensions``: a move out of a node with one legal move (a forced capture, mostly)
#:   does not use up a ply, so a line of forced moves is seen to its end within the
#:   nominal depth (nodes with plies left only: quiescence already follows captures at
#:   the horizon; the stack's ``MAX_PLY`` bounds a line);
#: - ``threats``: a horizon node whose side to move has no capture is not scored while the
#:   opponent has one pending: its moves are searched on (one ply, then quiescence follows
#:   the captures), down to ``THREAT_PLIES`` plies past the horizon. A leaf scored with a
#:   shot pending misjudges it by the shot's material, and in checkers the shot is the
#:   common tactic (Cake's quiescence rule; it skips the rule far outside the window, this
#:   search does not evaluate a node before deciding);
#: - ``etc``: enhanced transposition cut-offs: a node with at least ``ETC_MIN_DEPTH``
#:   plies left looks up each child in the table before it searches a move, and cuts off
#:   at once when a child's entry, usable under the node's own rule (this search at the
#:   child's depth, or with ``table_cutoffs`` any search as deep), holds at most
#:   ``-beta`` (not with a net that rewards each move, whose child values are not the
#:   node's);
#: - ``iid``: internal iterative deepening: a node below the root with at least
#:   ``IID_MIN_DEPTH`` plies left and no move in the table is searched ``IID_REDUCTION``
#:   plies shallower first, with its own window; that search stores its best move in the
#:   table, which the node's own search then tries first (the table's values of that
#:   pass cut off under the usual rule only);
#: - ``aspiration``: the half-width of an aspiration window (0.0: none): an iteration of
#:   iterative deepening searches the root within ``aspiration`` of the iteration before's
#:   value, and again with that side open when its value falls outside
#:   (``deepening.search_iteration``; the window reaches the kernel in ``values[0]``,
#:   which the kernel opens itself otherwise);
#: - ``probcut``: the margin of a verified ProbCut (0.0: none): a node below the root
#:   with at least ``PROBCUT_MIN_DEPTH`` plies left and a top of its window ``beta`` short
#:   of a win is searched ``PROBCUT_REDUCTION`` plies shallower first with a null window
#:   at ``beta + probcut``; a value there stands for the node's (a cut-off), else the node
#:   is searched in full (GuiNN's rule: a shallow search that beats beta by a margin
#:   predicts a deep one that beats beta);
#: - ``fractional``: fractional-ply extensions (Cake's rule): below the root, a move out of
#:   a node with plies left earns half a ply for each of: it is a capture; the node has one
#:   legal move; its child is a principal variation node (the first move searched of one,
#:   the root being one: the line the search expects, ``layout.T_PRINCIPAL``). The halves
#:   add up down the line (``layout.T_HALVES``, 0 at the root): a child's are its parent's
#:   plus its move's, each whole ply of them (two halves) extends the child's depth by a
#:   ply and the half left over (0 or 1) is carried on. A line already twice the nominal
#:   depth long (``ply >= 2 * depth``) earns none, which bounds the extra search; with
#:   ``extensions`` as well, a forced move's whole ply adds on top.
#:
#: The root is searched as always (every move within the tie margin of the best is
#: exact), so the choice among moves stays the agent's; below it, values may then differ
#: from the plain search's, as in every engine that prunes. ``pruning`` holds the last
#: eleven switches (:data:`Pruning`), or is None for the exact search: None is a type of its
#: own to numba, so the exact search runs a kernel without the pruning's code. In the same
#: way the last six (:data:`MorePruning`) are ``Pruning.more``, None when all six are off,
#: so a search with only the first five (the zoo's) runs a kernel without their tests.
SearchOptions = namedtuple("SearchOptions", "root_in_order pruning")
Pruning = namedtuple("Pruning", "table_cutoffs pvs reductions extensions spare_shots more")
MorePruning = namedtuple("MorePruning", "threats etc iid aspiration probcut fractional")
#: Their fields by index (a caller in Python passes plain tuples: see ``search_from_python``).
TABLE_CUTOFFS, PVS, REDUCTIONS, EXTENSIONS, SPARE_SHOTS, MORE = range(6)
THREATS, ETC, IID, ASPIRATION, PROBCUT, FRACTIONAL = range(6)
#: Beyond every score: an open side of the root's window (``negamax.INF``).
OPEN = 2 * WIN
#: The aspiration window's half-width with ``aspiration`` on: a quarter of a man for the
#: hand-written evaluations (points), a fortieth of a net's range of 2.
ASPIRATION_POINTS, ASPIRATION_NET = 25.0, 0.05
#: ProbCut's margin with ``probcut`` on: 28 points for the hand-written evaluations, about
#: as much of a net's range of 2.
PROBCUT_POINTS, PROBCUT_NET = 28.0, 0.06


def search_options(
    root_in_order=False,
    table_cutoffs=False,
    pvs=False,
    reductions=False,
    extensions=False,
    spare_shots=False,
    aspiration=0.0,
    threats=False,
    etc=False,
    iid=False,
    probcut=0.0,
    fractional=False,
):
    """The :data:`SearchOptions` of these switches, aspiration half-width and ProbCut
    margin (``pruning`` None when all are off)."""
    more = MorePruning(bool(threats), bool(etc), bool(iid), float(aspiration), float(probcut), bool(fractional))
    switches = (bool(table_cutoffs), bool(pvs), bool(reductions), bool(extensions), bool(spare_shots))
    if not any(more):
        if not any(switches):
            return SearchOptions(bool(root_in_order), None)
        more = None
    return SearchOptions(bool(root_in_order), Pruning(*switches, more))


def named_pruning(pruning):
    """``pruning`` (None, or a plain tuple of :data:`Pruning`'s fields) as the named tuple.
    A kernel called from Python receives its bundles as plain tuples (see
    ``search_from_python``), a kernel called in numba as named ones; numba compiles the
    search once for each type, so the caller in Python names them again and every search
    shares one compiled kernel."""
    if pruning is None:
        return None
    more = pruning[MORE]
    return Pruning(*pruning[:MORE], None if more is None else MorePruning(*more))


@overload(named_pruning)
def _named_pruning(pruning):
    if isinstance(pruning, types.NoneType):
        return lambda pruning: None
    if isinstance(pruning.types[MORE], types.NoneType):
        return lambda pruning: Pruning(pruning[0], pruning[1], pruning[2], pruning[3], pruning[4], None)
    return lambda pruning: Pruning(
        pruning[0], pruning[1], pruning[2], pruning[3], pruning[4], MorePruning(*pruning[MORE])
    )


@numba.njit(cache=True)
def aspiration_width(pruning):
    """The aspiration window's half-width (0.0: none)."""
    if pruning is None:
        return 0.0
    return _aspiration(pruning[MORE])


# The six switches of ``Pruning.more`` are read through functions that take ``more`` as an
# argument: numba settles ``more is None`` at compile time only for an argument, and then
# compiles the zoo's search (``more`` None) without their tests.
@numba.njit(cache=True)
def _aspiration(more):
    if more is None:
        return 0.0
    return more[ASPIRATION]


@numba.njit(cache=True)
def deeper_cutoff(pruning, stored_depth, depth):
    """Whether a table entry searched ``stored_depth`` deep may cut off a node of ``depth``
    whatever search stored it."""
    if pruning is None:
        return False
    return pruning[TABLE_CUTOFFS] and stored_depth >= depth


@numba.njit(cache=True)
def scouted(pruning, tries, ply):
    """Whether the node at ``ply`` is searched with a null window above its parent's alpha."""
    if pruning is None:
        return False
    return ply >= 2 and tries[ply - 1, layout.T_SCOUT] == 1


@numba.njit(cache=True)
def begin_moves(pruning, tries, ply):
    """A node's first move is tried as it comes."""
    if pruning is None:
        return
    tries[ply, layout.T_STAGE] = layout.STAGE_FIRST
    tries[ply, layout.T_SCOUT] = 0
    tries[ply, layout.T_REDUCED] = 0


@numba.njit(cache=True)
def try_move(pruning, stack, tries, values, order_scores, ply, i, margin):
    """How the move at index ``i`` of the node at ``ply`` is tried: returns the plies it is
    reduced by (0 or 1), and marks whether it gets a null window (``layout.T_SCOUT``)."""
    if pruning is None:
        return 0
    tries[ply + 1, layout.T_PASS] = layout.PASS_NONE  # the child is a new node
    reduced = 0
    scout = 0
    stage = tries[ply, layout.T_STAGE]
    if ply > 0 and stage != layout.STAGE_FULL:
        if (
            pruning[REDUCTIONS]
            and stage == layout.STAGE_FIRST
            and i >= REDUCE_AFTER
            and stack[ply, layout.S_CAPTURES] == 0
            and stack[ply, layout.S_DEPTH] >= REDUCE_MIN_DEPTH
            and stack[ply, layout.S_ORDERED] == 1
            and order_scores[ply, i] < KILLER_ORDER
        ):
            reduced = 1
        if (pruning[PVS] and i > 0) or reduced == 1:
            scout = 1 if values[ply, layout.V_BETA] - values[ply, layout.V_ALPHA] > margin else 0
    tries[ply, layout.T_SCOUT] = scout
    tries[ply, layout.T_REDUCED] = reduced
    return reduced


@numba.njit(cache=True)
def spare_shot(pruning, tries, ply, mover, opponent, kings, black_to_move):
    """With ``spare_shots``, lift the reduction of the move just made at ``ply`` when it
    offers a capture to the side to move after it (``mover``, ``opponent``, ``kings``,
    ``black_to_move``); returns the plies it stays reduced by (called for a reduced move)."""
    if pruning is None:
        return 0
    if not pruning[SPARE_SHOTS] or jumpers(mover, opponent, kings, black_to_move) == 0:
        return 1
    tries[ply, layout.T_REDUCED] = 0
    if not pruning[PVS]:  # the null window was the reduction's
        tries[ply, layout.T_SCOUT] = 0
    return 0


@numba.njit(cache=True)
def extension(pruning, stack, tries, ply, i, captured):
    """Plies the move at index ``i`` (in search order; ``captured``, its captured pieces)
    of the node at ``ply`` is extended by: 1 below the root for a node with one legal move
    and plies left, with ``extensions``; with ``fractional``, plus the whole plies of the
    halves the child carries (:func:`_fractional_plies`)."""
    if pruning is None:
        return 0
    plies = 0
    if pruning[EXTENSIONS] and ply > 0 and stack[ply, layout.S_COUNT] == 1 and stack[ply, layout.S_DEPTH] >= 1:
        plies = 1
    return plies + _fractional(pruning[MORE], stack, tries, ply, i, captured)


@numba.njit(cache=True)
def _fractional(more, stack, tries, ply, i, captured):
    if more is None or not more[FRACTIONAL]:
        return 0
    return _fractional_plies(stack, tries, ply, i, captured)


@numba.njit(cache=True)
def _fractional_plies(stack, tries, ply, i, captured):
    """With ``fractional``: the whole plies the child of the node at ``ply`` by its move at
    index ``i`` is extended by; marks the half it carries on (``layout.T_HALVES`` of the
    child) and whether it is a principal variation node (``layout.T_PRINCIPAL``: the first
    move's child of one, the root being one). A half for a capture, a half for a node with
    one legal move, a half for a principal variation node, added to the node's own carried
    halves; nothing at the root, at a node with no plies left or at ``ply >= 2 * depth``."""
    principal = i == 0 and (ply == 0 or tries[ply, layout.T_PRINCIPAL] == 1)
    tries[ply + 1, layout.T_PRINCIPAL] = 1 if principal else 0
    halves = 0 if ply == 0 else tries[ply, layout.T_HALVES]
    if ply > 0 and stack[ply, layout.S_DEPTH] >= 1 and ply < 2 * stack[0, layout.S_DEPTH]:
        if captured != 0:
            halves += 1
        if stack[ply, layout.S_COUNT] == 1:
            halves += 1
        if principal:
            halves += 1
    tries[ply + 1, layout.T_HALVES] = halves % 2
    return halves // 2


@numba.njit(cache=True)
def retry_move(pruning, stack, tries, values, ply, score):
    """After a try of the node at ``ply``'s current move scored ``score``: whether to search
    it again (at full depth when it beat alpha reduced; with the full window when a null
    window let it in). Marks the stage of the next try."""
    if pruning is None:
        return False
    retry = layout.STAGE_FIRST
    if (tries[ply, layout.T_SCOUT] == 1 or tries[ply, layout.T_REDUCED] == 1) and score > values[ply, layout.V_ALPHA]:
        if tries[ply, layout.T_REDUCED] == 1:
            retry = layout.STAGE_FULL_DEPTH if pruning[PVS] else layout.STAGE_FULL
        elif score < values[ply, layout.V_BETA]:
            retry = layout.STAGE_FULL
    tries[ply, layout.T_STAGE] = retry
    if retry == layout.STAGE_FIRST:
        return False
    stack[ply, layout.S_INDEX] -= 1
    return True


__all__ = [
    "ASPIRATION",
    "ASPIRATION_NET",
    "ASPIRATION_POINTS",
    "ETC",
    "ETC_MIN_DEPTH",
    "EXTENSIONS",
    "FRACTIONAL",
    "IID",
    "IID_MIN_DEPTH",
    "IID_REDUCTION",
    "KILLER_ORDER",
    "MORE",
    "MorePruning",
    "OPEN",
    "PROBCUT",
    "PROBCUT_MIN_DEPTH",
    "PROBCUT_NET",
    "PROBCUT_POINTS",
    "PROBCUT_REDUCTION",
    "PVS",
    "Pruning",
    "REDUCE_AFTER",
    "REDUCE_MIN_DEPTH",
    "REDUCTIONS",
    "SPARE_SHOTS",
    "SearchOptions",
    "TABLE_CUTOFFS",
    "aspiration_width",
    "begin_moves",
    "deeper_cutoff",
    "extension",
    "first_pass",
    "named_pruning",
    "pass_over",
    "retry_move",
    "scouted",
    "search_options",
    "spare_shot",
    "threat_pending",
    "transposed_cutoff",
    "try_move",
]


@numba.njit(cache=True)
def threat_pending(pruning, depth, mover, opponent, kings, black_to_move):
    """With ``threats``: whether a node ``depth`` plies from the horizon (0 or less), whose
    side to move (``mover``, ``black_to_move``) has no capture, is searched on because the
    opponent has one pending."""
    if pruning is None:
        return False
    return _threat(pruning[MORE], depth, mover, opponent, kings, black_to_move)


@numba.njit(cache=True)
def _threat(more, depth, mover, opponent, kings, black_to_move):
    if more is None:
        return False
    return more[THREATS] and depth > -THREAT_PLIES and jumpers(opponent, mover, kings, not black_to_move) != 0


@numba.njit(cache=True)
def transposed_cutoff(
    pruning, usable, table, generation, stack, moves, n, ply, beta, valuation, draw_rules, egdb_pieces
):
    """With ``etc``: the value the node at ``ply`` (its ``n`` moves in ``moves``, its window's
    top ``beta``) cuts off with before searching a move, or ``-OPEN`` for none.

    A child whose table entry is usable at the child's depth (this ``generation`` at that
    depth, or one as deep with ``table_cutoffs``) and bounds its value from above at
    ``-beta`` or below makes the node's value at least ``beta``: the node returns the
    negated bound. ``usable``: the table may cut off at all here (the caller's rule: not
    within reach of the no-progress limit, not with rewards per move). A child that the
    search would score otherwise, a repetition of ``draw_rules``'s keys or a position of
    the endgame database (``egdb_pieces``), is passed over. The child's depth it assumes is
    the node's less a ply, plus a forced move's ply with ``extensions``; with
    ``fractional`` it ignores the halves a child carries (:func:`extension`), so a child
    that they extend is looked up shallower than it is searched."""
    if pruning is None or not usable:
        return -OPEN
    return _etc(
        pruning[MORE], pruning, table, generation, stack, moves, n, ply, beta, valuation, draw_rules, egdb_pieces
    )


@numba.njit(cache=True)
def _etc(more, pruning, table, generation, stack, moves, n, ply, beta, valuation, draw_rules, egdb_pieces):
    if more is None:
        return -OPEN
    if not (more[ETC] and ply > 0 and stack[ply, layout.S_DEPTH] >= ETC_MIN_DEPTH):
        return -OPEN
    return _children_cutoff(pruning, table, generation, stack, moves, n, ply, beta, valuation, draw_rules, egdb_pieces)


# The hooks' tests above are what every node of a pruned search pays; the work below runs
# only with the switch on, in a call of its own that the small guard does not carry.
@numba.njit(cache=True)
def _children_cutoff(pruning, table, generation, stack, moves, n, ply, beta, valuation, draw_rules, egdb_pieces):
    """:func:`transposed_cutoff`'s look-up of the children, with ``etc`` on at this node."""
    depth = stack[ply, layout.S_DEPTH]
    entries, entry_values = table.entries, table.values
    _, _, _, loss_per_ply, _, win_bound, _, _ = valuation
    keys, count = draw_rules[0], draw_rules[1]
    mover, opponent, kings = stack[ply, layout.S_MOVER], stack[ply, layout.S_OPPONENT], stack[ply, layout.S_KINGS]
    side = stack[ply, layout.S_SIDE] == 1
    child_depth = depth - 1 + (1 if pruning[EXTENSIONS] and n == 1 else 0)  # ``extension``
    mask = entries.shape[0] - 1
    for i in range(n):
        frm, to, captured = moves[i, FROM], moves[i, TO], moves[i, CAPTURED]
        m2, o2, k2 = apply_move(mover, opponent, kings, side, frm, to, captured)
        h = child_hash(stack[ply, layout.S_HASH], kings, k2, side, frm, to, captured)
        entry = entries[h & mask, TT_ENTRY]
        if (entry & TT_KEY_MASK) != (h & TT_KEY_MASK) or ((entry >> 8) & 3) == BOUND_LOWER:
            continue
        stored_depth = entry & 255
        if not (
            (((entry >> 18) & 255) == generation and stored_depth == child_depth)
            or deeper_cutoff(pruning, stored_depth, child_depth)
        ):
            continue
        if egdb_pieces > 0 and popcount(m2 | o2) <= egdb_pieces:
            continue
        if count > 0 and stack[ply, layout.S_REVERSIBLE] == 1 and not is_progress(kings, frm, captured):
            key = position_key(o2, m2) if not side else position_key(m2, o2)
            draw = False
            for j in range(count):
                if keys[j] == key:
                    draw = True
            if draw:
                continue
        v = entry_values[h & mask, TT_VALUE]
        if v > win_bound:
            v -= loss_per_ply * (ply + 1)
        elif v < -win_bound:
            v += loss_per_ply * (ply + 1)
        if -v >= beta:
            return -v
    return -OPEN


@numba.njit(cache=True)
def first_pass(pruning, stack, tries, values, ply, depth, alpha, tt_move, valuation):
    """Before the node at ``ply`` (``depth`` plies left, window from ``alpha``, ``tt_move``
    the table's move or -1) lists its moves: whether it is searched in a shallower first
    pass (``probcut``, else ``iid``). Returns the depth and alpha it is searched with now (its own when
    none); a pass marks ``layout.T_PASS`` and keeps the node's depth in ``layout.T_DEPTH``, and
    :func:`pass_over` searches the node again after it."""
    if pruning is None:
        return depth, alpha
    return _first_pass(pruning[MORE], stack, tries, values, ply, depth, alpha, tt_move, valuation)


@numba.njit(cache=True)
def _first_pass(more, stack, tries, values, ply, depth, alpha, tt_move, valuation):
    if more is None:
        return depth, alpha
    if ply == 0 or tries[ply, layout.T_PASS] != layout.PASS_NONE or not (more[PROBCUT] > 0.0 or more[IID]):
        return depth, alpha
    return _begin_pass(more, stack, tries, values, ply, depth, alpha, tt_move, valuation)


@numba.njit(cache=True)
def _begin_pass(more, stack, tries, values, ply, depth, alpha, tt_move, valuation):
    """:func:`first_pass` with ``probcut`` or ``iid`` on (``more``: :data:`MorePruning`), at a
    node that has had no pass."""
    if more[PROBCUT] > 0.0 and depth >= PROBCUT_MIN_DEPTH:
        _, _, _, _, _, win_bound, tie_margin, _ = valuation
        beta = values[ply, layout.V_BETA]
        raised = beta + more[PROBCUT]
        if -win_bound < beta and raised < win_bound:
            tries[ply, layout.T_PASS] = layout.PASS_PROBCUT
            tries[ply, layout.T_DEPTH] = depth
            stack[ply, layout.S_DEPTH] = depth - PROBCUT_REDUCTION
            values[ply, layout.V_BETA] = raised
            values[ply, layout.V_ALPHA] = raised - tie_margin
            return depth - PROBCUT_REDUCTION, raised - tie_margin
    if more[IID] and tt_move < 0 and depth >= IID_MIN_DEPTH:
        tries[ply, layout.T_PASS] = layout.PASS_IID
        tries[ply, layout.T_DEPTH] = depth
        stack[ply, layout.S_DEPTH] = depth - IID_REDUCTION
        return depth - IID_REDUCTION, alpha
    return depth, alpha


@numba.njit(cache=True)
def pass_over(pruning, stack, tries, values, ply, value):
    """When the node at ``ply`` returns ``value``: whether it is entered again for its own
    search, a first pass (:func:`first_pass`) being over (the node's depth restored; on
    entering, its window is its parent's again). A ProbCut pass whose value reached its
    window's top is the node's value: the node returns it."""
    if pruning is None:
        return False
    return _pass_over(pruning[MORE], stack, tries, values, ply, value)


@numba.njit(cache=True)
def _pass_over(more, stack, tries, values, ply, value):
    if more is None or ply == 0 or tries[ply, layout.T_PASS] == layout.PASS_NONE:
        return False
    return _end_pass(stack, tries, values, ply, value)


@numba.njit(cache=True)
def _end_pass(stack, tries, values, ply, value):
    """:func:`pass_over` at a node that had a first pass."""
    passed = tries[ply, layout.T_PASS]
    if passed == layout.PASS_IID or (passed == layout.PASS_PROBCUT and value < values[ply, layout.V_BETA]):
        stack[ply, layout.S_DEPTH] = tries[ply, layout.T_DEPTH]
        tries[ply, layout.T_PASS] = layout.PASS_DONE
        return True
    tries[ply, layout.T_PASS] = layout.PASS_NONE
    return False
