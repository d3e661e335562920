"""The evaluator door's net kernels (``checkers_agents.alphabeta.net_layers``): every zoo net
and random nets of every supported shape equal their torch forward pass, first-layer sums
updated move by move equal fresh ones to the last bit, and so do the searches built on them."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from checkers_env import Board, Game  # noqa: E402
from checkers_env.board import BLACK, move_to_row  # noqa: E402
from checkers_env.encoding import board_planes, input_planes  # noqa: E402

from checkers_agents.alphabeta import evaluate, make_evaluator, mlp  # noqa: E402
from checkers_agents.alphabeta.evaluators import IDENTITY, RELU, SIGMOID  # noqa: E402
from checkers_agents.alphabeta.net_layers import child_sums, root_sums  # noqa: E402
from checkers_agents.alphabeta.searcher import Searcher, memory_for  # noqa: E402
from checkers_agents.zoo import zoo_weights  # noqa: E402

TOLERANCE = 1e-4
ZOO_NETS = ("outcome-net", "mcrd-net", "td-minimax", "slow-fast")


def random_boards(count: int, seed: int = 1) -> list[Board]:
    """Positions of uniformly random games: both colours to move, kings, captures pending."""
    rng = np.random.default_rng(seed)
    boards = []
    while len(boards) < count:
        game = Game()
        while not game.is_over() and len(boards) < count:
            boards.append(game.board)
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
    return boards


def columns(boards):
    return [np.array(c, np.int64) for c in zip(*((b.black, b.white, b.kings, b.turn == BLACK) for b in boards))]


def door_values(evaluator, boards) -> np.ndarray:
    return np.array([evaluate(evaluator, *b.mover_bitboards, b.kings, b.turn == BLACK) for b in boards])


def torch_values_of_zoo_net(name: str, boards) -> np.ndarray:
    """Each zoo net's value for the side to move, by its own torch module."""
    path = zoo_weights(name)
    with torch.no_grad():
        if name == "outcome-net":
            from checkers_agents.outcome_net import net

            tensors = net.read(path)
            module = net.value_net(*net.sizes_of(tensors))
            module.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in tensors.items()})
            z = module(torch.from_numpy(input_planes(*columns(boards)))).reshape(-1).double()
            return (2 * torch.sigmoid(z) - 1).numpy()
        if name == "mcrd-net":
            from checkers_agents.mcrd import net

            module = net.CNN.load(path)
            return module(torch.from_numpy(board_planes(*columns(boards)))).double().numpy()
        if name == "td-minimax":
            from checkers_agents.td_minimax import Net

            tensors = {k: torch.from_numpy(v) for k, v in Net.load(path).tensors().items()}
            module = torch.nn.Sequential(
                torch.nn.Linear(128, tensors["hidden.bias"].shape[0]), torch.nn.Sigmoid(),
                torch.nn.Linear(tensors["hidden.bias"].shape[0], 2), torch.nn.Sigmoid(),
            ).double()
            module.load_state_dict({"0.weight": tensors["hidden.weight"], "0.bias": tensors["hidden.bias"],
                                    "2.weight": tensors["output.weight"], "2.bias": tensors["output.bias"]})
            out = module(torch.from_numpy(input_planes(*columns(boards))).double())
            return (out[:, 0] - out[:, 1]).numpy()
        from checkers_agents.slow_fast import load_weights

        module = load_weights(path)
        z = module(torch.from_numpy(input_planes(*columns(boards)))).double()
        return (2 * torch.sigmoid(z) - 1).numpy()


@pytest.mark.parametrize("name", ZOO_NETS)
def test_every_zoo_net_through_the_door_equals_its_torch_forward_pass(name):
    boards = random_boards(300, seed=4)
    assert {b.turn for b in boards} == {0, 1} and any(b.kings for b in boards)
    evaluator = make_evaluator(name)
    assert evaluator.dtype == np.float32
    expected = torch_values_of_zoo_net(name, boards)
    assert np.ptp(expected) > 0.05  # a trained net, not a constant
    np.testing.assert_allclose(door_values(evaluator, boards), expected, atol=TOLERANCE, rtol=0)


ACTIVATIONS = {RELU: torch.nn.ReLU, SIGMOID: torch.nn.Sigmoid}

#: (first layer, second layer or 0, hidden activation, outputs, output activation)
SHAPES = [
    (32, 0, RELU, 1, SIGMOID),  # the outcome net's
    (40, 0, SIGMOID, 2, SIGMOID),  # td-minimax's
    (64, 0, SIGMOID, 1, IDENTITY),
    (256, 32, RELU, 1, SIGMOID),
    (512, 32, RELU, 2, SIGMOID),
    (512, 32, RELU, 1, IDENTITY),
    (256, 128, RELU, 1, SIGMOID),  # slow-fast's
    (48, 24, SIGMOID, 2, SIGMOID),
]


def torch_mlp(first, second, hidden, outputs, seed):
    torch.manual_seed(seed)
    layers = [torch.nn.Linear(128, first), ACTIVATIONS[hidden]()]
    if second:
        layers += [torch.nn.Linear(first, second), ACTIVATIONS[hidden]()]
    layers.append(torch.nn.Linear(second or first, outputs))
    module = torch.nn.Sequential(*layers).double()
    with torch.no_grad():  # biases and weights far enough from zero that ReLUs cut
        for p in module.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return module


def torch_value(module, boards, outputs, output_activation):
    with torch.no_grad():
        z = module(torch.from_numpy(input_planes(*columns(boards))).double())
    if output_activation == SIGMOID:
        z = torch.sigmoid(z)
    if outputs == 2:
        return (z[:, 0] - z[:, 1]).numpy()
    return (2 * z[:, 0] - 1).numpy() if output_activation == SIGMOID else z[:, 0].numpy()


def door_mlp(module, hidden, output_activation, dtype):
    weights = [(m.weight.detach().numpy(), m.bias.detach().numpy()) for m in module if isinstance(m, torch.nn.Linear)]
    middle = weights[1] if len(weights) == 3 else (None, None)
    return mlp(
        np.ascontiguousarray(weights[0][0].T), np.ascontiguousarray(weights[0][1]), np.ascontiguousarray(weights[-1][0]),
        np.ascontiguousarray(weights[-1][1]), w_mid=middle[0], b_mid=middle[1], hidden_activation=hidden,
        output_activation=output_activation, dtype=dtype,
    )


@pytest.mark.parametrize("first, second, hidden, outputs, output_activation", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_nets_of_every_shape_equal_their_torch_forward_pass(first, second, hidden, outputs, output_activation, dtype):
    boards = random_boards(150, seed=first + second)
    module = torch_mlp(first, second, hidden, outputs, seed=first * 7 + second)
    expected = torch_value(module, boards, outputs, output_activation)
    assert np.ptp(expected) > 0.01
    evaluator = door_mlp(module, hidden, output_activation, dtype)
    assert evaluator.dtype == dtype
    np.testing.assert_allclose(door_values(evaluator, boards), expected, atol=TOLERANCE, rtol=0)


def fresh_sums(evaluator, board: Board) -> np.ndarray:
    out = np.zeros((1, 2, evaluator.w_in.shape[1]), evaluator.dtype)
    root_sums(out, board.black, board.white, board.kings, evaluator.w_in, evaluator.b_in, np.zeros(32, np.int64))
    return out[0]


@pytest.mark.parametrize("name", ["outcome-net", "mcrd-net", "random-512x32"])
def test_sums_updated_move_by_move_equal_fresh_sums_after_every_make_and_unmake(name):
    if name.startswith("random"):
        evaluator = door_mlp(torch_mlp(512, 32, RELU, 1, seed=3), RELU, SIGMOID, np.float32)
    else:
        evaluator = make_evaluator(name)
    rng = np.random.default_rng(11)
    width = evaluator.w_in.shape[1]
    captures = crownings = king_captures = 0
    for _game in range(12):
        game = Game()
        stack = np.zeros((400, 2, width), np.float32)
        stack[0] = fresh_sums(evaluator, game.board)
        boards = [game.board]
        while not game.is_over() and len(boards) < 399:
            board = boards[-1]
            moves = game.legal_moves()
            ply = len(boards)
            # Make every legal move in turn and unmake it (the search's pattern), then play one.
            for move in moves:
                child = board.play(move)
                frm, to, captured, _, _ = move_to_row(move)
                child_sums(stack, ply, evaluator.w_in, board.turn == BLACK, frm, to, captured, board.kings, child.kings)
                np.testing.assert_array_equal(stack[ply], fresh_sums(evaluator, child))
                np.testing.assert_array_equal(stack[ply - 1], fresh_sums(evaluator, board))  # unmade: untouched
                captures += move.captured != 0
                king_captures += (move.captured & board.kings) != 0
                crownings += (child.kings & ~board.kings & (child.black | child.white)) != 0 and move.captured == 0
            move = moves[int(rng.integers(len(moves)))]
            game.play(move)
            child = board.play(move)
            frm, to, captured, _, _ = move_to_row(move)
            child_sums(stack, ply, evaluator.w_in, board.turn == BLACK, frm, to, captured, board.kings, child.kings)
            boards.append(child)
    assert captures > 50 and king_captures > 0 and crownings > 0
