"""The slow/fast learner: reward, softmax expected value, exploration, the two kinds
of data, the replay buffer, the network file and the playing agent."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
import torch

from checkers_agents.slow_fast import (
    ReplayBuffer,
    SlowFastAgent,
    ValueNet,
    WeightsError,
    load_weights,
    save_weights,
    white_values,
)
from checkers_agents.slow_fast import lookahead as K
from checkers_agents.slow_fast.episodes import (
    KIND_ENDGAME,
    KIND_TACTICAL,
    Examples,
    GameSettings,
    Positions,
    SubtreeSettings,
    endgame_data,
    generate_games,
    grow_forest,
    tactical_data,
)
from checkers_env import BLACK, Board, Game, Rules, game_state, make_agent
from checkers_env.encoding import half_turn, input_planes


@numba.njit
def colour_flip(black, white, kings, black_to_move):
    """The same positions with colours swapped and the board turned (the rules' symmetry)."""
    n = black.shape[0]
    fb, fw, fk = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    ft = np.empty(n, dtype=np.int8)
    for i in range(n):
        fb[i], fw[i], fk[i] = half_turn(white[i]), half_turn(black[i]), half_turn(kings[i])
        ft[i] = 1 - black_to_move[i]
    return fb, fw, fk, ft


def arrays(*boards: Board) -> Positions:
    return Positions.of_boards(boards)


def children_of(board: Board):
    """The kernel's children of one board: (moves in kernel order as PDN, rewards, outcomes)."""
    p = arrays(board)
    counts = K.count_children(p.black, p.white, p.kings, p.black_to_move)
    offsets = np.array([0, counts[0]], dtype=np.int64)
    out = K.expand_children(p.black, p.white, p.kings, p.black_to_move, offsets, int(counts[0]))
    return out


def reward_of(before: Board, move: str, outcome: int | None = None) -> float:
    after = before.play(move)
    if outcome is None:
        outcome = K.outcome_batch(
            *(
                np.array([x], dtype=t)
                for x, t in (
                    (after.black, np.int64),
                    (after.white, np.int64),
                    (after.kings, np.int64),
                    (int(after.turn == BLACK), np.int8),
                )
            )
        )[0]
    return K.move_reward(before.black, before.white, before.kings, after.black, after.white, after.kings, outcome)


# -- reward --------------------------------------------------------------------------------


def test_material_reward_is_white_view_log_ratio():
    # Black (3 men) captures a White man: m goes from 6/6 to 4/6, bad for White.
    before = Board.from_fen("B:W18,30,31:B14,1,2")
    assert reward_of(before, "14x23") == pytest.approx(0.1 * math.log((4 / 6) / (6 / 6)))
    assert reward_of(before, "14x23") < 0
    # White captures a Black man: good for White, whoever moved.
    before = Board.from_fen("W:W23,K30:B19,1")
    # m before: White 2 + 3 = 5 over Black 4; after: 5 over 2.
    assert reward_of(before, "23x16") == pytest.approx(0.1 * math.log((5 / 2) / (5 / 4)))
    assert reward_of(before, "23x16") > 0


def test_crowning_counts_as_material():
    # Black captures and is crowned on 32: Black 2+2 -> 2+3 points, White 4 -> 2 points.
    before = Board.from_fen("B:W27,30:B23,1")
    assert reward_of(before, "23x32") == pytest.approx(0.1 * math.log((2 / 5) / (4 / 4)))


def test_terminal_rewards_ignore_material():
    # Black takes White's last piece: Black wins, -1 (White's view).
    assert reward_of(Board.from_fen("B:W18:B14"), "14x23") == -1.0
    # White takes Black's last piece: +1.
    assert reward_of(Board.from_fen("W:W18:B14"), "18x9") == 1.0
    # White blocks Black's last man (28 cannot move past 32): a win with no material change.
    blocked = Board.from_fen("W:W32,K19:B28")
    assert reward_of(blocked, "19-23") == 1.0
    assert reward_of(blocked, "32-27") == 0.0  # frees 28: the game goes on, material unchanged
    # A move that ends the game in a draw (by a draw rule): 0 whatever the material.
    board = Board.from_fen("W:W23,K30:B19,1")
    assert reward_of(board, "23x16", outcome=K.DRAW) == 0.0
    assert K.terminal_reward(K.WHITE_WINS) == 1.0 and K.terminal_reward(K.BLACK_WINS) == -1.0


def test_children_carry_the_reward_and_outcome_of_their_move():
    board = Board.from_fen("W:W32,K19:B28")
    cb, cw, ck, ct, parent, reward, outcome, progress, captures = children_of(board)
    assert len(cb) == 5 and (parent == 0).all() and (ct == 1).all()
    for i in range(5):
        after = Board(int(cb[i]), int(cw[i]), int(ck[i]), BLACK)
        assert after in [board.play(m) for m in board.legal_moves()]
        freed = after.white & Board.from_squares(white=(32,)).white == 0
        assert outcome[i] == (K.ONGOING if freed else K.WHITE_WINS)
        assert reward[i] == (0.0 if freed else 1.0)
        assert progress[i] == (1 if freed else 0)  # the man on 32 moved; king moves are no progress


# -- network -------------------------------------------------------------------------------


def random_positions(n: int, seed: int = 0) -> Positions:
    rng = np.random.default_rng(seed)
    games = [Game() for _ in range(n)]
    boards = []
    for game in games:
        for _ in range(int(rng.integers(0, 40))):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(moves[int(rng.integers(len(moves)))])
        boards.append(game.board)
    return arrays(*boards)


def test_value_is_for_white_and_colour_symmetric():
    torch.manual_seed(0)
    net = ValueNet((32,))
    p = random_positions(30)
    f = white_values(net, p.black, p.white, p.kings, p.black_to_move)
    assert ((f > 0) & (f < 1)).all()
    flipped = colour_flip(p.black, p.white, p.kings, p.black_to_move)
    f_flipped = white_values(net, *flipped)
    np.testing.assert_allclose(f_flipped, 1.0 - f, atol=1e-6)


def test_planes_are_in_the_movers_frame():
    # Square 4 is bit 0 (Black's left corner), 29 is bit 31 (White's left corner).
    black_view = arrays(Board.from_fen("B:W29:B4"))
    white_view = arrays(Board.from_fen("W:W29:B4"))
    planes_b = input_planes(black_view.black, black_view.white, black_view.kings, black_view.black_to_move)
    planes_w = input_planes(white_view.black, white_view.white, white_view.kings, white_view.black_to_move)
    # Each side sees its own man on its left corner (bit 0) and the opponent's on bit 31.
    for planes in (planes_b, planes_w):
        assert planes[0, 0 * 32 + 0] == 1 and planes[0, 2 * 32 + 31] == 1 and planes.sum() == 2
    # A position seen from each side: White's man on 32 (bit 28) reads as bit 3 for White.
    p = arrays(Board.from_fen("W:W32:B1"))
    planes = input_planes(p.black, p.white, p.kings, p.black_to_move)
    assert planes[0, 3] == 1 and planes[0, 2 * 32 + 28] == 1


def test_weights_round_trip_and_clear_errors(tmp_path):
    net = ValueNet((16, 8))
    path = tmp_path / "w.safetensors"
    save_weights(net, path)
    loaded = load_weights(path)
    assert loaded.hidden == (16, 8)
    p = random_positions(5)
    np.testing.assert_allclose(
        white_values(loaded, p.black, p.white, p.kings, p.black_to_move),
        white_values(net, p.black, p.white, p.kings, p.black_to_move),
    )
    with pytest.raises(WeightsError, match="does not exist"):
        load_weights(tmp_path / "missing.safetensors")
    corrupt = tmp_path / "corrupt.safetensors"
    corrupt.write_bytes(b"\x00\x01not safetensors at all")
    with pytest.raises(WeightsError, match="corrupt"):
        load_weights(corrupt)
    with pytest.raises(WeightsError, match="does not exist"):  # a bad file, not a bad spec
        make_agent(f"slow-fast:weights={tmp_path / 'missing.safetensors'}")


# -- exploration and the softmax expected value ------------------------------------------


def softmax(xs):
    e = [math.exp(x - max(xs)) for x in xs]
    return [v / sum(e) for v in e]


def test_softmax_expected_value_on_a_hand_computed_tree():
    # root (White to move) -> children 1, 2, 3; explored: 1 and 2 (breadth 2 of 3)
    # node 1 (Black to move) -> children 4 (White wins) and 5 (leaf, f = 0.25), both explored
    T = 0.5
    f = np.array([0.5, 0.4, 0.7, 0.9, 0.3, 0.25])
    outcome = np.array([0, 0, 0, 0, K.WHITE_WINS, 0], dtype=np.int8)
    reward = np.array([0.0, 0.05, -0.02, 0.1, 1.0, 0.0])
    black_to_move_parents = np.array([0, 1], dtype=np.int8)  # root: White; node 1: Black
    # The kernel's probabilities (mover's softmax over all children, exact value for the win).
    offsets_root = np.array([0, 3])
    _, p_root, _, _ = K.select_explored(
        f[1:4],
        outcome[1:4],
        reward[1:4],
        offsets_root,
        black_to_move_parents[:1],
        K.EXPLORE_BY_VALUE,
        2 / 3,
        1,
        0.0,
        T,
        np.array([-1]),
        7,
    )
    offsets_1 = np.array([0, 2])
    _, p_1, _, _ = K.select_explored(
        f[4:6],
        outcome[4:6],
        reward[4:6],
        offsets_1,
        black_to_move_parents[1:],
        K.EXPLORE_BY_VALUE,
        1.0,
        1,
        0.0,
        T,
        np.array([-1]),
        7,
    )
    hand_root = softmax([0.4 / T, 0.7 / T, 0.9 / T])  # White maximises f
    hand_1 = softmax([-1.0 / T, -0.25 / T])  # Black minimises f; the win counts as f = 1
    np.testing.assert_allclose(p_root, hand_root)
    np.testing.assert_allclose(p_1, hand_1)

    probability = np.concatenate([[1.0], hand_root, hand_1])
    explored = np.array([1, 1, 1, 0, 1, 1], dtype=np.int8)
    child_start = np.array([1, 4, 0, 0, 0, 0])
    child_count = np.array([3, 2, 0, 0, 0, 0])
    breadth = np.array([2, 2, 0, 0, 0, 0])
    value = K.expected_value_backup(child_start, child_count, breadth, explored, probability, reward, outcome, f)
    v4, v5, v2 = 0.0, 2 * 0.25 - 1, 2 * 0.7 - 1
    v1 = 2 / 2 * (hand_1[0] * (1.0 + v4) + hand_1[1] * (0.0 + v5))
    v0 = 2 / 3 * (hand_root[0] * (0.05 + v1) + hand_root[1] * (-0.02 + v2))  # child 3 unexplored
    np.testing.assert_allclose(value[[0, 1, 2, 4, 5]], [v0, v1, v2, v4, v5])
    assert value[3] == pytest.approx(2 * 0.9 - 1)  # an unexplored leaf still has its own value


def test_expected_value_of_a_real_position():
    # White to move, five moves: four king moves block Black (+1), 32-27 does not (0).
    board = Board.from_fen("W:W32,K19:B28")

    def constant(b, w, k, t):
        return np.full(len(b), 0.6)

    forest, _ = grow_forest(
        constant,
        arrays(board),
        depth=1,
        explore_fraction=1.0,
        min_explored=1,
        noise_weight=0.0,
        temperature=0.05,
        state=3,
    )
    value = forest.expected_values()
    # Winning children count with f = 1 in the softmax, the other with the net's 0.6.
    p = softmax([1 / 0.05] * 4 + [0.6 / 0.05])
    assert sorted(forest.reward[1:].tolist()) == [0.0, 1.0, 1.0, 1.0, 1.0]
    expected = sum(p[i] * 1.0 for i in range(4)) + p[4] * (0.0 + 2 * 0.6 - 1)
    assert value[0] == pytest.approx(expected)


def test_explored_moves_follow_the_net_without_noise_and_the_noise_with_it():
    n = 8
    f = np.linspace(0.1, 0.8, n)  # White likes the last children, Black the first
    outcome = np.zeros(n, np.int8)
    reward = np.zeros(n)
    offsets = np.array([0, n])
    for black_to_move, best in ((0, {6, 7}), (1, {0, 1})):
        explored, _, breadth, _ = K.select_explored(
            f,
            outcome,
            reward,
            offsets,
            np.array([black_to_move], np.int8),
            K.EXPLORE_BY_VALUE,
            0.25,
            1,
            0.0,
            0.01,
            np.array([-1]),
            11,
        )
        assert set(np.flatnonzero(explored)) == best and breadth[0] == 2
    # Forced move (the kind-2 line) is explored on top of the fraction.
    explored, _, breadth, _ = K.select_explored(
        f, outcome, reward, offsets, np.array([0], np.int8), K.EXPLORE_BY_VALUE, 0.25, 1, 0.0, 0.01, np.array([3]), 11
    )
    assert set(np.flatnonzero(explored)) == {3, 6, 7} and breadth[0] == 3
    # Pure noise: every child is explored about equally often.
    counts = np.zeros(n)
    state = 5
    for _ in range(400):
        explored, _, _, state = K.select_explored(
            f,
            outcome,
            reward,
            offsets,
            np.array([0], np.int8),
            K.EXPLORE_BY_VALUE,
            0.25,
            1,
            1.0,
            0.01,
            np.array([-1]),
            state,
        )
        counts += explored
    assert counts.min() > 60 and counts.max() < 140  # 400 * 2 / 8 = 100 each


def test_exploring_by_expected_reward_adds_the_move_reward_to_the_value():
    # White to move: move 1 captures (reward 0.05) into a position valued as move 0's,
    # move 2 leads to a slightly better position, move 3 wins outright.
    f = np.array([0.6, 0.6, 0.62, 0.6])
    outcome = np.array([0, 0, 0, K.WHITE_WINS], np.int8)
    reward = np.array([0.0, 0.05, 0.0, 1.0])
    offsets = np.array([0, 4])
    white, black = np.array([0], np.int8), np.array([1], np.int8)
    by_reward, _ = K.exploration_scores(f, outcome, reward, offsets, white, K.EXPLORE_BY_EXPECTED_REWARD, 0.0, 1)
    expected = np.array([0.2, 0.05 + 0.2, 0.24, 1.0])  # R + 2 f - 1; a win is its reward alone
    np.testing.assert_allclose(by_reward, (expected - expected.mean()) / expected.std())
    by_black, _ = K.exploration_scores(f, outcome, reward, offsets, black, K.EXPLORE_BY_EXPECTED_REWARD, 0.0, 1)
    np.testing.assert_allclose(by_black, -by_reward)  # Black prefers what is worst for White
    by_value, _ = K.exploration_scores(f, outcome, reward, offsets, white, K.EXPLORE_BY_VALUE, 0.0, 1)
    assert by_value[0] == by_value[1] < by_value[2] < by_value[3]  # the capture is not seen
    # Top 1 of the three ongoing moves, without noise: the capture by reward, move 2 by value.
    for explore_by, chosen in ((K.EXPLORE_BY_EXPECTED_REWARD, 1), (K.EXPLORE_BY_VALUE, 2)):
        explored, _, _, _ = K.select_explored(
            f[:3], outcome[:3], reward[:3], np.array([0, 3]), white, explore_by, 0.3, 1, 0.0, 0.01, np.array([-1]), 3
        )
        assert np.flatnonzero(explored).tolist() == [chosen]


# -- the two kinds of data -----------------------------------------------------------------


def net_evaluator(seed: int = 0):
    torch.manual_seed(seed)
    net = ValueNet((32,))
    return lambda b, w, k, t: white_values(net, b, w, k, t)


GAMES = GameSettings(noise_weight=0.5, max_plies=150, no_progress_plies=40)


def test_skewed_points_prefer_positions_with_captures():
    games, length = 400, 100
    captures = np.zeros((games, length + 1), np.int64)
    captures[:, 1::2] = 3  # half of the positions offer three captures
    lengths = np.full(games, length, np.int64)
    skewed, _ = K.skewed_points(captures, lengths, 2.0, 99)
    uniform, _ = K.skewed_points(captures, lengths, 0.0, 99)

    def share(pts):
        return float((captures[np.arange(games), pts] > 0).mean())

    # Weights 1 + 2 * 3 = 7 against 1: 7/8 of the picks land on capture positions.
    assert share(skewed) == pytest.approx(7 / 8, abs=0.05)
    assert share(uniform) == pytest.approx(1 / 2, abs=0.07)
    assert ((skewed >= 0) & (skewed < length)).all()


def test_kind1_roots_are_skewed_toward_captures():
    evaluate = net_evaluator()
    sub = SubtreeSettings(depth=1, explore_fraction=0.5, min_explored=1, noise_weight=0.3, temperature=0.01)
    examples, forest, played, points, _ = tactical_data(evaluate, 48, 5.0, GAMES, sub, 21)
    at_root = played.captures[np.arange(len(played)), points]
    per_game_mean = np.array([played.captures[g, : played.lengths[g]].astype(bool).mean() for g in range(len(played))])
    assert (at_root > 0).mean() > per_game_mean.mean() + 0.2
    assert (examples.kind == KIND_TACTICAL).all() and len(examples) >= len(played)
    roots = forest.depth == 0
    np.testing.assert_array_equal(forest.positions.black[roots], played.black[np.arange(len(played)), points])


def test_kind2_subtrees_contain_the_original_win_or_loss():
    evaluate = net_evaluator(1)
    # One move explored per node, chosen by noise: without the forced line most trees would
    # miss the game's end.
    sub = SubtreeSettings(depth=4, explore_fraction=0.01, min_explored=1, noise_weight=1.0, temperature=0.01)
    examples, forest, games, roots_at, _ = endgame_data(evaluate, 24, 6, GAMES, sub, 5)
    assert len(games) > 0 and (games.outcome != K.DRAW).all()  # only decisive games are used
    for tree in range(len(games)):
        nodes = np.flatnonzero((forest.tree == tree) & (forest.explored != 0))
        assert games.outcome[tree] in forest.outcome[nodes]
        back = games.lengths[tree] - roots_at[tree]
        assert 1 <= back <= sub.depth
    assert (examples.kind == KIND_ENDGAME).all()
    assert np.abs(examples.target).max() > 0.05  # the terminal reward reaches the labels


def test_generated_games_follow_the_rules():
    played, _ = generate_games(net_evaluator(), 6, 0.5, 120, 40, 17)
    for g in range(len(played)):
        game = Game(rules=Rules(repetition=3, no_progress_plies=40, max_plies=120))
        for t in range(played.lengths[g]):
            board = game.board
            assert (board.black, board.white, board.kings, int(board.turn == BLACK)) == tuple(
                int(x) for x in (played.black[g, t], played.white[g, t], played.kings[g, t], played.black_to_move[g, t])
            )
            after = Board(
                int(played.black[g, t + 1]),
                int(played.white[g, t + 1]),
                int(played.kings[g, t + 1]),
                0 if played.black_to_move[g, t + 1] else 1,
            )
            move = next(m for m in board.legal_moves() if board.play(m) == after)
            game.play(move)
        assert game.is_over() and str(game.termination) == game_state.END_NAMES[played.termination[g]]
        if played.outcome[g] != K.DRAW:
            assert not game.board.has_legal_moves()
            assert (played.outcome[g] == K.WHITE_WINS) == (game.board.turn == BLACK)


# -- replay buffer -------------------------------------------------------------------------


def examples_numbered(start: int, n: int, kind: int = KIND_TACTICAL) -> Examples:
    ids = np.arange(start, start + n, dtype=np.int64)
    return Examples(Positions(ids, ids, ids, np.zeros(n, np.int8)), ids.astype(np.float32), np.full(n, kind, np.int8))


def test_buffer_replaces_a_fraction_when_full_and_keeps_pinned_data():
    rng = np.random.default_rng(0)
    buffer = ReplayBuffer(capacity=100, replace_fraction=0.2)
    assert buffer.add(examples_numbered(1000, 30, KIND_ENDGAME), rng, pinned=True) == 30
    assert buffer.add(examples_numbered(0, 70), rng) == 70
    assert buffer.full and len(buffer) == 100
    before = buffer.black[:100].copy()
    stored = buffer.add(examples_numbered(5000, 50), rng)
    assert stored == 20 and len(buffer) == 100  # exactly replace_fraction * capacity
    changed = before != buffer.black[:100]
    assert changed.sum() == 20
    assert not changed[:30].any()  # the pinned kind-2 examples stay for the set
    assert (buffer.black[:100][changed] >= 5000).all()
    # Few new examples: only as many as arrive are replaced.
    assert buffer.add(examples_numbered(9000, 5), rng) == 5
    # Sampling a fraction, without replacement.
    sample = buffer.sample(0.25, rng)
    assert len(sample) == 25 and len(set(sample.positions.black.tolist())) == 25
    buffer.clear()
    assert len(buffer) == 0 and not buffer.pinned.any()


def test_buffer_partial_room_then_replacement():
    rng = np.random.default_rng(1)
    buffer = ReplayBuffer(capacity=10, replace_fraction=0.3)
    assert buffer.add(examples_numbered(0, 8), rng) == 8
    assert buffer.add(examples_numbered(100, 10), rng) == 2 + 3  # fills the room, then replaces 3
    assert len(buffer) == 10
    state = buffer.state_dict()
    other = ReplayBuffer(capacity=10, replace_fraction=0.3)
    other.load_state_dict(state)
    np.testing.assert_array_equal(other.black[:10], buffer.black[:10])


# -- the agent -----------------------------------------------------------------------------


def test_agent_spec_and_legal_play(tmp_path):
    path = tmp_path / "w.safetensors"
    save_weights(ValueNet((16,)), path)
    agent = make_agent(f"slow-fast:weights={path},depth=2,seed=3")
    assert isinstance(agent, SlowFastAgent) and agent.depth == 2
    assert str(agent) == f"slow-fast:weights={path},depth=2,seed=3"
    game = Game()
    for _ in range(12):
        if game.is_over():
            break
        game.play(agent.select_move(game))
    policy = agent.policy(game) if not game.is_over() else []
    assert not policy or sum(p for _, p in policy) == pytest.approx(1.0)


def test_agent_takes_a_win_and_a_depth_two_agent_sees_a_recapture():
    agent = SlowFastAgent(weights="untrained", seed=0)  # the rewards decide
    game = Game(start=Board.from_fen("W:W32,K19:B28"))
    assert str(agent.select_move(game)) != "32-27"  # every king move wins at once
    # White to move: 30-26 lets Black jump 22x31 and crown; depth 2 sees the loss of material.
    board = Board.from_fen("W:W30,K3:B22,K5")
    deep = SlowFastAgent(weights="untrained", depth=2, seed=0)
    moves, worth = deep.move_values(Game(start=board))
    losing = [w for m, w in zip(moves, worth) if str(m) == "30-26"]
    assert losing and losing[0] < max(worth)
