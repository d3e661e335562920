"""The MCRD document's CNN (``checkers_agents.mcrd.net``): the folded net's value equals the
torch forward pass, its files fail with one clear line, and the spec plays end to end."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from checkers_agents.alphabeta import evaluator_names, make_evaluator  # noqa: E402
from checkers_agents.mcrd import net  # noqa: E402
from checkers_agents.search_parts.evaluators import evaluate  # noqa: E402
from checkers_env import Game, WeightsError, make_agent  # noqa: E402
from checkers_env.board import BLACK  # noqa: E402
from checkers_env.encoding import board_planes  # noqa: E402


def random_boards(count: int, seed: int = 1):
    """Positions of uniformly random games (both colours to move, kings included)."""
    rng = np.random.default_rng(seed)
    boards = []
    while len(boards) < count:
        game = Game()
        while not game.is_over() and len(boards) < count:
            boards.append(game.board)
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
    return boards


def torch_values(cnn, boards) -> np.ndarray:
    columns = [np.array(c, np.int64) for c in zip(*((b.black, b.white, b.kings, b.turn == BLACK) for b in boards))]
    with torch.no_grad():
        return cnn(torch.from_numpy(board_planes(*columns))).numpy().astype(np.float64)


def door_values(evaluator, boards) -> np.ndarray:
    return np.array([evaluate(evaluator, *b.mover_bitboards, b.kings, b.turn == BLACK) for b in boards])


@pytest.mark.parametrize(
    "architecture, channels, hidden",
    [
        ("conv-dense", 8, 32),
        ("conv-dense", 3, 5),
        ("conv-local", 8, 8),
        ("conv-local", 3, 5),
        ("conv-local-dense", 8, 8),
        ("conv-local-dense", 3, 5),
    ],
)
def test_door_value_is_the_torch_forward_pass(architecture, channels, hidden):
    boards = random_boards(400)
    assert {b.turn for b in boards} == {0, 1} and any(b.kings for b in boards)
    cnn = net.untrained(seed=7, channels=channels, hidden=hidden, architecture=architecture)
    noise = torch.Generator().manual_seed(11)  # seeded: the same net on every run
    with torch.no_grad():  # biases away from zero, so every term of the fold is exercised
        for p in cnn.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=noise, dtype=p.dtype))
    expected = torch_values(cnn, boards)
    got = door_values(cnn.to_evaluator(), boards)
    assert np.abs(expected).max() > 0.05  # not a degenerate net
    np.testing.assert_allclose(got, expected, atol=2e-5, rtol=0)


def test_save_load_round_trip_and_metadata(tmp_path):
    cnn = net.untrained(seed=3, channels=4, hidden=6)
    path = tmp_path / "w.safetensors"
    cnn.save(path)
    again = net.CNN.load(path)
    assert (again.channels, again.hidden_units) == (4, 6)
    boards = random_boards(50)
    np.testing.assert_array_equal(torch_values(again, boards), torch_values(cnn, boards))
    np.testing.assert_allclose(door_values(net.load_evaluator(str(path)), boards), torch_values(cnn, boards), atol=2e-5)
    (size,) = struct.unpack("<Q", path.read_bytes()[:8])
    meta = json.loads(path.read_bytes()[8 : 8 + size])["__metadata__"]
    assert meta["kind"] == "mcrd-net" and meta["format"] == "1" and (meta["channels"], meta["hidden"]) == ("4", "6")
    assert meta["architecture"] == "conv-dense"


def test_the_locally_connected_layer_sees_a_square_and_its_diagonal_neighbours_only():
    # Each dark square's taps: itself, then the dark squares that touch it diagonally (none
    # off the board).
    for square, taps in enumerate(net.DARK_NEIGHBOURS):
        row, column = divmod(int(net.DARK_CELLS[square]), 8)
        assert taps[0] == square
        for (dy, dx), neighbour in zip(net.DARK_TAPS[1:], taps[1:]):
            inside = 0 <= row + dy < 8 and 0 <= column + dx < 8
            assert (neighbour < 32) == inside
            if inside:
                assert net.DARK_CELLS[neighbour] == (row + dy) * 8 + column + dx
    cells = [int(c) for c in net.DARK_CELLS]
    assert len(set(cells)) == 32 and len({(c // 8 + c % 8) % 2 for c in cells}) == 1  # one colour of square


@pytest.mark.parametrize("architecture", ["conv-local", "conv-local-dense"])
def test_local_round_trip_and_old_files_without_an_architecture_load_as_conv_dense(tmp_path, architecture):
    from safetensors.numpy import save

    cnn = net.untrained(seed=4, channels=3, hidden=2, architecture=architecture)
    path = tmp_path / f"{architecture}.safetensors"
    cnn.save(path)
    again = net.CNN.load(path)
    assert (again.architecture, again.channels, again.hidden_units) == (architecture, 3, 2)
    boards = random_boards(50)
    np.testing.assert_array_equal(torch_values(again, boards), torch_values(cnn, boards))
    np.testing.assert_allclose(door_values(net.load_evaluator(str(path)), boards), torch_values(cnn, boards), atol=2e-5)
    old = net.untrained(seed=5, channels=2, hidden=3)
    old_path = tmp_path / "old.safetensors"  # the metadata of the files written before architectures
    old_path.write_bytes(
        save(old.tensors(), metadata={"kind": "mcrd-net", "format": "1", "channels": "2", "hidden": "3"})
    )
    assert net.CNN.load(old_path).architecture == "conv-dense"
    np.testing.assert_allclose(
        door_values(net.load_evaluator(str(old_path)), boards), torch_values(old, boards), atol=2e-5
    )


def test_an_unknown_architecture_is_refused_by_name():
    with pytest.raises(
        ValueError, match="architecture must be one of conv-dense, conv-local, conv-local-dense, got 'conv-deep'"
    ):
        net.untrained(seed=1, architecture="conv-deep")


def _bad_files(tmp_path):
    from safetensors.numpy import save

    good = net.untrained(seed=1, channels=2, hidden=3).tensors()
    files = {}
    files["missing"] = tmp_path / "nothing.safetensors"
    corrupt = tmp_path / "corrupt.safetensors"
    corrupt.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
    files["corrupt"] = corrupt
    truncated = tmp_path / "truncated.safetensors"
    net.save_tensors(truncated, good)
    truncated.write_bytes(truncated.read_bytes()[:-40])
    files["truncated"] = truncated
    other = tmp_path / "td.safetensors"
    other.write_bytes(save({"hidden.weight": np.zeros((40, 128), np.float32)}, metadata={"format": "td-minimax-v1"}))
    files["wrong kind"] = other
    misfit = tmp_path / "misfit.safetensors"
    meta = {"kind": "mcrd-net", "format": "1", "channels": "2", "hidden": "4"}  # file has 3 hidden units
    misfit.write_bytes(save(good, metadata=meta))
    files["shape mismatch"] = misfit
    future = tmp_path / "future.safetensors"
    future.write_bytes(save(good, metadata={**meta, "hidden": "3", "format": "99"}))
    files["format"] = future
    unknown = tmp_path / "unknown-architecture.safetensors"
    unknown.write_bytes(save(good, metadata={**meta, "hidden": "3", "architecture": "transformer"}))
    files["unknown architecture"] = unknown
    crossed = tmp_path / "crossed.safetensors"  # conv-dense tensors under conv-local metadata
    crossed.write_bytes(save(good, metadata={**meta, "hidden": "3", "architecture": "conv-local"}))
    files["architecture mismatch"] = crossed
    nan = dict(good)
    nan["hidden.bias"] = np.full(3, np.nan, np.float32)
    nan_path = tmp_path / "nan.safetensors"
    net.save_tensors(nan_path, nan)
    files["nan"] = nan_path
    return files


def test_bad_weight_files_each_give_one_clear_error_naming_the_file(tmp_path):
    for what, path in _bad_files(tmp_path).items():
        for load in (net.load_evaluator, net.CNN.load, lambda p: make_agent(f"alphabeta:eval=mcrd-net,weights={p}")):
            with pytest.raises(WeightsError) as info:
                load(str(path))
            message = str(info.value)
            assert str(path) in message and "\n" not in message, (what, message)


def test_zoo_without_a_trained_net_says_how_to_get_one(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path))
    with pytest.raises(WeightsError, match="no trained mcrd-net.*untrained"):
        make_agent("alphabeta:eval=mcrd-net,weights=zoo,depth=2")


def test_spec_end_to_end_with_an_untrained_net():
    assert "mcrd-net" in evaluator_names()
    agent = make_agent("alphabeta:eval=mcrd-net,weights=untrained,depth=4,seed=2")
    assert "weights=untrained" in str(agent)
    game = Game()
    for _ in range(6):
        game.play(agent.select_move(game))
    assert agent.last_search.depth == 4
    # ``untrained`` is seeded: the same seed, the same net
    boards = random_boards(20)
    a, b = make_evaluator("mcrd-net", "untrained", 5), make_evaluator("mcrd-net", "untrained", 5)
    np.testing.assert_array_equal(door_values(a, boards), door_values(b, boards))
    assert not np.array_equal(door_values(a, boards), door_values(make_evaluator("mcrd-net", "untrained", 6), boards))
