"""The game-end rules, once: numba kernels that every game loop calls.

A game's state beside its position is three things: the plies played, the plies since the
last capture or man move (``quiet``), and one key per position since that last progress
(row ``game`` of ``keys``, ``int64[games, history_for(rules)]``, indexed by the quiet ply
count: ``keys[game, q]`` is the position reached after ``q`` quiet plies; a single game
keeps one row). The kernels index the rows rather than take row views: a view costs
reference counting at every call. Those keys are all repetition needs: men never move back
and a capture never comes undone, so no earlier position can recur. ``Game``, the environments' kernels
(``env_machine``) and the self-play loops of the trainers keep this state and decide every end
with ``end_of_game``, so a game ends the same way, at the same ply, wherever it is played.

Encodings shared by every kernel:

* colours: ``COLOR_BLACK`` 0, ``COLOR_WHITE`` 1 (the side to move, a winner);
* winner: a colour, or ``NO_WINNER`` (-1) for a draw or a game that goes on;
* ends: ``END_*`` codes, ``END_NAMES[code]`` the ``Termination`` value (``""`` for none);
* draw rules: ``int64[RULE_FIELDS]`` read by name (``rules[RULE_REPETITION]``, ...), 0
  turning a rule off; ``Rules.as_array()`` builds it.

The rules are a plain ``int64`` array with named indices rather than a record: numba passes
a record scalar wrongly into ``prange`` loops (the batch env's kernel), and a one-element
record array would be read as ``rules[0].max_plies`` everywhere.

Every function here is a scalar kernel on plain integers and arrays (no allocation, no
exception), inlined into its callers, plus ``decide_end`` (one compiled call for Python
adapters such as ``Game``) and ``advance_games`` (a batch of lockstep games).
"""

from __future__ import annotations

import numba
import numpy as np

from .bitboard import has_moves

# -- encodings -----------------------------------------------------------------------------

COLOR_BLACK = 0
COLOR_WHITE = 1
NO_WINNER = -1

END_NONE = 0
END_NO_MOVES = 1  #: the side to move has no legal move (or no pieces) and loses
END_REPETITION = 2
END_NO_PROGRESS = 3
END_MAX_PLIES = 4  #: the move cap (the Gymnasium env reports it as truncation)
END_ILLEGAL = 5  #: an environment's agent chose an illegal action (never decided here)
END_NAMES = ("", "no_moves", "repetition", "no_progress", "max_plies", "illegal_action")

# -- the draw rules as the kernels read them ---------------------------------------------------

RULE_REPETITION = 0  #: the same position, same side to move, this many times draws
RULE_NO_PROGRESS_PLIES = 1  #: this many plies without a capture or a man move draw
RULE_MAX_PLIES = 2  #: the game stops after this many plies
RULE_FIELDS = 3


@numba.njit(cache=True)
def rules_array(repetition, no_progress_plies, max_plies):
    """The ``int64[RULE_FIELDS]`` draw rules (0 turns a rule off), for kernels and for
    ``Rules.as_array``."""
    rules = np.zeros(RULE_FIELDS, dtype=np.int64)
    rules[RULE_REPETITION] = repetition
    rules[RULE_NO_PROGRESS_PLIES] = no_progress_plies
    rules[RULE_MAX_PLIES] = max_plies
    return rules


@numba.njit(cache=True)
def history_for(rules):
    """How many position keys a game can need under ``rules``: one per quiet ply, bounded
    by the no-progress rule or else the move cap. 0 when neither bounds a game (the caller
    then grows its keys as the game goes, as ``Game`` does)."""
    no_progress, max_plies = rules[RULE_NO_PROGRESS_PLIES], rules[RULE_MAX_PLIES]
    if no_progress > 0 and (max_plies <= 0 or no_progress < max_plies):
        return no_progress + 1
    if max_plies > 0:
        return max_plies + 1
    return 0


# -- the pieces of the game state -------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def is_progress(kings, frm, captured):
    """Whether a move resets the no-progress count: a capture, or a man moved (``frm`` is
    the moving piece's bit, ``kings`` the kings before the move)."""
    return captured != 0 or (kings >> frm) & 1 == 0


@numba.njit(cache=True, inline="always")
def position_key(black, white):
    """Both sides' pieces in one integer (Black's 32 bits low, White's high).

    It stands for the whole position when compared with positions since the last progress,
    as ``repetitions`` does: those share the same men, so the other pieces are the kings;
    and only positions an even number of plies apart are compared (same side to move)."""
    return black | (white << 32)


@numba.njit(cache=True, inline="always")
def quiet_after(quiet, progress):
    """The plies since progress after one more move."""
    return 0 if progress else quiet + 1


@numba.njit(cache=True, inline="always")
def remember_position(keys, game, quiet, key):
    """Record the position of game ``game`` reached after ``quiet`` quiet plies (beyond the
    row's length it cannot matter: the no-progress rule or the move cap ends the game first)."""
    if quiet < keys.shape[1]:
        keys[game, quiet] = key


@numba.njit(cache=True, inline="always")
def count_move(keys, game, quiet, progress, black, white):
    """The game state after a move (``progress``: a capture or a man move) that reached the
    position ``black, white``: returns the new plies since progress, and remembers the
    position in row ``game`` of ``keys``."""
    quiet = quiet_after(quiet, progress)
    remember_position(keys, game, quiet, position_key(black, white))
    return quiet


@numba.njit(cache=True, inline="always")
def repetitions(keys, game, quiet, key):
    """How often the current position of game ``game`` (key ``key``, after ``quiet`` quiet
    plies) occurred.

    None two plies back can repeat it (the side that moved then has not moved back yet):
    a repetition takes at least four plies, so the scan starts there, a step of two plies
    keeps the side to move, and most plies of a game write the same slot, which stays in
    cache."""
    count = 1
    back = 4
    while back <= quiet:
        if quiet - back < keys.shape[1] and keys[game, quiet - back] == key:
            count += 1
        back += 2
    return count


@numba.njit(cache=True, inline="always")
def end_of_game(has_move, plies, quiet, keys, game, key, rules):
    """The one end decision, in the rules' order: no legal move (the side to move loses),
    repetition, no progress, the move cap. Returns an ``END_*`` code (``END_NONE``: the
    game goes on).

    Args:
        has_move: whether the side to move has a legal move.
        plies: plies played in the game.
        quiet: plies since the last capture or man move.
        keys, game: the keys of the positions since then, in row ``game`` (see the module
            docstring).
        key: the current position's ``position_key``.
        rules: ``int64[RULE_FIELDS]``.
    """
    repetition = rules[RULE_REPETITION]
    if not has_move:
        return END_NO_MOVES
    # A count of r needs 4 * (r - 1) quiet plies: the scan is skipped before that.
    if repetition > 0 and quiet >= 4 * (repetition - 1) and repetitions(keys, game, quiet, key) >= repetition:
        return END_REPETITION
    if rules[RULE_NO_PROGRESS_PLIES] > 0 and quiet >= rules[RULE_NO_PROGRESS_PLIES]:
        return END_NO_PROGRESS
    if rules[RULE_MAX_PLIES] > 0 and plies >= rules[RULE_MAX_PLIES]:
        return END_MAX_PLIES
    return END_NONE


@numba.njit(cache=True, inline="always")
def winner_of(end, turn):
    """The winner of a game that ended with ``end`` with ``turn`` (a colour) to move: only
    a player left without a move loses; every other end is a draw."""
    if end == END_NO_MOVES:
        return 1 - turn
    return NO_WINNER


# -- entry points -----------------------------------------------------------------------------


@numba.njit(cache=True)
def decide_end(black, white, kings, turn, plies, quiet, keys, game, rules):
    """``end_of_game`` of a position, in one compiled call (for Python adapters).

    Returns:
        ``(end, winner)``: an ``END_*`` code and a colour or ``NO_WINNER``.
    """
    key = position_key(black, white)
    black_to_move = turn == COLOR_BLACK
    mover, opponent = (black, white) if black_to_move else (white, black)
    end = end_of_game(has_moves(mover, opponent, kings, black_to_move), plies, quiet, keys, game, key, rules)
    return end, winner_of(end, turn)


@numba.njit(cache=True)
def advance_games(games, black, white, kings, black_to_move, progress, plies, quiet, keys, rules, ends, winners):
    """Count one move in each of a batch of lockstep games and decide their ends.

    Game ``games[j]`` has just played a move (``progress[j]``: a capture or a man move)
    reaching the position ``black[j], white[j], kings[j]`` with Black to move when
    ``black_to_move[j]`` is non-zero. Its ``plies``, ``quiet`` and ``keys`` (``[game,
    history_for(rules)]``) rows are updated in place, and ``ends[j]``, ``winners[j]``
    receive its ``END_*`` code and winner.
    """
    for j in range(games.shape[0]):
        g = games[j]
        black_moves = black_to_move[j] != 0
        turn = COLOR_BLACK if black_moves else COLOR_WHITE
        mover, opponent = (black[j], white[j]) if black_moves else (white[j], black[j])
        plies[g] += 1
        quiet[g] = count_move(keys, g, quiet[g], progress[j] != 0, black[j], white[j])
        key = position_key(black[j], white[j])
        end = end_of_game(has_moves(mover, opponent, kings[j], black_moves), plies[g], quiet[g], keys, g, key, rules)
        ends[j] = end
        winners[j] = winner_of(end, turn)


__all__ = [
    "COLOR_BLACK",
    "COLOR_WHITE",
    "END_ILLEGAL",
    "END_MAX_PLIES",
    "END_NAMES",
    "END_NONE",
    "END_NO_MOVES",
    "END_NO_PROGRESS",
    "END_REPETITION",
    "NO_WINNER",
    "RULE_FIELDS",
    "RULE_MAX_PLIES",
    "RULE_NO_PROGRESS_PLIES",
    "RULE_REPETITION",
    "advance_games",
    "count_move",
    "decide_end",
    "end_of_game",
    "history_for",
    "is_progress",
    "position_key",
    "quiet_after",
    "remember_position",
    "repetitions",
    "rules_array",
    "winner_of",
]
