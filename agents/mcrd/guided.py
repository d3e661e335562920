"""Guided descents: random descents in which some plies are chosen by a value net.

The design document's future work ("psuedo random playouts that were partially guided by the
neural network"), with the net's cost kept small: only the first ``plies`` plies of a
descent may be guided, a ply with one legal move never spends an evaluation, each guided
ply evaluates a random sample of ``sample`` children, and the move is drawn among them by a
softmax of their values at ``temperature`` (the choices and their defaults are documented
in ``checkers_agents.mcrd``). Every random number comes from the descent's own xorshift64
stream, so a guided descent is reproducible from its seed.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba

from checkers_agents.search_parts.evaluators import REWARD_MATERIAL_LOG, material_log_reward, net_value
from checkers_env.bitboard import apply_move, count_moves, nth_move
from checkers_env.movegen import random_below, xorshift64

from .playout import MAX_REDRAWS, end_of_descent, goes_on, is_king_cycle, start_descent, take_draw

#: The net that guides playouts and how (``MCRDAgent``'s ``guide_*`` parameters):
#: ``rate`` the probability that an eligible ply is guided; ``plies`` the plies from the
#: start of a descent that may be guided (0: all); ``sample`` the children evaluated at a
#: guided ply (0: all); ``temperature`` of the softmax over their values (0: argmax);
#: ``skip_forced``: a ply with one legal move is never guided; ``net``, ``net_functions``
#: and ``width`` the evaluator's (``Evaluator.net``, ``Evaluator.net_functions``,
#: ``Evaluator.width``; ``cpu.empty_net()`` when ``rate <= 0``).
Guide = namedtuple("Guide", "rate plies sample temperature skip_forced net net_functions width")
#: The settings of :data:`Guide` without the net, as ``MCRDAgent`` passes them on.
GuideSettings = namedtuple("GuideSettings", "rate plies sample temperature skip_forced")

#: Defaults of ``MCRDAgent``'s ``guide_plies``, ``guide_sample`` and ``guide_temperature``
#: (why: ``checkers_agents.mcrd``, "Guided descents").
DEFAULT_GUIDE_PLIES = 8
DEFAULT_GUIDE_SAMPLE = 4
DEFAULT_GUIDE_TEMPERATURE = 0.05

#: 2**-32: the spacing of :func:`random_unit`'s values.
_UNIT = 1.0 / 4294967296.0


@numba.njit(cache=True, inline="always")
def random_unit(state):
    """(new_state, float in [0, 1)) with 32 random bits."""
    state = xorshift64(state)
    return state, ((state >> 11) & 0xFFFFFFFF) * _UNIT


@numba.njit(cache=True, inline="always")
def softmax_key(state, worth, temperature):
    """(new_state, key) of a child worth ``worth`` to the mover: the child with the largest
    key over a set is a draw from ``softmax(worth / temperature)`` over that set (the
    Gumbel-max trick: ``worth / temperature`` plus a standard Gumbel variable), so a choice
    needs one random number per child and no table of weights. ``temperature <= 0``: the
    key is ``worth`` itself (argmax) and no random number is drawn."""
    if temperature <= 0.0:
        return state, worth
    state, u = random_unit(state)
    u += 0.5 * _UNIT  # in (0, 1): both logarithms are finite
    return state, worth / temperature - math.log(-math.log(u))


@numba.njit(cache=True)
def choose_by_softmax(worths, temperature, state):
    """(new_state, index): the choice a guided ply makes among children worth ``worths``
    (:func:`softmax_key` for each in order, the largest key; ties to the first)."""
    best = -1
    best_key = -math.inf
    for j in range(worths.shape[0]):
        state, key = softmax_key(state, worths[j], temperature)
        if best < 0 or key > best_key:
            best, best_key = j, key
    return state, best


@numba.njit(cache=True, inline="always")
def in_sample(state, j, legal, wanted):
    """(new_state, taken, wanted): selection sampling (Knuth's Algorithm S) of ``wanted``
    of the moves ``j .. legal - 1``: move ``j`` is taken with probability
    ``wanted / (legal - j)``, which samples uniformly without replacement, in generator
    order and without a buffer. All moves are taken, drawing nothing, once
    ``wanted == legal - j``."""
    if wanted <= 0:
        return state, False, wanted
    if wanted >= legal - j:
        return state, True, wanted - 1
    state, u = random_unit(state)
    if u * (legal - j) < wanted:
        return state, True, wanted - 1
    return state, False, wanted


@numba.njit(cache=True, inline="always")
def guided_index(position, legal, try_cycle_check, history, guide, state, active, scratch):
    """The net's move at one guided ply.

    A sample of ``guide.sample`` legal moves (all when 0 or at least ``legal``; drawn by
    :func:`in_sample`) is evaluated; each is worth minus the child's value to the opponent
    (plus the move's reward with the slow/fast evaluator, the search's ``R + V``), and the
    move is drawn by :func:`softmax_key` at ``guide.temperature``. A sampled move that
    leaves the opponent no legal move wins and is taken at once (the rules decide, not the
    net). When ``try_cycle_check``, sampled moves that fail the king-cycle test are not
    candidates unless every sampled move fails it (then the same sample is drawn again,
    from the same state, without the test).

    Args:
        position: ``(mover, opponent, kings, black_to_move)`` and ``legal``, its number of
            legal moves.
        history: its king history ``(parent_kings, parent_mover_kings,
            grandparent_kings, grandparent_mover_kings)`` (``cpu.KingHistory``).
        guide: the :data:`Guide`.
        state: the descent's xorshift64 state.
        active, scratch: the evaluator's scratch.

    Returns:
        ``(index, state, evaluations)``: the move (``nth_move`` order), the new state and
        the net evaluations spent.
    """
    mover, opponent, kings, black_to_move = position
    parent_kings, _, grandparent_kings, grandparent_mover_kings = history
    wanted_all = guide.sample if 0 < guide.sample < legal else legal
    evaluations = 0
    start = state
    for attempt in range(2):
        check = try_cycle_check and attempt == 0
        state = start  # the fallback draws the same sample again
        wanted = wanted_all
        best = -1
        best_key = -math.inf
        for j in range(legal):
            state, taken, wanted = in_sample(state, j, legal, wanted)
            if not taken:
                continue
            frm, to, captured, _, _ = nth_move(mover, opponent, kings, black_to_move, j)
            mover_after, opponent_after, kings_after = apply_move(
                mover, opponent, kings, black_to_move, frm, to, captured
            )
            if check and is_king_cycle(
                kings, mover_after, kings_after, parent_kings, grandparent_kings, grandparent_mover_kings
            ):
                continue
            if count_moves(opponent_after, mover_after, kings_after, not black_to_move) == 0:
                return j, state, evaluations
            worth = -net_value(
                opponent_after,
                mover_after,
                kings_after,
                not black_to_move,
                guide.net,
                guide.net_functions,
                active,
                scratch,
            )
            evaluations += 1
            if guide.net_functions[2] == REWARD_MATERIAL_LOG:
                worth += material_log_reward(
                    mover, opponent, kings, opponent_after, mover_after, kings_after, not black_to_move
                )
            state, key = softmax_key(state, worth, guide.temperature)
            if best < 0 or key > best_key:
                best, best_key = j, key
            if wanted == 0:
                break
        if best >= 0:
            return best, state, evaluations
    return 0, state, evaluations


@numba.njit(cache=True, inline="always")
def guides_ply(guide, legal, plies):
    """Whether a ply may be guided: a guide is set, the ply is among the first
    ``guide.plies`` of the descent (all when 0), and it is not forced (one legal move)
    unless ``guide.skip_forced`` is off."""
    if guide.rate <= 0.0:
        return False
    if 0 < guide.plies <= plies:
        return False
    return not (guide.skip_forced and legal == 1)


@numba.njit(cache=True)
def guided_descend(position, history, playout, state, guide, active, scratch, record):
    """One descent, each eligible ply the net's move with probability ``guide.rate``, else a
    uniform draw: the design document's playout loop (``cpu.descend``) "partially guided by
    the neural network".

    Per loop iteration: when the ply may be guided (:func:`guides_ply`) and
    ``0 < guide.rate < 1``, a uniform ``u`` is drawn first, and the ply is guided when
    ``u < guide.rate`` (``rate >= 1``: every eligible ply, no ``u`` drawn). Other plies
    draw exactly the random numbers of the plain descent, so ``rate <= 0`` is the plain
    descent to the random number. A guided ply counts toward ``max_moves`` like a draw, is
    never skipped (the net chooses among the moves the cycle test allows, see
    :func:`guided_index`) and ends a run of skipped draws.

    Args:
        position, history, playout, state: as ``cpu.descend``'s.
        guide: the net and its settings (:data:`Guide`).
        active, scratch: the evaluator's scratch (``int64[MAX_ACTIVE]``, ``[2 width]`` of the weights' dtype).
        record: ``int64[m]``: the ``nth_move`` index of each of the first ``m`` plies
            played is written there (length 0: nothing recorded).

    Returns:
        ``(black_points, capped, plies, skips, state, evaluations)``: as ``cpu.descend``,
        and the net evaluations spent.
    """
    max_moves, king_weight, cycle_check = playout
    walk, tally = start_descent(position[0], position[1], position[2], position[3], history)
    evaluations = 0
    while goes_on(tally, max_moves):
        try_cycle_check = cycle_check and tally[4] < MAX_REDRAWS
        guided = False
        if guides_ply(guide, tally[0], tally[2]):
            guided = guide.rate >= 1.0
            if not guided:
                state, u = random_unit(state)
                guided = u < guide.rate
        if guided:
            k, state, spent = guided_index(
                (walk[0], walk[1], walk[2], walk[3]),
                tally[0],
                try_cycle_check,
                (walk[4], walk[5], walk[6], walk[7]),
                guide,
                state,
                active,
                scratch,
            )
            evaluations += spent
            try_cycle_check = False  # the net's choice already passed the test (or nothing can)
        else:
            state, k = random_below(state, tally[0])
        plies = tally[2]
        walk, tally = take_draw(walk, tally, k, try_cycle_check)
        if tally[2] > plies and plies < record.shape[0]:
            record[plies] = k
    points, capped, plies, skips = end_of_descent(walk, tally, king_weight)
    return points, capped, plies, skips, state, evaluations
