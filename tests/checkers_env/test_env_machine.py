"""The environments' state machine (``env_machine``) against the independent reference generator.

The kernels check and play hops on the bitboards, without listing moves. Here every hop
sequence the mask allows is followed from each position (depth first, on copies of the
state), and the complete moves so reached must be exactly the reference generator's legal
moves, with the same captured pieces and resulting positions; every action outside the
mask must be refused, at the first hop and in the middle of multi-jumps. And the games'
ends (no moves, repetition, no progress) must be those ``Game`` finds.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
import reference_movegen as ref

from checkers_env import Board, Game, Rules
from checkers_env import env_machine as core
from checkers_env.board import move_from_row

NO_DRAW_RULES = Rules.without_draws().as_array()


def _start(board: Board):
    state, moves, positions, last = core.new_batch(1, 4)
    end = core.reset_board(
        state, positions, last, 0, board.black, board.white, board.kings, int(board.turn), -1, 1, NO_DRAW_RULES
    )
    return end, (state, positions, last)


def hop_reachable_moves(board: Board) -> Counter:
    """Complete moves reached by following every legal hop (all 128 actions are tried at
    every node: those outside the mask must be refused)."""
    end, root = _start(board)
    found: Counter = Counter()
    if end != core.END_NONE:
        return found
    stack = [root]
    mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
    words = core.mask_words(mask)
    while stack:
        state, positions, last = stack.pop()
        core.write_mask(state, 0, words)
        legal = set(np.flatnonzero(mask).tolist())
        assert legal, f"a node without legal hops in {board.fen()}"
        for action in range(core.NUM_ACTIONS):
            s, p, lasts = state.copy(), positions.copy(), last.copy()
            s[0, core.S_LAST_COUNT] = 0
            status = core.hop(s, p, lasts, 0, action, NO_DRAW_RULES)
            if action not in legal:
                assert status == core.HOP_ILLEGAL, (board.fen(), action)
            elif status == core.HOP_COMPLETES:
                move = move_from_row(lasts[0, 0])
                after = Board(
                    int(s[0, core.S_BLACK]), int(s[0, core.S_WHITE]), int(s[0, core.S_KINGS]), board.turn.opponent
                )
                found[(move.path, frozenset(move.captured_squares), ref.board_to_position(after))] += 1
            else:
                assert status == core.HOP_CONTINUES, (board.fen(), action, status)
                assert s[0, core.S_TURN] == int(board.turn)  # a multi-jump keeps the turn
                stack.append((s, p, lasts))
    return found


def check(board: Board) -> Counter:
    got = hop_reachable_moves(board)
    want = Counter(ref.legal_moves(ref.board_to_position(board)))
    assert got == want, (
        f"hops disagree with the reference in {board.fen()}:\n"
        f"  missing: {sorted(m[0] for m in want - got)}\n  extra: {sorted(m[0] for m in got - want)}"
    )
    return got


def test_hops_reach_exactly_the_legal_moves_in_random_games():
    rng = random.Random(20261122)
    checked = captures = multi = kings = 0
    for _ in range(12):
        board = Board()
        for _ in range(160):
            moves = board.legal_moves()
            if not moves:
                break
            got = check(board)
            checked += 1
            captures += any(captured for _, captured, _ in got)
            multi += any(len(path) > 2 for path, _, _ in got)
            kings += bool(board.kings)
            board = board.play(rng.choice(moves))
    assert checked >= 700 and captures >= 80 and multi >= 5 and kings >= 100, (checked, captures, multi, kings)


def test_hops_reach_exactly_the_legal_moves_with_many_kings():
    rng = random.Random(5)
    long_captures = 0
    for _ in range(400):
        got = check(ref.position_to_board(ref.random_position(rng), Board))
        long_captures += any(len(captured) >= 3 for _, captured, _ in got)
    assert long_captures >= 3, long_captures


def test_a_man_crowned_by_a_jump_stops_there():
    # Black man on 22 jumps 26 to land on 31, White's back rank: crowned, the move ends
    # although a king there could jump 27 next.
    got = check(Board.from_fen("B:W26,27:B22"))
    assert [path for path, _, _ in got] == [(22, 31)]


def _random_endgame(rng: random.Random) -> Board:
    """A few kings each and maybe a man: games that shuffle kings until a draw rule ends them."""
    squares = rng.sample(range(1, 33), 6)
    black, white = squares[: rng.randint(1, 3)], squares[3 : 3 + rng.randint(1, 3)]

    def pieces(side, crowning_row):  # the first piece may be a man, off its crowning row
        man = side[0] not in crowning_row and rng.random() < 0.3
        return ",".join(str(s) if i == 0 and man else f"K{s}" for i, s in enumerate(side))

    return Board.from_fen(f"{rng.choice('BW')}:W{pieces(white, range(1, 5))}:B{pieces(black, range(29, 33))}")


def test_game_ends_agree_with_game_in_king_endings():
    """The kernels keep one key per quiet ply and scan from four plies back; every end (no
    moves, repetition, no progress, move cap) must be the one ``Game`` finds."""
    rng = random.Random(7)
    ends: Counter = Counter()
    for repetition in (2, 3):
        rules = Rules(repetition=repetition, no_progress_plies=40, max_plies=120)
        limits = rules.as_array()
        for _ in range(250):
            board = _random_endgame(rng)
            if not board.legal_moves():
                continue
            game = Game(start=board, rules=rules)
            state, moves, positions, last = core.new_batch(1, core.history_for(limits))
            core.reset_board(
                state, positions, last, 0, board.black, board.white, board.kings, int(board.turn), -1, 1, limits
            )
            mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
            words = core.mask_words(mask)
            while state[0, core.S_END] == core.END_NONE:
                core.write_mask(state, 0, words)
                action = rng.choice(np.flatnonzero(mask).tolist())
                reward, status = core.step_board(state, moves, positions, last, 0, action, 0, 0, limits)
                if status == core.HOP_COMPLETES:
                    game.play(move_from_row(last[0, 0]))
                    assert game.is_over() == (state[0, core.S_END] != core.END_NONE), (board.fen(), game.to_pdn())
            assert core.END_NAMES[state[0, core.S_END]] == str(game.termination), (board.fen(), game.to_pdn())
            ends[str(game.termination)] += 1
    assert ends["repetition"] >= 80 and ends["no_progress"] >= 15 and ends["no_moves"] >= 50, ends


def test_mask_words_is_a_view_of_int8_masks_only():
    masks = np.zeros((3, core.NUM_ACTIONS), dtype=np.int8)
    words = core.mask_words(masks)
    assert words.shape == (3, 32) and np.shares_memory(words, masks)
    for bad in (masks.astype(np.bool_), np.zeros((3, 64), np.int8), np.zeros((128, 3), np.int8).T):
        with pytest.raises(ValueError, match="masks must be C-contiguous int8"):
            core.mask_words(bad)


def test_history_is_bounded_by_the_no_progress_rule_or_the_move_cap():
    assert core.history_for(Rules(3, 80, 400).as_array()) == 81
    assert core.history_for(Rules(3, None, 400).as_array()) == 401
    assert core.history_for(Rules(3, 500, 400).as_array()) == 401
    assert core.history_for(Rules(3, 80, None).as_array()) == 81
    assert core.history_for(Rules.without_draws().as_array()) == 0  # unbounded: the caller grows it
