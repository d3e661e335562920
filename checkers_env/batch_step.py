"""The vector env's batch step: every board of a batch stepped (with autoreset) and reset
in one numba call each, on the environments' state machine (``checkers_env.env_machine``).
"""

from __future__ import annotations

import numba
import numpy as np

from .env_machine import S_END, reset_board, start_turns, step_board, write_mask, write_observation
from .game_state import END_MAX_PLIES, END_NONE


#: Fields of a batch's episode settings (``int64[EPISODE_FIELDS]``, :func:`episode_settings`),
#: a record the batch step reads like ``rules``: the start position (black, white, kings,
#: turn), the learner's colour mode, the opponent's kind, the reward mode, and whether the
#: step writes observations.
E_START_BLACK, E_START_WHITE, E_START_KINGS, E_START_TURN = range(4)
E_COLOR_MODE, E_OPPONENT_KIND, E_REWARD_MODE, E_OBSERVATIONS = range(4, 8)
EPISODE_FIELDS = 8


def episode_settings(start, color_mode: int, opponent_kind: int, reward_mode: int, observations: bool = True):
    """The ``int64[EPISODE_FIELDS]`` record :func:`vector_step` takes: ``start`` (black,
    white, kings, turn), the colour mode, the opponent's kind, the reward mode, and whether
    to write observations (False: the state machine alone: hops, opponents' replies, ends,
    resets, rewards and masks, for callers that encode the boards themselves)."""
    return np.array(
        [*(int(x) for x in start), int(color_mode), int(opponent_kind), int(reward_mode), int(bool(observations))],
        dtype=np.int64,
    )


@numba.njit(cache=True, inline="always")
def _vector_step_one(state, moves, positions, last, actions, episode, rules, observations, masks, i):
    """``vector_step`` for board ``i``: writes its observation and mask, returns its
    ``(reward, terminated, truncated)``."""
    opponent_kind = episode[E_OPPONENT_KIND]
    reward = 0.0
    terminated = False
    truncated = False
    if state[i, S_END] != END_NONE:
        reset_board(
            state, positions, last, i, episode[E_START_BLACK], episode[E_START_WHITE], episode[E_START_KINGS],
            episode[E_START_TURN], episode[E_COLOR_MODE], 0, rules,
        )
        start_turns(state, moves, positions, last, i, opponent_kind, rules)
    else:
        reward, _ = step_board(
            state, moves, positions, last, i, actions[i], opponent_kind, episode[E_REWARD_MODE], rules
        )
        end = state[i, S_END]
        if end == END_MAX_PLIES:
            truncated = True
        elif end != END_NONE:
            terminated = True
    if episode[E_OBSERVATIONS] != 0:
        write_observation(state, i, observations[i])
    write_mask(state, i, masks[i])
    return reward, terminated, truncated


# Arrays one by one, not named tuples: numba's ``prange`` loops mishandle tuples of arrays.
@numba.njit(cache=True, parallel=True)
def vector_step(state, moves, positions, last, actions, episode, rules, observations, masks, rewards, terminated, truncated):
    """Step every board (autoreset on the step after an episode ends, as Gymnasium's
    ``NEXT_STEP`` mode) and write observations and masks (every element of the output
    arrays is written, so they may come from ``np.empty``; ``masks`` is the
    ``mask_words`` view of the ``int8[N, 128]`` masks). A board whose action was illegal
    ends with ``S_END == END_ILLEGAL`` (no count is returned: a reduction over the threads
    costs an allocation per call).

    Args:
        state, moves, positions, last: the batch (``new_batch``).
        actions: ``int64[N]``, one per board.
        episode: the episode settings (:func:`episode_settings`).
        rules: ``int64[RULE_FIELDS]``, the draw rules.
        observations, masks, rewards, terminated, truncated: what the step writes per board.

    The boards are independent and spread over numba's threads (``numba.set_num_threads``
    before the call picks how many; the results are the same for any number). Even on one
    thread this ``prange`` loop runs faster than the same loop compiled without
    ``parallel=True``, so it is the only batch kernel."""
    for i in numba.prange(state.shape[0]):
        rewards[i], terminated[i], truncated[i] = _vector_step_one(
            state, moves, positions, last, actions, episode, rules, observations, masks, i
        )


@numba.njit(cache=True)
def vector_reset(
    state, moves, positions, last, seeds, start, color_mode, opponent_kind, rules,
    observations, masks,
):
    """Reset every board; ``seeds[i]`` seeds board ``i``'s random stream (0 keeps it);
    ``masks`` as in ``vector_step``."""
    for i in range(state.shape[0]):
        reset_board(
            state, positions, last, i, start[0], start[1], start[2], start[3], color_mode, seeds[i], rules,
        )
        start_turns(state, moves, positions, last, i, opponent_kind, rules)
        write_observation(state, i, observations[i])
        write_mask(state, i, masks[i])


__all__ = [
    "EPISODE_FIELDS",
    "episode_settings",
    "vector_reset",
    "vector_step",
]
