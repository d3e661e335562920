"""The environments' state machine as numba kernels over a batch of boards.

One hop per action (docs/design.md §2): each action names the next hop of the side to move,
which is checked and played on the bitboards with the single-hop kernels of ``bitboard`` (no
move list: a jump is legal when the piece can jump there and it is mid-capture or any
capture exists, a step when no capture exists); once the piece can jump no more, or a man
reached the crowning row, the complete move is played. The single Gymnasium env, the
vector env and the PettingZoo env all run on these kernels (the single env is a batch of
one), so they cannot disagree.

Per board the state is one row of ``state`` (columns below), a key of each position since
the last capture or man move (``game_state``'s keys, for repetition), the last moves played
(for ``info`` and rendering) and a move list that only the greedy opponent uses.

Frames: the *mover's frame* is the board seen from the mover's chair. Square ``s`` has
index ``k = s - 1`` for Black and ``k = 32 - s`` for White; direction ``d`` is 0
forward-left, 1 forward-right, 2 backward-left, 3 backward-right; ``action = 4 * k + d``.
"""

from __future__ import annotations

import numba
import numpy as np

# Names imported as themselves are re-exported: the envs read the game's codes through this module.
from .baselines import OPPONENT_EXTERNAL, OPPONENT_GREEDY, choose_greedy, material
from .bitboard import (
    FULL,
    apply_move,
    count_captures,
    count_steps,
    crowning_row,
    hop_sources,
    jump_hops,
    jumpers,
    lowest_bit_index,
    movers,
    nth_capture,
    nth_step,
    piece_directions,
    step,
)
from .encoding import ACTION_SQUARE_OF_BIT, BIT_OF_ACTION_SQUARE, write_planes
from .encoding import NUM_PLANES as NUM_PLANES
from .game_state import (
    COLOR_BLACK,
    END_ILLEGAL,
    END_MAX_PLIES,
    END_NO_MOVES,
    END_NONE,
    count_move,
    end_of_game,
    is_progress,
    position_key,
    winner_of,
)
from .game_state import COLOR_WHITE as COLOR_WHITE
from .game_state import END_NAMES as END_NAMES
from .game_state import END_NO_PROGRESS as END_NO_PROGRESS
from .game_state import END_REPETITION as END_REPETITION
from .game_state import history_for as history_for
from .movegen import (
    CAPTURED,
    FROM,
    HOPS,
    MAX_MOVES,
    MOVE_FIELDS,
    PATH,
    TO,
    generate_moves_kernel,
    random_below,
    seed_state,
    xorshift64,
)

# -- state columns -------------------------------------------------------------------------
(
    S_BLACK,  # bitboards
    S_WHITE,
    S_KINGS,
    S_TURN,  # 0 Black, 1 White to move
    S_AGENT,  # the learner's colour (0/1), or -1 in self-play
    S_PLY,  # plies played this episode
    S_QUIET,  # plies since the last capture or man move
    S_ORIGIN,  # bit of the piece whose move is in progress, -1 before the first hop
    S_PREFIX,  # landings chosen so far, packed 5 bits each
    S_HOPS,  # hops chosen so far
    S_CAPTURED,  # pieces jumped so far
    S_JUMPERS,  # the side to move's pieces that can capture, at the start of its turn
    S_CUR_MOVER,  # during a multi-jump: the boards after the hops so far
    S_CUR_OPPONENT,
    S_CUR_KINGS,
    S_RNG,  # xorshift state for colours and opponents
    S_END,  # game_state's END_* code; non-zero once the episode is over
    S_WINNER,  # game_state's winner: 0 Black, 1 White, -1 none
    S_LAST_COUNT,  # moves stored in ``last`` since the learner's previous action
    S_START_TURN,  # side to move at the start (history parity)
    S_MATERIAL_OWN,  # learner's material at its previous decision (material reward only)
    S_MATERIAL_OPP,
    S_WAITING,  # 1 when an external opponent must move
) = range(23)
STATE_FIELDS = 23

HOP_ILLEGAL = 0
HOP_CONTINUES = 1
HOP_COMPLETES = 2

REWARD_WIN_LOSS = 0
REWARD_MATERIAL = 1

COLOR_RANDOM = 2  # colour modes: COLOR_BLACK, COLOR_WHITE (game_state's colours) or this

NUM_ACTIONS = 128


def new_batch(num_boards: int, history: int, last_moves: int = 4):
    """Arrays for ``num_boards`` boards keeping ``history`` positions (those since the last
    capture or man move: more than the no-progress or move-cap limit never serves) and the
    last ``last_moves`` moves each (0: no record, for callers that never read it)."""
    state = np.zeros((num_boards, STATE_FIELDS), dtype=np.int64)
    state[:, S_END] = END_NO_MOVES  # not started: the first call must reset
    moves = np.zeros((num_boards, MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    positions = np.zeros((num_boards, history), dtype=np.int64)  # game_state's keys, a row per board
    last = np.zeros((num_boards, last_moves, MOVE_FIELDS + 1), dtype=np.int64)  # +1: mover colour
    return state, moves, positions, last


# -- small pieces ---------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _mover_and_opponent(state, i):
    if state[i, S_TURN] == 0:
        return state[i, S_BLACK], state[i, S_WHITE]
    return state[i, S_WHITE], state[i, S_BLACK]


@numba.njit(cache=True, inline="always")
def turn_boards(state, i):
    """``(mover, opponent, kings)`` as the side to move sees them now: during a
    multi-jump, with the hops so far played (the piece moved, the jumped pieces gone)."""
    if state[i, S_HOPS] > 0:
        return state[i, S_CUR_MOVER], state[i, S_CUR_OPPONENT], state[i, S_CUR_KINGS]
    mover, opponent = _mover_and_opponent(state, i)
    return mover, opponent, state[i, S_KINGS]


@numba.njit(cache=True, inline="always")
def _landing(path, i):
    """Bit of landing ``i`` (0-based) of a packed path."""
    return (path >> (5 * i)) & 31


@numba.njit(cache=True, inline="always")
def current_square(state, i):
    """Where the piece of the move in progress stands now (-1 before the first hop)."""
    hops = state[i, S_HOPS]
    if hops == 0:
        return -1
    return _landing(state[i, S_PREFIX], hops - 1)


@numba.njit(cache=True, inline="always")
def _jump_landing(mover, opponent, kings, black_to_move, bit, d):
    """Landing bit of the jump of the piece on ``bit`` in direction ``d``, or -1."""
    if not (jump_hops(mover, opponent, kings, black_to_move, bit) >> d) & 1:
        return -1
    return lowest_bit_index(step(step(np.int64(1) << bit, d), d))


# -- masks and observations ---------------------------------------------------------------


def _mask_word_table():
    """``MASK_WORD[n]``: the mask word of a square whose hops are the directions in ``n``
    (bit d), as the four bytes ``(n >> d) & 1`` in memory order (so on any byte order)."""
    table = [np.frombuffer(bytes((n >> d) & 1 for d in range(4)), dtype=np.uint32)[0] for n in range(16)]
    return np.array(table, dtype=np.uint32)


MASK_WORD = _mask_word_table()


def mask_words(masks: np.ndarray) -> np.ndarray:
    """The ``uint32`` view the kernels write masks through: ``int8[..., 128]`` masks seen
    as ``[..., 32]`` words, one per square of the mover's frame (``action = 4 * k + d`` is
    byte ``d`` of word ``k``). Made once by the caller: a view made inside a kernel costs
    more than the mask."""
    if masks.dtype != np.int8 or masks.shape[-1] != NUM_ACTIONS or not masks.flags.c_contiguous:
        raise ValueError(f"masks must be C-contiguous int8 [..., {NUM_ACTIONS}], got {masks.dtype} {masks.shape}")
    return masks.view(np.uint32)


@numba.njit(cache=True, inline="always")
def _flip_directions(directions):
    """Directions (bit d) seen from the other chair: d becomes 3 - d."""
    return ((directions & 1) << 3) | ((directions & 2) << 1) | ((directions >> 1) & 2) | ((directions >> 3) & 1)


@numba.njit(cache=True, inline="always")
def write_mask(state, i, words):
    """The legal next hops of the side to move, in its frame, into ``words`` (``uint32[32]``,
    a ``mask_words`` view of an ``int8[128]`` mask): one word per square.

    Read straight off the bitboards: during a multi-jump the jumps of the moving piece;
    otherwise every jump when a capture exists (any jump starts a legal capture), else
    every step. Written a square at a time (its four directions in one word), which is
    faster than a byte per hop.
    """
    for k in range(32):
        words[k] = 0
    if state[i, S_END] != END_NONE:
        return
    color = state[i, S_TURN]
    black_to_move = color == 0
    mover, opponent, kings = turn_boards(state, i)
    if state[i, S_HOPS] > 0:
        bit = current_square(state, i)
        directions = jump_hops(mover, opponent, kings, black_to_move, bit)
        if not black_to_move:
            directions = _flip_directions(directions)
        words[ACTION_SQUARE_OF_BIT[color, bit]] = MASK_WORD[directions]
        return
    jumping = state[i, S_JUMPERS] != 0
    nw = hop_sources(mover, opponent, kings, black_to_move, 0, jumping)
    ne = hop_sources(mover, opponent, kings, black_to_move, 1, jumping)
    sw = hop_sources(mover, opponent, kings, black_to_move, 2, jumping)
    se = hop_sources(mover, opponent, kings, black_to_move, 3, jumping)
    if not black_to_move:  # White's frame: its forward-left is the board's SE, and so on
        nw, ne, sw, se = se, sw, ne, nw
    pieces = nw | ne | sw | se
    while pieces:
        bit = lowest_bit_index(pieces)
        pieces &= pieces - 1
        directions = ((nw >> bit) & 1) | (((ne >> bit) & 1) << 1) | (((sw >> bit) & 1) << 2) | (((se >> bit) & 1) << 3)
        words[ACTION_SQUARE_OF_BIT[color, bit]] = MASK_WORD[directions]


@numba.njit(cache=True)
def write_observation(state, i, out):
    """``out[5, 8, 8]`` float32 planes in the frame of the side to move (see module doc)."""
    write_observation_for(state, i, state[i, S_TURN], out)


@numba.njit(cache=True)
def write_observation_for(state, i, color, out):
    """Observation planes of board ``i`` in the frame of ``color`` ("own" = ``color``'s).

    During a multi-jump the board is shown as the hops so far left it: the piece on its
    current square (also marked in the ``continuing`` plane), the jumped pieces gone.
    """
    mover, opponent, kings = turn_boards(state, i)
    if color != state[i, S_TURN]:
        mover, opponent = opponent, mover  # "own" is color's
    write_planes(mover, opponent, kings, color == COLOR_BLACK, current_square(state, i), out)


# -- playing moves and ending games -------------------------------------------------------
#
# Speed: these are inlined by numba (``inline="always"``) into ``step_board``: a call
# between kernels costs more than most of these bodies (every array argument is
# reference-counted at each call), and one environment step makes a dozen of them. The
# move generator is never inlined here: the learner's hops are checked on the bitboards,
# a random opponent draws its move as ``count_moves`` and ``nth_move`` would (no move list),
# and only the greedy opponent lists moves, through the non-inlined generator.


@numba.njit(cache=True, inline="always")
def _record_last(state, last, i, frm, to, captured, path, hops):
    n = state[i, S_LAST_COUNT]
    if n < last.shape[1]:
        last[i, n, FROM] = frm
        last[i, n, TO] = to
        last[i, n, CAPTURED] = captured
        last[i, n, PATH] = path
        last[i, n, HOPS] = hops
        last[i, n, MOVE_FIELDS] = state[i, S_TURN]  # the column after the move row: its mover
        state[i, S_LAST_COUNT] = n + 1


@numba.njit(cache=True, inline="always")
def play_move(state, positions, last, i, frm, to, captured, path, hops, rules):
    """Play a complete move of the side to move, then update the end state.

    ``rules`` is ``game_state``'s ``int64[RULE_FIELDS]`` (``Rules.as_array``). Returns the
    new ``S_END`` code.
    """
    _record_last(state, last, i, frm, to, captured, path, hops)
    black_to_move = state[i, S_TURN] == 0
    mover, opponent = _mover_and_opponent(state, i)
    kings = state[i, S_KINGS]
    progress = is_progress(kings, frm, captured)
    mover, opponent, kings = apply_move(mover, opponent, kings, black_to_move, frm, to, captured)
    if black_to_move:
        state[i, S_BLACK], state[i, S_WHITE] = mover, opponent
    else:
        state[i, S_WHITE], state[i, S_BLACK] = mover, opponent
    state[i, S_KINGS] = kings
    state[i, S_TURN] = 1 - state[i, S_TURN]
    state[i, S_PLY] += 1
    state[i, S_QUIET] = count_move(positions, i, state[i, S_QUIET], progress, state[i, S_BLACK], state[i, S_WHITE])
    return _update_end(state, positions, i, rules)


@numba.njit(cache=True, inline="always")
def _update_end(state, positions, i, rules):
    """Start the turn of the side to move: decide whether the game is over (by
    ``game_state.end_of_game``, with the capturing pieces kept for the turn)."""
    state[i, S_HOPS] = 0
    state[i, S_PREFIX] = 0
    state[i, S_ORIGIN] = -1
    state[i, S_CAPTURED] = 0
    mover, opponent = _mover_and_opponent(state, i)
    kings = state[i, S_KINGS]
    black_to_move = state[i, S_TURN] == 0
    jumping = jumpers(mover, opponent, kings, black_to_move)
    state[i, S_JUMPERS] = jumping  # read by the hops, the mask and the random opponent
    has_move = jumping != 0 or movers(mover, opponent, kings, black_to_move) != 0
    key = position_key(state[i, S_BLACK], state[i, S_WHITE])
    end = end_of_game(has_move, state[i, S_PLY], state[i, S_QUIET], positions, i, key, rules)
    state[i, S_END] = end
    state[i, S_WINNER] = winner_of(end, state[i, S_TURN])
    return end


@numba.njit(cache=True)
def reset_board(state, positions, last, i, black, white, kings, turn, color_mode, seed_rng, rules):
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
    positions[i, 0] = position_key(black, white)
    return _update_end(state, positions, i, rules)


def reset_to(state, positions, last, i: int, board, color_mode: int, seed_rng: int, rules) -> int:
    """:func:`reset_board` from a :class:`~checkers_env.board.Board` value: the adapter the
    envs share. Returns the end code (non-zero only for a start already decided)."""
    return reset_board(
        state, positions, last, i, board.black, board.white, board.kings, int(board.turn), color_mode, seed_rng, rules
    )


@numba.njit(cache=True)
def resume_board(state, positions, last, i, black, white, kings, turn, plies, keys, rules):
    """Board ``i`` set to a game in progress: its position, the plies played, and ``keys``
    (``game_state``'s keys of the positions since the last progress, oldest first, the
    current one last: ``Game.position_keys_since_progress()``), so that repetition and
    no-progress end it exactly as they end the game. Returns the end code."""
    reset_board(state, positions, last, i, black, white, kings, turn, -1, 0, rules)
    quiet = len(keys) - 1
    state[i, S_PLY] = plies
    state[i, S_QUIET] = quiet
    for q in range(min(len(keys), positions.shape[1])):
        positions[i, q] = keys[q]
    return _update_end(state, positions, i, rules)


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
def _opponent_move(state, moves, i, opponent_kind):
    """The move a numba opponent chooses for the side to move: ``(from, to, captured,
    path, hops)``. ``moves[i]`` is the greedy opponent's move list (``baselines.choose``
    picks the same moves from a list)."""
    mover, opponent = _mover_and_opponent(state, i)
    kings = state[i, S_KINGS]
    black_to_move = state[i, S_TURN] == 0
    if opponent_kind == OPPONENT_GREEDY:
        n = generate_moves_kernel(mover, opponent, kings, black_to_move, moves[i])
        j, rng = choose_greedy(moves[i], n, mover, opponent, kings, black_to_move, state[i, S_RNG])
        frm, to, captured = moves[i, j, FROM], moves[i, j, TO], moves[i, j, CAPTURED]
        path, hops = moves[i, j, PATH], moves[i, j, HOPS]
    else:
        # choose_random's draw, with the k-th move found as nth_move does, without
        # listing the others (and with the capturing pieces known from _update_end).
        jumping = state[i, S_JUMPERS]
        if jumping:
            n = count_captures(mover, opponent, kings, black_to_move)
            rng, k = random_below(state[i, S_RNG], n)
            frm, to, captured, path, hops = nth_capture(mover, opponent, kings, black_to_move, jumping, k)
        else:
            n = count_steps(mover, opponent, kings, black_to_move)
            rng, k = random_below(state[i, S_RNG], n)
            from_bb, to_bb = nth_step(mover, opponent, kings, black_to_move, k)
            frm, to, captured = lowest_bit_index(from_bb), lowest_bit_index(to_bb), np.int64(0)
            path, hops = to, np.int64(1)
    state[i, S_RNG] = rng
    return frm, to, captured, path, hops


@numba.njit(cache=True, inline="always")
def _opponent_to_move(state, i, opponent_kind):
    """Whether a numba opponent moves now (never in self-play, ``S_AGENT < 0``); raises
    ``S_WAITING`` when an external one must."""
    if state[i, S_END] != END_NONE or state[i, S_TURN] == state[i, S_AGENT] or state[i, S_AGENT] < 0:
        return False
    if opponent_kind == OPPONENT_EXTERNAL:
        state[i, S_WAITING] = 1
        return False
    return True


@numba.njit(cache=True, inline="always")
def opponent_turns(state, moves, positions, last, i, opponent_kind, rules):
    """Let a numba opponent move until the learner is to move or the game ends; an
    external opponent only raises ``S_WAITING``."""
    while _opponent_to_move(state, i, opponent_kind):
        frm, to, captured, path, hops = _opponent_move(state, moves, i, opponent_kind)
        play_move(state, positions, last, i, frm, to, captured, path, hops, rules)


@numba.njit(cache=True, inline="always")
def hop(state, positions, last, i, action, rules):
    """Apply one hop (an action in the mover's frame), and the move once complete.
    Returns ``HOP_*``."""
    status, frm, to, captured, path, hops = _hop_move(state, i, action)
    if status == HOP_COMPLETES:
        play_move(state, positions, last, i, frm, to, captured, path, hops, rules)
    return status


@numba.njit(cache=True, inline="always")
def _hop_move(state, i, action):
    """Check one hop (an action in the mover's frame) and play it if it leaves the move
    unfinished. Returns ``(HOP_*, from, to, captured, path, hops)``, the last five the
    complete move when the status is ``HOP_COMPLETES``, for the caller to ``play_move``.

    Legality is read off the bitboards, as ``write_mask`` does: during a multi-jump only
    a jump of the moving piece; else a jump of any piece when one exists, else a step.
    Jumps are played on the ``S_CUR_*`` boards as they come (a jumped piece can then be
    neither jumped again nor, by the parity of landing squares, landed on, as the rules
    require); the move is complete when the piece can jump no more or a man reached the
    crowning row.
    """
    color = state[i, S_TURN]
    black_to_move = color == 0
    frm = BIT_OF_ACTION_SQUARE[color, action >> 2]
    d = action & 3
    direction = d if black_to_move else 3 - d
    hops = state[i, S_HOPS]
    mover, opponent, kings = turn_boards(state, i)
    from_bb = np.int64(1) << frm
    if hops > 0:
        if frm != current_square(state, i):
            return HOP_ILLEGAL, 0, 0, 0, 0, 0
    elif mover & from_bb == 0:
        return HOP_ILLEGAL, 0, 0, 0, 0, 0
    if hops == 0 and state[i, S_JUMPERS] == 0:
        if not (piece_directions(kings, frm, black_to_move) >> direction) & 1:
            return HOP_ILLEGAL, 0, 0, 0, 0, 0
        to_bb = step(from_bb, direction) & ~(mover | opponent) & FULL
        if to_bb == 0:
            return HOP_ILLEGAL, 0, 0, 0, 0, 0
        to = lowest_bit_index(to_bb)
        origin, land, captured, path, move_hops = np.int64(frm), to, np.int64(0), to, np.int64(1)
    else:
        land = _jump_landing(mover, opponent, kings, black_to_move, frm, direction)
        if land < 0:
            return HOP_ILLEGAL, 0, 0, 0, 0, 0
        over = step(from_bb, direction)
        land_bb = np.int64(1) << land
        was_king = kings & from_bb
        mover = (mover & ~from_bb) | land_bb
        opponent &= ~over
        kings &= ~over
        if was_king:
            kings = (kings & ~from_bb) | land_bb
        if hops == 0:
            state[i, S_ORIGIN] = frm
        state[i, S_PREFIX] |= land << (5 * hops)
        state[i, S_CAPTURED] |= over
        state[i, S_HOPS] = hops + 1
        crowned = not was_king and (land_bb & crowning_row(black_to_move)) != 0
        if not crowned and jump_hops(mover, opponent, kings, black_to_move, land):
            state[i, S_CUR_MOVER] = mover
            state[i, S_CUR_OPPONENT] = opponent
            state[i, S_CUR_KINGS] = kings
            return HOP_CONTINUES, 0, 0, 0, 0, 0
        origin, captured, path, move_hops = state[i, S_ORIGIN], state[i, S_CAPTURED], state[i, S_PREFIX], hops + 1
    return HOP_COMPLETES, origin, land, captured, path, move_hops


# Inlined into the batch step: a call passing arrays costs their reference counts, a good
# part of a step.
@numba.njit(cache=True, inline="always")
def step_board(state, moves, positions, last, i, action, opponent_kind, reward_mode, rules):
    """One environment step of board ``i``: the learner's hop, then (when its move is
    complete) the numba opponent's replies. Returns ``(reward, hop_status)``; the end
    code is in ``state[i, S_END]``."""
    mover_color = state[i, S_TURN]
    state[i, S_LAST_COUNT] = 0
    status, frm, to, captured, path, hops = _hop_move(state, i, action)
    if status == HOP_ILLEGAL:
        state[i, S_END] = END_ILLEGAL
        state[i, S_WINNER] = 1 - mover_color
        return -1.0, status
    if status == HOP_CONTINUES:
        return 0.0, status
    # The learner's move, then the numba opponent's replies, through one play_move: it is
    # inlined, and each copy adds code and register pressure to the batch kernel.
    while True:
        play_move(state, positions, last, i, frm, to, captured, path, hops, rules)
        if not _opponent_to_move(state, i, opponent_kind):
            break
        frm, to, captured, path, hops = _opponent_move(state, moves, i, opponent_kind)
    if state[i, S_WAITING]:
        return 0.0, status
    reward = _reward(state, i, mover_color, reward_mode)
    if reward_mode == REWARD_MATERIAL:  # the only reader of the remembered material
        _remember_material(state, i)
    return reward, status


@numba.njit(cache=True)
def start_turns(state, moves, positions, last, i, opponent_kind, rules):
    """After a reset: the opponent moves first when the learner plays White."""
    opponent_turns(state, moves, positions, last, i, opponent_kind, rules)
    _remember_material(state, i)


@numba.njit(cache=True)
def after_external_move(state, moves, positions, last, i, move, opponent_kind, reward_mode, rules):
    """Play an external opponent's complete move (``move``: a row ``from, to, captured,
    path, hops`` as ``kernels.generate_moves`` writes it, already checked legal) and
    continue; returns the learner's reward once it is to move again (or the game ended),
    else 0."""
    state[i, S_WAITING] = 0
    play_move(state, positions, last, i, move[FROM], move[TO], move[CAPTURED], move[PATH], move[HOPS], rules)
    opponent_turns(state, moves, positions, last, i, opponent_kind, rules)
    if state[i, S_WAITING]:
        return 0.0
    agent = state[i, S_AGENT]
    reward = _reward(state, i, agent, reward_mode)
    if reward_mode == REWARD_MATERIAL:
        _remember_material(state, i)
    return reward


@numba.njit(cache=True)
def single_step(state, moves, positions, last, action, opponent_kind, reward_mode, rules, observation, mask):
    """One ``Checkers-v0`` step of board 0 in one call: ``step_board``, then the
    observation and mask (a ``mask_words`` view) of the position reached. Returns
    ``(reward, hop_status, end, last_count, waiting)``."""
    reward, status = step_board(state, moves, positions, last, 0, action, opponent_kind, reward_mode, rules)
    write_observation(state, 0, observation)
    write_mask(state, 0, mask)
    return reward, status, state[0, S_END], state[0, S_LAST_COUNT], state[0, S_WAITING]
