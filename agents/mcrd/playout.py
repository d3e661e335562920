"""Scalar pieces of one random descent, shared by the CPU kernel and the CUDA kernel.

Everything here takes and returns plain integers (int64 bitboards in the layout of
``checkers_env.bitboard``) and floats, allocates nothing and raises nothing, so the same
functions compile with ``numba.njit`` for the CPU path and are called from the
``numba.cuda.jit`` kernel on the device (docs/design.md §4). The CUDA kernel and the CPU
loop differ only in where their random numbers come from (xoroshiro128p states on the
device, xorshift64 streams on the CPU); both walk a descent with the same calls in the same
order: ``count_moves`` -> draw ``k`` -> ``nth_move`` -> ``apply_move`` -> ``is_king_cycle``.
"""

from __future__ import annotations

import numba

from checkers_env.bitboard import apply_move, count_moves, nth_move, popcount

#: A draw that ``is_king_cycle`` rejects is redrawn from the same position, as the design
#: document's ``continue`` does; after this many rejections in a row the next draw is
#: accepted whatever it is, so a position where every move recreates the configuration (a
#: lone king shuttling between two squares) cannot spin until the cap on rejected draws
#: alone.
MAX_REDRAWS = 8

#: Points of one playout for the side that chose the child: draws count half a win, and
#: every count is kept doubled so that it stays an integer (atomics on the device).
WIN_POINTS, DRAW_POINTS, LOSS_POINTS = 2, 1, 0
#: Diagnostic counters summed over a search's playouts: plies, skipped draws, capped
#: playouts, net evaluations (guided descents; none on the GPU).
DIAGNOSTICS = 4

_inline = numba.njit(cache=True, inline="always")


@_inline
def is_king_cycle(kings, mover_after, kings_after, parent_kings, grandparent_kings, grandparent_mover_kings):
    """The design document's cycle test for a candidate move of the side to move (M).

    The design document's condition, with ``bb`` the position, ``cc`` the candidate child,
    ``parent`` and ``gparent`` the positions one and two plies before ``bb``::

        (cc.king_pos ^ bb.king_pos) && (parent.king_pos ^ gparent.king_pos)
            && M's kings in cc == M's kings in gparent

    i.e. M's candidate move changes the kings, M's previous move (``gparent -> parent``)
    changed them too, and the candidate puts M's kings back where they stood before that
    previous move: M undoes its own last king move.

    Args:
        kings: kings of ``bb``.
        mover_after, kings_after: M's pieces and all kings in ``cc``.
        parent_kings, grandparent_kings: kings of ``parent`` and ``gparent``.
        grandparent_mover_kings: M's kings in ``gparent`` (M was to move there too).
    """
    return (
        (kings_after ^ kings) != 0
        and (parent_kings ^ grandparent_kings) != 0
        and (mover_after & kings_after) == grandparent_mover_kings
    )


@_inline
def play_draw(walk, k, try_cycle_check):
    """The body of the design document's descent loop for draw ``k``: play the ``k``-th move
    unless the king-cycle test rejects it (when ``try_cycle_check``).

    Args:
        walk: the position and its king history (see :func:`start_descent`).
        k: the draw, below the position's legal moves.
        try_cycle_check: whether the king-cycle test may reject the move.

    Returns:
        ``(skipped, walk)``: the position after the move with the sides swapped and the
        history shifted by one ply, or ``walk`` unchanged when the draw is skipped.
    """
    mover, opponent, kings, black_to_move = walk[0], walk[1], walk[2], walk[3]
    frm, to, captured, _, _ = nth_move(mover, opponent, kings, black_to_move, k)
    mover_after, opponent_after, kings_after = apply_move(mover, opponent, kings, black_to_move, frm, to, captured)
    if try_cycle_check and is_king_cycle(kings, mover_after, kings_after, walk[4], walk[6], walk[7]):
        return True, walk
    # The mover's move becomes the parent ply; the old parent becomes the grandparent.
    return False, (opponent_after, mover_after, kings_after, not black_to_move, kings, mover & kings, walk[4], walk[5])


@_inline
def start_descent(mover, opponent, kings, black_to_move, history):
    """A descent at its start, as :func:`take_draw` walks it.

    Args:
        mover, opponent, kings, black_to_move: the position, side to move first.
        history: its four kings of the king-cycle test (``cpu.KingHistory``'s order).

    Returns:
        ``(walk, tally)``: ``walk`` the position and its king history (mover, opponent,
        kings, black_to_move as a bool, then the four kings of ``history``) and ``tally``
        ``(legal, draws, plies, skips, skips_in_row)``: the legal moves of the position, the
        draws made, the plies played, the draws skipped, and those skipped in a row.
    """
    black_to_move = black_to_move != 0  # a bool, as ``play_draw`` makes it
    walk = (mover, opponent, kings, black_to_move, history[0], history[1], history[2], history[3])
    return walk, (count_moves(mover, opponent, kings, black_to_move), 0, 0, 0, 0)


@_inline
def goes_on(tally, max_moves):
    """Whether a descent draws again: the side to move has a move and the cap
    (``max_moves`` draws, skipped ones included, as the design document counts) is not
    reached."""
    return tally[0] > 0 and tally[1] < max_moves


@_inline
def take_draw(walk, tally, k, try_cycle_check):
    """Draw ``k`` of a descent (``k`` below the position's ``tally[0]`` legal moves): the
    move played (``play_draw``), or skipped by the king-cycle test; returns the new
    ``(walk, tally)`` (see :func:`start_descent`). The CPU and the CUDA loops differ only in
    where ``k`` comes from."""
    legal, draws, plies, skips, skips_in_row = tally
    skipped, walk = play_draw(walk, k, try_cycle_check)
    if skipped:
        return walk, (legal, draws + 1, plies, skips + 1, skips_in_row + 1)
    return walk, (count_moves(walk[0], walk[1], walk[2], walk[3]), draws + 1, plies + 1, skips, 0)


@_inline
def end_of_descent(walk, tally, king_weight):
    """``(black_points, capped, plies, skips)`` of a finished descent (``black_points``)."""
    points = black_points(walk[0], walk[1], walk[2], walk[3], tally[0], king_weight)
    return points, tally[0] > 0, tally[2], tally[3]


@_inline
def material(pieces, kings, king_weight):
    """Piece count with kings weighted by ``king_weight`` (the design document counts
    every piece 1)."""
    return popcount(pieces & ~kings) + king_weight * popcount(pieces & kings)


@_inline
def black_points(mover, opponent, kings, black_to_move, legal_moves, king_weight):
    """Points of Black (2 win, 1 draw, 0 loss) where a descent stopped.

    ``legal_moves == 0``: the side to move cannot move and loses (the rules). Otherwise the
    descent hit the move cap and is adjudicated by material (``material``): more wins,
    equal is a draw.
    """
    if legal_moves == 0:
        mover_points = LOSS_POINTS
    else:
        balance = material(mover, kings, king_weight) - material(opponent, kings, king_weight)
        if balance > 0:
            mover_points = WIN_POINTS
        elif balance < 0:
            mover_points = LOSS_POINTS
        else:
            mover_points = DRAW_POINTS
    if black_to_move:
        return mover_points
    return WIN_POINTS - mover_points


@_inline
def proportional_arm(thread, arms, keep_draw, keep_probability, other_draw):
    """The design document's proportional playout rule for one thread.

    The thread is assigned arm ``thread % arms`` (the even layout of the uniform launch); it
    keeps it when ``keep_draw < keep_probability`` (the assigned child's current win rate),
    and otherwise moves to one of the *other* arms, uniformly (``other_draw`` in
    ``[0, arms - 1)``).

    Returns:
        the arm index (into the launch's list of arms).
    """
    arm = thread % arms
    if arms > 1 and keep_draw >= keep_probability:
        other = other_draw
        if other >= arm:
            other += 1
        arm = other
    return arm
