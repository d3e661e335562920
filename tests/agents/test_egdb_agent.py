"""The endgame database in the search (``alphabeta:egdb=P``) and the ``egdb`` agent.

The reference is a plain negamax written here with the ``Board`` API whose nodes with at
most 4 pieces take the database's value (``db.probe``); the database itself is the
session's 4-piece one (``egdb_folder``/``egdb4`` in ``tests/conftest.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from checkers_agents.alphabeta import AlphaBetaAgent, Draws, Searcher, board_key
from checkers_agents.egdb_agent import EgdbAgent
from checkers_agents.search_parts.evaluators import MATERIAL, POSITIONAL, WIN
from checkers_env import BLACK, WHITE, Board, Game, Rules, UnknownAgentError, egdb, make_agent
from checkers_env.bitboard import square_to_bit
from checkers_env.egdb import EndgameDatabaseError
from checkers_env.egdb.index import WDL_DRAW, WDL_WIN, slice_position, slice_size
from checkers_env.encoding import half_turn

PIECES = 4


@pytest.fixture(autouse=True)
def database_folder(egdb_folder, monkeypatch):
    """Every agent here loads the session's database (``$CHECKERS_EGDB``)."""
    monkeypatch.setenv("CHECKERS_EGDB", str(egdb_folder))
    return egdb_folder


def sample_positions(count: int, pieces: range, seed: int) -> list[Board]:
    """``count`` positions drawn uniformly from random slices with ``pieces`` pieces, either
    side to move (``slice_position`` gives them in the mover's frame, Black's)."""
    rng = np.random.default_rng(seed)
    found = [s for n in pieces for s in egdb.slices(n)]
    boards = []
    while len(boards) < count:
        s = found[rng.integers(len(found))]
        mover, opponent, kings = (int(x) for x in slice_position(*s, int(rng.integers(slice_size(*s)))))
        if rng.integers(2):
            boards.append(Board(mover, opponent, kings, BLACK))
        else:
            boards.append(Board(half_turn(opponent), half_turn(mover), half_turn(kings), WHITE))
    return boards


def row_key(move) -> tuple[int, int, int]:
    """A move as the kernel lists it: (from bit, to bit, captured)."""
    return square_to_bit(move.path[0]), square_to_bit(move.path[-1]), move.captured


def pieces_of(board: Board) -> int:
    return (board.black | board.white).bit_count()


def database_value(code: int, ply: int, contempt: float = 0.0) -> float:
    """The search's score of a database code at ``ply`` (hand-written evaluations): a win
    (loss) is one 253 (252) plies further down, ``WIN - (ply + 253)``: the same end seen
    from either side of a move; a draw costs the root's side ``contempt`` (its opponent
    moves at odd plies)."""
    if code == WDL_DRAW:
        return contempt if ply % 2 else -contempt
    return WIN - ply - 253 if code == WDL_WIN else -(WIN - ply - 252)


def material(board: Board) -> float:
    own, other = (board.black, board.white) if board.turn == BLACK else (board.white, board.black)
    count = int.bit_count
    return 100 * (count(own & ~board.kings) - count(other & ~board.kings)) + 140 * (
        count(own & board.kings) - count(other & board.kings)
    )


def reference_value(board: Board, depth: int, db, ply: int = 0, contempt: float = 0.0) -> float:
    """Plain negamax without pruning: a node below the root that the database holds takes
    its value (a draw ``contempt`` below 0 for the root's side); no move loses
    (``-WIN + ply``); depth 0 with a capture pending searches on."""
    if ply > 0 and pieces_of(board) <= db.pieces:
        code = db.probe_code(board)
        if code >= 0:
            return database_value(code, ply, contempt)
    moves = board.legal_moves()
    if not moves:
        return -WIN + ply
    if depth <= 0 and not moves[0].captured:
        return material(board)
    return max(-reference_value(board.play(m), depth - 1, db, ply + 1, contempt) for m in moves)


# -- the search ------------------------------------------------------------------------------

#: Won for White to move (in 47 plies); the positional search at depth 1 plays 21-17, which
#: throws the win away, the database keeps it with 23-18.
WON = "W:W21,K23:B4,10"


def test_the_position_of_the_depth_one_tests_is_what_they_say(egdb4):
    board = Board.from_fen(WON)
    assert egdb4.probe(board) == egdb.Probe("win", 47)
    assert [str(m) for m in egdb4.best_moves(board)] == ["23-18"]
    values = {str(m): p.value for m, p in egdb4.move_values(board)}
    plain = Searcher(POSITIONAL, tt_bits=12).search(board, 1)
    assert [str(m) for m in plain.best_moves] == ["21-17"] and values["21-17"] != "win"
    assert plain.win_in is None


def test_probing_below_the_root_keeps_the_win_at_depth_one(egdb4):
    """The kernel itself (``search_rows`` never answers from the database at the root):
    every child's win, draw or loss is looked up, so depth 1 keeps the only winning move."""
    board = Board.from_fen(WON)
    searcher = Searcher(POSITIONAL, tt_bits=12, egdb=egdb4)
    value, depth, count, _ = searcher.search_rows(board, 1)
    assert (value, depth) == (WIN - 253, 1)  # the child's loss 1 + 252 plies down
    scores = searcher.root_scores[:count]
    best = {tuple(int(x) for x in searcher.moves[0, i, :3]) for i in np.flatnonzero(scores == value)}
    assert best == {row_key(board.parse_move("23-18"))}
    by_move = {str(m): p for m, p in egdb4.move_values(board)}
    assert sorted(scores.tolist()) == sorted(
        -database_value(egdb4.probe_code(board.play(m)), 1) for m in board.legal_moves()
    )
    assert by_move["23-18"] == egdb.Probe("win", 47)


def test_alphabeta_with_the_database_plays_the_win_and_says_so():
    board = Board.from_fen(WON)
    agent = make_agent("alphabeta:depth=1,egdb=4,seed=3")
    assert str(agent) == "alphabeta:depth=1,egdb=4,seed=3"
    assert str(agent.select_move(board)) == "23-18"
    assert agent.last_search.win_in == 47 and agent.last_search.depth == 0 and agent.last_search.nodes == 0
    without = make_agent("alphabeta:depth=1,seed=3")
    assert str(without.select_move(board)) == "21-17"


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_equals_plain_minimax_with_the_database_at_its_nodes(egdb4, depth):
    boards = [b for b in sample_positions(40, range(5, 7), seed=depth) if b.legal_moves()][:8]
    searcher = Searcher(MATERIAL, tt_bits=12, egdb=egdb4)  # one table: earlier searches must not leak in
    changed = 0
    for board in boards:
        result = searcher.search(board, depth)
        expected = reference_value(board, depth, egdb4)
        assert result.value == expected, board.fen()
        children = {m: -reference_value(board.play(m), depth - 1, egdb4, 1) for m in board.legal_moves()}
        best = {row_key(m) for m, v in children.items() if v == expected}
        assert {row_key(m) for m in result.best_moves} == best, board.fen()
        changed += Searcher(MATERIAL, tt_bits=12).search(board, depth).value != expected
    assert changed > 0  # the database did decide something


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_contempt_makes_every_draw_cost_the_root_side(egdb4, depth):
    """Every root move scores as plain minimax does with each database draw ``contempt``
    below 0 for the root's side, whichever side that is (the positions have both)."""
    contempt = 7.0
    searcher = Searcher(MATERIAL, tt_bits=12, egdb=egdb4, contempt=contempt)
    costly = 0
    for board in [b for b in sample_positions(30, range(5, 6), seed=depth) if b.legal_moves()]:
        result = searcher.search(board, depth, exact_root=True)
        assert result.value == reference_value(board, depth, egdb4, contempt=contempt), board.fen()
        index = {tuple(int(x) for x in row[:3]): i for i, row in enumerate(result.rows)}
        reached = result.depth  # a forced win found sooner ends the deepening there
        for move in board.legal_moves():
            expected = -reference_value(board.play(move), reached - 1, egdb4, 1, contempt)
            assert result.root_scores[index[row_key(move)]] == expected, (board.fen(), str(move))
            costly += expected != -reference_value(board.play(move), reached - 1, egdb4, 1)
    assert costly >= 5  # drawn moves were among them


def test_with_contempt_the_table_is_cleared_when_the_side_searched_for_changes(egdb4):
    """Its values hold a draw's cost for one side: a search for the other side starts from
    an empty table (generation 1 again), and without contempt the table is kept."""
    black = next(b for b in sample_positions(40, range(5, 7), seed=5) if b.legal_moves() and b.turn == BLACK)
    white = next(b for b in sample_positions(40, range(5, 7), seed=6) if b.legal_moves() and b.turn == WHITE)
    for contempt, generations in ((7.0, [1, 2, 1, 1]), (0.0, [1, 2, 3, 4])):
        searcher = Searcher(MATERIAL, tt_bits=12, egdb=egdb4, contempt=contempt)
        seen = []
        for board in (black, black, white, black):
            searcher.search(board, 2)
            seen.append(searcher.generation)
        assert seen == generations, contempt


def test_a_repetition_is_a_draw_before_the_database_is_asked(egdb4):
    """The draw rules come first, as they come before the evaluation."""
    board = Board.from_fen(WON)
    searcher = Searcher(POSITIONAL, tt_bits=12, egdb=egdb4)
    winning = board.play("23-18")  # a king's step: the position may repeat one of the game
    value, _, count, _ = searcher.search_rows(board, 1, Draws(np.array([board_key(winning)], dtype=np.int64)))
    assert value == 0.0  # the only win, 23-18, is now a draw
    rows = [tuple(int(x) for x in searcher.moves[0, i, :3]) for i in range(count)]
    assert searcher.root_scores[rows.index(row_key(board.parse_move("23-18")))] == 0.0
    spiteful = Searcher(POSITIONAL, tt_bits=12, egdb=egdb4, contempt=25.0)
    _, _, count, _ = spiteful.search_rows(board, 1, Draws(np.array([board_key(winning)], dtype=np.int64)))
    rows = [tuple(int(x) for x in spiteful.moves[0, i, :3]) for i in range(count)]
    assert spiteful.root_scores[rows.index(row_key(board.parse_move("23-18")))] == -25.0


def test_the_database_off_changes_nothing_and_on_costs_no_node_above_it():
    board = Board()
    on = Searcher(POSITIONAL, tt_bits=12, egdb=egdb.EndgameDatabase.cached(PIECES)).search(board, 4)
    off = Searcher(POSITIONAL, tt_bits=12).search(board, 4)
    assert (on.value, on.best_moves, on.nodes) == (off.value, off.best_moves, off.nodes)


# -- the egdb agent --------------------------------------------------------------------------


def test_inside_the_database_it_plays_a_best_move(egdb4):
    agent = EgdbAgent(pieces=PIECES, depth=2, seed=7)
    boards = [b for b in sample_positions(60, range(2, PIECES + 1), seed=11) if b.legal_moves()][:30]
    assert len(boards) == 30
    for board in boards:
        assert agent.select_move(board) in egdb4.best_moves(board), board.fen()


def test_self_play_from_a_won_position_ends_in_the_database_distance(egdb4):
    won = [b for b in sample_positions(400, range(3, PIECES + 1), seed=5) if egdb4.probe(b).value == "win"]
    board = max(won[:60], key=lambda b: egdb4.probe(b).distance)  # a long one
    distance = egdb4.probe(board).distance
    assert distance > 10
    agent = make_agent(f"egdb:pieces={PIECES},seed=2")
    game = Game(start=board, rules=Rules.without_draws())
    while not game.is_over():
        game.play(agent.select_move(game))
    assert game.ply == distance
    assert game.winner == board.turn


def test_outside_the_database_it_searches():
    agent = make_agent("egdb:pieces=4,depth=3,seed=1")
    move = agent.select_move(Game())
    assert move in Board().legal_moves()
    assert agent.last_search.depth == 3 and agent.last_search.nodes > 0


def test_spec_round_trips():
    for spec in ("egdb:pieces=4", "egdb:pieces=4,depth=3,eval=material,seed=5", "egdb:pieces=4,time=0.5"):
        agent = make_agent(spec)
        assert isinstance(agent, EgdbAgent) and isinstance(agent, AlphaBetaAgent)
        assert str(agent) == spec and str(make_agent(str(agent))) == spec
    assert make_agent("egdb:pieces=4").egdb == 4


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("egdb:pieces=1", "pieces must be a number of pieces from 2 to 6, got 1"),
        ("egdb:pieces=x", "pieces='x' is not a whole number"),
        ("egdb:pieces=4,colour=red", "no parameter 'colour'"),
        ("egdb:pieces=4,egdb=3", "no parameter 'egdb'"),
        ("alphabeta:egdb=1", "egdb must be 0 \\(off\\) or a number of pieces from 2 to 6, got 1"),
        ("alphabeta:egdb=x", "egdb='x' is not a whole number"),
    ],
)
def test_bad_specs_name_the_parameter(spec, message):
    with pytest.raises(UnknownAgentError, match=message):
        make_agent(spec)


def test_a_missing_database_names_the_file_and_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_EGDB", str(tmp_path))
    message = (
        r"4-piece endgame database is not built in .* \(missing the 2-piece slices.*`checkers egdb build --pieces 4`"
    )
    with pytest.raises(EndgameDatabaseError, match=message):
        EgdbAgent(pieces=4)
    with pytest.raises(EndgameDatabaseError, match=message):
        AlphaBetaAgent(egdb=4)
    # A missing database is not a bad spec: make_agent passes the error through.
    with pytest.raises(EndgameDatabaseError, match=message):
        make_agent("egdb:pieces=4")


def test_a_folder_in_the_spec_reads_the_database_there(egdb_folder, tmp_path, monkeypatch):
    """``folder=DIR`` (``egdb_folder=DIR`` for alphabeta) reads the database there whatever
    ``$CHECKERS_EGDB`` says, and the spec keeps it."""
    monkeypatch.setenv("CHECKERS_EGDB", str(tmp_path))  # an empty folder
    for spec in (f"egdb:pieces=4,folder={egdb_folder}", f"alphabeta:egdb=4,egdb_folder={egdb_folder}"):
        agent = make_agent(spec)
        assert str(agent) == spec
        assert agent.database.folder == egdb_folder
        board = Board.from_fen("B:WK14:BK1,K2")
        assert agent.select_move(board) in agent.database.best_moves(board)


def test_the_database_is_loaded_once_per_process(egdb_folder):
    first = EgdbAgent(pieces=PIECES)
    assert make_agent("alphabeta:egdb=4").database is first.database
    assert egdb.EndgameDatabase.cached(PIECES, egdb_folder) is first.database
