"""How long the search thinks about a move: under a time per move, a banked time per move, or
a clock for the game.

Iterative deepening stops between iterations. Under a time per move (``time=S``) the
whole budget is the hard limit and the search starts no iteration it cannot finish (an
iteration takes about three times the one before). The other two follow Cake's clock: each
move has a nominal time, the target (``soft``), and the search starts no iteration once
:data:`START_BY` of it has gone, unless the root is unstable (the last iteration changed
the best move or lowered the score by more than ``drop_margin``): the target then
stretches to :data:`STRETCH` times the nominal (:func:`keep_deepening`). A hard limit is
never passed. A forced move is played at once.

- ``time=S,bank=1`` (:func:`banked_budget`): what a move leaves of its ``S`` (all of it,
  for a book move) is banked for the game's later moves. A move's nominal is ``S`` and a
  share of the bank (one in :data:`BANK_SPREAD`), and its hard limit ``S`` and the bank,
  up to ``STRETCH * S``. A move is charged what it took, at most its hard limit (an
  overrun that is not the search's, such as the first call's compilation, is not
  charged), so the game's moves are charged no more than ``S`` each on average.
- ``game_time=S`` (:func:`move_budget`): the nominal is a share of what is left on the
  clock, and the hard limit ``STRETCH`` times it.

Choices (the design leaves them open): a bank spread over about the next 2 moves (a search
spends about half its target, as it starts no iteration past 0.4 of it, so a bank spread
thinner sits unspent; what a book move, a forced move or a stable root leaves is best spent
by the next moves of the opening and middlegame, where games are decided, rather than the
endgame's, which the database often answers); 30 own moves still to play at the start,
down to at least 12 (a game of checkers runs about 50 moves a side, and the last ones are
quick or forced), so that a move uses at most a quarter of what is left, stretched; a
third of a man (30 points) or a twentieth of a net's range (0.1) counts as a score drop;
Cake's 0.4 and 3 for the start and the stretch.
"""

from __future__ import annotations

#: Own moves assumed still to play, at the start of a game and at the least.
MOVES_TO_GO, MIN_MOVES_TO_GO = 30, 12
#: How far past its nominal time a search may go when its best move or score is moving (and
#: so the game clock's hard limit: at most ``STRETCH / MIN_MOVES_TO_GO`` of the time left).
STRETCH = 3.0
#: The share of its target after which a search starts no iteration (one started just
#: before it ends at about the target, as an iteration takes two to three times the last).
START_BY = 0.4
#: A banked move's nominal time is ``S`` and this share of the bank, ``1 / BANK_SPREAD``.
BANK_SPREAD = 2.0
#: A score drop that buys more time: points for the hand-written evaluations, net units.
DROP_POINTS, DROP_NET = 30.0, 0.1


def move_budget(remaining: float, moves_played: int) -> tuple[float, float]:
    """``(soft, hard)`` seconds for the next move with ``remaining`` seconds on the clock
    after ``moves_played`` of this side's moves."""
    remaining = max(float(remaining), 0.0)
    # One fewer move to go for every two played: 30 at the start reach 12 after 36 moves,
    # since a game runs about 50 a side.
    to_go = max(MIN_MOVES_TO_GO, MOVES_TO_GO - moves_played // 2)
    soft = remaining / to_go
    return soft, soft * STRETCH


def banked_budget(nominal: float, bank: float) -> tuple[float, float]:
    """``(soft, hard)`` seconds for the next move under ``time=nominal,bank=1``, with
    ``bank`` seconds saved by this game's earlier moves (what they left of their nominal
    time, less what they drew)."""
    nominal, bank = float(nominal), max(float(bank), 0.0)
    hard = nominal + min(bank, (STRETCH - 1.0) * nominal)
    return min(nominal + bank / BANK_SPREAD, hard), hard


def keep_deepening(
    elapsed: float,
    last_took: float,
    soft: float | None,
    hard: float,
    best_changed: bool,
    score_drop: float,
    drop_margin: float,
) -> bool:
    """Whether to start another iteration after one that took ``last_took`` seconds, at
    ``elapsed`` seconds into the search.

    Args:
        soft: the nominal time (None: none, the hard limit is the budget).
        hard: the limit the search never passes.
        best_changed: the last iteration chose another move than the one before.
        score_drop: how much lower the last iteration's value is than the one before.
        drop_margin: the drop that counts (:data:`DROP_POINTS`, :data:`DROP_NET`).
    """
    left = hard - elapsed
    if left <= 0 or last_took * 3 > left:
        return False
    if soft is None:
        return True
    target = soft * STRETCH if best_changed or score_drop > drop_margin else soft
    return elapsed < START_BY * min(target, hard)


__all__ = [
    "BANK_SPREAD",
    "DROP_NET",
    "DROP_POINTS",
    "MIN_MOVES_TO_GO",
    "MOVES_TO_GO",
    "START_BY",
    "STRETCH",
    "banked_budget",
    "keep_deepening",
    "move_budget",
]
