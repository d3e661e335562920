"""The environments' state machine as numba kernels over a batch of boards.

One hop per action (DESIGN §5): at the start of a turn the complete moves of the side to
move are generated into the board's move buffer; each action names the next hop, and the
moves whose path continues with it stay "alive"; once the alive move is complete it is
played. The single Gymnasium env, the vector env and the PettingZoo env all run on these
kernels (the single env is a batch of one), so they cannot disagree.

Per board the state is one row of ``state`` (columns below), the move buffer, the history
of positions (for repetition) and the last moves played (for ``info`` and rendering).

Frames: the *mover's frame* is the board seen from the mover's chair. Square ``s`` has
index ``k = s - 1`` for Black and ``k = 32 - s`` for White; direction ``d`` is 0
forward-left, 1 forward-right, 2 backward-left, 3 backward-right; ``action = 4 * k + d``.
"""

from __future__ import annotations

import numba
import numpy as np

from .bitboard import apply_move, lowest_bit_index, step
from .kernels import MAX_MOVES, MOVE_FIELDS, generate_moves, seed_state, xorshift64
from .policies import OPPONENT_EXTERNAL, choose, material

# -- state columns -------------------------------------------------------------------------
(
    S_BLACK,  # bitboards
    S_WHITE,
    S_KINGS,
    S_TURN,  # 0 Black, 1 White to move
    S_AGENT,  # the learner's colour (0/1), or -1 in self-play
    S_PLY,  # plies played this episode
    S_QUIET,  # plies since the last capture or man move
    S_NMOVES,  # complete moves in the buffer (for the side to move)
    S_ORIGIN,  # bit of the piece whose move is in progress, -1 before the first hop
    S_PREFIX,  # landings chosen so far, packed 5 bits each
    S_HOPS,  # hops chosen so far
    S_RNG,  # xorshift state for colours and opponents
    S_END,  # END_* code; non-zero once the episode is over
    S_WINNER,  # 0 Black, 1 White, -1 none
    S_LAST_COUNT,  # moves stored in ``last`` since the learner's previous action
    S_START_TURN,  # side to move at the start (history parity)
    S_MATERIAL_OWN,  # learner's material at its previous decision (material reward)
    S_MATERIAL_OPP,
    S_WAITING,  # 1 when an external opponent must move
) = range(19)
STATE_FIELDS = 19

END_NONE = 0
END_NO_MOVES = 1
END_REPETITION = 2
END_NO_PROGRESS = 3
END_MAX_PLIES = 4  # truncation
END_ILLEGAL = 5
END_NAMES = ("", "no_moves", "repetition", "no_progress", "max_plies", "illegal_action")

HOP_ILLEGAL = 0
HOP_CONTINUES = 1
HOP_COMPLETES = 2

REWARD_WIN_LOSS = 0
REWARD_MATERIAL = 1

COLOR_BLACK = 0
COLOR_WHITE = 1
COLOR_RANDOM = 2

NUM_PLANES = 5
PLANE_OWN_MEN, PLANE_OWN_KINGS, PLANE_OPP_MEN, PLANE_OPP_KINGS, PLANE_CONTINUING = range(5)
NUM_ACTIONS = 128


def _frame_tables():
    """``INDEX_OF_BIT[color, bit]`` (the mover-frame index k) and its inverse."""
    index_of_bit = np.zeros((2, 32), dtype=np.int64)
    bit_of_index = np.zeros((2, 32), dtype=np.int64)
    for bit in range(32):
        square = 4 * (bit // 4) + 4 - bit % 4
        for color, k in ((0, square - 1), (1, 32 - square)):
            index_of_bit[color, bit] = k
            bit_of_index[color, k] = bit
    return index_of_bit, bit_of_index


INDEX_OF_BIT, BIT_OF_INDEX = _frame_tables()


def _geometry_tables():
    """``HOP_DIRECTION[a, b]``: the absolute direction (NW, NE, SW, SE) of a step or jump
    from bit ``a`` to bit ``b``, -1 if ``b`` is neither; ``OBS_CELL[color, bit]``: the
    ``row * 8 + column`` of a bit in ``color``'s frame (observation cell)."""
    hop_direction = np.full((32, 32), -1, dtype=np.int64)
    obs_cell = np.zeros((2, 32), dtype=np.int64)
    for a in range(32):
        for d in range(4):
            one = int(step(1 << a, d))
            if one:
                hop_direction[a, one.bit_length() - 1] = d
                two = int(step(one, d))
                if two:
                    hop_direction[a, two.bit_length() - 1] = d
        for color in range(2):
            k = INDEX_OF_BIT[color, a]
            row = k // 4
            obs_cell[color, a] = 8 * row + 2 * (3 - k % 4) + row % 2  # square 4r+1 is the rightmost
    return hop_direction, obs_cell


HOP_DIRECTION, OBS_CELL = _geometry_tables()


def new_batch(num_boards: int, history: int):
    """Arrays for ``num_boards`` boards keeping ``history`` positions each."""
    state = np.zeros((num_boards, STATE_FIELDS), dtype=np.int64)
    state[:, S_END] = END_NO_MOVES  # not started: the first call must reset
    moves = np.zeros((num_boards, MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    positions = np.zeros((num_boards, history, 3), dtype=np.int64)
    last = np.zeros((num_boards, 4, MOVE_FIELDS + 1), dtype=np.int64)  # +1: mover colour
    return state, moves, positions, last


# -- small pieces ---------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _mover_and_opponent(state, i):
    if state[i, S_TURN] == 0:
        return state[i, S_BLACK], state[i, S_WHITE]
    return state[i, S_WHITE], state[i, S_BLACK]


@numba.njit(cache=True, inline="always")
def _hop_direction(a, b):
    """Absolute direction (NW, NE, SW, SE) of the hop from bit ``a`` to bit ``b``."""
    return HOP_DIRECTION[a, b]


@numba.njit(cache=True, inline="always")
def _landing(path, i):
    """Bit of landing ``i`` (0-based) of a packed path."""
    return (path >> (5 * i)) & 31


@numba.njit(cache=True, inline="always")
def _generate(state, moves, i):
    mover, opponent = _mover_and_opponent(state, i)
    n = generate_moves(mover, opponent, state[i, S_KINGS], state[i, S_TURN] == 0, moves[i])
    state[i, S_NMOVES] = n
    state[i, S_ORIGIN] = -1
    state[i, S_PREFIX] = 0
    state[i, S_HOPS] = 0
    return n


@numba.njit(cache=True, inline="always")
def _alive(state, moves, i, j):
    """Whether move ``j`` of board ``i`` continues the hops chosen so far."""
    hops = state[i, S_HOPS]
    if hops == 0:
        return True
    if moves[i, j, 0] != state[i, S_ORIGIN] or moves[i, j, 4] < hops:
        return False
    mask = (1 << (5 * hops)) - 1
    return (moves[i, j, 3] & mask) == state[i, S_PREFIX]


@numba.njit(cache=True, inline="always")
def _current_square(state, i):
    """Where the piece of the move in progress stands now (-1 before the first hop)."""
    hops = state[i, S_HOPS]
    if hops == 0:
        return -1
    return _landing(state[i, S_PREFIX], hops - 1)


@numba.njit(cache=True, inline="always")
def _captured_so_far(state, i):
    """Opponent pieces jumped by the hops chosen so far."""
    captured = 0
    hops = state[i, S_HOPS]
    prev = state[i, S_ORIGIN]
    for h in range(hops):
        land = _landing(state[i, S_PREFIX], h)
        d = _hop_direction(prev, land)
        over = step(1 << prev, d)
        if over != (1 << land):
            captured |= over
        prev = land
    return captured


# -- masks and observations ---------------------------------------------------------------


@numba.njit(cache=True)
def write_mask(state, moves, i, out):
    """``out[128]`` int8: the legal next hops of the side to move, in its frame."""
    out[:] = 0
    if state[i, S_END] != END_NONE:
        return
    color = state[i, S_TURN]
    hops = state[i, S_HOPS]
    for j in range(state[i, S_NMOVES]):
        if not _alive(state, moves, i, j):
            continue
        frm = moves[i, j, 0] if hops == 0 else _landing(moves[i, j, 3], hops - 1)
        to = _landing(moves[i, j, 3], hops)
        d = _hop_direction(frm, to)
        if color == 1:
            d = 3 - d
        out[4 * INDEX_OF_BIT[color, frm] + d] = 1


@numba.njit(cache=True)
def write_observation(state, i, out):
    """``out[5, 8, 8]`` float32 planes in the frame of the side to move (see module doc)."""
    write_observation_for(state, i, state[i, S_TURN], out)


@numba.njit(cache=True)
def write_observation_for(state, i, color, out):
    """Observation planes of board ``i`` in the frame of ``color`` ("own" = ``color``'s)."""
    out[:] = 0.0
    mover, opponent = _mover_and_opponent(state, i)
    kings = state[i, S_KINGS]
    continuing = -1
    if state[i, S_HOPS] > 0:
        # Show the move in progress: the piece on its current square, jumped pieces gone.
        origin = state[i, S_ORIGIN]
        continuing = _current_square(state, i)
        if kings & (1 << origin):
            kings = (kings & ~(1 << origin)) | (1 << continuing)
        mover = (mover & ~(1 << origin)) | (1 << continuing)
        captured = _captured_so_far(state, i)
        opponent &= ~captured
        kings &= ~captured
    if color != state[i, S_TURN]:
        mover, opponent = opponent, mover  # "own" is color's
    pieces = mover | opponent
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        bit = lowest_bit_index(low)
        cell = OBS_CELL[color, bit]
        if mover & low:
            plane = PLANE_OWN_KINGS if kings & low else PLANE_OWN_MEN
        else:
            plane = PLANE_OPP_KINGS if kings & low else PLANE_OPP_MEN
        out[plane, cell >> 3, cell & 7] = 1.0
        if bit == continuing:
            out[PLANE_CONTINUING, cell >> 3, cell & 7] = 1.0


# -- playing moves and ending games -------------------------------------------------------
#
# Speed: ``hop``, ``play_move``, ``opponent_turns`` and the small helpers are inlined by
# numba (``inline="always"``) into ``step_board``: a call between kernels costs more than
# most of these bodies (every array argument is reference-counted at each call), and one
# environment step makes a dozen of them. ``_update_end``, which holds the inlined move
# generator, stays a call so that the generator is compiled only a few times (inlining it
# everywhere made the first compilation minutes long).


@numba.njit(cache=True, inline="always")
def _record_last(state, last, i, frm, to, captured, path, hops):
    n = state[i, S_LAST_COUNT]
    if n < last.shape[1]:
        last[i, n, 0] = frm
        last[i, n, 1] = to
        last[i, n, 2] = captured
        last[i, n, 3] = path
        last[i, n, 4] = hops
        last[i, n, 5] = state[i, S_TURN]
        state[i, S_LAST_COUNT] = n + 1


@numba.njit(cache=True, inline="always")
def play_move(state, moves, positions, last, i, j, rules):
    """Play move ``j`` of the buffer for the side to move, then update the end state.

    ``rules`` is ``int64[3]``: repetitions for a draw (0 off), no-progress plies (0 off),
    maximum plies. Returns the new ``S_END`` code.
    """
    frm, to, captured = moves[i, j, 0], moves[i, j, 1], moves[i, j, 2]
    _record_last(state, last, i, frm, to, captured, moves[i, j, 3], moves[i, j, 4])
    black_to_move = state[i, S_TURN] == 0
    mover, opponent = _mover_and_opponent(state, i)
    kings = state[i, S_KINGS]
    man_moved = (kings & (1 << frm)) == 0
    mover, opponent, kings = apply_move(mover, opponent, kings, black_to_move, frm, to, captured)
    if black_to_move:
        state[i, S_BLACK], state[i, S_WHITE] = mover, opponent
    else:
        state[i, S_WHITE], state[i, S_BLACK] = mover, opponent
    state[i, S_KINGS] = kings
    state[i, S_TURN] = 1 - state[i, S_TURN]
    state[i, S_PLY] += 1
    if captured != 0 or man_moved:
        state[i, S_QUIET] = 0
    else:
        state[i, S_QUIET] += 1
    ply = state[i, S_PLY]
    if ply < positions.shape[1]:
        positions[i, ply, 0] = state[i, S_BLACK]
        positions[i, ply, 1] = state[i, S_WHITE]
        positions[i, ply, 2] = state[i, S_KINGS]
    return _update_end(state, moves, positions, i, rules)


@numba.njit(cache=True)
def _update_end(state, moves, positions, i, rules):
    """Decide whether the game is over; (re)generate the moves of the side to move."""
    n = _generate(state, moves, i)
    end = END_NONE
    winner = -1
    if n == 0:
        end = END_NO_MOVES
        winner = 1 - state[i, S_TURN]
    elif rules[0] > 0 and _repetitions(state, positions, i) >= rules[0]:
        end = END_REPETITION
    elif rules[1] > 0 and state[i, S_QUIET] >= rules[1]:
        end = END_NO_PROGRESS
    elif state[i, S_PLY] >= rules[2]:
        end = END_MAX_PLIES
    state[i, S_END] = end
    state[i, S_WINNER] = winner
    return end


@numba.njit(cache=True, inline="always")
def _repetitions(state, positions, i):
    """How often the current position (same side to move) occurred this episode; only
    positions since the last capture or man move can repeat it."""
    ply = state[i, S_PLY]
    count = 1
    back = 2
    while back <= state[i, S_QUIET] and ply - back >= 0:
        p = ply - back
        if (
            positions[i, p, 0] == state[i, S_BLACK]
            and positions[i, p, 1] == state[i, S_WHITE]
            and positions[i, p, 2] == state[i, S_KINGS]
        ):
            count += 1
        back += 2
    return count


@numba.njit(cache=True)
def reset_board(state, moves, positions, last, i, black, white, kings, turn, color_mode, seed_rng, rules):
    """Start an episode on board ``i`` from a position; ``seed_rng`` 0 keeps the board's
    random stream going (vector autoreset), otherwise it seeds it. Returns the end code
    (non-zero only for a start position that is already decided)."""
    if seed_rng != 0:
        state[i, S_RNG] = xorshift64(seed_state(seed_rng, 0))  # boards get distinct seeds
    state[i, S_BLACK] = black
    state[i, S_WHITE] = white
    state[i, S_KINGS] = kings
    state[i, S_TURN] = turn
    state[i, S_START_TURN] = turn
    state[i, S_PLY] = 0
    state[i, S_QUIET] = 0
    state[i, S_LAST_COUNT] = 0
    state[i, S_WAITING] = 0
    if color_mode == COLOR_RANDOM:
        rng = xorshift64(state[i, S_RNG])
        state[i, S_RNG] = rng
        state[i, S_AGENT] = (rng >> 17) & 1
    elif color_mode < 0:
        state[i, S_AGENT] = -1
    else:
        state[i, S_AGENT] = color_mode
    positions[i, 0, 0] = black
    positions[i, 0, 1] = white
    positions[i, 0, 2] = kings
    return _update_end(state, moves, positions, i, rules)


@numba.njit(cache=True, inline="always")
def _remember_material(state, i):
    agent = state[i, S_AGENT]
    if agent < 0:
        agent = state[i, S_TURN]
    own = state[i, S_BLACK] if agent == 0 else state[i, S_WHITE]
    opp = state[i, S_WHITE] if agent == 0 else state[i, S_BLACK]
    state[i, S_MATERIAL_OWN] = material(own, state[i, S_KINGS])
    state[i, S_MATERIAL_OPP] = material(opp, state[i, S_KINGS])


@numba.njit(cache=True, inline="always")
def _reward(state, i, viewer, reward_mode):
    """Reward for ``viewer`` (a colour) now: terminal +1/0/-1, else the material term."""
    end = state[i, S_END]
    if end != END_NONE and end != END_MAX_PLIES:
        winner = state[i, S_WINNER]
        if winner < 0:
            return 0.0
        return 1.0 if winner == viewer else -1.0
    if reward_mode != REWARD_MATERIAL:
        return 0.0
    own = state[i, S_BLACK] if viewer == 0 else state[i, S_WHITE]
    opp = state[i, S_WHITE] if viewer == 0 else state[i, S_BLACK]
    own_now = material(own, state[i, S_KINGS])
    opp_now = material(opp, state[i, S_KINGS])
    before = state[i, S_MATERIAL_OWN] / max(state[i, S_MATERIAL_OPP], 1)
    after = own_now / max(opp_now, 1)
    if before <= 0 or after <= 0:
        return 0.0
    return 0.1 * np.log(after / before)


@numba.njit(cache=True, inline="always")
def opponent_turns(state, moves, positions, last, i, opponent_kind, rules):
    """Let a numba opponent move until the learner is to move or the game ends; an
    external opponent only raises ``S_WAITING``."""
    while state[i, S_END] == END_NONE and state[i, S_TURN] != state[i, S_AGENT]:
        if opponent_kind == OPPONENT_EXTERNAL:
            state[i, S_WAITING] = 1
            return
        mover, opponent = _mover_and_opponent(state, i)
        j, rng = choose(
            opponent_kind, moves[i], state[i, S_NMOVES], mover, opponent,
            state[i, S_KINGS], state[i, S_TURN] == 0, state[i, S_RNG],
        )
        state[i, S_RNG] = rng
        play_move(state, moves, positions, last, i, j, rules)


@numba.njit(cache=True, inline="always")
def hop(state, moves, positions, last, i, action, rules):
    """Apply one hop (an action in the mover's frame). Returns ``HOP_*``."""
    color = state[i, S_TURN]
    k = action >> 2
    d = action & 3
    frm = BIT_OF_INDEX[color, k]
    direction = d if color == 0 else 3 - d
    hops = state[i, S_HOPS]
    match = -1
    landing = -1
    for j in range(state[i, S_NMOVES]):
        if not _alive(state, moves, i, j):
            continue
        start = moves[i, j, 0] if hops == 0 else _landing(moves[i, j, 3], hops - 1)
        if start != frm:
            continue
        to = _landing(moves[i, j, 3], hops)
        if _hop_direction(start, to) == direction:
            match = j
            landing = to
            break
    if match < 0:
        return HOP_ILLEGAL
    if hops == 0:
        state[i, S_ORIGIN] = frm
    state[i, S_PREFIX] |= landing << (5 * hops)
    state[i, S_HOPS] = hops + 1
    if moves[i, match, 4] == hops + 1:
        play_move(state, moves, positions, last, i, match, rules)
        return HOP_COMPLETES
    return HOP_CONTINUES


@numba.njit(cache=True)
def step_board(state, moves, positions, last, i, action, opponent_kind, reward_mode, rules):
    """One environment step of board ``i``: the learner's hop, then (when its move is
    complete) the numba opponent's replies. Returns ``(reward, hop_status)``; the end
    code is in ``state[i, S_END]``."""
    mover_color = state[i, S_TURN]
    state[i, S_LAST_COUNT] = 0
    status = hop(state, moves, positions, last, i, action, rules)
    if status == HOP_ILLEGAL:
        state[i, S_END] = END_ILLEGAL
        state[i, S_WINNER] = 1 - mover_color
        return -1.0, status
    if status == HOP_CONTINUES:
        return 0.0, status
    if state[i, S_AGENT] >= 0:
        opponent_turns(state, moves, positions, last, i, opponent_kind, rules)
    if state[i, S_WAITING]:
        return 0.0, status
    reward = _reward(state, i, mover_color, reward_mode)
    _remember_material(state, i)
    return reward, status


# -- the batch step of the vector env -----------------------------------------------------


@numba.njit(cache=True, inline="always")
def _vector_step_one(
    state, moves, positions, last, actions, start, color_mode, opponent_kind, reward_mode,
    rules, observations, masks, rewards, terminated, truncated, i,
):
    """``vector_step`` for board ``i``; returns 1 for an illegal action, else 0."""
    illegal = 0
    rewards[i] = 0.0
    terminated[i] = False
    truncated[i] = False
    if state[i, S_END] != END_NONE:
        reset_board(
            state, moves, positions, last, i, start[0], start[1], start[2], start[3],
            color_mode, 0, rules,
        )
        _start_turns(state, moves, positions, last, i, opponent_kind, rules)
    else:
        reward, status = step_board(
            state, moves, positions, last, i, actions[i], opponent_kind, reward_mode, rules
        )
        if status == HOP_ILLEGAL:
            illegal = 1
        rewards[i] = reward
        end = state[i, S_END]
        if end == END_MAX_PLIES:
            truncated[i] = True
        elif end != END_NONE:
            terminated[i] = True
    write_observation(state, i, observations[i])
    write_mask(state, moves, i, masks[i])
    return illegal


@numba.njit(cache=True)
def vector_step(
    state, moves, positions, last, actions, start, color_mode, opponent_kind, reward_mode,
    rules, observations, masks, rewards, terminated, truncated,
):
    """Step every board (autoreset on the step after an episode ends, as Gymnasium's
    ``NEXT_STEP`` mode) and write observations and masks (every element of the output
    arrays is written, so they may come from ``np.empty``). Returns how many boards hit
    an illegal action."""
    illegal = 0
    for i in range(state.shape[0]):
        illegal += _vector_step_one(
            state, moves, positions, last, actions, start, color_mode, opponent_kind,
            reward_mode, rules, observations, masks, rewards, terminated, truncated, i,
        )
    return illegal


@numba.njit(cache=True, parallel=True)
def vector_step_parallel(
    state, moves, positions, last, actions, start, color_mode, opponent_kind, reward_mode,
    rules, observations, masks, rewards, terminated, truncated,
):
    """``vector_step`` with the boards spread over numba's threads (boards are independent,
    so the results are the same)."""
    illegal = 0
    for i in numba.prange(state.shape[0]):
        illegal += _vector_step_one(
            state, moves, positions, last, actions, start, color_mode, opponent_kind,
            reward_mode, rules, observations, masks, rewards, terminated, truncated, i,
        )
    return illegal


@numba.njit(cache=True)
def _start_turns(state, moves, positions, last, i, opponent_kind, rules):
    """After a reset: the opponent moves first when the learner plays White."""
    if state[i, S_AGENT] >= 0:
        opponent_turns(state, moves, positions, last, i, opponent_kind, rules)
    _remember_material(state, i)


@numba.njit(cache=True)
def vector_reset(
    state, moves, positions, last, seeds, start, color_mode, opponent_kind, rules,
    observations, masks,
):
    """Reset every board; ``seeds[i]`` seeds board ``i``'s random stream (0 keeps it)."""
    for i in range(state.shape[0]):
        reset_board(
            state, moves, positions, last, i, start[0], start[1], start[2], start[3],
            color_mode, seeds[i], rules,
        )
        _start_turns(state, moves, positions, last, i, opponent_kind, rules)
        write_observation(state, i, observations[i])
        write_mask(state, moves, i, masks[i])


@numba.njit(cache=True)
def start_turns(state, moves, positions, last, i, opponent_kind, rules):
    """Public wrapper of ``_start_turns`` for the single env."""
    _start_turns(state, moves, positions, last, i, opponent_kind, rules)


@numba.njit(cache=True)
def after_external_move(state, moves, positions, last, i, j, opponent_kind, reward_mode, rules):
    """Play an external opponent's move ``j`` and continue; returns the learner's reward
    once it is to move again (or the game ended), else 0."""
    state[i, S_WAITING] = 0
    play_move(state, moves, positions, last, i, j, rules)
    opponent_turns(state, moves, positions, last, i, opponent_kind, rules)
    if state[i, S_WAITING]:
        return 0.0
    agent = state[i, S_AGENT]
    reward = _reward(state, i, agent, reward_mode)
    _remember_material(state, i)
    return reward



@numba.njit(cache=True)
def single_step(state, moves, positions, last, action, opponent_kind, reward_mode, rules, observation, mask):
    """One ``Checkers-v0`` step of board 0 in one call: ``step_board``, then the
    observation and mask of the position reached. Returns ``(reward, hop_status, end,
    last_count, waiting)``."""
    reward, status = step_board(state, moves, positions, last, 0, action, opponent_kind, reward_mode, rules)
    write_observation(state, 0, observation)
    write_mask(state, moves, 0, mask)
    return reward, status, state[0, S_END], state[0, S_LAST_COUNT], state[0, S_WAITING]
