"""The td-minimax agent: inputs, forward pass and backprop against torch, alpha-beta against
plain minimax, the end-of-game corrections' perspectives, the agent and its weight files."""

from __future__ import annotations

import random

import numba
import numpy as np
import pytest
import torch

from checkers_agents.alphabeta import Draws, Searcher
from checkers_agents.alphabeta.deepening import pick_tied
from checkers_agents.alphabeta.searcher import board_key
from checkers_agents.td_minimax import Net, TDMinimaxAgent, WeightsError
from checkers_agents.td_minimax.learn import RESULT_FIELDS, Position, _final_steps, play_training_game, training_game
from checkers_agents.td_minimax.net import MAX_ACTIVE, sgd_step
from checkers_env import BLACK, Board, Game, Rules, make_agent, square_to_bit
from checkers_env.encoding import active_inputs


@numba.njit
def train_kernel(own, opponent, kings, own_is_black, target0, target1, lr, w1, b1, w2, b2):
    """One SGD step of the learner (``sgd_step``) on one position; the error before it."""
    active = np.empty(MAX_ACTIVE, dtype=np.int64)
    hidden = np.empty(w1.shape[1], dtype=np.float64)
    n = active_inputs(own, opponent, kings, own_is_black, active)
    return sgd_step(active, n, target0, target1, lr, w1, b1, w2, b2, hidden)


@numba.njit
def final_corrections(mover, opponent, kings, black, draw, lr, w1, b1, w2, b2):
    """The learner's end-of-game corrections (``_final_steps``) on a final position."""
    loser_active = np.empty(MAX_ACTIVE, dtype=np.int64)
    winner_active = np.empty(MAX_ACTIVE, dtype=np.int64)
    hidden = np.empty(w1.shape[1], dtype=np.float64)
    _final_steps(Position(mover, opponent, kings, black), draw, lr, w1, b1, w2, b2, loser_active, winner_active, hidden)


def search(net: Net, board: Board, depth: int, quiescence: bool = True, draws: Draws | None = None, rng: int = 7):
    """``(row, value, rows)``: the td-minimax search (the suite's alpha-beta with the net),
    its choice with ties broken as the agent and the trainer break them."""
    searcher = Searcher(net.evaluator(), tt_bits=10, quiescence=quiescence)
    result = searcher.search(board, depth, draws=draws, first_depth=depth, root_in_order=True)
    row, _ = pick_tied(result.root_scores, len(result.rows), rng)
    return row, result.value, result.rows


def random_positions(count: int, seed: int = 0) -> list[Board]:
    """Positions from random games (openings, middle games, king endings)."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        game = Game(rules=Rules.without_draws())
        for _ in range(rng.randrange(0, 120)):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        if game.legal_moves():
            boards.append(game.board)
    return boards


def reference_inputs(board: Board) -> np.ndarray:
    """The 128 inputs built from square contents (independent of the kernel): planes own
    men, own kings, opponent men, opponent kings; bit b, turned to 31 - b for White."""
    x = np.zeros(128)
    own = "b" if board.turn == BLACK else "w"
    for square in range(1, 33):
        piece = board.piece_at(square)
        if piece is None:
            continue
        bit = square_to_bit(square)
        if board.turn != BLACK:
            bit = 31 - bit
        plane = (0 if piece.lower() == own else 2) + (1 if piece.isupper() else 0)
        x[32 * plane + bit] = 1.0
    return x


def torch_model(net: Net) -> torch.nn.Sequential:
    model = torch.nn.Sequential(
        torch.nn.Linear(128, net.hidden), torch.nn.Sigmoid(), torch.nn.Linear(net.hidden, 2), torch.nn.Sigmoid()
    ).double()
    tensors = {k: torch.from_numpy(v) for k, v in net.tensors().items()}
    model[0].weight.data, model[0].bias.data = tensors["hidden.weight"], tensors["hidden.bias"]
    model[2].weight.data, model[2].bias.data = tensors["output.weight"], tensors["output.bias"]
    return model


def test_inputs_match_square_reference():
    for board in random_positions(60, seed=1):
        mover, opponent = board.mover_bitboards
        active = np.zeros(MAX_ACTIVE, dtype=np.int64)
        n = active_inputs(mover, opponent, board.kings, board.turn == BLACK, active)
        x = np.zeros(128)
        x[active[:n]] = 1.0
        assert n == bin(board.black | board.white).count("1")
        np.testing.assert_array_equal(x, reference_inputs(board))


def test_forward_equals_torch():
    net = Net.initial(seed=3, scale=0.5)
    net.b1[:] = np.random.default_rng(4).normal(size=net.hidden)
    net.b2[:] = [0.3, -0.2]
    model = torch_model(net)
    for board in random_positions(50, seed=2):
        mover, opponent = board.mover_bitboards
        ours = net.evaluate(mover, opponent, board.kings, board.turn == BLACK)
        with torch.no_grad():
            theirs = model(torch.from_numpy(reference_inputs(board))).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_training_step_equals_torch_sgd_and_moves_towards_target():
    net = Net.initial(seed=5, scale=0.3)
    board = random_positions(1, seed=7)[0]
    mover, opponent = board.mover_bitboards
    black = board.turn == BLACK
    target = (0.9, 0.05)
    lr = 0.5
    before = net.evaluate(mover, opponent, board.kings, black)

    model = torch_model(net)
    out = model(torch.from_numpy(reference_inputs(board)))
    loss = 0.5 * ((out - torch.tensor(target, dtype=torch.float64)) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad

    error = train_kernel(mover, opponent, board.kings, black, *target, lr, *net.arrays)
    assert error == pytest.approx(loss.item(), rel=1e-12)
    np.testing.assert_allclose(net.w1, model[0].weight.detach().numpy().T, atol=1e-12)
    np.testing.assert_allclose(net.b1, model[0].bias.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(net.w2, model[2].weight.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(net.b2, model[2].bias.detach().numpy(), atol=1e-12)

    after = net.evaluate(mover, opponent, board.kings, black)
    assert after[0] > before[0] and after[1] < before[1]
    assert abs(after[0] - target[0]) + abs(after[1] - target[1]) < abs(before[0] - target[0]) + abs(
        before[1] - target[1]
    )


def _views(net: Net, board: Board) -> tuple[tuple[float, float], tuple[float, float]]:
    """(Black's view, White's view) of a position: the net's outputs with each as "own"."""
    black_view = net.evaluate(board.black, board.white, board.kings, True)
    white_view = net.evaluate(board.white, board.black, board.kings, False)
    return black_view, white_view


@pytest.mark.parametrize("fen", ["W:W:B10,K14,19", "W:W28:B19,K23,24,27"])  # White wiped out / blocked
def test_final_corrections_use_winner_and_loser_views(fen):
    board = Board.from_fen(fen)
    assert not board.has_legal_moves() and board.turn != BLACK  # White to move has lost
    net = Net.initial(seed=11, scale=0.3)
    expected = net.copy()
    before_black, before_white = _views(net, board)

    final_corrections(board.white, board.black, board.kings, False, False, 0.5, *net.arrays)
    # Reference: Black's (the winner's) view towards (1, 0), then White's towards (0, 1).
    train_kernel(board.black, board.white, board.kings, True, 1.0, 0.0, 0.5, *expected.arrays)
    train_kernel(board.white, board.black, board.kings, False, 0.0, 1.0, 0.5, *expected.arrays)
    for ours, theirs in zip(net.arrays, expected.arrays):
        np.testing.assert_allclose(ours, theirs, atol=1e-15)
    after_black, after_white = _views(net, board)

    # The two steps share weights, so compare the views: the winner's lead over the
    # loser's must grow (it would shrink with the views swapped).
    def gap(black_view, white_view):
        return (black_view[0] - black_view[1]) - (white_view[0] - white_view[1])

    assert gap(after_black, after_white) > gap(before_black, before_white)


def test_final_corrections_on_a_draw_go_to_zero():
    board = Board()
    net = Net.initial(seed=12, scale=0.3)
    before = _views(net, board)
    final_corrections(board.black, board.white, board.kings, True, True, 0.5, *net.arrays)
    after = _views(net, board)
    for b, a in zip(before, after):
        assert a[0] < b[0] and a[1] < b[1]


def test_in_game_step_targets_the_chosen_position_seen_from_the_mover():
    """One ply (the game then ends by the ply cap) with no final corrections: the step must
    take the start position towards the swapped outputs of the chosen position."""
    net = Net.initial(seed=13, scale=0.4)
    reference = net.copy()
    result = np.zeros(RESULT_FIELDS, dtype=np.int64)
    rng = 99
    play_training_game(*net.arrays, training_game(2, True, 0.5, 0.0, True, 0.0, 0, 1, 80, 3), rng, result)
    assert result[4] == 1  # one ply

    start = Board()
    index, _, moves = search(reference, start, 2, rng=rng)
    frm, to = int(moves[index, 0]), int(moves[index, 1])
    child = Board(start.black & ~(1 << frm) | (1 << to), start.white, 0, 1)
    opp_doing, own_doing = reference.evaluate(child.white, child.black, 0, False)  # White to move
    train_kernel(start.black, start.white, 0, True, own_doing, opp_doing, 0.5, *reference.arrays)
    for ours, theirs in zip(net.arrays, reference.arrays):
        np.testing.assert_allclose(ours, theirs, atol=1e-15)


def _minimax(net: Net, board: Board, depth: int, quiescence: bool, ply: int = 0) -> float:
    """Plain negamax without pruning, scored as the search scores (leaves out0 - out1;
    with quiescence, leaves where a capture is pending are searched on)."""
    moves = board.legal_moves()
    if not moves:
        return -(2.0 - 0.01 * ply)
    if depth <= 0 and not (quiescence and board.is_capture_position()):
        mover, opponent = board.mover_bitboards
        o0, o1 = net.evaluate(mover, opponent, board.kings, board.turn == BLACK)
        return o0 - o1
    return max(-_minimax(net, board.play(move), depth - 1, quiescence, ply + 1) for move in moves)


@pytest.mark.parametrize("quiescence", [False, True])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_value_equals_plain_minimax(depth, quiescence):
    net = Net.initial(seed=21, scale=0.5)
    for board in random_positions(12, seed=depth):
        index, value, _ = search(net, board, depth, quiescence)
        assert value == pytest.approx(_minimax(net, board, depth, quiescence), abs=1e-12)
        chosen = board.legal_moves()
        assert 0 <= index < len(chosen)


def test_root_moves_into_repeated_positions_score_as_draws():
    net = material_net()
    board = Board.from_fen("B:WK29:BK1,K6")  # Black is ahead: every move scores above 0
    children = [board.play(move) for move in board.legal_moves()]
    assert search(net, board, 2)[1] > 0.2
    history = np.array([board_key(c) for c in children], dtype=np.int64)
    assert search(net, board, 2, draws=Draws(history))[1] == 0.0  # all of them repeat
    assert search(net, board, 2, draws=Draws(history[:1]))[1] > 0.2  # one repeats: another is chosen
    # Every king move completes 80 quiet plies.
    assert search(net, board, 2, draws=Draws(np.zeros(0, np.int64), 79, 80))[1] == 0.0


def material_net() -> Net:
    """A hand-made material evaluation (man 1, king 1.5): out0 rises with the mover's lead."""
    net = Net.initial(seed=0, scale=0.0)
    net.w1[0:32, 0], net.w1[32:64, 0] = 0.3, 0.45
    net.w1[64:96, 0], net.w1[96:128, 0] = -0.3, -0.45
    net.w2[0, 0], net.w2[1, 0] = 8.0, -8.0
    net.b2[:] = [-4.0, 4.0]
    return net


#: Positions where exactly one of many moves leaves the opponent without a move (found in
#: random games): White blocks Black's last man; Black blocks White's last man.
WINS_IN_ONE = [("W:WK6,K12,15,29,30,31:B21", "29-25"), ("B:W16:B3,7,8,12,13,14,19,K30", "8-11")]


@pytest.mark.parametrize("fen, winning", WINS_IN_ONE)
def test_agent_takes_a_win_in_one(tmp_path, fen, winning):
    path = tmp_path / "material.safetensors"
    material_net().save(path)
    agent = make_agent(f"td-minimax:weights={path},depth=2,seed=3")
    assert isinstance(agent, TDMinimaxAgent)
    assert str(agent) == f"td-minimax:weights={path},seed=3"
    for depth in (1, 2, 3):
        agent = make_agent(f"td-minimax:weights={path},depth={depth}")
        assert str(agent.select_move(Game(Board.from_fen(fen)))) == winning


def test_agent_uses_time_and_depth(tmp_path):
    path = tmp_path / "w.safetensors"
    Net.initial(seed=1).save(path)
    agent = TDMinimaxAgent(weights=str(path), depth=1, time=0.05, seed=0)
    move = agent.select_move(Game())
    assert move in Game().legal_moves()
    assert agent.last_search.depth >= 1
    assert str(agent) == f"td-minimax:weights={path},depth=1,time=0.05,seed=0"


def test_td_minimax_is_the_alphabeta_agent_with_ties_in_generator_order(tmp_path):
    """One search class: td-minimax adds no search code, and reports its search as the
    alpha-beta does (a ``SearchResult`` whose best moves hold the move played)."""
    from checkers_agents.alphabeta import AlphaBetaAgent, SearchResult

    assert issubclass(TDMinimaxAgent, AlphaBetaAgent) and TDMinimaxAgent.ties_in_order
    for name in ("select_move", "search", "reset"):
        assert getattr(TDMinimaxAgent, name) is getattr(AlphaBetaAgent, name)
    path = tmp_path / "w.safetensors"
    Net.initial(seed=1).save(path)
    for spec in (f"td-minimax:weights={path},seed=3", f"td-minimax:weights={path},depth=1,time=0.05,seed=3"):
        agent = make_agent(spec)
        move = agent.select_move(Game())
        assert isinstance(agent.last_search, SearchResult)
        assert move in agent.last_search.best_moves and agent.last_search.nodes > 0


def test_missing_and_corrupt_weights_are_clear_errors(tmp_path):
    missing = tmp_path / "nope.safetensors"
    with pytest.raises(WeightsError, match="does not exist"):
        TDMinimaxAgent(weights=str(missing))
    with pytest.raises(WeightsError, match="does not exist"):  # a bad file, not a bad spec
        make_agent(f"td-minimax:weights={missing}")

    corrupt = tmp_path / "corrupt.safetensors"
    corrupt.write_bytes(b"\x00\x01not a safetensors file at all")
    with pytest.raises(WeightsError, match="corrupt"):
        TDMinimaxAgent(weights=str(corrupt))

    good = tmp_path / "good.safetensors"
    Net.initial(seed=1).save(good)
    truncated = tmp_path / "truncated.safetensors"
    truncated.write_bytes(good.read_bytes()[:-100])
    with pytest.raises(WeightsError, match="corrupt"):
        TDMinimaxAgent(weights=str(truncated))

    from safetensors.numpy import save_file

    wrong = tmp_path / "wrong.safetensors"
    save_file(
        {
            "hidden.weight": np.zeros((40, 100)),
            "hidden.bias": np.zeros(40),
            "output.weight": np.zeros((2, 40)),
            "output.bias": np.zeros(2),
        },
        str(wrong),
    )
    with pytest.raises(WeightsError, match="wrong shapes"):
        TDMinimaxAgent(weights=str(wrong))


def test_weights_round_trip(tmp_path):
    net = Net.initial(seed=8)
    net.save(tmp_path / "w.safetensors", metadata={"games": "12"})
    loaded = Net.load(tmp_path / "w.safetensors")
    for a, b in zip(net.arrays, loaded.arrays):
        np.testing.assert_array_equal(a, b)
    assert not list(tmp_path.glob("*.tmp"))
