"""The evaluator door's net kernels (``checkers_agents.search_parts.net_layers``): every zoo net
and random nets of every supported shape equal their torch forward pass, first-layer sums
updated move by move equal fresh ones to the last bit, and so do the searches built on them."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from checkers_agents.alphabeta import make_evaluator  # noqa: E402
from checkers_agents.alphabeta.searcher import Searcher, memory_for  # noqa: E402
from checkers_agents.search_parts.evaluators import IDENTITY, MAX_ACTIVE, RELU, SIGMOID, evaluate, mlp  # noqa: E402  # noqa: E402
from checkers_agents.search_parts.net_layers import block_sums, child_sums, root_sums  # noqa: E402
from checkers_agents.zoo import zoo_weights  # noqa: E402
from checkers_env import Board, Game  # noqa: E402
from checkers_env.board import BLACK, move_to_row  # noqa: E402
from checkers_env.encoding import (  # noqa: E402
    NUM_INPUTS,
    PATTERN_INPUTS,
    active_inputs,
    board_planes,
    input_planes,
    pattern_inputs,
)

from .test_mcrd_net import random_boards  # noqa: E402  (positions of random games, kings included)

TOLERANCE = 1e-4
ZOO_NETS = ("outcome-net", "mcrd-net", "td-minimax", "slow-fast")
#: Every zoo entry whose agent searches with a net: entry -> the net's kind.
ZOO_ENTRIES = {name: name for name in ZOO_NETS} | {"mcrd-net-interpolated": "mcrd-net"}


def zoo_evaluator(entry: str):
    return make_evaluator(ZOO_ENTRIES[entry], weights=str(zoo_weights(entry)))


def columns(boards):
    return [np.array(c, np.int64) for c in zip(*((b.black, b.white, b.kings, b.turn == BLACK) for b in boards))]


def door_values(evaluator, boards) -> np.ndarray:
    return np.array([evaluate(evaluator, *b.mover_bitboards, b.kings, b.turn == BLACK) for b in boards])


def torch_values_of_zoo_net(entry: str, boards) -> np.ndarray:
    """Each zoo net's value for the side to move, by its own torch module."""
    path = zoo_weights(entry)
    name = ZOO_ENTRIES[entry]
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
                torch.nn.Linear(128, tensors["hidden.bias"].shape[0]),
                torch.nn.Sigmoid(),
                torch.nn.Linear(tensors["hidden.bias"].shape[0], 2),
                torch.nn.Sigmoid(),
            ).double()
            module.load_state_dict(
                {
                    "0.weight": tensors["hidden.weight"],
                    "0.bias": tensors["hidden.bias"],
                    "2.weight": tensors["output.weight"],
                    "2.bias": tensors["output.bias"],
                }
            )
            out = module(torch.from_numpy(input_planes(*columns(boards))).double())
            return (out[:, 0] - out[:, 1]).numpy()
        from checkers_agents.slow_fast import load_weights

        module = load_weights(path)
        z = module(torch.from_numpy(input_planes(*columns(boards)))).double()
        return (2 * torch.sigmoid(z) - 1).numpy()


@pytest.mark.parametrize("name", ZOO_ENTRIES)
def test_every_zoo_net_through_the_door_equals_its_torch_forward_pass(name):
    boards = random_boards(300, seed=4)
    assert {b.turn for b in boards} == {0, 1} and any(b.kings for b in boards)
    evaluator = zoo_evaluator(name)
    assert evaluator.dtype == np.float32
    expected = torch_values_of_zoo_net(name, boards)
    assert np.ptp(expected) > 0.05  # a trained net, not a constant
    np.testing.assert_allclose(door_values(evaluator, boards), expected, atol=TOLERANCE, rtol=0)


ACTIVATIONS = {RELU: torch.nn.ReLU, SIGMOID: torch.nn.Sigmoid}

#: (first layer, second layer or 0, hidden activation, outputs, output activation); a
#: second layer given as ``(H2, H3)`` is followed by a third.
SHAPES = [
    (32, 0, RELU, 1, SIGMOID),  # the outcome net's
    (40, 0, SIGMOID, 2, SIGMOID),  # td-minimax's
    (64, 0, SIGMOID, 1, IDENTITY),
    (256, 32, RELU, 1, SIGMOID),
    (512, 32, RELU, 2, SIGMOID),
    (512, 32, RELU, 1, IDENTITY),
    (256, 128, RELU, 1, SIGMOID),  # slow-fast's
    (48, 24, SIGMOID, 2, SIGMOID),
    (256, (256, 32), RELU, 1, SIGMOID),  # the MCRD document's CNN, conv-local-dense
    (48, (32, 16), RELU, 2, SIGMOID),
    (32, (24, 48), RELU, 1, IDENTITY),  # a third layer wider than the first two
    (40, (18, 7), RELU, 2, SIGMOID),  # widths that are not multiples of eight (the outputs' one-chain dot product)
]


def torch_mlp(first, second, hidden, outputs, seed):
    torch.manual_seed(seed)
    layers = [torch.nn.Linear(128, first), ACTIVATIONS[hidden]()]
    widths = [first, *(second if isinstance(second, tuple) else (second,) if second else ())]
    for before, after in zip(widths, widths[1:]):
        layers += [torch.nn.Linear(before, after), ACTIVATIONS[hidden]()]
    layers.append(torch.nn.Linear(widths[-1], outputs))
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
    middle = weights[1] if len(weights) >= 3 else (None, None)
    third = weights[2] if len(weights) == 4 else (None, None)
    return mlp(
        np.ascontiguousarray(weights[0][0].T),
        np.ascontiguousarray(weights[0][1]),
        np.ascontiguousarray(weights[-1][0]),
        np.ascontiguousarray(weights[-1][1]),
        w_mid=middle[0],
        b_mid=middle[1],
        w_mid2=third[0],
        b_mid2=third[1],
        hidden_activation=hidden,
        output_activation=output_activation,
        dtype=dtype,
    )


@pytest.mark.parametrize("first, second, hidden, outputs, output_activation", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_nets_of_every_shape_equal_their_torch_forward_pass(
    first, second, hidden, outputs, output_activation, dtype
):
    size = sum(second) if isinstance(second, tuple) else second
    boards = random_boards(150, seed=first + size)
    module = torch_mlp(first, second, hidden, outputs, seed=first * 7 + size)
    expected = torch_value(module, boards, outputs, output_activation)
    assert np.ptp(expected) > 0.01
    evaluator = door_mlp(module, hidden, output_activation, dtype)
    assert evaluator.dtype == dtype
    np.testing.assert_allclose(door_values(evaluator, boards), expected, atol=TOLERANCE, rtol=0)


def pattern_net(hidden, middle, seed, units=0):
    """An outcome net with pattern inputs (feeding the first ``units`` hidden units, 0: all)
    and every weight random (its block rows too)."""
    from checkers_agents.outcome_net import net

    module = net.value_net(hidden, middle, seed=seed, patterns=True, pattern_units=units)
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return module


@pytest.mark.parametrize("units", [0, 24])
def test_a_net_with_pattern_inputs_equals_its_torch_forward_pass(units):
    from checkers_agents.outcome_net import net

    boards = random_boards(300, seed=8)
    module = pattern_net(64, 16, seed=2, units=units)
    with torch.no_grad():
        z = module(*net.batch_inputs(*columns(boards), True)).reshape(-1).double()
        without = (
            module.output(
                torch.relu(module.middle(torch.relu(module.hidden(torch.from_numpy(input_planes(*columns(boards)))))))
            )
            .reshape(-1)
            .double()
        )
    expected = (2 * torch.sigmoid(z) - 1).numpy()
    assert np.abs(expected - (2 * torch.sigmoid(without) - 1).numpy()).mean() > 0.01  # the blocks count
    evaluator = net.fold(net.tensors_of(module))
    assert evaluator.w_in.shape == (128, 64) and evaluator.w_blocks.shape == (21 * 625, units or 64)
    np.testing.assert_allclose(door_values(evaluator, boards), expected, atol=TOLERANCE, rtol=0)


def phase_net(hidden, middle, phases, seed):
    """An outcome net of ``phases`` phases with every weight random."""
    from checkers_agents.outcome_net import net

    module = net.value_net(hidden, middle, seed=seed, phases=phases)
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return module


def one_phase(tensors, phase, middle):
    """The tensors of a one-phase net made of a phase net's first layer and the later layers
    of ``phase``."""
    rows = slice(phase * middle, (phase + 1) * middle)
    one = {"hidden.weight": tensors["hidden.weight"], "hidden.bias": tensors["hidden.bias"]}
    if middle:
        one |= {"middle.weight": tensors["middle.weight"][rows], "middle.bias": tensors["middle.bias"][rows]}
    return one | {"output.weight": tensors["output.weight"][[phase]], "output.bias": tensors["output.bias"][[phase]]}


@pytest.mark.parametrize("middle", [0, 16])
def test_a_net_with_phases_goes_through_the_later_layers_of_each_positions_phase(middle):
    from checkers_agents.outcome_net import net
    from checkers_agents.search_parts.net_layers import phase_table

    boards = random_boards(300, seed=9) + [Board.from_fen(fen) for fen in SEARCH_FENS]
    phases = phase_table(4)[[bin(b.black | b.white).count("1") for b in boards]]
    assert set(phases) == {0, 1, 2, 3}
    module = phase_net(64, middle, 4, seed=3)
    tensors = net.tensors_of(module)
    # Each position through the one-phase net of its own phase's layers, built apart.
    expected = np.zeros(len(boards))
    for phase in range(4):
        single = net.value_net(64, middle)
        single.load_state_dict({k: torch.from_numpy(v) for k, v in one_phase(tensors, phase, middle).items()})
        with torch.no_grad():
            z = single(torch.from_numpy(input_planes(*columns(np.array(boards)[phases == phase])))).reshape(-1)
        expected[phases == phase] = (2 * torch.sigmoid(z.double()) - 1).numpy()
    with torch.no_grad():
        z = module(torch.from_numpy(input_planes(*columns(boards)))).reshape(-1).double()
    np.testing.assert_allclose((2 * torch.sigmoid(z) - 1).numpy(), expected, atol=1e-6, rtol=0)
    np.testing.assert_allclose(door_values(net.fold(tensors), boards), expected, atol=TOLERANCE, rtol=0)
    # The phases' layers differ: the first phase's for every position give other values.
    first = net.fold(net.with_phases(one_phase(tensors, 0, middle), 4))
    assert np.abs(door_values(first, boards) - expected).max() > 0.05


def door_net(name):
    """The evaluator of a zoo net or of a random net (``random-512x32``, ``patterns-64x16``,
    ``patterns-64x16-narrow``: block rows feeding 24 of the 64 units, ``phases-64x16``: 4
    phases)."""
    if name.startswith("random"):
        return door_mlp(torch_mlp(512, 32, RELU, 1, seed=3), RELU, SIGMOID, np.float32)
    if name.startswith("phases"):
        from checkers_agents.outcome_net import net

        return net.fold(net.tensors_of(phase_net(64, 16, 4, seed=6)))
    if name.startswith("patterns"):
        from checkers_agents.outcome_net import net

        return net.fold(net.tensors_of(pattern_net(64, 16, seed=5, units=24 if name.endswith("narrow") else 0)))
    return make_evaluator(name)


def fresh_sums(evaluator, board: Board) -> np.ndarray:
    """Both views' sums of the squares, fresh, as the search's root has them."""
    out = np.zeros((1, 2, evaluator.w_in.shape[1]), evaluator.dtype)
    root_sums(
        out, board.black, board.white, board.kings, evaluator.w_in, evaluator.b_in, np.zeros(MAX_ACTIVE, np.int64)
    )
    return out[0]


def leaf_sums_of(evaluator, board: Board, kept: np.ndarray) -> np.ndarray:
    """A leaf's sums for its side to move from the kept sums of its squares, as the search forms them."""
    black_to_move = board.turn == BLACK
    own, opponent = (board.black, board.white) if black_to_move else (board.white, board.black)
    sums = kept[0 if black_to_move else 1].copy()
    block_sums(sums, evaluator.w_blocks, own, opponent, board.kings, black_to_move)
    return sums


def whole_sums(evaluator, board: Board) -> np.ndarray:
    """The side to move's sums of every input (squares and blocks), fresh, in numpy: the
    bias plus the rows of the active inputs (``encoding``'s definitions), the block rows
    padded with zeros to the first layer's width. Exact in any order on the grid of
    ``exact_first_layer``."""
    black_to_move = board.turn == BLACK
    own, opponent = (board.black, board.white) if black_to_move else (board.white, board.black)
    active = np.zeros(MAX_ACTIVE + 21, np.int64)
    n = active_inputs(own, opponent, board.kings, black_to_move, active)
    rows = np.zeros((NUM_INPUTS + PATTERN_INPUTS, evaluator.w_in.shape[1]), evaluator.dtype)
    rows[:NUM_INPUTS] = evaluator.w_in
    if evaluator.w_blocks.shape[0]:
        n = pattern_inputs(own, opponent, board.kings, black_to_move, active, n)
        rows[NUM_INPUTS:, : evaluator.w_blocks.shape[1]] = evaluator.w_blocks
    return (evaluator.b_in + rows[active[:n]].sum(axis=0)).astype(evaluator.dtype)


def moved_sums(stack, ply, evaluator, board: Board, child: Board, move) -> None:
    """The search's update of both views' sums of the squares for ``move``."""
    frm, to, captured, _, _ = move_to_row(move)
    child_sums(stack, ply, evaluator.w_in, board.turn == BLACK, frm, to, captured, board.kings, child.kings)


@pytest.mark.parametrize(
    "name", ["outcome-net", "mcrd-net", "random-512x32", "patterns-64x16", "patterns-64x16-narrow"]
)
def test_sums_updated_move_by_move_equal_fresh_sums_after_every_make_and_unmake(name):
    evaluator = door_net(name)
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
                moved_sums(stack, ply, evaluator, board, child, move)
                np.testing.assert_array_equal(stack[ply], fresh_sums(evaluator, child))
                np.testing.assert_array_equal(leaf_sums_of(evaluator, child, stack[ply]), whole_sums(evaluator, child))
                np.testing.assert_array_equal(stack[ply - 1], fresh_sums(evaluator, board))  # unmade: untouched
                captures += move.captured != 0
                king_captures += (move.captured & board.kings) != 0
                crownings += (child.kings & ~board.kings & (child.black | child.white)) != 0 and move.captured == 0
            move = moves[int(rng.integers(len(moves)))]
            game.play(move)
            child = board.play(move)
            moved_sums(stack, ply, evaluator, board, child, move)
            boards.append(child)
    assert captures > 50 and king_captures > 0 and crownings > 0


SEARCH_FENS = (
    "B:W21-32:B1-12",
    "B:W12,21,23,25,27,28,30,31,32:B3,4,5,6,7,9,10,14,20",
    "W:W18,20,21,22,25,28,31:B1,2,9,11,12,14",
    "B:WK2,13,17,25,30:B5,6,9,12,K23",
    "W:W9,K14,19,22,27,30:B6,7,K16,18,26",
)


@pytest.mark.parametrize(
    "name", list(ZOO_NETS) + ["random-512x32", "patterns-64x16", "patterns-64x16-narrow", "phases-64x16"]
)
def test_searches_with_sums_updated_move_by_move_equal_searches_with_fresh_sums(name):
    evaluator = door_net(name)
    incremental, fresh = Searcher(evaluator, incremental=True), Searcher(evaluator, incremental=False)
    assert incremental.incremental and not fresh.incremental
    depth = 4 if evaluator.width >= 256 else 6
    for fen in SEARCH_FENS:
        board = Board.from_fen(fen)
        a, b = incremental.search(board, depth), fresh.search(board, depth)
        assert (a.value, a.nodes, a.best_moves) == (b.value, b.nodes, b.best_moves), fen
        np.testing.assert_array_equal(a.root_scores, b.root_scores)


@pytest.mark.parametrize("name", ["outcome-net", "phases-64x16", "patterns-64x16"])
@pytest.mark.parametrize(
    "pruning", [{}, {"table_cutoffs": True, "pvs": True, "probcut": True, "etc": True, "iid": True}]
)
def test_searches_with_the_leaf_cache_equal_searches_without_it(name, pruning):
    """Leaf values come from the cache only for the position they were stored for, in the
    same search: one searcher after another search, and a second search of the same
    position, find the same values, nodes and ties as a searcher without the cache."""
    evaluator = door_net(name)
    cached, plain = Searcher(evaluator, **pruning), Searcher(evaluator, leaf_bits=0, **pruning)
    assert cached.table_bundle.leaves.shape[0] > 0 and plain.table_bundle.leaves.shape[0] == 0
    for fen in (*SEARCH_FENS, SEARCH_FENS[1]):
        board = Board.from_fen(fen)
        a, b = cached.search(board, 6), plain.search(board, 6)
        assert (a.value, a.nodes, a.best_moves) == (b.value, b.nodes, b.best_moves), fen
        np.testing.assert_array_equal(a.root_scores, b.root_scores)
    assert np.count_nonzero(cached.table_bundle.leaves[:, 0]) > 100  # it was filled


def test_a_search_takes_its_leaf_values_from_the_cache():
    """The cache is read, not only written: of two searchers that searched alike, the one
    whose kept leaf values are turned over and given the next search's generation finds
    other values in that search."""
    board = Board.from_fen(SEARCH_FENS[1])
    turned, honest = Searcher(door_net("outcome-net")), Searcher(door_net("outcome-net"))
    for searcher in (turned, honest):
        searcher.search(board, 6)
    leaves, kept = turned.table_bundle.leaves, turned.table_bundle.leaves[:, 0] != 0
    leaves[kept, 0] = (leaves[kept, 0] & ~255) | (turned.generation % 255 + 1)
    turned.table_bundle.leaf_values[kept, 1] *= -1
    assert turned.search(board, 6).value != honest.search(board, 6).value


def test_float32_nets_update_their_sums_by_default_and_float64_nets_sum_afresh():
    from checkers_agents.td_minimax import Net

    assert Searcher(make_evaluator("outcome-net")).incremental
    assert Searcher(door_net("patterns-64x16")).incremental
    assert not Searcher(Net.initial(seed=1).evaluator()).incremental
    assert memory_for(make_evaluator("outcome-net"), incremental=False).accumulators is None


def test_a_memory_without_kept_sums_holds_none_so_the_kernel_compiles_without_them():
    """Fresh sums are a property of the memory's type (None, not an array of no rows), in
    Python and compiled into numba (how td-minimax's training game makes its memory): the
    kernel numba compiles for it has none of the kept sums' code."""
    import numba

    from checkers_agents.alphabeta.stack import MAX_PLY, flat_memory

    @numba.njit
    def fresh_and_kept(width, first_width):
        return flat_memory(width).accumulators is None, flat_memory(width, np.float32, first_width).accumulators.shape

    assert flat_memory(8).accumulators is None
    assert memory_for(Searcher(make_evaluator("material")).evaluator).accumulators is None
    assert flat_memory(8, np.float32, 4).accumulators.shape == (MAX_PLY, 2, 4)
    assert fresh_and_kept(8, 4) == (True, (MAX_PLY, 2, 4))


def test_float64_weights_are_shared_and_float32_weights_are_copies():
    from checkers_agents.td_minimax import Net

    net = Net.initial(seed=1)
    assert net.evaluator().w_in is net.w1
    copy = net.evaluator(np.float32)
    assert copy.w_in.dtype == np.float32 and copy.w_in.base is not net.w1


BAD_MLPS = [
    (dict(dtype=np.float16), "dtype is np.float64 or np.float32"),
    (dict(w_in=np.zeros((127, 8))), "w_in must have 128 rows"),
    (dict(w_in=np.zeros((128 + 21 * 625, 8))), "w_in must have 128 rows"),
    (dict(w_blocks=np.zeros((21 * 625, 8))), "pattern inputs .* need dtype np.float32"),
    (dict(w_blocks=np.zeros((625, 8)), dtype=np.float32), r"w_blocks must be \[13125, K\] with 0 < K <= 8"),
    (dict(w_blocks=np.zeros((21 * 625, 9)), dtype=np.float32), "w_blocks must be"),
    (dict(b_in=np.zeros(7)), "b_in must have shape"),
    (dict(w_mid=np.zeros((4, 8))), "give both w_mid and b_mid"),
    (dict(w_mid=np.zeros((4, 9)), b_mid=np.zeros(4)), "w_mid must be"),
    (dict(w_mid2=np.zeros((4, 8)), b_mid2=np.zeros(4)), "needs a second"),
    (dict(w_mid=np.zeros((4, 8)), b_mid=np.zeros(4), w_mid2=np.zeros((2, 4))), "give both w_mid2 and b_mid2"),
    (dict(w_mid=np.zeros((4, 8)), b_mid=np.zeros(4), w_mid2=np.zeros((2, 5)), b_mid2=np.zeros(2)), "w_mid2 must be"),
    (dict(w_mid=np.zeros((4, 8)), b_mid=np.zeros(4), w_mid2=np.zeros((2, 4)), b_mid2=np.zeros(2)), "w_out must be"),
    (dict(w_out=np.zeros((3, 8)), b_out=np.zeros(3)), "1 or 2 outputs"),
    (dict(w_out=np.zeros((1, 9))), "w_out must be"),
    (dict(w_in=np.zeros((128, 8), np.float32)), "w_in must be a C-contiguous float64 array"),
    (dict(b_out=np.zeros(2)), "b_out"),
    (dict(phases=0), "1 to 19 phases"),
    (dict(phases=2), r"2 phases has one output each, w_out \[2, H\]"),
    (dict(phases=2, w_mid=np.zeros((5, 8)), b_mid=np.zeros(5)), "5 rows are not 2 phases' equal sets"),
    (
        dict(phases=2, w_mid=np.zeros((4, 8)), b_mid=np.zeros(4), w_mid2=np.zeros((2, 4)), b_mid2=np.zeros(2)),
        "no third",
    ),
]


@pytest.mark.parametrize("change, message", BAD_MLPS)
def test_a_bad_net_is_refused_with_one_line_naming_what_is_wrong(change, message):
    arrays = dict(w_in=np.zeros((128, 8)), b_in=np.zeros(8), w_out=np.zeros((1, 8)), b_out=np.zeros(1))
    arrays.update(change)
    with pytest.raises(ValueError, match=message):
        mlp(**arrays)


def test_sums_updated_move_by_move_need_a_float32_net():
    from checkers_agents.td_minimax import Net

    with pytest.raises(ValueError, match="need a float32 net"):
        Searcher(Net.initial(seed=1).evaluator(), incremental=True)
