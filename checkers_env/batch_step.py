"""The vector env's batch step: every board of a batch stepped (with autoreset) and reset
in one numba call each, on the environments' state machine (``checkers_env.env_machine``).
"""

from __future__ import annotations

import numba
import numpy as np

from .env_machine import S_END, S_WINNER, reset_board, start_turns, step_board, write_mask, write_observation
from .game_state import END_MAX_PLIES, END_NONE

#: Fields of a batch's episode settings (``int64[EPISODE_FIELDS]``, :func:`episode_settings`),
#: a record the batch step reads like ``rules``: the start position (black, white, kings,
#: turn), the learner's colour mode, the opponent's kind, the reward mode, whether the
#: step writes observations, and the autoreset mode.
E_START_BLACK, E_START_WHITE, E_START_KINGS, E_START_TURN = range(4)
E_COLOR_MODE, E_OPPONENT_KIND, E_REWARD_MODE, E_OBSERVATIONS, E_AUTORESET = range(4, 9)
EPISODE_FIELDS = 9

#: Autoreset modes (Gymnasium's ``AutoresetMode``): a finished board starts again on the
#: step after its end (its action ignored), on the step of its end (its final observation
#: written apart), or only when the caller resets it.
AUTORESET_NEXT_STEP, AUTORESET_SAME_STEP, AUTORESET_DISABLED = range(3)

#: Rows of the ``int8[ENDS_FIELDS, N]`` ends the batch step writes: terminated and truncated
#: (0 or 1, read as bool views), the board's ``END_*`` code this step (``END_NONE`` when it
#: goes on, or when it was reset at the start of the step) and the winner of a finished
#: game (0 Black, 1 White, -1 none).
ENDS_TERMINATED, ENDS_TRUNCATED, ENDS_CODE, ENDS_WINNER = range(4)
ENDS_FIELDS = 4


def episode_settings(
    start,
    color_mode: int,
    opponent_kind: int,
    reward_mode: int,
    observations: bool = True,
    autoreset: int = AUTORESET_NEXT_STEP,
):
    """The ``int64[EPISODE_FIELDS]`` record :func:`vector_step` takes: ``start`` (black,
    white, kings, turn), the colour mode, the opponent's kind, the reward mode, whether
    to write observations (False: the state machine alone: hops, opponents' replies, ends,
    resets, rewards and masks, for callers that encode the boards themselves), and the
    autoreset mode (``AUTORESET_*``)."""
    return np.array(
        [
            *(int(x) for x in start),
            int(color_mode),
            int(opponent_kind),
            int(reward_mode),
            int(bool(observations)),
            int(autoreset),
        ],
        dtype=np.int64,
    )


@numba.njit(cache=True, inline="always")
def _restart(state, moves, positions, last, episode, rules, i):
    """Board ``i`` starts a new episode from the start position, its random stream going on."""
    reset_board(
        state,
        positions,
        last,
        i,
        episode[E_START_BLACK],
        episode[E_START_WHITE],
        episode[E_START_KINGS],
        episode[E_START_TURN],
        episode[E_COLOR_MODE],
        0,
        rules,
    )
    start_turns(state, moves, positions, last, i, episode[E_OPPONENT_KIND], rules)


@numba.njit(cache=True, inline="always")
def _vector_step_one(state, moves, positions, last, actions, episode, rules, observations, masks, ends, finals, i):
    """``vector_step`` for board ``i``: writes its observation, mask and ends, returns its
    reward."""
    reward = 0.0
    ends[ENDS_TERMINATED, i] = 0
    ends[ENDS_TRUNCATED, i] = 0
    ends[ENDS_CODE, i] = END_NONE
    ends[ENDS_WINNER, i] = -1
    if state[i, S_END] != END_NONE:  # NEXT_STEP: the step after the end resets
        _restart(state, moves, positions, last, episode, rules, i)
    else:
        reward, _ = step_board(
            state, moves, positions, last, i, actions[i], episode[E_OPPONENT_KIND], episode[E_REWARD_MODE], rules
        )
        end = state[i, S_END]
        if end != END_NONE:
            if end == END_MAX_PLIES:
                ends[ENDS_TRUNCATED, i] = 1
            else:
                ends[ENDS_TERMINATED, i] = 1
            ends[ENDS_CODE, i] = end
            ends[ENDS_WINNER, i] = state[i, S_WINNER]
            if episode[E_AUTORESET] == AUTORESET_SAME_STEP:
                if episode[E_OBSERVATIONS] != 0:
                    write_observation(state, i, finals[i])
                _restart(state, moves, positions, last, episode, rules, i)
    if episode[E_OBSERVATIONS] != 0:
        write_observation(state, i, observations[i])
    write_mask(state, i, masks[i])
    return reward


# Arrays one by one, not named tuples: numba's ``prange`` loops mishandle tuples of arrays.
@numba.njit(cache=True, parallel=True)
def vector_step(state, moves, positions, last, actions, episode, rules, observations, masks, rewards, ends, finals):
    """Step every board, with the episode's autoreset mode, and write observations, masks,
    rewards and ends (every element of these outputs is written, so they may come from
    ``np.empty``; ``masks`` is the ``mask_words`` view of the ``int8[N, 128]`` masks).

    ``NEXT_STEP``: a finished board is reset by the step after its end (its action is
    ignored). ``SAME_STEP``: a board that ends is reset in the same step; its final
    observation goes to ``finals[i]`` first (only those rows are written). ``DISABLED``:
    the caller steps no finished board. A board whose action was illegal ends with
    ``END_ILLEGAL`` (no count is returned: a reduction over the threads costs an
    allocation per call).

    Args:
        state, moves, positions, last: the batch (``new_batch``).
        actions: ``int64[N]``, one per board.
        episode: the episode settings (:func:`episode_settings`).
        rules: ``int64[RULE_FIELDS]``, the draw rules.
        observations, masks, rewards: what the step writes per board.
        ends: ``int8[ENDS_FIELDS, N]``, how each board ended this step (``ENDS_*``).
        finals: ``float32[N, C, 8, 8]``, the final observations (``SAME_STEP``; any array
            of that type otherwise, such as one with no rows).

    The boards are independent and spread over numba's threads (``numba.set_num_threads``
    before the call picks how many; the results are the same for any number). Even on one
    thread this ``prange`` loop runs faster than the same loop compiled without
    ``parallel=True``, so it is the only batch kernel."""
    for i in numba.prange(state.shape[0]):
        rewards[i] = _vector_step_one(
            state, moves, positions, last, actions, episode, rules, observations, masks, ends, finals, i
        )


@numba.njit(cache=True)
def vector_reset(
    state,
    moves,
    positions,
    last,
    boards,
    seeds,
    start,
    color_mode,
    opponent_kind,
    rules,
    observations,
    masks,
):
    """Reset the boards where ``boards[i]`` is True; ``seeds[i]`` seeds board ``i``'s random
    stream (0 keeps it). The observation and mask of every board are written (those not
    reset as they stand); ``masks`` as in ``vector_step``."""
    for i in range(state.shape[0]):
        if boards[i]:
            reset_board(
                state,
                positions,
                last,
                i,
                start[0],
                start[1],
                start[2],
                start[3],
                color_mode,
                seeds[i],
                rules,
            )
            start_turns(state, moves, positions, last, i, opponent_kind, rules)
        write_observation(state, i, observations[i])
        write_mask(state, i, masks[i])


__all__ = [
    "AUTORESET_DISABLED",
    "AUTORESET_NEXT_STEP",
    "AUTORESET_SAME_STEP",
    "ENDS_CODE",
    "ENDS_FIELDS",
    "ENDS_TERMINATED",
    "ENDS_TRUNCATED",
    "ENDS_WINNER",
    "EPISODE_FIELDS",
    "episode_settings",
    "vector_reset",
    "vector_step",
]
