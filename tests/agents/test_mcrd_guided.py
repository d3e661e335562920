"""Guided descents (``MCRDAgent(guide=..., guide_rate=...)``): unguided they are plain MCRD to
the random number; fully guided, every move is the net's choice as the torch net computes it."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from checkers_env import Board, Game, UnknownAgentError, WeightsError, make_agent  # noqa: E402
from checkers_env.bitboard import apply_move, count_moves, nth_move  # noqa: E402
from checkers_env.encoding import board_planes  # noqa: E402

from checkers_agents.mcrd import MCRDAgent, net  # noqa: E402
from checkers_agents.alphabeta.negamax import Position  # noqa: E402
from checkers_agents.mcrd.cpu import Guide, KingHistory, PlayoutRules, descend, empty_net, guided_descend  # noqa: E402
from checkers_agents.mcrd.playout import MAX_REDRAWS, is_king_cycle  # noqa: E402
from checkers_agents.mcrd.root import cycle_context  # noqa: E402

FENS = [
    Board().fen(),
    "W:W21,22,23,24,25,26,27,28,30,31:B1,2,3,5,6,7,9,10,11,14",
    "B:WK14,K23,30:BK6,K11,5",
    "B:W17,K18,27:B5,K19,K21,K31",
    "W:WK14,K23:BK6,K11",
]


def position(fen: str):
    board = Board.from_fen(fen)
    mover, opponent = board.mover_bitboards
    return board, (mover, opponent, board.kings, board.turn == 0)


@pytest.mark.parametrize("fen", FENS)
def test_guide_rate_zero_draws_exactly_what_plain_mcrd_draws(fen):
    board, _ = position(fen)
    if len(board.legal_moves()) < 2:
        pytest.skip("forced")
    plain = MCRDAgent(playouts=600, backend="cpu", launch=256, seed=11).search(board)
    guided = MCRDAgent(playouts=600, backend="cpu", launch=256, seed=11, guide="untrained", guide_rate=0.0).search(board)
    np.testing.assert_array_equal(plain.wins, guided.wins)
    np.testing.assert_array_equal(plain.playouts, guided.playouts)
    np.testing.assert_array_equal(plain.draws, guided.draws)
    assert (plain.plies, plain.skips, plain.capped) == (guided.plies, guided.skips, guided.capped)


@pytest.mark.parametrize("fen", FENS)
def test_kernel_with_rate_zero_returns_plain_descents_and_streams(fen):
    _, pos = position(fen)
    context = cycle_context(*position(fen)[:1], None)
    evaluator = net.untrained(1, 2, 3).to_evaluator()
    scratch = (np.empty(32, np.int64), np.empty(2 * evaluator.width))
    for state in (1, 99, 12345, 2**40 + 7):
        expected = descend(Position(*pos), KingHistory(*context), PlayoutRules(150, 1.0, True), state)
        got = guided_descend(Position(*pos), KingHistory(*context), PlayoutRules(150, 1.0, True), state,
                             Guide(0.0, evaluator.net, evaluator.net_functions, evaluator.width), *scratch,
                             np.zeros(0, np.int64))
        assert got == expected


def material_net():
    """A CNN whose value is ``tanh(0.3 own pieces - 0.3 opponent pieces)``:
    its guided move is the one that leaves the mover the best material balance."""
    cnn = net.untrained(0, channels=2, hidden=2)
    with torch.no_grad():
        for p in cnn.parameters():
            p.zero_()
        cnn.conv.weight[0, 0, 1, 1] = 1.0  # own pieces
        cnn.conv.weight[1, 1, 1, 1] = 1.0  # opponent pieces
        cnn.hidden.weight[0, :64] = 1.0
        cnn.hidden.weight[1, 64:] = 1.0
        cnn.output.weight[0, 0] = 0.3
        cnn.output.weight[0, 1] = -0.3
    return cnn


def replay(cnn, fen, record, plies, cycle_check):
    _, (mover, opponent, kings, black) = position(fen)
    board, _ = position(fen)
    pk, pmk, gk, gmk = cycle_context(board, None)
    for ply in range(plies):
        legal = count_moves(mover, opponent, kings, black)
        children = []
        for j in range(legal):
            frm, to, captured, _, _ = nth_move(mover, opponent, kings, black, j)
            children.append(apply_move(mover, opponent, kings, black, frm, to, captured))
        allowed = [
            j for j, (m, o, kk) in enumerate(children)
            if not (cycle_check and is_king_cycle(kings, m, kk, pk, gk, gmk))
        ] or list(range(legal))
        wins = [j for j in allowed if count_moves(children[j][1], children[j][0], children[j][2], not black) == 0]
        k = int(record[ply])
        if wins:
            assert k == wins[0]
        else:
            # child (parent mover, opponent, kings), the opponent to move; board_planes takes black, white
            blacks = [c[0] if black else c[1] for c in (children[j] for j in allowed)]
            whites = [c[1] if black else c[0] for c in (children[j] for j in allowed)]
            arrays = (np.array(blacks, np.int64), np.array(whites, np.int64),
                      np.array([children[j][2] for j in allowed], np.int64),
                      np.full(len(allowed), int(not black), np.int64))
            with torch.no_grad():
                values = cnn(torch.from_numpy(board_planes(*arrays))).numpy().astype(np.float64)
            best = values.min()
            assert k in allowed, (fen, ply, k, allowed)
            assert values[allowed.index(k)] <= best + 1e-5, (fen, ply, k, allowed, values)
            clear = [j for j, v in zip(allowed, values) if v <= best + 1e-5]
            if len(clear) == 1:
                assert k == clear[0]
        m, o, kk = children[k]
        # the history shift of play_draw: the mover's move becomes the parent ply
        pk, pmk, gk, gmk = kings, mover & kings, pk, pmk
        mover, opponent, kings, black = o, m, kk, not black


@pytest.mark.parametrize("which", ["untrained", "material"])
def test_fully_guided_descents_play_the_torch_nets_argmin(which):
    cnn = material_net() if which == "material" else net.untrained(seed=4, channels=4, hidden=8)
    evaluator = cnn.to_evaluator()
    scratch = (np.empty(32, np.int64), np.empty(2 * evaluator.width))
    checked = 0
    for fen in FENS:
        board, pos = position(fen)
        context = cycle_context(board, None)
        for cycle_check in (True, False):
            record = np.full(40, -1, np.int64)
            _, _, plies, skips, _ = guided_descend(
                Position(*pos), KingHistory(*context), PlayoutRules(40, 1.0, cycle_check), 7,
                Guide(1.0, evaluator.net, evaluator.net_functions, evaluator.width), *scratch, record,
            )
            assert skips == 0  # a guided ply is never skipped
            replay(cnn, fen, record, min(plies, 40), cycle_check)
            checked += min(plies, 40)
    assert checked > 60


def test_material_guide_prefers_the_bigger_capture():
    """A known preference: the material net takes the capture that wins more material."""
    cnn = material_net()
    evaluator = cnn.to_evaluator()
    fen = "W:W20,21,22,27,28,29,30,31,32:B1,2,3,4,8,10,12,16,17"  # captures of 1, 1 and 2 pieces
    board, pos = position(fen)
    record = np.full(1, -1, np.int64)
    guided_descend(Position(*pos), KingHistory(*cycle_context(board, None)), PlayoutRules(1, 1.0, True), 3,
                   Guide(1.0, evaluator.net, evaluator.net_functions, evaluator.width),
                   np.empty(32, np.int64), np.empty(2 * evaluator.width), record)
    legal = count_moves(*pos)
    taken = [bin(nth_move(*pos, j)[2]).count("1") for j in range(legal)]
    assert legal >= 2 and len(set(taken)) > 1, taken
    assert taken[record[0]] == max(taken) and record[0] > 0  # not simply the first move


def test_agent_spec_names_and_errors(tmp_path):
    agent = make_agent("mcrd:guide=untrained,guide_rate=0.5,playouts=64,seed=3")
    assert "guide=untrained" in str(agent)
    assert agent.select_move(Game()) in Game().legal_moves()
    assert agent.backend_used == "cpu"
    with pytest.raises(ValueError, match="CPU backend only"):
        MCRDAgent(guide="untrained", backend="cuda")
    with pytest.raises(ValueError, match="guide_rate"):
        MCRDAgent(guide="untrained", guide_rate=1.5)
    with pytest.raises(UnknownAgentError, match="no zoo entry 'random'"):
        MCRDAgent(guide="zoo:random")
    with pytest.raises(ValueError, match="zoo:mcrd: that agent has no net"):
        MCRDAgent(guide="zoo:mcrd")
    missing = tmp_path / "none.safetensors"
    with pytest.raises(WeightsError, match=str(missing)):
        make_agent(f"mcrd:guide={missing}")
    path = tmp_path / "g.safetensors"
    net.untrained(2, 2, 3).save(path)
    played = make_agent(f"mcrd:guide={path},guide_rate=1,playouts=32,seed=1").search(Game())
    assert played.playouts.sum() > 0 and played.plies > 0


@pytest.mark.parametrize("name", ["td-minimax", "mcrd-net", "mcrd-net-interpolated"])
def test_zoo_nets_guide_by_their_cards(name):
    from checkers_agents.zoo import load_card

    result = make_agent(f"mcrd:guide=zoo:{name},guide_rate=1,playouts=32,seed=1").search(Game())
    assert result.playouts.sum() > 0
    # The guide is the card's net: the same evaluator as the zoo agent's own.
    card, folder = load_card(name)
    guide = MCRDAgent(guide=f"zoo:{name}").guide_evaluator
    if card["kind"] == "alphabeta":
        np.testing.assert_array_equal(guide.w_in, make_agent(f"zoo:{name}").evaluator.w_in)


def test_guided_searches_launch_small_batches_so_a_clock_can_stop_them():
    from checkers_agents.mcrd.agent import GUIDED_LAUNCH

    board = Board()
    guided = MCRDAgent(playouts=2 * GUIDED_LAUNCH, backend="cpu", seed=1, guide="untrained").search(board)
    assert guided.launches == 2 and guided.total_playouts <= 2 * GUIDED_LAUNCH
    # Unguided (rate 0) keeps plain MCRD's launches, so it stays plain MCRD to the random number.
    plain = MCRDAgent(playouts=600, backend="cpu", seed=11).search(board)
    unguided = MCRDAgent(playouts=600, backend="cpu", seed=11, guide="untrained", guide_rate=0.0).search(board)
    assert unguided.launches == plain.launches == 1
    np.testing.assert_array_equal(plain.wins, unguided.wins)
