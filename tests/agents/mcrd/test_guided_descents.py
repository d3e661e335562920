"""Guided descents (``MCRDAgent(guide=..., guide_rate=..., guide_plies=..., guide_sample=...,
guide_temperature=...)``): unguided they are plain MCRD to the random number; fully guided at
temperature 0, every move is the net's choice as the torch net computes it; at a temperature
the choice follows the softmax of the values; forced plies and plies past ``guide_plies`` spend
no evaluation."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from checkers_agents.mcrd import MCRDAgent, net  # noqa: E402
from checkers_agents.mcrd.cpu import KingHistory, PlayoutRules, descend  # noqa: E402
from checkers_agents.mcrd.guided import Guide, guided_descend  # noqa: E402
from checkers_agents.mcrd.playout import is_king_cycle  # noqa: E402
from checkers_agents.mcrd.root import cycle_context  # noqa: E402
from checkers_agents.search_parts.position import Position  # noqa: E402
from checkers_env import Board, Game, UnknownAgentError, WeightsError, make_agent  # noqa: E402
from checkers_env.bitboard import apply_move, count_moves, nth_move  # noqa: E402
from checkers_env.encoding import board_planes  # noqa: E402

FENS = [
    Board().fen(),
    "W:W21,22,23,24,25,26,27,28,30,31:B1,2,3,5,6,7,9,10,11,14",
    "B:WK14,K23,30:BK6,K11,5",
    "B:W17,K18,27:B5,K19,K21,K31",
    "W:WK14,K23:BK6,K11",
]


def guide_of(evaluator, rate=1.0, plies=0, sample=0, temperature=0.0, skip_forced=True) -> Guide:
    """A :data:`Guide` for ``evaluator``: by default every ply, every child, argmax."""
    return Guide(rate, plies, sample, temperature, skip_forced, evaluator.net, evaluator.net_functions, evaluator.width)


def position(fen: str):
    board = Board.from_fen(fen)
    mover, opponent = board.mover_bitboards
    return board, (mover, opponent, board.kings, board.turn == 0)


@pytest.mark.parametrize("fen", FENS)
@pytest.mark.parametrize(
    "options", [{}, {"guide_plies": 3, "guide_sample": 2, "guide_temperature": 0.3, "guide_skip_forced": False}]
)
def test_guide_rate_zero_draws_exactly_what_plain_mcrd_draws(fen, options):
    board, _ = position(fen)
    if len(board.legal_moves()) < 2:
        pytest.skip("forced")
    plain = MCRDAgent(playouts=600, backend="cpu", launch=256, seed=11).search(board)
    guided = MCRDAgent(
        playouts=600, backend="cpu", launch=256, seed=11, guide="untrained", guide_rate=0.0, **options
    ).search(board)
    assert guided.evaluations == 0
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
        got = guided_descend(
            Position(*pos),
            KingHistory(*context),
            PlayoutRules(150, 1.0, True),
            state,
            guide_of(evaluator, rate=0.0, sample=2, temperature=0.5),
            *scratch,
            np.zeros(0, np.int64),
        )
        assert got == expected + (0,)  # no evaluation


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
            j for j, (m, o, kk) in enumerate(children) if not (cycle_check and is_king_cycle(kings, m, kk, pk, gk, gmk))
        ] or list(range(legal))
        wins = [j for j in allowed if count_moves(children[j][1], children[j][0], children[j][2], not black) == 0]
        k = int(record[ply])
        if wins:
            assert k == wins[0]
        else:
            # child (parent mover, opponent, kings), the opponent to move; board_planes takes black, white
            blacks = [c[0] if black else c[1] for c in (children[j] for j in allowed)]
            whites = [c[1] if black else c[0] for c in (children[j] for j in allowed)]
            arrays = (
                np.array(blacks, np.int64),
                np.array(whites, np.int64),
                np.array([children[j][2] for j in allowed], np.int64),
                np.full(len(allowed), int(not black), np.int64),
            )
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
@pytest.mark.parametrize("temperature", [0.0, 1e-7])
def test_fully_guided_descents_play_the_torch_nets_argmin(which, temperature):
    """At temperature 0 (argmax, no random number) or near it (a softmax draw whose noise,
    below 3e-6 in value, cannot beat a real difference), every guided move is the one the
    torch net values best for the mover."""
    cnn = material_net() if which == "material" else net.untrained(seed=4, channels=4, hidden=8)
    evaluator = cnn.to_evaluator()
    scratch = (np.empty(32, np.int64), np.empty(2 * evaluator.width))
    checked = 0
    for fen in FENS:
        board, pos = position(fen)
        context = cycle_context(board, None)
        for cycle_check in (True, False):
            record = np.full(40, -1, np.int64)
            _, _, plies, skips, _, _ = guided_descend(
                Position(*pos),
                KingHistory(*context),
                PlayoutRules(40, 1.0, cycle_check),
                7,
                guide_of(evaluator, temperature=temperature),
                *scratch,
                record,
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
    guided_descend(
        Position(*pos),
        KingHistory(*cycle_context(board, None)),
        PlayoutRules(1, 1.0, True),
        3,
        guide_of(evaluator),
        np.empty(32, np.int64),
        np.empty(2 * evaluator.width),
        record,
    )
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
    two_launches = 2 * (GUIDED_LAUNCH // 7) * 7  # the start has 7 moves
    guided = MCRDAgent(playouts=two_launches, backend="cpu", seed=1, guide="untrained").search(board)
    assert guided.launches == 2 and guided.total_playouts == two_launches
    # Unguided (rate 0) keeps plain MCRD's launches, so it stays plain MCRD to the random number.
    plain = MCRDAgent(playouts=600, backend="cpu", seed=11).search(board)
    unguided = MCRDAgent(playouts=600, backend="cpu", seed=11, guide="untrained", guide_rate=0.0).search(board)
    assert unguided.launches == plain.launches == 1
    np.testing.assert_array_equal(plain.wins, unguided.wins)


# -- the softmax chooser -----------------------------------------------------------------------

#: Chi-square critical values at p = 0.001 by degrees of freedom (a correct chooser fails
#: one seed in a thousand; the seeds are fixed, so the tests are deterministic).
CHI2_CRITICAL_0_001 = {3: 16.266, 6: 22.458}


def chi_square(counts, probabilities) -> float:
    expected = np.asarray(probabilities) * np.sum(counts)
    return float(np.sum((np.asarray(counts) - expected) ** 2 / expected))


def softmax(worths, temperature):
    weights = np.exp((np.asarray(worths) - np.max(worths)) / temperature)
    return weights / weights.sum()


def test_softmax_chooser_draws_each_child_with_its_softmax_probability():
    from checkers_agents.mcrd.guided import choose_by_softmax

    worths = np.array([0.0, 0.1, -0.05, 0.2])
    temperature = 0.1
    counts = np.zeros(4, np.int64)
    state = 12345
    for _ in range(20_000):
        state, k = choose_by_softmax(worths, temperature, state)
        counts[k] += 1
    assert chi_square(counts, softmax(worths, temperature)) < CHI2_CRITICAL_0_001[3]
    # The same counts refute a chooser that ignored the temperature (uniform, argmax or t = 1).
    assert chi_square(counts, np.full(4, 0.25)) > 10 * CHI2_CRITICAL_0_001[3]
    assert chi_square(counts, softmax(worths, 1.0)) > 10 * CHI2_CRITICAL_0_001[3]
    assert counts.max() < counts.sum()  # not argmax
    # Temperature 0 is the argmax and draws no random number.
    assert choose_by_softmax(worths, 0.0, state) == (state, 3)


def test_guided_ply_draws_the_nets_softmax_over_the_children():
    """The first ply of a fully guided descent from the start, over many seeds: the move
    frequencies follow the softmax of the torch net's values of the 7 children."""
    cnn = net.untrained(seed=5, channels=4, hidden=8)
    evaluator = cnn.to_evaluator()
    board, pos = position(FENS[0])
    # The children in nth_move order, valued for the mover (minus the net's value for the opponent).
    order = [nth_move(*pos, j) for j in range(count_moves(*pos))]
    after = [apply_move(*pos, frm, to, captured) for frm, to, captured, _, _ in order]
    # board_planes takes (black, white, kings, black_to_move): Black moved, White is to move.
    arrays = (
        np.array([c[0] for c in after], np.int64),
        np.array([c[1] for c in after], np.int64),
        np.array([c[2] for c in after], np.int64),
        np.zeros(len(after), np.int64),
    )
    with torch.no_grad():
        worths = -cnn(torch.from_numpy(board_planes(*arrays))).numpy().astype(np.float64)
    assert len(worths) == 7
    spread = worths.max() - worths.min()
    temperature = spread / 2  # a temperature that makes the choice neither uniform nor argmax
    guide = guide_of(evaluator, temperature=temperature)
    context = KingHistory(*cycle_context(board, None))
    scratch = (np.empty(32, np.int64), np.empty(2 * evaluator.width))
    counts = np.zeros(7, np.int64)
    record = np.full(1, -1, np.int64)
    for seed in range(1, 6001):
        guided_descend(Position(*pos), context, PlayoutRules(1, 1.0, True), seed * 7919, guide, *scratch, record)
        counts[record[0]] += 1
    assert chi_square(counts, softmax(worths, temperature)) < CHI2_CRITICAL_0_001[6]
    assert chi_square(counts, np.full(7, 1 / 7)) > 10 * CHI2_CRITICAL_0_001[6]
    assert chi_square(counts, softmax(worths, 10 * temperature)) > 10 * CHI2_CRITICAL_0_001[6]


# -- what guidance costs -----------------------------------------------------------------------


def forced_plies(fen, record, plies):
    """How many of the first ``plies`` plies of a recorded descent had one legal move that
    does not end the game."""
    _, (mover, opponent, kings, black) = position(fen)
    forced = 0
    for ply in range(plies):
        frm, to, captured, _, _ = nth_move(mover, opponent, kings, black, int(record[ply]))
        m, o, kk = apply_move(mover, opponent, kings, black, frm, to, captured)
        if count_moves(mover, opponent, kings, black) == 1 and count_moves(o, m, kk, not black) > 0:
            forced += 1
        mover, opponent, kings, black = o, m, kk, not black
    return forced


def test_forced_plies_spend_no_evaluation():
    evaluator = net.untrained(2, 2, 3).to_evaluator()
    scratch = (np.empty(32, np.int64), np.empty(2 * evaluator.width))
    # One legal move (a forced capture): guided or not, skipping spends nothing.
    fen = "B:W14,30:B9,3"
    board, pos = position(fen)
    assert count_moves(*pos) == 1
    history = KingHistory(*cycle_context(board, None))
    one_ply = PlayoutRules(1, 1.0, True)
    none = np.zeros(0, np.int64)
    assert guided_descend(Position(*pos), history, one_ply, 3, guide_of(evaluator), *scratch, none)[5] == 0
    assert (
        guided_descend(Position(*pos), history, one_ply, 3, guide_of(evaluator, skip_forced=False), *scratch, none)[5]
        == 1
    )
    # Whole argmax descents (no random number but on skipped forced plies, so both take the same
    # path): guiding forced plies costs exactly one evaluation per forced ply.
    total_forced = 0
    for fen in FENS:
        board, pos = position(fen)
        history = KingHistory(*cycle_context(board, None))
        record = np.full(150, -1, np.int64)
        skipping = guided_descend(
            Position(*pos), history, PlayoutRules(150, 1.0, True), 5, guide_of(evaluator), *scratch, record
        )
        guiding = guided_descend(
            Position(*pos),
            history,
            PlayoutRules(150, 1.0, True),
            5,
            guide_of(evaluator, skip_forced=False),
            *scratch,
            none,
        )
        assert skipping[:4] == guiding[:4]  # same result, plies, skips
        forced = forced_plies(fen, record, skipping[2])
        assert guiding[5] - skipping[5] == forced
        total_forced += forced
    assert total_forced > 0


def test_guide_plies_limits_guidance_to_the_first_plies():
    evaluator = net.untrained(2, 2, 3).to_evaluator()
    scratch = (np.empty(32, np.int64), np.empty(2 * evaluator.width))
    board, pos = position(FENS[1])
    history = KingHistory(*cycle_context(board, None))
    none = np.zeros(0, np.int64)
    for k in (1, 4, 9):
        # Guided plies are never skipped, so k of them are exactly a descent capped at k draws.
        limited = guided_descend(
            Position(*pos), history, PlayoutRules(150, 1.0, True), 17, guide_of(evaluator, plies=k), *scratch, none
        )
        first_k = guided_descend(
            Position(*pos), history, PlayoutRules(k, 1.0, True), 17, guide_of(evaluator), *scratch, none
        )
        assert limited[5] == first_k[5] > 0
        assert limited[2] > k  # the descent went on, unguided
    everywhere = guided_descend(
        Position(*pos), history, PlayoutRules(150, 1.0, True), 17, guide_of(evaluator), *scratch, none
    )
    assert everywhere[5] > limited[5]


def test_agent_counts_its_evaluations_within_its_settings():
    board = Board.from_fen(FENS[1])
    result = MCRDAgent(
        playouts=280, backend="cpu", seed=2, guide="untrained", guide_rate=1.0, guide_plies=2, guide_sample=3
    ).search(board)
    assert 0 < result.evaluations <= 2 * 3 * result.total_playouts
    plain = MCRDAgent(playouts=280, backend="cpu", seed=2).search(board)
    assert plain.evaluations == 0


def test_guided_searches_are_reproducible_and_do_not_depend_on_threads():
    import numba

    board = Board.from_fen(FENS[1])
    spec = dict(
        playouts=700, backend="cpu", seed=9, guide="untrained", guide_rate=0.5, guide_sample=3, guide_temperature=0.2
    )
    first = MCRDAgent(**spec).search(board)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        second = MCRDAgent(**spec).search(board)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(first.wins, second.wins)
    np.testing.assert_array_equal(first.playouts, second.playouts)
    assert first.evaluations == second.evaluations > 0


# -- spec strings ---------------------------------------------------------------------------------


def test_the_documented_spec_parses_and_plays():
    from checkers_env.agent import check_spec

    spec = "mcrd:guide=zoo:mcrd-net,guide_rate=0.1,guide_plies=8,guide_sample=4,guide_temperature=0.1"
    assert check_spec(spec) == spec
    agent = make_agent(spec + ",playouts=64,backend=cpu,seed=1")
    assert (agent.guide_rate, agent.guide_plies, agent.guide_sample, agent.guide_temperature) == (0.1, 8, 4, 0.1)
    assert agent.guide_skip_forced is True
    assert str(agent) == "mcrd:playouts=64,backend=cpu,guide=zoo:mcrd-net,guide_rate=0.1,guide_temperature=0.1,seed=1"
    assert agent.select_move(Game()) in Game().legal_moves()
    assert str(make_agent("mcrd:guide=untrained,guide_plies=0,guide_skip_forced=false")) == (
        "mcrd:guide=untrained,guide_plies=0,guide_skip_forced=False"
    )
    assert MCRDAgent(guide="untrained", guide_plies=None).guide_plies == 0  # None: every ply


BAD_GUIDE_SPECS = [
    ("guide_rate=1.5", "guide_rate"),
    ("guide_rate=-0.1", "guide_rate"),
    ("guide_rate=often", "guide_rate"),
    ("guide_plies=-1", "guide_plies"),
    ("guide_plies=2.5", "guide_plies"),
    ("guide_plies=none", "guide_plies"),
    ("guide_sample=-3", "guide_sample"),
    ("guide_sample=all", "guide_sample"),
    ("guide_temperature=-0.5", "guide_temperature"),
    ("guide_temperature=nan", "guide_temperature"),
    ("guide_temperature=inf", "guide_temperature"),
    ("guide_temperature=warm", "guide_temperature"),
    ("guide_skip_forced=maybe", "guide_skip_forced"),
]


@pytest.mark.parametrize("setting, name", BAD_GUIDE_SPECS)
def test_bad_guide_settings_are_refused_in_one_line_naming_the_parameter(setting, name):
    with pytest.raises(UnknownAgentError) as caught:
        make_agent(f"mcrd:guide=untrained,{setting}")
    message = str(caught.value)
    assert name in message and "\n" not in message


@pytest.mark.parametrize(
    "keyword, value",
    [
        ("guide_plies", True),
        ("guide_sample", 1.5),
        ("guide_rate", True),
        ("guide_skip_forced", "yes"),
        ("guide_temperature", None),
    ],
)
def test_bad_guide_settings_from_python_are_refused(keyword, value):
    with pytest.raises(ValueError, match=keyword):
        MCRDAgent(guide="untrained", **{keyword: value})
