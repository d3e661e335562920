"""How long the search thinks about a move: under a time per move, or a clock for the game.

Iterative deepening stops between iterations. Under a time per move (``time=S``) the
whole budget is the hard limit and the search starts no iteration it cannot finish (an
iteration takes about three times the one before). Under a clock for the game
(``game_time=S``) each move gets a share of what is left (:func:`move_budget`): a target it
stops at once an iteration ends past it (``soft``), and a hard limit it never passes. The
search goes on past the target, up to twice it, when the last iteration changed the best
move or lowered the score by more than ``drop_margin`` (:func:`keep_deepening`): that is
where more depth changes the choice. A forced move is played at once.

Choices (the design leaves them open): 30 own moves still to play at the start, down to at
least 12 (a game of checkers runs about 50 moves a side, and the last ones are quick or
forced), so that a move uses at most a sixth of what is left, stretched; a third of a man
(30 points) or a twentieth of a net's range (0.1) counts as a score drop.
"""

from __future__ import annotations

#: Own moves assumed still to play, at the start of a game and at the least.
MOVES_TO_GO, MIN_MOVES_TO_GO = 30, 12
#: How far past its target a search may go when its best move or score is moving (and
#: so the hard limit: at most ``STRETCH / MIN_MOVES_TO_GO`` of the time left).
STRETCH = 2.0
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
        soft: the target (None: none, the hard limit is the budget).
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
    return elapsed < min(target, hard)


__all__ = [
    "DROP_NET",
    "DROP_POINTS",
    "MIN_MOVES_TO_GO",
    "MOVES_TO_GO",
    "STRETCH",
    "keep_deepening",
    "move_budget",
]
