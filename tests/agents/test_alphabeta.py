"""The ``alphabeta`` agent: forced wins, agreement with a plain minimax, the spec.

Independent references live here: a plain minimax without pruning, table or ordering
(``reference_value``), and an exhaustive retrograde solver for positions of a few pieces
(``Solver``). Both use only the rules core's move generator. Positions are written with
board coordinates (``sq("c3")``, Black moving up the ranks) so the shots can be checked
by hand from the comments.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from checkers_agents.alphabeta import MAX_DEPTH, AlphaBetaAgent, Draws, Searcher
from checkers_agents.search_parts.evaluators import MATERIAL, POSITIONAL, WIN, hand_value, material_log_reward
from checkers_env import BLACK, WHITE, Board, Game, make_agent
from checkers_env.bitboard import apply_move, jumpers
from checkers_env.board import move_from_row
from checkers_env.movegen import generate_moves_kernel, new_move_buffer

MAN, KING = 100, 140  # the material evaluation's weights
WIN_BOUND = WIN - 1000
EVALUATORS = {"material": MATERIAL, "positional": POSITIONAL}


def sq(name: str) -> int:
    """Standard square number of a dark square named like ``c3`` (a1 is square 4)."""
    file, rank = "abcdefgh".index(name[0]), int(name[1:]) - 1
    assert (file + rank) % 2 == 0, f"{name} is a light square"
    return 4 * rank + 4 - file // 2


def board(black=(), white=(), kings=(), turn=BLACK) -> Board:
    """A board from square names; ``kings`` names which of the pieces are kings."""
    return Board.from_squares(
        tuple(sq(s) for s in black), tuple(sq(s) for s in white), tuple(sq(s) for s in kings), turn
    )


def test_square_names():
    assert (sq("a1"), sq("g1"), sq("b2"), sq("h2"), sq("c3"), sq("d4"), sq("b8"), sq("h8")) == (
        4,
        1,
        8,
        5,
        11,
        15,
        32,
        29,
    )


# -- references -------------------------------------------------------------------------------


def _children(mover, opponent, kings, black_to_move):
    """[(row, (mover', opponent', kings'))] with the roles swapped for the next player."""
    buffer = new_move_buffer()
    n = generate_moves_kernel(mover, opponent, kings, black_to_move, buffer)
    result = []
    for row in buffer[:n]:
        m, o, k = apply_move(mover, opponent, kings, black_to_move, row[0], row[1], row[2])
        result.append(((int(row[0]), int(row[1]), int(row[2])), (int(o), int(m), int(k))))
    return result


def _key(mover, opponent, kings, black_to_move):
    return (mover, opponent, kings, True) if black_to_move else (opponent, mover, kings, False)


def _material(mover, opponent, kings, black_to_move):
    count = lambda x: bin(x).count("1")  # noqa: E731
    return MAN * (count(mover & ~kings) - count(opponent & ~kings)) + KING * (
        count(mover & kings) - count(opponent & kings)
    )


def reference_value(mover, opponent, kings, black_to_move, depth, draws, leaf=_material, ply=0, threats=0):
    """Plain negamax without pruning, with the rules the engine documents: a repeated game
    position is a draw, no move loses (``-WIN + ply``), depth 0 with a capture pending
    searches on; with ``threats`` (the search's ``THREAT_PLIES``), so does a horizon
    position less than ``threats`` plies past the depth whose opponent has a capture."""
    if ply > 0 and _key(mover, opponent, kings, black_to_move) in draws:
        return 0
    children = _children(mover, opponent, kings, black_to_move)
    if not children:
        return -WIN + ply
    if depth <= 0 and not jumpers(mover, opponent, kings, black_to_move):
        if not (depth > -threats and jumpers(opponent, mover, kings, not black_to_move)):
            return leaf(mover, opponent, kings, black_to_move)
    return max(
        -reference_value(m, o, k, not black_to_move, depth - 1, draws, leaf, ply + 1, threats)
        for _, (m, o, k) in children
    )


class Solver:
    """Exact values of every position reachable from some roots, by retrograde analysis
    (no draw rules: a position neither side can force is a draw).

    ``value(board)`` is ``n > 0`` (the side to move wins in ``n`` plies at best), ``-n``
    (loses in ``n`` plies at the longest, ``-0.0`` is no move at all, written ``LOST_NOW``)
    or ``None`` (draw).
    """

    def __init__(self, roots: list[Board]):
        succ: dict[tuple, list[tuple]] = {}
        todo = [self._state(b) for b in roots]
        while todo:
            state = todo.pop()
            if state in succ:
                continue
            children = [(child[0], child[1], child[2], not state[3]) for _, child in _children(*state)]
            succ[state] = children
            todo.extend(c for c in children if c not in succ)
        preds: dict[tuple, list[tuple]] = {s: [] for s in succ}
        for state, children in succ.items():
            for child in children:
                preds[child].append(state)
        left = {s: len(c) for s, c in succ.items()}
        self.result: dict[tuple, tuple[str, int]] = {}
        queue = deque()
        for state, children in succ.items():
            if not children:
                self.result[state] = ("L", 0)
                queue.append(state)
        while queue:  # distances come out in increasing order
            state = queue.popleft()
            kind, n = self.result[state]
            for p in preds[state]:
                if p in self.result:
                    continue
                if kind == "L":
                    self.result[p] = ("W", n + 1)
                    queue.append(p)
                else:
                    left[p] -= 1
                    if left[p] == 0:
                        self.result[p] = ("L", n + 1)
                        queue.append(p)
        self.size = len(succ)

    @staticmethod
    def _state(b: Board):
        mover, opponent = b.mover_bitboards
        return (mover, opponent, b.kings, b.turn == BLACK)

    def outcome(self, b: Board) -> tuple[str, int] | None:
        """("W", n) win in n plies, ("L", n) loss in n plies, None draw."""
        return self.result.get(self._state(b))


# -- shots: hand-proved, and checked against the plain minimax ---------------------------------

#: 2 for 1. Black plays c3-d4 (11-15); White must take e5xc3 (the other capture, c5xe3, is
#: blocked by the man on e3, and the man on a1 stops the jump on over b2); Black answers
#: b2xd4xb6, taking c3 and c5. Black was a man up (4 v 3) and ends two up (3 v 1).
TWO_FOR_ONE = board(black=("a1", "b2", "c3", "e3"), white=("c5", "e5", "g7"))
#: 3 for 1: the same with a White man on c7, so Black's jump goes on b6xd8, crowning:
#: from 4 v 4 to two men and a king against one man.
THREE_FOR_ONE = board(black=("a1", "b2", "c3", "e3"), white=("c5", "e5", "c7", "g7"))


@pytest.mark.parametrize(
    "position, gain",
    [(TWO_FOR_ONE, MAN), (THREE_FOR_ONE, 2 * MAN + KING - MAN)],
    ids=["2-for-1", "3-for-1"],
)
def test_finds_the_shot(position, gain):
    mover, opponent = position.mover_bitboards
    before = _material(mover, opponent, position.kings, True)
    searcher = Searcher(MATERIAL, tt_bits=12)
    for depth in (2, 3, 4):
        result = searcher.search(position, depth)
        assert [str(m) for m in result.best_moves] == ["11-15"], depth
        assert result.value == before + gain == reference_value(mover, opponent, position.kings, True, depth, set())
    assert [str(m) for m in Searcher(POSITIONAL, tt_bits=12).search(position, 4).best_moves] == ["11-15"]
    agent = make_agent("alphabeta:depth=4")
    assert str(agent.select_move(Game(position))) == "11-15"


# -- endings proved by exhaustive search ---------------------------------------------------------------


def _engine_vs_best_defence(position: Board, depth: int, solver: Solver) -> tuple[int, list[str]]:
    """Play the agent (side to move) against the solver's longest defence; return the
    plies until the defender has no move, and the moves."""
    agent = AlphaBetaAgent(depth=depth, eval="positional", seed=0)
    game = Game(position)
    attacker = position.turn
    played = []
    while not game.is_over():
        board_now = game.board
        if board_now.turn == attacker:
            move = agent.select_move(game)
            assert solver.outcome(board_now.play(move))[0] == "L", f"{move} throws the win in {board_now.fen()}"
        else:  # the defence that loses slowest
            move = max(board_now.legal_moves(), key=lambda m: solver.outcome(board_now.play(m))[1])
        played.append(str(move))
        game.play(move)
    assert game.winner == attacker, (game.termination, played)
    return len(played), played


@pytest.mark.parametrize(
    "fen, plies, depth",
    [
        # Only 23-18 wins (in 5 plies); 23-19, 23-26 and 23-27 let the man through to a draw.
        ("B:W17:BK23", 5, 4),
        # 19-15 and 19-23 win in 7; 19-16 and 19-24 draw. Depth 6 sees the end only
        # through the capture extension.
        ("B:W21:BK19", 7, 6),
        # Win in 9: only 16-11 and 16-19; 16-12 and 16-20 draw.
        ("B:W25:BK16", 9, 8),
    ],
)
def test_king_against_man_wins_in_the_fewest_plies(fen, plies, depth):
    position = Board.from_fen(fen)
    solver = Solver([position])
    assert solver.outcome(position) == ("W", plies)
    result = Searcher(MATERIAL, tt_bits=12).search(position, depth)
    assert result.win_in == plies
    winning = {str(m) for m in position.legal_moves() if solver.outcome(position.play(m)) == ("L", plies - 1)}
    assert {str(m) for m in result.best_moves} == winning
    assert len(winning) < len(position.legal_moves())  # some moves throw the win
    length, _ = _engine_vs_best_defence(position, depth, solver)
    assert length == plies


def test_forced_crowning():
    """Men on b2 and g7 against a man on f8: only g7-h8, crowning at once, wins (in 9
    plies); the man moves b2-a3 and b2-c3 let White's man come down and draw."""
    position = Board.from_fen("B:W30:B8,25")
    assert position == board(black=("b2", "g7"), white=("f8",))
    solver = Solver([position])
    assert solver.outcome(position) == ("W", 9)
    outcomes = {str(m): solver.outcome(position.play(m)) for m in position.legal_moves()}
    assert outcomes == {"25-29": ("L", 8), "8-11": None, "8-12": None}
    result = Searcher(MATERIAL, tt_bits=12).search(position, 8)
    assert [str(m) for m in result.best_moves] == ["25-29"] and result.win_in == 9
    assert _engine_vs_best_defence(position, 8, solver)[0] == 9


def test_agrees_with_exhaustive_search_on_every_two_piece_ending():
    """Every king-or-man against king-or-man position, either side to move: a win or loss
    the solver proves within the depth has exactly that value and those best moves; no
    other value ever claims a win or a loss the solver does not back."""
    positions = []
    for black_square in range(1, 33):
        for white_square in range(1, 33):
            for black_king in (False, True):
                for white_king in (False, True):
                    if black_square == white_square:
                        continue
                    if (not black_king and black_square >= 29) or (not white_king and white_square <= 4):
                        continue
                    kings = ((black_square,) if black_king else ()) + ((white_square,) if white_king else ())
                    for turn in (BLACK, WHITE):
                        positions.append(Board.from_squares((black_square,), (white_square,), kings, turn))
    solver = Solver(positions)
    searcher = Searcher(MATERIAL, tt_bits=14)
    depth = 6
    rng = np.random.default_rng(7)
    checked = {"W": 0, "L": 0, "draw": 0}
    for index in rng.choice(len(positions), 600, replace=False):
        position = positions[index]
        if not position.has_legal_moves():
            continue
        truth = solver.outcome(position)
        result = searcher.search(position, depth)
        if truth is not None and truth[1] <= depth:
            sign = 1 if truth[0] == "W" else -1
            assert result.value == sign * (WIN - truth[1]), position.fen()
            expected = {
                str(m)
                for m in position.legal_moves()
                if solver.outcome(position.play(m)) == (("L", truth[1] - 1) if sign > 0 else ("W", truth[1] - 1))
            }
            assert {str(m) for m in result.best_moves} == expected, position.fen()
            checked[truth[0]] += 1
        else:
            if result.win_in is not None:  # found through the capture extension: a real result
                assert truth is not None and (truth[0] == "W") == (result.win_in > 0), position.fen()
                assert abs(result.win_in) >= truth[1]
            checked["draw"] += 1
    assert min(checked.values()) > 20, checked


# -- agreement with a plain minimax ------------------------------------------------------------------


def game_draws(game: Game) -> set[tuple]:
    # Every earlier position of the game: the ones before the last irreversible move can
    # never come back, so this is the engine's rule written the simplest way.
    return {(b.black, b.white, b.kings, b.turn == BLACK) for b in game.boards}


def _positional(mover, opponent, kings, black_to_move):
    return int(hand_value(mover, opponent, kings, black_to_move, 1))


@pytest.mark.parametrize("eval_name, leaf, count", [("material", _material, 50), ("positional", _positional, 10)])
def test_same_value_and_best_moves_as_plain_minimax(eval_name, leaf, count, random_games):
    searcher = Searcher(EVALUATORS[eval_name], tt_bits=14)  # one table for all: earlier searches must not leak in
    depth = 4
    for game in random_games(count, seed=11 if eval_name == "material" else 12):
        position = game.board
        mover, opponent = position.mover_bitboards
        side = position.turn == BLACK
        draws = game_draws(game)
        result = searcher.search(position, depth, draws=Draws.of_game(game))
        children = {}
        for move in position.legal_moves():
            child = position.play(move)
            m, o = child.mover_bitboards
            children[str(move)] = -reference_value(m, o, child.kings, not side, depth - 1, draws, leaf, ply=1)
        best = max(children.values())
        assert result.value == best, position.fen()
        assert {str(m) for m in result.best_moves} == {m for m, v in children.items() if v == best}, position.fen()
        assert reference_value(mover, opponent, position.kings, side, depth, draws, leaf) == best


def _half_turn(x: int) -> int:
    """The board turned half a turn (bit b -> 31 - b): Black's view becomes White's."""
    return int(f"{x:032b}"[::-1], 2)


@pytest.mark.parametrize("eval_name", ["material", "positional"])
def test_evaluation_is_the_same_for_either_colour(eval_name, random_games):
    """The evaluation is from the side to move's view: turning the board and swapping the
    colours changes nothing; it is symmetric between the two sides' terms."""
    kind = {"material": 0, "positional": 1}[eval_name]
    for game in random_games(30, seed=13):
        b = game.board
        mover, opponent = b.mover_bitboards
        side = b.turn == BLACK
        value = hand_value(mover, opponent, b.kings, side, kind)
        turned = hand_value(_half_turn(mover), _half_turn(opponent), _half_turn(b.kings), not side, kind)
        assert value == turned, b.fen()
    assert hand_value(Board().black, Board().white, 0, True, kind) == 0


# -- repetitions -----------------------------------------------------------------------------------------


def _repeating_game() -> Game:
    """Black kings on c3 and h2 against a White king on a7; both sides shuffle once and
    come back, so c3-d4 (11-15) now leads to a position the game has already seen."""
    start = board(black=("c3", "h2"), white=("a7",), kings=("c3", "h2", "a7"))
    game = Game(start)
    for move in ("11-15", "28-32", "15-11", "32-28"):
        game.play(move)
    return game


def test_draw_hashes_start_after_the_last_irreversible_move():
    game = _repeating_game()
    assert len(Draws.of_game(game).keys) == 5
    game = Game()
    game.play("11-15")
    assert len(Draws.of_game(game).keys) == 1  # a man move: nothing before it can come back


def test_does_not_repeat_when_ahead_and_seeks_the_repetition_when_behind():
    game = _repeating_game()
    assert game.board.turn == BLACK and game.repetitions() == 2
    searcher = Searcher(MATERIAL, tt_bits=12)
    result = searcher.search(game.board, 4, draws=Draws.of_game(game))
    assert result.value == KING  # two kings against one
    moves = {str(m) for m in result.best_moves}
    assert "11-15" not in moves and moves == {str(m) for m in game.legal_moves()} - {"11-15"}
    # Without the history the repeating move is as good as any other.
    assert "11-15" in {str(m) for m in searcher.search(game.board, 4).best_moves}
    # White, a king down, takes the draw: after 11-15, 28-32 repeats.
    game.play("11-15")
    result = searcher.search(game.board, 4, draws=Draws.of_game(game))
    assert [str(m) for m in result.best_moves] == ["28-32"] and result.value == 0
    # The agent follows the game's own history.
    agent = AlphaBetaAgent(depth=4, eval="material", seed=1)
    assert str(agent.select_move(game)) == "28-32"


# -- the agent: spec, parameters, determinism, time ---------------------------------------------------


def test_spec_round_trips_and_registers():
    agent = make_agent("alphabeta:depth=3,eval=material")
    assert isinstance(agent, AlphaBetaAgent)
    assert str(agent) == "alphabeta:depth=3,eval=material"
    assert str(make_agent(str(agent))) == str(agent)
    assert str(make_agent("alphabeta")) == "alphabeta"
    assert str(make_agent("alphabeta:time=0.5,seed=4")) == "alphabeta:time=0.5,seed=4"
    assert make_agent("alphabeta:time=0.5").time == 0.5


@pytest.mark.parametrize(
    "spec, name",
    [
        ("alphabeta:depth=0", "depth"),
        (f"alphabeta:depth={MAX_DEPTH + 1}", "depth"),
        ("alphabeta:eval=foo", "eval"),
        ("alphabeta:time=-1", "time"),
        ("alphabeta:time=0", "time"),
        ("alphabeta:time=nan", "time"),
    ],
)
def test_bad_parameters_name_the_parameter(spec, name):
    with pytest.raises(ValueError, match=name):
        make_agent(spec)
    kind, _, rest = spec.partition(":")
    key, _, value = rest.partition("=")
    with pytest.raises(ValueError, match=name):
        AlphaBetaAgent(**{key: {"depth": int, "time": float, "eval": str}[key](value)})


def test_same_seed_same_game_and_ties_are_random():
    def opening(seed):
        agent = AlphaBetaAgent(depth=2, eval="material", seed=seed)
        game = Game()
        for _ in range(6):
            game.play(agent.select_move(game))
        return [str(m) for m in game.moves]

    assert opening(5) == opening(5)
    assert len({tuple(opening(seed)) for seed in range(6)}) > 1  # equal moves are drawn at random
    agent = AlphaBetaAgent(depth=2, eval="material", seed=3)
    first = agent.select_move(Game())
    agent.reset(seed=3)
    assert agent.select_move(Game()) == first
    assert len(agent.last_search.best_moves) == 7  # all seven openings are worth 0 at depth 2


def test_last_search_reports_the_search():
    agent = AlphaBetaAgent(depth=5)
    move = agent.select_move(Game())
    info = agent.last_search
    assert info.depth == 5 and info.nodes > 0 and info.nodes_per_s > 0 and move in info.best_moves
    assert set(info.as_dict()) >= {"depth", "nodes", "nodes_per_s", "score", "seconds"}


def test_time_limit():
    agent = make_agent("alphabeta:time=0.2")
    game = Game()
    agent.select_move(game)  # compiled and warm
    for _ in range(3):
        move = agent.select_move(game)
        assert move in game.legal_moves()
        assert 1 <= agent.last_search.depth <= MAX_DEPTH
        # The node budget (time left x the rate measured so far) stops it; a loaded machine
        # slows the rate after it is measured, hence the slack: an unlimited search from
        # here would run for minutes.
        assert agent.last_search.seconds < 0.2 + 1.5
        game.play(move)
    capped = AlphaBetaAgent(depth=3, time=30.0)
    capped.select_move(Game())
    assert capped.last_search.depth == 3


def test_no_legal_move_is_an_error():
    lost = board(black=("a1",), white=("b2", "c3"))  # Black's only man is blocked
    assert not lost.has_legal_moves()
    with pytest.raises(ValueError, match="no legal move"):
        AlphaBetaAgent(depth=2).search(Game(lost, rules=Game().rules))


def test_no_legal_move_is_an_error_after_other_searches():
    """The root's move count is this search's, not the last one's left in the memory."""
    lost = board(black=("a1",), white=("b2", "c3"))
    agent = AlphaBetaAgent(depth=2)
    agent.search(Game())
    with pytest.raises(ValueError, match="no legal move"):
        agent.search(Game(lost, rules=Game().rules))


def test_beats_random():
    from checkers_env import make_agent as make

    for seed in range(2):
        players = {BLACK: make(f"alphabeta:depth=4,seed={seed}"), WHITE: make(f"random:seed={seed}")}
        if seed:
            players = {BLACK: players[WHITE], WHITE: players[BLACK]}
        game = Game()
        while not game.is_over():
            game.play(players[game.board.turn].select_move(game))
        assert game.winner is not None and isinstance(players[game.winner], AlphaBetaAgent)


# -- the evaluator interface ----------------------------------------------------------------------------------


def _net_minimax(evaluator, board: Board, depth: int, quiescence: bool, ply: int = 0) -> float:
    """Plain negamax without pruning over an evaluator's leaf values, move rewards and
    terminal scores (no draw rules: the positions carry no history)."""
    from checkers_agents.search_parts.evaluators import REWARD_MATERIAL_LOG, evaluate, material_log_reward

    moves = board.legal_moves()
    if not moves:
        value = evaluator.loss - evaluator.loss_per_ply * ply
        return -value
    mover, opponent = board.mover_bitboards
    if depth <= 0 and not (quiescence and board.is_capture_position()):
        return evaluate(evaluator, mover, opponent, board.kings, board.turn == BLACK)
    best = -np.inf
    for move in moves:
        child = board.play(move)
        reward = 0.0
        if evaluator.move_reward == REWARD_MATERIAL_LOG and child.has_legal_moves():
            m, o = child.mover_bitboards
            reward = material_log_reward(mover, opponent, board.kings, m, o, child.kings, child.turn == BLACK)
        best = max(best, reward - _net_minimax(evaluator, child, depth - 1, quiescence, ply + 1))
    return best


def _door_evaluators():
    from checkers_agents.alphabeta import make_evaluator

    return {
        "material": (MATERIAL, True),
        "positional": (POSITIONAL, True),
        "td-minimax": (make_evaluator("td-minimax", "untrained", seed=3), True),
        "slow-fast": (make_evaluator("slow-fast", "untrained", seed=4), False),
    }


@pytest.mark.parametrize("name", ["material", "positional", "td-minimax", "slow-fast"])
def test_every_evaluator_through_the_door_equals_plain_minimax(name, random_games):
    evaluator, quiescence = _door_evaluators()[name]
    for depth in (1, 2, 3):
        searcher = Searcher(evaluator, tt_bits=12, quiescence=quiescence)
        for game in random_games(4, seed=30 + depth):
            board = game.board
            result = searcher.search(board, depth, exact_root=True)
            for row, move in enumerate(result.rows):
                child = board.play(move_from_row(move))
                reward = 0.0
                if evaluator.move_reward and child.has_legal_moves():
                    m, o = board.mover_bitboards
                    cm, co = child.mover_bitboards
                    reward = material_log_reward(m, o, board.kings, cm, co, child.kings, child.turn == BLACK)
                expected = reward - _net_minimax(evaluator, child, depth - 1, quiescence, 1)
                assert result.root_scores[row] == pytest.approx(expected, abs=1e-9), (name, depth, board.fen())


def test_td_minimax_agent_is_alphabeta_with_its_net_at_depth_two(tmp_path, random_games):
    from checkers_agents.td_minimax import Net

    path = tmp_path / "net.safetensors"
    Net.initial(seed=5, scale=0.5).save(path)
    td = make_agent(f"td-minimax:weights={path}")
    ab = make_agent(f"alphabeta:eval=td-minimax,weights={path},depth=2")
    assert str(ab) == f"alphabeta:depth=2,eval=td-minimax,weights={path}"
    for game in random_games(15, seed=41):
        best = {str(m) for m in ab.search(game).best_moves}
        assert str(td.select_move(game)) in best, game.board.fen()


@pytest.mark.parametrize("spec", ["td-minimax", "slow-fast", "td-minimax:depth=3"])
def test_nets_without_weights_are_refused_unless_untrained_is_named(spec):
    from checkers_env.errors import UnknownAgentError

    with pytest.raises(UnknownAgentError, match="weights=untrained"):
        make_agent(spec)
    kind = spec.split(":")[0]
    agent = make_agent(f"{kind}:weights=untrained,seed=1")
    assert "weights=untrained" in str(agent)
    assert agent.select_move(Game()) in Game().legal_moves()


def test_every_caller_gives_the_search_one_type_per_kind(egdb4):
    """Searches that differ only in their caller share one compiled kernel: numba compiles
    one for each type of argument, so the empty endgame probe has the database's type, a
    game's read-only keys reach the kernel as self-play's writable ones do, and the pruning
    switches that Python passes as a plain tuple are named again as numba names them."""
    import numba

    from checkers_agents.alphabeta.pruning import named_pruning, search_options
    from checkers_agents.search_parts.endgame_probe import EndgameProbe, no_egdb

    assert numba.typeof(no_egdb()) == numba.typeof(EndgameProbe(egdb4.tables, egdb4.offsets, 4))
    game = Game()
    for move in ("11-15", "23-19", "8-11", "22-17"):
        game.play(move)
    keys = game.position_keys_since_progress()
    assert not keys.flags.writeable
    rules = Draws(keys, 0, 80).rules()
    assert numba.typeof(rules) == numba.typeof(Draws.none().rules())
    np.testing.assert_array_equal(rules.keys, keys)

    @numba.njit
    def named(pruning):
        return named_pruning(pruning)

    options = search_options(False, table_cutoffs=True, pvs=True, reductions=True)
    assert numba.typeof(named(tuple(options.pruning))) == numba.typeof(options.pruning)
    assert named(tuple(options.pruning)) == options.pruning
    assert named(None) is None


def test_a_searcher_loads_the_kernel_its_callers_run_and_leaves_no_trace(monkeypatch):
    """Before its first search a searcher calls ``search_kernel`` itself, so that the
    kernel's own machine code is loaded before its callers' copies (``Searcher._bind_kernel``):
    that call must have the types the callers pass on, or it loads another kernel, and it
    must leave the searcher as new."""
    import numba

    from checkers_agents.alphabeta import searcher as searcher_module

    calls = {}
    for name in ("search_kernel", "search_iteration"):
        original = getattr(searcher_module, name)

        def recording(*args, name=name, original=original):
            calls.setdefault(name, args)
            return original(*args)

        monkeypatch.setattr(searcher_module, name, recording)
    searcher = Searcher(POSITIONAL, table_cutoffs=True, pvs=True, reductions=True)
    searcher._bind_kernel()
    assert searcher._kernel_bound and searcher.generation == 0
    assert not searcher.table.any() and not searcher.killers.any() and not searcher.history_scores.any()
    searcher.search(Board(), depth=3, seconds=60.0)
    bound, iteration = calls["search_kernel"], calls["search_iteration"]
    # search_iteration passes its first eleven arguments on to the kernel as they are.
    assert [numba.typeof(a) for a in bound] == [numba.typeof(a) for a in iteration[: len(bound)]]


def test_a_searcher_wipes_its_memories_when_its_generations_wrap_around():
    searcher = Searcher(POSITIONAL)
    searcher.search(Board(), depth=1, seconds=60.0)  # its first search loads the kernel, which clears
    searcher.generation = 255
    searcher.table[:] = 7  # entries of earlier searches, which the new generation must not read
    searcher.table_bundle.leaves[:] = 7
    searcher.search(Board(), depth=2, seconds=60.0)
    assert searcher.generation == 1
    assert not (searcher.table == 7).all(axis=1).any() and not (searcher.table_bundle.leaves == 7).any()
