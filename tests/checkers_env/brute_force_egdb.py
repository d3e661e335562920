"""An independent solver of every position with few pieces, for the endgame database tests.

It shares no code with ``checkers_env`` (no bitboards, no index, no retrograde build): the
moves come from the slow reference generator ``reference_movegen``, the positions are
enumerated square by square, and the values come from a plain level-by-level fixed point
over an explicit child table (numpy arrays), written from the definitions:

* a side to move with no piece or no legal move has lost, in 0 plies;
* a position is won in ``d`` (odd) when some child is lost in ``d - 1`` and none is lost
  in fewer plies (the winner wins as fast as it can);
* a position is lost in ``d`` (even, > 0) when every child is won and the longest of them
  in ``d - 1`` plies (the loser holds out as long as it can);
* everything else is a draw (unlimited play: no repetition or no-progress rule).

Levels ``L = 1, 2, ...`` resolve, among the positions still open, the wins at odd ``L`` (a
child lost in ``L - 1``) and the losses at even ``L`` (every child won): by induction each
position is resolved exactly at its distance. Once a level resolves nothing, no later one
can (the sets a level looks at did not change), and what is open is drawn.
"""

from __future__ import annotations

import itertools

import numpy as np
import reference_movegen as ref

#: Distance of a draw in the solver's arrays.
DRAWN = -1

_BLACK_MAN, _BLACK_KING, _WHITE_MAN, _WHITE_KING = range(4)


def _kinds_allowed(square: int) -> tuple[int, ...]:
    """The kinds of piece that may stand on ``square``: men never on their crowning row."""
    row = ref.square_to_cell(square)[0]
    kinds = [_BLACK_KING, _WHITE_KING]
    if row != ref.CROWNING_ROW[ref.BLACK]:
        kinds.append(_BLACK_MAN)
    if row != ref.CROWNING_ROW[ref.WHITE]:
        kinds.append(_WHITE_MAN)
    return tuple(sorted(kinds))


_ALLOWED = {square: _kinds_allowed(square) for square in range(1, 33)}


def positions(max_pieces: int):
    """Every position with 2 to ``max_pieces`` pieces, each side at least one, both sides
    to move (reference positions: four frozensets and the side to move)."""
    for n in range(2, max_pieces + 1):
        for squares in itertools.combinations(range(1, 33), n):
            for kinds in itertools.product(*(_ALLOWED[s] for s in squares)):
                sets = ([], [], [], [])
                for square, kind in zip(squares, kinds):
                    sets[kind].append(square)
                if not (sets[_BLACK_MAN] or sets[_BLACK_KING]) or not (sets[_WHITE_MAN] or sets[_WHITE_KING]):
                    continue
                frozen = tuple(frozenset(s) for s in sets)
                yield (*frozen, ref.BLACK)
                yield (*frozen, ref.WHITE)


def key(position) -> int:
    """A compact, exact key of a reference position (one bit per square and kind)."""
    black_men, black_kings, white_men, white_kings, side = position
    k = side
    for shift, squares in ((1, black_men), (33, black_kings), (65, white_men), (97, white_kings)):
        for square in squares:
            k |= 1 << (shift + square - 1)
    return k


def position_of(k: int):
    """The reference position of a ``key``."""
    sets = []
    for shift in (1, 33, 65, 97):
        bits = k >> shift & 0xFFFFFFFF
        squares = []
        while bits:
            low = bits & -bits
            squares.append(low.bit_length())
            bits ^= low
        sets.append(frozenset(squares))
    return (*sets, k & 1)


def _side_has_pieces(position, side: int) -> bool:
    black_men, black_kings, white_men, white_kings, _ = position
    return bool(black_men or black_kings) if side == ref.BLACK else bool(white_men or white_kings)


def solve(max_pieces: int = 3) -> dict[int, tuple[str, int | None]]:
    """``{key(position): (value, distance)}`` for every position of ``positions(max_pieces)``,
    the value ``"win"``/``"loss"``/``"draw"`` for the side to move, the distance in plies
    (``None`` for a draw)."""
    keys = [key(p) for p in positions(max_pieces)]
    index = {k: i for i, k in enumerate(keys)}
    count = len(keys)
    lost = count  # one extra node: a side to move without pieces, lost in 0
    parents: list[int] = []
    children: list[int] = []
    for i, k in enumerate(keys):
        for _, _, result in ref.legal_moves(position_of(k)):
            parents.append(i)
            children.append(index[key(result)] if _side_has_pieces(result, result[4]) else lost)
    parent = np.asarray(parents, dtype=np.int64)
    child = np.asarray(children, dtype=np.int64)
    child_count = np.bincount(parent, minlength=count)

    distance = np.full(count + 1, DRAWN, dtype=np.int64)
    distance[lost] = 0
    distance[:count][child_count == 0] = 0
    level = 0
    empty_levels = 0
    while empty_levels < 2:
        level += 1
        child_distance = distance[child]
        if level % 2:
            # A win in `level`: some child lost in level - 1.
            hit = np.bincount(parent, weights=child_distance == level - 1, minlength=count) > 0
        else:
            # A loss in `level`: every child won (the longest win is then level - 1).
            won = (child_distance >= 0) & (child_distance % 2 == 1)
            hit = (np.bincount(parent, weights=won, minlength=count) == child_count) & (child_count > 0)
        new = hit & (distance[:count] == DRAWN)
        distance[:count][new] = level
        empty_levels = 0 if new.any() else empty_levels + 1

    out = {}
    for k, d in zip(keys, distance[:count].tolist()):
        if d == DRAWN:
            out[k] = ("draw", None)
        else:
            out[k] = ("win" if d % 2 else "loss", d)
    return out
