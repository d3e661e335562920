"""The alpha-beta's pruning switches (``pruning.SearchOptions``) and its principal variation.

Principal variation search and aspiration windows must keep every root value and tie
exact (they change windows, not values); the table's cut-offs and late-move reductions may
change values, so they are checked by what they are for (fewer nodes) and by positions
with one right move; the extensions by wins they see that the same depth without them does
not; the threat rule by a plain minimax with the same rule. The enhanced transposition
cut-offs use the table under the rule its own probe does, and internal iterative
deepening only adds a shallower search of a node before its own, so both keep the exact
search's root values and ties as well. ProbCut may change values (a shallow search
stands for a deep one): it is checked by its passes, by fewer nodes and by legal moves.
Fractional-ply extensions are checked by the halves their hook carries down a line, by
legal moves and more nodes, and by wins a ply deeper than the depth searched.
"""

from __future__ import annotations

import numpy as np
import pytest

from checkers_agents.alphabeta import AlphaBetaAgent, Draws, Searcher
from checkers_agents.alphabeta.pruning import (
    ASPIRATION_NET,
    ASPIRATION_POINTS,
    PROBCUT_MIN_DEPTH,
    PROBCUT_NET,
    PROBCUT_POINTS,
    PROBCUT_REDUCTION,
    REDUCE_AFTER,
    THREAT_PLIES,
    begin_moves,
    extension,
    first_pass,
    pass_over,
    search_options,
    spare_shot,
    try_move,
)
from checkers_agents.alphabeta.stack import (
    MAX_PLY,
    PASS_DONE,
    PASS_NONE,
    PASS_PROBCUT,
    S_COUNT,
    S_DEPTH,
    S_ORDERED,
    STACK_FIELDS,
    T_HALVES,
    T_PASS,
    T_PRINCIPAL,
    T_REDUCED,
    T_SCOUT,
    TRY_FIELDS,
    V_ALPHA,
    V_BETA,
    VALUE_FIELDS,
)
from checkers_agents.search_parts.evaluators import MATERIAL, POSITIONAL
from checkers_env import Board, Color, Game, make_agent
from checkers_env.errors import UnknownAgentError
from checkers_evaluation.agent_workers import search_report

from .test_alphabeta import game_draws, reference_value

EVALUATORS = {"material": MATERIAL, "positional": POSITIONAL}
#: Middle games from the ACF archive and the start (``benchmarks/bench_alphabeta.py``).
MIDDLE_GAMES = (
    "B:W21-32:B1-12",
    "B:W12,21,23,25,27,28,30,31,32:B3,4,5,6,7,9,10,14,20",
    "B:W18,20,21,22,25,28,31:B1,2,9,11,12,14",
    "B:WK2,13,17,25,30:B5,6,9,12,K23",
)


@pytest.mark.parametrize("switch", ["pvs", "aspiration"])
@pytest.mark.parametrize("eval_name", ["material", "positional"])
def test_switches_that_move_windows_keep_every_root_value_and_tie(eval_name, switch, random_games):
    """Principal variation search and aspiration windows change windows, not values."""
    plain = Searcher(EVALUATORS[eval_name], tt_bits=14)
    windowed = Searcher(EVALUATORS[eval_name], tt_bits=14, **{switch: True})
    for game in random_games(24, seed=5):
        draws = Draws.of_game(game)
        a = plain.search(game.board, 6, draws=draws)
        b = windowed.search(game.board, 6, draws=draws)
        assert b.value == a.value, game.board.fen()
        assert set(b.best_moves) == set(a.best_moves), game.board.fen()


@pytest.mark.parametrize("switch", ["etc", "iid"])
@pytest.mark.parametrize("eval_name", ["material", "positional"])
def test_switches_that_use_the_table_keep_every_root_value_and_tie(eval_name, switch, random_games):
    """Without ``table_cutoffs`` the table cuts off only on this search's entries of the
    same depth, which the exact search trusts already: the root values and ties stay
    (with ``iid``, a node's first pass re-enters it with its own window and depth)."""
    plain = Searcher(EVALUATORS[eval_name], tt_bits=14)
    switched = Searcher(EVALUATORS[eval_name], tt_bits=14, **{switch: True})
    for game in random_games(24, seed=5):
        draws = Draws.of_game(game)
        a = plain.search(game.board, 6, draws=draws)
        b = switched.search(game.board, 6, draws=draws)
        assert b.value == a.value, game.board.fen()
        assert set(b.best_moves) == set(a.best_moves), game.board.fen()
        assert all(move in game.board.legal_moves() for move in b.best_moves)


@pytest.mark.parametrize("miss", [-300.0, 0.0, 300.0])
def test_a_value_outside_the_aspiration_window_is_searched_again(miss):
    """An iteration whose value falls below or above its window (a guess ``miss`` points off)
    ends with the open window's value and scores of the best moves."""
    import numpy as np

    from checkers_agents.alphabeta.deepening import search_iteration
    from checkers_agents.alphabeta.searcher import _position

    board = Board.from_fen(MIDDLE_GAMES[1])
    results = {}
    for name, searcher in (("open", Searcher(POSITIONAL)), ("narrow", Searcher(POSITIONAL, aspiration=True))):
        value = searcher.search(board, 6).value
        guess = value + miss if name == "narrow" else np.nan
        out = search_iteration(
            _position(board),
            7,
            1 << 62,
            searcher.options,
            searcher.valuation,
            searcher.net,
            Draws.none().rules(),
            searcher.generation,
            searcher.table_bundle,
            searcher.memory,
            searcher.egdb_probe,
            guess,
        )
        count = out[2]
        scores = searcher.root_scores[:count].copy()
        results[name] = (out[0], set(np.flatnonzero(scores > out[0] - POSITIONAL.tie_margin)))
    assert results["narrow"] == results["open"]


@pytest.mark.parametrize("switch", ["pvs", "reductions", "etc", "probcut"])
def test_each_switch_searches_fewer_nodes(switch):
    plain, pruned = Searcher(POSITIONAL), Searcher(POSITIONAL, **{switch: True})
    nodes = {"plain": 0, "pruned": 0}
    for fen in MIDDLE_GAMES:  # over the set: a king ending takes PVS about 1 % more nodes
        plain.clear()
        pruned.clear()
        board = Board.from_fen(fen)
        nodes["plain"] += plain.search(board, 9).nodes
        nodes["pruned"] += pruned.search(board, 9).nodes
    assert nodes["pruned"] < nodes["plain"], nodes


@pytest.mark.parametrize(
    "child_fen, reduced",
    [
        ("W:W18:B14", 0),  # White to move can take 14: the move offered a capture
        ("W:W19:B14", 1),  # nothing to take: a quiet move
    ],
)
def test_spare_shots_keeps_a_move_that_offers_a_capture_unreduced(child_fen, reduced):
    """A late quiet move is searched a ply shallower first, unless, with ``spare_shots``, it
    offers the opponent a capture (an exchange, a sacrifice, the first move of a shot)."""
    from checkers_env.movegen import MAX_MOVES

    pruning = search_options(reductions=True, spare_shots=True).pruning
    stack = np.zeros((MAX_PLY, STACK_FIELDS), dtype=np.int64)
    stack[1, S_DEPTH] = 5
    stack[1, S_ORDERED] = 1
    tries = np.zeros((MAX_PLY, TRY_FIELDS), dtype=np.int64)
    values = np.zeros((MAX_PLY, VALUE_FIELDS))
    values[1, V_BETA] = 1.0
    order_scores = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
    child = Board.from_fen(child_fen)
    mover, opponent = child.mover_bitboards
    child_position = (mover, opponent, child.kings, child.turn == Color.BLACK)
    for switches, expected in ((pruning, reduced), (search_options(reductions=True).pruning, 1)):
        begin_moves(switches, tries, 1)
        assert try_move(switches, stack, tries, values, order_scores, 1, REDUCE_AFTER, 0.0) == 1
        # Without spare_shots every late quiet move stays reduced.
        assert spare_shot(switches, tries, 1, *child_position) == expected
        assert tries[1, T_REDUCED] == expected and tries[1, T_SCOUT] == expected  # no null window left without PVS


def test_table_cutoffs_reuse_the_last_search():
    """After a search, the position two plies down its principal variation is mostly in the
    table already: with the cut-offs the next search visits fewer nodes."""
    nodes = {}
    for cutoffs in (False, True):
        agent = AlphaBetaAgent(depth=9, table_cutoffs=cutoffs, seed=1)
        game = Game(Board.from_fen(MIDDLE_GAMES[1]))
        agent.select_move(game)
        for move in agent.last_search.pv[:2]:
            game.play(move)
        agent.select_move(game)
        nodes[cutoffs] = agent.last_search.nodes
    assert nodes[True] < nodes[False], nodes


@pytest.mark.parametrize("fen", ["W:W10,25,28,29,32:B26", "B:WK19:B1,14,18,20,K27"])
def test_extensions_see_a_forced_line_to_its_end(fen):
    """Wins in 7 plies through forced moves: past a depth-4 search, within the extended one."""
    board = Board.from_fen(fen)
    truth = Searcher(POSITIONAL).search(board, 14)
    assert truth.win_in == 7
    assert Searcher(POSITIONAL).search(board, 4).win_in is None
    extended = Searcher(POSITIONAL, extensions=True).search(board, 4)
    assert extended.win_in == 7 and set(extended.best_moves) <= set(truth.best_moves)


def test_every_switch_on_finds_the_only_winning_move():
    # King against man: only 23-18 keeps the man from crowning (test_alphabeta proves it).
    agent = make_agent("alphabeta:depth=8,pvs=1,reductions=1,table_cutoffs=1,extensions=1,seed=2")
    assert str(agent.select_move(Game(Board.from_fen("B:W17:BK23")))) == "23-18"
    assert agent.last_search.win_in is not None and agent.last_search.win_in > 0


@pytest.mark.parametrize(
    "spec",
    [
        "alphabeta:depth=6",
        "alphabeta:depth=6,pvs=1,reductions=1,table_cutoffs=1",
        "alphabeta:time=0.2",
        "td-minimax:weights=zoo,depth=4",
    ],
)
def test_principal_variation_is_a_legal_line_from_the_move_played(spec):
    agent = make_agent(spec)
    agent.select_move(Game())  # compiles the kernel, if need be, before the timed search
    game = Game(Board.from_fen(MIDDLE_GAMES[1]))
    move = agent.select_move(game)
    pv = agent.last_search.pv
    assert pv[0] == move and 2 <= len(pv) <= max(agent.last_search.depth, 2)
    board = game.board
    for step in pv:
        assert step in board.legal_moves()
        board = board.play(step)
    report = search_report(agent)
    assert report["pv"] == [str(step) for step in pv]
    assert agent.last_search.as_dict()["pv"] == report["pv"]


def test_switches_parse_from_the_spec_and_refuse_other_words():
    agent = make_agent("alphabeta:depth=3,pvs=1,reductions=yes,table_cutoffs=true")
    assert (agent.pvs, agent.reductions, agent.table_cutoffs, agent.extensions) == (True, True, True, False)
    # The zoo's switches alone leave the others' tuple out (``more`` None: a kernel without them).
    assert agent.searcher.options.pruning == (True, True, True, False, False, None)
    assert make_agent("alphabeta:depth=3,extensions=1").searcher.options.pruning == (
        False,
        False,
        False,
        True,
        False,
        None,
    )
    assert make_agent("alphabeta:depth=3,pvs=1,etc=1").searcher.options.pruning == (
        False,
        True,
        False,
        False,
        False,
        (False, True, False, 0.0, 0.0, False),
    )
    assert make_agent("alphabeta:depth=3,etc=1").searcher.options.pruning.more.etc
    assert make_agent("alphabeta:depth=3,iid=1").searcher.options.pruning.more.iid
    assert make_agent("alphabeta:depth=3,probcut=1").searcher.options.pruning.more.probcut == PROBCUT_POINTS
    assert (
        make_agent("alphabeta:depth=3,eval=outcome-net,probcut=1").searcher.options.pruning.more.probcut == PROBCUT_NET
    )
    assert make_agent("alphabeta:depth=3,fractional=1").searcher.options.pruning.more.fractional
    plain = make_agent("alphabeta:depth=3,pvs=1")
    assert not (plain.etc or plain.iid or plain.probcut or plain.fractional)
    assert plain.searcher.options.pruning.more is None
    assert make_agent("alphabeta:depth=3,threats=1").searcher.options.pruning.more.threats
    assert make_agent("alphabeta:depth=3,reductions=1,spare_shots=1").searcher.options.pruning.spare_shots
    assert make_agent("alphabeta:depth=3,aspiration=1").searcher.options.pruning.more.aspiration == ASPIRATION_POINTS
    assert (
        make_agent("alphabeta:depth=3,eval=outcome-net,aspiration=1").searcher.options.pruning.more.aspiration
        == ASPIRATION_NET
    )
    assert make_agent("alphabeta:depth=3").searcher.options.pruning is None  # the exact search's kernel
    with pytest.raises(UnknownAgentError, match="pvs"):
        make_agent("alphabeta:pvs=maybe")


def test_threats_search_on_where_the_opponent_has_a_capture_pending(random_games):
    """With ``threats`` the root values are those of a plain minimax whose horizon
    positions with a capture pending for the opponent are searched on, and differ from the
    plain search's where a shot hides behind the horizon."""
    plain = Searcher(MATERIAL, tt_bits=14)
    threats = Searcher(MATERIAL, tt_bits=14, threats=True)
    differ = 0
    for game in random_games(30, seed=7):
        mover, opponent = game.board.mover_bitboards
        side = game.board.turn == Color.BLACK
        draws = game_draws(game)
        value = threats.search(game.board, 3, draws=Draws.of_game(game)).value
        assert value == reference_value(mover, opponent, game.board.kings, side, 3, draws, threats=THREAT_PLIES)
        differ += value != plain.search(game.board, 3, draws=Draws.of_game(game)).value
    assert differ > 0


def test_first_passes_leave_nothing_behind_a_search_cut_short():
    """A timed search stops in the middle of the tree, first passes included: the next
    search of the same searcher has the exact values all the same."""
    board = Board.from_fen(MIDDLE_GAMES[1])
    searcher = Searcher(POSITIONAL, iid=True)
    searcher.search(board, seconds=0.05)
    assert searcher.search(board, 7).value == Searcher(POSITIONAL).search(board, 7).value


def test_a_probcut_pass_cuts_off_above_its_window_and_is_searched_again_below():
    """A node's ProbCut pass searches it shallower with a null window the margin above its
    beta: a value there is the node's; a value below has the node entered again, once, at
    its own depth."""
    pruning = search_options(probcut=PROBCUT_POINTS).pruning
    valuation = Searcher(POSITIONAL).valuation
    depth, ply, beta = PROBCUT_MIN_DEPTH + 1, 2, 5.0
    stack = np.zeros((MAX_PLY, STACK_FIELDS), dtype=np.int64)
    tries = np.zeros((MAX_PLY, TRY_FIELDS), dtype=np.int64)
    values = np.zeros((MAX_PLY, VALUE_FIELDS))
    for value, cut in ((beta + PROBCUT_POINTS, True), (beta + PROBCUT_POINTS - 1.0, False)):
        stack[ply, S_DEPTH] = depth
        values[ply, V_ALPHA], values[ply, V_BETA] = -10.0, beta
        tries[ply, T_PASS] = PASS_NONE
        raised = beta + PROBCUT_POINTS
        assert first_pass(pruning, stack, tries, values, ply, depth, -10.0, -1, valuation) == (
            depth - PROBCUT_REDUCTION,
            raised - valuation.tie_margin,
        )
        assert tries[ply, T_PASS] == PASS_PROBCUT and stack[ply, S_DEPTH] == depth - PROBCUT_REDUCTION
        assert (values[ply, V_ALPHA], values[ply, V_BETA]) == (raised - valuation.tie_margin, raised)
        assert pass_over(pruning, stack, tries, values, ply, value) == (not cut)
        if cut:
            assert tries[ply, T_PASS] == PASS_NONE
        else:
            assert tries[ply, T_PASS] == PASS_DONE and stack[ply, S_DEPTH] == depth
            assert first_pass(pruning, stack, tries, values, ply, depth, -10.0, -1, valuation) == (depth, -10.0)
    # Not at the root, not near a win, not too shallow.
    for at_ply, at_depth, at_beta in ((0, depth, beta), (ply, depth, valuation.win_bound), (ply, depth - 2, beta)):
        tries[at_ply, T_PASS] = PASS_NONE
        values[at_ply, V_BETA] = at_beta
        assert first_pass(pruning, stack, tries, values, at_ply, at_depth, -10.0, -1, valuation) == (at_depth, -10.0)


@pytest.mark.parametrize("eval_name", ["material", "positional"])
def test_probcut_plays_legal_moves_near_the_exact_values(eval_name, random_games):
    """ProbCut trusts a shallow search above beta by a margin: its root values may differ
    from the exact search's, in a few positions only, and its moves are legal."""
    plain = Searcher(EVALUATORS[eval_name], tt_bits=14)
    cut = Searcher(EVALUATORS[eval_name], tt_bits=14, probcut=True)
    agree = 0
    games = random_games(24, seed=5)
    for game in games:
        draws = Draws.of_game(game)
        a = plain.search(game.board, 6, draws=draws)
        b = cut.search(game.board, 6, draws=draws)
        agree += abs(b.value - a.value) <= EVALUATORS[eval_name].tie_margin
        assert b.best_moves and all(move in game.board.legal_moves() for move in b.best_moves)
    assert agree >= len(games) - 4


def test_fractional_halves_add_up_down_a_line():
    """A move earns a half ply for a capture, for a node with one legal move and for a
    child on the principal variation (the first move of a node on it); the halves add to
    the node's own, each pair is a ply of the child's depth and the odd one is carried to
    the child. The root, a node with no plies left and a line twice the nominal depth long
    earn none."""
    pruning = search_options(fractional=True).pruning
    stack = np.zeros((MAX_PLY, STACK_FIELDS), dtype=np.int64)
    tries = np.zeros((MAX_PLY, TRY_FIELDS), dtype=np.int64)
    stack[0, S_DEPTH] = 4

    def extend(ply, i, captured, count, carried, principal, depth=3):
        stack[ply, S_COUNT], stack[ply, S_DEPTH] = count, depth
        tries[ply, T_HALVES], tries[ply, T_PRINCIPAL] = carried, principal
        plies = extension(pruning, stack, tries, ply, i, captured)
        return plies, tries[ply + 1, T_HALVES], tries[ply + 1, T_PRINCIPAL]

    assert extend(1, 2, 0, 5, 0, 0) == (0, 0, 0)  # a late quiet move earns nothing
    assert extend(1, 2, 0, 5, 1, 0) == (0, 1, 0)  # and carries its node's half on
    assert extend(1, 2, 1 << 9, 5, 0, 0) == (0, 1, 0)  # a capture: a half
    assert extend(1, 2, 1 << 9, 5, 1, 0) == (1, 0, 0)  # with the node's half: a ply
    assert extend(1, 0, 1 << 9, 1, 0, 0) == (1, 0, 0)  # a forced capture
    assert extend(1, 0, 0, 5, 0, 1) == (0, 1, 1)  # the principal variation's next node
    assert extend(1, 1, 0, 5, 0, 1) == (0, 0, 0)  # not its second move's child
    assert extend(1, 0, 0, 5, 0, 0) == (0, 0, 0)  # nor the first child off it
    assert extend(1, 0, 1 << 9, 1, 0, 1) == (1, 1, 1)  # all three
    assert extend(1, 0, 1 << 9, 1, 1, 1) == (2, 0, 1)  # all three and the node's half
    # The root is on the principal variation (whatever its row holds) and earns nothing;
    # no more does a node without plies left or a line already twice the root's depth.
    assert extend(0, 0, 1 << 9, 1, 1, 0, depth=4) == (0, 0, 1)  # the root's depth stays 4
    assert extend(0, 1, 1 << 9, 1, 1, 1, depth=4) == (0, 0, 0)
    assert extend(3, 0, 1 << 9, 1, 1, 1, depth=0) == (0, 1, 1)
    assert extend(8, 0, 1 << 9, 1, 1, 1) == (0, 1, 1)
    assert extend(7, 0, 1 << 9, 1, 1, 1) == (2, 0, 1)
    # Off, the hook extends and marks nothing.
    tries[2, T_HALVES] = 7
    for off in (None, search_options(pvs=True).pruning):
        assert extension(off, stack, tries, 1, 0, 1 << 9) == 0
    assert tries[2, T_HALVES] == 7
    # With ``extensions`` as well, a forced move's whole ply adds on top.
    both = search_options(extensions=True, fractional=True).pruning
    stack[1, S_COUNT], tries[1, T_HALVES], tries[1, T_PRINCIPAL] = 1, 1, 0
    assert extension(both, stack, tries, 1, 0, 1 << 9) == 2


@pytest.mark.parametrize("eval_name", ["material", "positional"])
def test_fractional_plays_legal_moves_within_the_evaluators_range(eval_name, random_games):
    evaluator = EVALUATORS[eval_name]
    searcher = Searcher(evaluator, tt_bits=14, fractional=True)
    for game in random_games(12, seed=5):
        result = searcher.search(game.board, 5, draws=Draws.of_game(game))
        assert result.best_moves and all(move in game.board.legal_moves() for move in result.best_moves)
        assert abs(result.value) <= abs(evaluator.loss)


def test_fractional_searches_more_nodes_where_captures_lie_ahead():
    """Captures and forced moves ahead earn half plies: the same depth searches deeper."""
    board = Board.from_fen(MIDDLE_GAMES[1])  # exchanges within a few plies
    assert any(board.play(move).legal_moves()[0].is_capture for move in board.legal_moves())
    plain = Searcher(POSITIONAL).search(board, 7)
    extended = Searcher(POSITIONAL, fractional=True).search(board, 7)
    assert extended.nodes > plain.nodes, (extended.nodes, plain.nodes)
    assert extended.best_moves and all(move in board.legal_moves() for move in extended.best_moves)


def test_fractional_sees_a_win_a_ply_past_the_depth():
    """A win in 7 plies through captures and forced moves: past a depth-4 search, which the
    depth-5 search sees and the depth-4 search sees with the half plies those moves earn."""
    board = Board.from_fen("B:WK19:B1,14,18,20,K27")
    assert Searcher(POSITIONAL).search(board, 4).win_in is None
    deeper = Searcher(POSITIONAL).search(board, 5)
    assert deeper.win_in == 7
    extended = Searcher(POSITIONAL, fractional=True).search(board, 4)
    assert extended.win_in == 7 and set(extended.best_moves) & set(deeper.best_moves)


def test_fractional_spec_plays_a_move():
    agent = make_agent("alphabeta:depth=4,fractional=1")
    assert agent.fractional and agent.searcher.options.pruning.more.fractional
    game = Game(Board.from_fen(MIDDLE_GAMES[1]))
    assert agent.select_move(game) in game.board.legal_moves()
