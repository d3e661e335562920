"""The AlphaZero search on tiny positions against the endgame database, its Gumbel root
against the paper's sequential halving, its net against torch, its self-play and the agent."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_agents.alphazero.agent import AlphaZeroAgent, load_net
from checkers_agents.alphazero.net import (
    NUM_INPUTS,
    arrays_of,
    dense_inputs,
    forward,
    policy_value_net,
    row_inputs,
    save_net,
    tensors_of,
    untrained_net,
)
from checkers_agents.alphazero.search import (
    KNOWN_DRAW,
    KNOWN_LOSS,
    KNOWN_WIN,
    begin_all,
    conclude,
    descend_all,
    expand_all,
    new_leaves,
    new_rows,
    run_simulations,
    start_searches,
)
from checkers_agents.alphazero.selfplay import self_play
from checkers_agents.alphazero.tree import (
    SearchConstants,
    considered_visits,
    follow_line,
    make_settings,
    new_tree,
    reroot,
)
from checkers_agents.search_parts.endgame_probe import END_EGDB, EndgameProbe
from checkers_env import BLACK, WHITE, Board, Game, Rules, make_agent
from checkers_env.bitboard import bit_to_square
from checkers_env.datasets import hop_action
from checkers_env.egdb import DRAW, LOSS, WIN
from checkers_env.env_machine import (
    HOP_CONTINUES,
    NUM_ACTIONS,
    S_END,
    S_HOPS,
    S_TURN,
    current_square,
    hop,
    mask_words,
    new_batch,
    resume_board,
    turn_boards,
    write_mask,
    write_observation,
)
from checkers_env.errors import EndgameDatabaseError, UnknownAgentError, WeightsError
from checkers_env.game_state import END_NO_MOVES, END_NONE, END_REPETITION

# -- the Gumbel root ------------------------------------------------------------------------------


def _halving_visits(m: int, n: int) -> list[int]:
    """The visit counts sequential halving gives m arms over n simulations, from the paper's
    description: ceil(log2 m) phases, each giving every remaining arm
    max(1, floor(n / (ceil(log2 m) * remaining))) visits, then keeping the better half."""
    import math

    phases = math.ceil(math.log2(m))
    visits = [0] * m
    remaining, used = m, 0
    while used < n:
        extra = max(1, n // (phases * remaining))
        for _ in range(extra):
            for k in range(remaining):
                if used < n:
                    visits[k] += 1
                    used += 1
        remaining = max(2, remaining // 2)
    return sorted(visits, reverse=True)


@pytest.mark.parametrize("m, n", [(4, 8), (16, 32), (16, 64), (7, 50), (2, 9), (3, 3)])
def test_the_visit_schedule_is_sequential_halving(m, n):
    schedule = considered_visits(m, n)
    assert len(schedule) == n
    # Replaying the schedule (simulation s goes to an arm with schedule[s] visits) gives
    # the visit counts of sequential halving.
    visits = [0] * m
    for target in schedule:
        arm = visits.index(target)
        visits[arm] += 1
    assert sorted(visits, reverse=True) == _halving_visits(m, n)


def _root(board: Board, rules=None, moves=()) -> tuple:
    game = Game(start=board, rules=rules or Rules())
    for move in moves:
        game.play(move)
    rules_array = game.rules.as_array()
    rows = new_rows(1, rules_array)
    b = game.board
    resume_board(
        rows.root_state,
        rows.root_positions,
        rows.last,
        0,
        b.black,
        b.white,
        b.kings,
        int(b.turn),
        len(game.moves),
        np.array(game.position_keys_since_progress()),
        rules_array,
    )
    return rows, game


def test_the_search_visits_the_root_as_the_schedule_says():
    net = untrained_net(seed=3)
    for considered, n in ((4, 8), (16, 40), (3, 30)):
        rows, game = _root(Board())
        settings = make_settings(SearchConstants("gumbel", n, considered))
        tree, leaves, live = new_tree(1, 2000), new_leaves(1, net.scratch_size), np.ones(1, np.bool_)
        leaves.gumbel[:] = np.random.default_rng(considered).gumbel(size=NUM_ACTIONS)
        start_searches(tree, rows, leaves, net, live)
        run_simulations(tree, rows, settings, leaves, net, live, 0, n)
        first, count = tree.first_child[0, 0], tree.children[0, 0]
        assert count == len(game.legal_moves()) == 7
        visits = sorted(tree.visits[0, first : first + count], reverse=True)
        m = min(considered, count)
        assert visits == _halving_visits(m, n) + [0] * (count - m)
        assert tree.visits[0, 0] == n + 1  # the root's evaluation and n simulations


def _subtree(tree, node: int) -> tuple:
    """Everything the search knows at and below ``node``, children in order."""
    first, n = tree.first_child[0, node], tree.children[0, node]
    own = tuple(
        float(array[0, node])
        for array in (tree.visits, tree.value_sum, tree.logit, tree.prior, tree.raw_value, tree.mover, tree.end)
    )
    return own, tuple((int(tree.action[0, first + k]), _subtree(tree, first + k)) for k in range(n))


def _count(subtree: tuple) -> int:
    return 1 + sum(_count(child) for _, child in subtree[1])


def test_a_rerooted_tree_keeps_the_subtree_and_searches_on():
    net = untrained_net(seed=4)
    rows, game = _root(Board())
    settings = make_settings(SearchConstants("puct", 300))
    tree, leaves, live = new_tree(1, 8000), new_leaves(1, net.scratch_size), np.ones(1, np.bool_)
    start_searches(tree, rows, leaves, net, live)
    run_simulations(tree, rows, settings, leaves, net, live, 0, 300)
    # The most visited hop, then the most visited reply: the tree's line two plies deep.
    line = []
    node = 0
    for _ in range(2):
        first, n = tree.first_child[0, node], tree.children[0, node]
        node = first + int(np.argmax(tree.visits[0, first : first + n]))
        line.append(int(tree.action[0, node]))
    assert follow_line(tree, 0, np.array(line, np.int64), 2) == node
    assert follow_line(tree, 0, np.array([line[0], 127], np.int64), 2) == -1
    kept, visits = _subtree(tree, node), int(tree.visits[0, node])
    assert 0 < _count(kept) < tree.size[0]
    assert reroot(tree, 0, node, np.empty(8000, np.int32)) == _count(kept) == tree.size[0]
    assert _subtree(tree, 0) == kept and tree.parent[0, 0] == -1
    first, n = tree.first_child[0, 0], tree.children[0, 0]
    assert all(tree.parent[0, first + k] == 0 for k in range(n))
    # The search goes on from the kept visits, at the position the line reached.
    for action in line:
        hop(rows.root_state, rows.root_positions, rows.last, 0, action, rows.rules)
    run_simulations(tree, rows, settings, leaves, net, live, 0, 100)
    assert tree.visits[0, 0] == visits + 100


def _puct_tree(settings, net, seed_moves=("11-15", "23-19")):
    rows, _ = _root(Board(), moves=seed_moves)
    tree = new_tree(1, 16 * (settings.simulations + 2))
    leaves, live = new_leaves(1, net.scratch_size), np.ones(1, np.bool_)
    start_searches(tree, rows, leaves, net, live)
    run_simulations(tree, rows, settings, leaves, net, live, 0, settings.simulations)
    return tree


def _mean_depth(tree) -> float:
    """The mean depth (hops from the root) of the tree's visited nodes: a wider tree of as
    many simulations is a shallower one."""
    depth = np.zeros(tree.size[0], np.int64)
    for node in range(1, tree.size[0]):
        depth[node] = depth[tree.parent[0, node]] + 1
    return float(depth[tree.visits[0, : tree.size[0]] > 0].mean())


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_puct_priors_are_the_softmax_of_the_logits_over_the_temperature(temperature):
    net = untrained_net(seed=6)
    tree = _puct_tree(make_settings(SearchConstants("puct", 200, prior_temperature=temperature)), net)
    checked = 0
    for node in range(tree.size[0]):
        first, n = tree.first_child[0, node], tree.children[0, node]
        if n < 2 or tree.prior[0, first] < 0:
            continue
        logits = tree.logit[0, first : first + n].astype(np.float64) / temperature
        expected = np.exp(logits - logits.max())
        np.testing.assert_allclose(tree.prior[0, first : first + n], expected / expected.sum(), rtol=1e-12)
        checked += 1
    assert checked >= 20


def test_a_hotter_prior_widens_puct_trees_and_first_play_urgency_deepens_them():
    net = load_net("zoo")  # a trained policy: an untrained one is near uniform at any temperature
    plain = _mean_depth(_puct_tree(make_settings(SearchConstants("puct", 1000)), net))
    hotter = _mean_depth(_puct_tree(make_settings(SearchConstants("puct", 1000, prior_temperature=2.0)), net))
    urgent = _mean_depth(_puct_tree(make_settings(SearchConstants("puct", 1000, fpu_reduction=0.5)), net))
    assert hotter + 1 < plain < urgent - 1, (hotter, plain, urgent)


def test_a_growing_puct_weight_spreads_the_visits_of_a_node_searched_past_its_base():
    net = load_net("zoo")
    plain = _puct_tree(make_settings(SearchConstants("puct", 2000)), net)
    growing = _puct_tree(make_settings(SearchConstants("puct", 2000, c_puct_base=100.0)), net)
    # At 2,000 visits a base of 100 adds log(21) = 3.0 to c_puct's 1.25 at the root, whose
    # prior favours one hop (0.9 here): the hops the prior gives little get more visits.
    unlikely = [
        tree.visits[0, 1 : 1 + tree.children[0, 0]][tree.prior[0, 1 : 1 + tree.children[0, 0]] < 0.05].sum()
        for tree in (plain, growing)
    ]
    assert unlikely[1] > 1.5 * unlikely[0] > 0, unlikely


# -- against the endgame database -------------------------------------------------------------


def _exact_value(egdb, state) -> float:
    """The value of env row 0 for its side to move, from the database; mid-capture, the best
    continuation's."""
    own, opponent, kings = turn_boards(state, 0)
    black_to_move = state[0, S_TURN] == 0
    black, white = (own, opponent) if black_to_move else (opponent, own)
    board = Board(int(black), int(white), int(kings), BLACK if black_to_move else WHITE)
    if state[0, S_HOPS] == 0:
        probe = egdb.probe(board)
        if probe is None:  # no piece left to the opponent: the mover has won
            return 1.0
        return {WIN: 1.0, DRAW: 0.0, LOSS: -1.0}[probe.value]
    square = bit_to_square(int(current_square(state, 0)))
    values = []
    for move in board.legal_moves():
        if move.path[0] == square:
            after = egdb.probe(board.play(move))
            values.append(1.0 if after is None else {WIN: -1.0, DRAW: 0.0, LOSS: 1.0}[after.value])
    return max(values)


def _oracle_search(rows, egdb, simulations: int, perfect: bool, method: str = "gumbel", probe=None, **options) -> int:
    """A search whose leaves get a uniform prior and the database's exact value (``perfect``)
    or 0; returns the hop it plays. ``options`` go to ``SearchConstants``, ``probe`` as its
    ``egdb``; with ``through_forced``, no leaf below the root may have a forced hop."""
    settings = make_settings(SearchConstants(method, simulations, 16, **options), egdb=probe)
    tree, leaves, live = new_tree(1, 16 * (simulations + 2)), new_leaves(1, 8), np.ones(1, np.bool_)

    def evaluate():
        if settings.through_forced and leaves.node[0] > 0:
            assert leaves.mask[0].sum() >= 2, "the net was asked about a forced hop"
        leaves.logits[:] = 0.0
        leaves.value[0] = _exact_value(egdb, rows.state) if perfect and leaves.node[0] >= 0 else 0.0

    begin_all(tree, rows, leaves, live)
    evaluate()
    expand_all(tree, leaves, live)
    for simulation in range(simulations):
        descend_all(tree, rows, settings, leaves, live, simulation)
        if leaves.node[0] >= 0:
            evaluate()
        expand_all(tree, leaves, live)
    return int(conclude(tree, settings, leaves, 0, np.zeros(NUM_ACTIONS, np.float32)))


def _small_positions(count: int, seed: int, pieces: int = 3) -> list[Board]:
    """Random positions of 3 pieces (2 against 1) or 4 (2 against 2), men or kings, with a
    move to make."""
    rng = np.random.default_rng(seed)
    boards = []
    while len(boards) < count:
        squares = rng.choice(32, pieces, replace=False)
        black = 1 << int(squares[0]) | 1 << int(squares[1])
        white = sum(1 << int(s) for s in squares[2:])
        if rng.random() < 0.5:
            black, white = white, black
        kings = sum(1 << int(s) for s in squares if rng.random() < 0.6)
        try:
            board = Board(black, white, kings, BLACK if rng.random() < 0.5 else WHITE)
        except ValueError:
            continue  # a man on its crowning row
        if board.legal_moves():
            boards.append(board)
    return boards


def _first_hop_values(egdb, board: Board) -> dict[int, float]:
    """The exact value of each first hop of ``board``'s moves for the side to move (a hop
    in the middle of a capture: its best completion's)."""
    rows, _ = _root(board)
    mask = np.zeros((1, NUM_ACTIONS), np.int8)
    write_mask(rows.root_state, 0, mask_words(mask)[0])
    values = {}
    for action in np.flatnonzero(mask[0]):
        state, positions = rows.root_state.copy(), rows.root_positions.copy()
        if hop(state, positions, rows.last, 0, int(action), rows.rules) == HOP_CONTINUES:
            values[int(action)] = _exact_value(egdb, state)
        elif state[0, S_END] == END_NO_MOVES:
            values[int(action)] = 1.0
        elif state[0, S_END] != END_NONE:
            values[int(action)] = 0.0
        else:
            values[int(action)] = -_exact_value(egdb, state)
    return values


SEARCH_OPTIONS = [{}, {"through_forced": True}, {"widen": 2}]
#: PUCT's own options: a flatter prior, first-play urgency (Leela Chess Zero's), a growing weight.
PUCT_OPTIONS = [{"prior_temperature": 1.5}, {"fpu_reduction": 0.3}, {"c_puct_base": 50.0}]


@pytest.mark.parametrize(
    "method, options",
    [("gumbel", options) for options in SEARCH_OPTIONS]
    + [("puct", options) for options in SEARCH_OPTIONS[:2] + PUCT_OPTIONS],
)  # widening is Gumbel's
def test_with_a_perfect_value_the_search_keeps_the_exact_result(egdb4, method, options):
    agreed = 0
    for board in _small_positions(60, seed=5):
        rows, _ = _root(board)
        values = _first_hop_values(egdb4, board)
        action = _oracle_search(rows, egdb4, 24, perfect=True, method=method, **options)
        assert values[action] == max(values.values()), board.fen()
        agreed += 1
    assert agreed == 60


@pytest.mark.parametrize("through_forced", [False, True])
def test_playing_forced_hops_through_keeps_them_from_the_net(through_forced):
    # From the initial position, 11-15 22-18 leaves 15x22 forced, then a recapture.
    net = untrained_net(seed=1)
    settings = make_settings(SearchConstants("gumbel", 200, 16, through_forced=through_forced))
    forced, asked = 0, 0
    for moves in ((), ("11-15",), ("11-15", "22-18"), ("9-14", "22-18")):
        rows, _ = _root(Board(), moves=moves)
        tree, leaves, live = new_tree(1, 16 * 202), new_leaves(1, net.scratch_size), np.ones(1, np.bool_)
        start_searches(tree, rows, leaves, net, live)
        for simulation in range(200):
            descend_all(tree, rows, settings, leaves, live, simulation)
            if leaves.node[0] >= 0:
                asked += 1
                forced += leaves.mask[0].sum() == 1
                leaves.value[0] = forward(
                    net, leaves.active[0], leaves.count[0], leaves.mask[0], leaves.scratch[0], leaves.logits[0]
                )
            expand_all(tree, leaves, live)
    assert asked > 500
    assert (forced == 0) if through_forced else (forced > 20)


@pytest.mark.parametrize("options", SEARCH_OPTIONS)
def test_with_no_knowledge_enough_simulations_find_a_short_win(egdb4, options):
    # Wins within 3 plies, found by the search's own game ends alone (a uniform prior and
    # a value of 0 at every leaf).
    wins = 0
    for board in _small_positions(200, seed=11):
        probe = egdb4.probe(board)
        if probe is None or probe.value != WIN or probe.distance > 3:
            continue
        rows, _ = _root(board)
        values = _first_hop_values(egdb4, board)
        action = _oracle_search(rows, egdb4, 200, perfect=False, **options)
        assert values[action] == 1.0, board.fen()
        wins += 1
    assert wins >= 5


def _probe(egdb):
    return EndgameProbe(egdb.tables, egdb.offsets, int(egdb.pieces))


@pytest.mark.parametrize("method", ["gumbel", "puct"])
def test_with_the_database_and_no_knowledge_the_search_finds_every_exact_result(egdb4, method):
    # A uniform prior and a value of 0 at every leaf: the database's verdicts one move down
    # alone find the best hop, wins beyond the search's own sight included, which the same
    # search without the database misses.
    missed, searched = 0, 0
    for board in _small_positions(100, seed=7, pieces=4):
        values = _first_hop_values(egdb4, board)
        if len(set(values.values())) == 1:
            continue  # every hop as good as the others
        searched += 1
        rows, _ = _root(board)
        action = _oracle_search(rows, egdb4, 64, perfect=False, method=method, probe=_probe(egdb4))
        assert values[action] == max(values.values()), board.fen()
        rows, _ = _root(board)
        missed += values[_oracle_search(rows, egdb4, 64, perfect=False, method=method)] != max(values.values())
    assert searched >= 40 and missed >= 10, (searched, missed)


def test_the_database_ends_descents_only_between_moves(egdb4):
    # A double jump for Black, the only move: the position inside the capture is not
    # probed (its position is no position of the database), the one after it is.
    board = Board.from_fen("B:W15,23,K30:B10")  # 10x19x26, then 3 pieces
    rows, _ = _root(board)
    settings = make_settings(SearchConstants("puct", 8, 16), egdb=_probe(egdb4))
    tree, leaves, live = new_tree(1, 200), new_leaves(1, 8), np.ones(1, np.bool_)
    begin_all(tree, rows, leaves, live)
    expand_all(tree, leaves, live)
    for simulation in range(4):
        descend_all(tree, rows, settings, leaves, live, simulation)
        expand_all(tree, leaves, live)
    assert tree.end[0, 0] == END_NONE and tree.children[0, 0] == 1  # the one first hop
    assert tree.end[0, 1] == END_NONE  # in the middle of the capture
    expected = {WIN: KNOWN_WIN, DRAW: KNOWN_DRAW, LOSS: KNOWN_LOSS}[
        egdb4.probe(board.play(board.legal_moves()[0])).value
    ]
    assert tree.end[0, 2] == expected


# -- the net --------------------------------------------------------------------------------------


def _random_rows(count: int, seed: int):
    """Env rows of random games, some in the middle of a capture."""
    rng = np.random.default_rng(seed)
    rules = Rules().as_array()
    rows = []
    state, _moves, positions, last = new_batch(1, 1000, 0)
    mask = np.zeros((1, NUM_ACTIONS), np.int8)
    while len(rows) < count:
        board = Board()
        resume_board(
            state, positions, last, 0, board.black, board.white, board.kings, 0, 0, np.array([0], np.int64), rules
        )
        for _ in range(int(rng.integers(0, 120))):
            write_mask(state, 0, mask_words(mask)[0])
            legal = np.flatnonzero(mask[0])
            if len(legal) == 0:
                break
            hop(state, positions, last, 0, int(rng.choice(legal)), rules)
        write_mask(state, 0, mask_words(mask)[0])
        if mask.any():
            rows.append(state.copy())
    return rows


def test_the_search_net_equals_torch_on_inputs_and_observations():
    import torch

    torch_net = policy_value_net(64, 32, seed=2)
    net = arrays_of(tensors_of(torch_net))
    active = np.zeros(32, np.int64)
    scratch = np.zeros(net.scratch_size, np.float32)
    logits = np.zeros(NUM_ACTIONS, np.float32)
    every_hop = np.ones(NUM_ACTIONS, np.int8)
    legal = np.zeros((1, NUM_ACTIONS), np.int8)
    observation = np.zeros((5, 8, 8), np.float32)
    mid_capture = 0
    for state in _random_rows(300, seed=1):
        n = row_inputs(state, 0, active)
        write_mask(state, 0, mask_words(legal)[0])
        unwritten = np.full(NUM_ACTIONS, 7.0, np.float32)
        legal_value = forward(net, active, n, legal[0], scratch, unwritten)
        value = forward(net, active, n, every_hop, scratch, logits)
        # Only the legal hops' logits are computed, each as with every hop's.
        assert legal_value == value
        np.testing.assert_array_equal(unwritten, np.where(legal[0] != 0, logits, 7.0))
        write_observation(state, 0, observation)
        own, opponent, kings = turn_boards(state, 0)
        dense = dense_inputs(
            np.array([own]),
            np.array([opponent]),
            np.array([kings]),
            np.array([state[0, S_TURN] == 0]),
            np.array([current_square(state, 0)], np.int8),
        )
        assert sorted(np.flatnonzero(dense[0])) == sorted(active[:n])
        with torch.no_grad():
            by_obs = torch_net(torch.from_numpy(observation[None]))
            by_inputs = torch_net(torch.from_numpy(dense))
        np.testing.assert_allclose(by_obs[0][0].numpy(), logits, atol=1e-4)
        np.testing.assert_allclose(by_inputs[1].numpy(), [value], atol=1e-4)
        mid_capture += state[0, S_HOPS] > 0
    assert dense.shape == (1, NUM_INPUTS) and mid_capture > 0


# -- self-play ------------------------------------------------------------------------------------


def test_self_play_games_do_not_depend_on_slots_or_their_shard():
    one = self_play(6, simulations=8, seed=4, slots=6)
    two = self_play(6, simulations=8, seed=4, slots=2)
    later = self_play(3, simulations=8, seed=4, first_game=3, slots=3)
    order_one, order_two = np.argsort(one["game"], kind="stable"), np.argsort(two["game"], kind="stable")
    for name in ("own", "opponent", "kings", "policy", "legal", "outcome", "game"):
        np.testing.assert_array_equal(one[name][order_one], two[name][order_two])
    rows = one["game"][order_one] >= 3
    np.testing.assert_array_equal(one["own"][order_one][rows], later["own"][np.argsort(later["game"], kind="stable")])
    np.testing.assert_array_equal(one["game_result"][3:], later["game_result"])


@pytest.mark.parametrize("options", SEARCH_OPTIONS[:1] + [{"through_forced": True, "widen": 2}])
def test_self_play_keeps_a_policy_over_legal_hops_and_the_result(options):
    out = self_play(8, simulations=16, seed=9, slots=4, **options)
    assert len(out["own"]) > 100
    np.testing.assert_allclose(out["policy"].sum(axis=1), 1.0, atol=1e-5)
    assert not (out["policy"][out["legal"] == 0]).any()
    assert (out["legal"].sum(axis=1) >= 2).all()  # forced hops are not kept
    result = out["game_result"][out["game"]]
    np.testing.assert_array_equal(out["outcome"], np.where(out["mover"] == 0, result, -result))
    assert set(out["game_end"]) <= {1, 2, 3, 4} and (out["game_length"] > 0).all()


def test_self_play_ends_a_game_where_the_database_holds_it_with_its_result(egdb_folder, egdb4):
    for board in _small_positions(12, seed=5):
        out = self_play(1, simulations=8, seed=1, random_plies=0, egdb_pieces=4, egdb_folder=egdb_folder, start=board)
        black_wins = {WIN: 1, LOSS: -1, DRAW: 0}[egdb4.probe(board).value] * (1 if board.turn == BLACK else -1)
        assert len(out["own"]) == 0 and out["game_end"][0] == END_EGDB and out["game_length"][0] == 0
        assert out["game_result"][0] == black_wins


def test_with_the_database_self_play_games_are_the_same_games_cut_short(egdb_folder):
    plain = self_play(8, simulations=8, seed=6, slots=4)
    cut = self_play(8, simulations=8, seed=6, slots=4, egdb_pieces=4, egdb_folder=egdb_folder)
    ended = np.flatnonzero(cut["game_end"] == END_EGDB)
    assert len(ended) > 0 and (cut["game_length"] <= plain["game_length"]).all()
    assert (cut["game_length"][ended] < plain["game_length"][ended]).all()
    for g in range(8):
        mine, theirs = cut["game"] == g, plain["game"] == g
        kept = int(mine.sum())
        for name in ("own", "opponent", "kings", "policy"):
            np.testing.assert_array_equal(cut[name][mine], plain[name][theirs][:kept])
        if g not in ended:
            assert cut["game_result"][g] == plain["game_result"][g] and kept == int(theirs.sum())


# -- the agent ------------------------------------------------------------------------------------


def test_the_agent_plays_legal_moves_and_reports_its_search():
    agent = make_agent("alphazero:weights=untrained,simulations=16,seed=1")
    assert str(agent) == "alphazero:weights=untrained,simulations=16,seed=1"
    game = Game()
    while not game.is_over() and len(game.moves) < 60:
        move = agent.select_move(game)
        assert move in game.legal_moves()
        game.play(move)
    report = agent.last_search
    assert report is not None and report.seconds >= 0 and -1.0 <= report.value <= 1.0


@pytest.mark.parametrize("search", ["gumbel", "puct"])
def test_a_multi_jump_is_played_as_its_one_search_expects(search):
    # 5x14 or 7x14, then a choice: on to 21 or to 23. The move's one search decides both.
    game = Game(start=Board.from_fen("B:W9,10,17,18,20:B5,7"))
    agent = make_agent(f"alphazero:weights=untrained,simulations=32,search={search},seed=2")
    move = agent.select_move(game)
    assert str(move) in ("5x14x21", "5x14x23", "7x14x21", "7x14x23")
    assert agent.last_search.simulations == 32 and agent.last_search.pv[0] == move


def _hops(game: Game, first: int) -> list[int]:
    """The env's hops of the game's moves from move ``first`` on."""
    return [
        hop_action(board.turn == BLACK, a, b)
        for board, move in zip(game.boards[first:], game.moves[first:])
        for a, b in zip(move.path, move.path[1:])
    ]


def test_puct_reuses_the_subtree_its_move_and_the_reply_reached():
    agent = make_agent("alphazero:weights=untrained,simulations=64,search=puct,seed=3")
    game = Game()
    game.play(agent.select_move(game))
    assert agent.last_search.reused == 0
    game.play(game.legal_moves()[0])
    line = _hops(game, 0)
    node = follow_line(agent.tree, 0, np.array(line, np.int64), len(line))
    expected = int(agent.tree.visits[0, node])
    agent.select_move(game)
    assert agent.last_search.reused == expected > 0 and agent.last_search.simulations == 64
    assert agent.tree.visits[0, 0] == expected + 64
    # A game that is not the one searched, continued, starts afresh.
    other = Game()
    other.play(next(move for move in other.legal_moves() if move != game.moves[0]))
    other.play(other.legal_moves()[0])
    agent.select_move(other)
    assert agent.last_search.reused == 0
    # So do Gumbel's root and reuse=false.
    for spec in ("search=puct,reuse=false", "search=gumbel"):
        fresh = make_agent(f"alphazero:weights=untrained,simulations=64,{spec},seed=3")
        game = Game()
        game.play(fresh.select_move(game))
        game.play(game.legal_moves()[0])
        fresh.select_move(game)
        assert fresh.last_search.reused == 0 and fresh.tree.visits[0, 0] == 65


def test_with_the_database_the_agent_plays_its_best_moves_where_it_holds_the_root(egdb_folder, egdb4):
    agent = make_agent(f"alphazero:weights=untrained,simulations=16,egdb=4,egdb_folder={egdb_folder},seed=1")
    assert "egdb=4" in str(agent) and agent.probe.pieces == 4
    for board in _small_positions(20, seed=3):
        move = agent.select_move(Game(start=board))
        assert move in egdb4.best_moves(board)
        assert agent.last_search.simulations == 0 and agent.last_search.pv == [move]
    outside = Game(start=Board.from_fen("B:W21,22,23:B1,2,3"))  # 6 pieces: a search
    agent.select_move(outside)
    assert agent.last_search.simulations == 16


def _hops_ending_by_repetition(game: Game) -> list[int]:
    """The hops of the agent's search rows for ``game`` whose move ends it by repetition."""
    rows = AlphaZeroAgent._rows(game)
    mask = np.zeros((1, NUM_ACTIONS), np.int8)
    write_mask(rows.root_state, 0, mask_words(mask)[0])
    ending = []
    for action in np.flatnonzero(mask[0]):
        state, positions = rows.root_state.copy(), rows.root_positions.copy()
        hop(state, positions, rows.last, 0, int(action), rows.rules)
        if state[0, S_END] == END_REPETITION:
            ending.append(int(action))
    return ending


def test_the_search_sees_the_games_repetitions():
    # Two kings shuffle: 6-1 would bring the start position back a third time.
    game = Game(start=Board.from_fen("W:WK32:BK1"), rules=Rules())
    for move in ("32-27", "1-6", "27-32", "6-1", "32-27", "1-6", "27-32"):
        game.play(move)
    assert len(_hops_ending_by_repetition(game)) == 1
    assert _hops_ending_by_repetition(Game(start=game.board, rules=Rules())) == []  # no history, no repetition
    agent = AlphaZeroAgent(weights="untrained", simulations=32)
    assert agent.select_move(game) in game.legal_moves()


def test_a_trained_file_loads_and_plays(tmp_path):
    path = tmp_path / "net.safetensors"
    save_net(path, tensors_of(policy_value_net(16, 8, seed=0)))
    agent = make_agent(f"alphazero:weights={path},simulations=8")
    assert agent.select_move(Game()) in Game().legal_moves()


def test_the_search_constants_reach_the_search(monkeypatch):
    from checkers_agents.alphazero import agent as agent_module

    seen = []
    real = agent_module._settings
    monkeypatch.setattr(agent_module, "_settings", lambda constants: seen.append(constants) or real(constants))
    agent = make_agent(
        "alphazero:weights=untrained,simulations=24,c_visit=10,c_scale=0.7,c_puct=2,"
        "prior_temperature=1.5,fpu_reduction=0.25,c_puct_base=500"
    )
    assert str(agent) == (
        "alphazero:weights=untrained,simulations=24,c_visit=10.0,c_scale=0.7,c_puct=2.0,"
        "c_puct_base=500.0,prior_temperature=1.5,fpu_reduction=0.25"
    )
    agent.select_move(Game())
    assert seen and all(
        (c.c_visit, c.c_scale, c.c_puct, c.prior_temperature, c.fpu_reduction, c.c_puct_base)
        == (10.0, 0.7, 2.0, 1.5, 0.25, 500.0)
        for c in seen
    )


@pytest.mark.parametrize(
    "spec, error, message",
    [
        ("alphazero:weights=untrained,simulations=0", UnknownAgentError, "simulations"),
        ("alphazero:weights=untrained,search=mcts", UnknownAgentError, "search must be one of gumbel, puct"),
        ("alphazero:weights=untrained,time=0", UnknownAgentError, "time must be a positive"),
        ("alphazero:weights=untrained,widen=-1", UnknownAgentError, "widen must be 0 or more"),
        (
            "alphazero:weights=untrained,c_scale=0",
            UnknownAgentError,
            "c_scale and c_puct positive, got 50.0, 0.0 and 1.25",
        ),
        ("alphazero:weights=untrained,search=puct,c_puct=-1", UnknownAgentError, "c_puct positive"),
        ("alphazero:weights=untrained,c_visit=-1", UnknownAgentError, "c_visit must be 0 or more"),
        ("alphazero:weights=untrained,prior_temperature=0", UnknownAgentError, "prior_temperature must be positive"),
        (
            "alphazero:weights=untrained,fpu_reduction=-0.1",
            UnknownAgentError,
            "fpu_reduction and c_puct_base 0 or more, got 1.0, -0.1 and 0.0",
        ),
        (
            "alphazero:weights=untrained,c_puct_base=-5",
            UnknownAgentError,
            "c_puct_base 0 or more, got 1.0, 0.0 and -5.0",
        ),
        ("alphazero:weights=/nonexistent/az.safetensors", WeightsError, "does not exist"),
        ("alphazero:weights=untrained,egdb=9", UnknownAgentError, "egdb"),
        ("alphazero:weights=untrained,egdb=6,egdb_folder=/nonexistent/egdb", EndgameDatabaseError, "egdb"),
    ],
)
def test_bad_specs_are_clear_errors(spec, error, message):
    with pytest.raises(error, match=message):
        make_agent(spec)


def test_weights_of_another_kind_or_shape_are_refused(tmp_path):
    from checkers_env.weights import write_weights

    other = tmp_path / "other.safetensors"
    write_weights(other, {"w": np.ones((2, 2))}, {"kind": "outcome-net", "format": "1"})
    with pytest.raises(WeightsError, match="other.safetensors.*not alphazero"):
        make_agent(f"alphazero:weights={other}")
    shaped = tmp_path / "shaped.safetensors"
    tensors = tensors_of(policy_value_net(16, 8))
    tensors["hidden.weight"] = tensors["hidden.weight"][:, :100]
    write_weights(shaped, tensors, {"kind": "alphazero", "format": "1", "hidden": 16, "middle": 8})
    with pytest.raises(WeightsError, match="shaped.safetensors.*does not fit"):
        make_agent(f"alphazero:weights={shaped}")
    truncated = tmp_path / "truncated.safetensors"
    save_net(truncated, tensors_of(policy_value_net(16, 8)))
    truncated.write_bytes(truncated.read_bytes()[:200])
    with pytest.raises(WeightsError, match="truncated.safetensors.*corrupt"):
        make_agent(f"alphazero:weights={truncated}")
