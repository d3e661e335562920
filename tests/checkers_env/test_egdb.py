"""The truth of the endgame database.

* The index: slice sizes sum to the published position counts, and ``slice_position`` /
  ``slice_index`` are inverse bijections onto legal positions.
* The values up to 3 pieces: every position agrees with an independent brute-force solver
  (``brute_force_egdb``: the reference move generator and a plain fixed point, no code of
  ``checkers_env``).
* The values of 4 pieces: every position agrees with its children (Bellman consistency),
  checked by a numba kernel over the core move generator.
* The codes a search probes (memory-mapped, 2 bits) are the values' win, draw or loss.
* The Python API (``probe``, ``move_values``, ``best_moves``, ``stats``); the files and the
  resumable build are ``test_egdb_files.py``.
"""

from __future__ import annotations

import random

import brute_force_egdb as brute
import numba
import numpy as np
import pytest
import reference_movegen as ref

from checkers_env import BLACK, WHITE, Board, egdb
from checkers_env.egdb import index as ek
from checkers_env.movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves

# Schaeffer et al., the counts of Chinook's endgame databases: positions with n pieces,
# side to move given, a side possibly without pieces.
PUBLISHED_COUNTS = {1: 120, 2: 6_972, 3: 261_224, 4: 7_092_774, 5: 148_688_232, 6: 2_503_611_964}

ROW0 = 0x0000000F
ROW7 = 0xF0000000


def piece_counts(pieces: int) -> list[tuple[int, int, int, int]]:
    """Every ``(mm, mk, om, ok)`` with ``pieces`` pieces in all, empty sides included."""
    return [
        (mm, mk, om, pieces - mm - mk - om)
        for mm in range(pieces + 1)
        for mk in range(pieces + 1 - mm)
        for om in range(pieces + 1 - mm - mk)
    ]


def position_problem(s, mover: int, opponent: int, kings: int) -> str | None:
    """Why ``(mover, opponent, kings)`` is not a legal position of slice ``s``, or None."""
    mm, mk, om, ok = s
    if mover & opponent:
        return "a square holds both sides"
    if (mover | opponent | kings) >> 32 or min(mover, opponent, kings) < 0:
        return "a bit beyond the 32 squares"
    if kings & ~(mover | opponent):
        return "a king on an empty square"
    counts = tuple((side & mask).bit_count() for side in (mover, opponent) for mask in (~kings, kings))
    if counts != (mm, mk, om, ok):
        return f"counts {counts}"
    if mover & ~kings & ROW7:
        return "a mover man on row 7"
    if opponent & ~kings & ROW0:
        return "an opponent man on row 0"
    return None


def mover_board(mover: int, opponent: int, kings: int) -> Board:
    """The Black-to-move board of a position in the mover's frame."""
    return Board(mover, opponent, kings, BLACK)


def half_turned_swap(board: Board) -> Board:
    """The board with the colours swapped and turned half a circle (square s -> 33 - s),
    the other side to move; built from square numbers, not bitboards."""
    turn = lambda squares: tuple(sorted(33 - s for s in squares))  # noqa: E731
    return Board.from_squares(
        black=turn(board.pieces(WHITE)),
        white=turn(board.pieces(BLACK)),
        kings=turn(board.pieces(BLACK, kings=True) + board.pieces(WHITE, kings=True)),
        turn=WHITE if board.turn == BLACK else BLACK,
    )


def random_boards(rng: random.Random, count: int, min_pieces: int = 2, max_pieces: int = 4) -> list[Board]:
    """``count`` random legal boards with both sides present, either side to move."""
    boards = []
    while len(boards) < count:
        n = rng.randint(min_pieces, max_pieces)
        squares = rng.sample(range(1, 33), n)
        sides = [rng.random() < 0.5 for _ in squares]
        if all(sides) or not any(sides):
            continue
        kinds = [rng.random() < 0.5 for _ in squares]
        black = tuple(s for s, b in zip(squares, sides) if b)
        white = tuple(s for s, b in zip(squares, sides) if not b)
        kings = tuple(s for s, k in zip(squares, kinds) if k)
        position = (
            frozenset(s for s in black if s not in kings),
            frozenset(s for s in black if s in kings),
            frozenset(s for s in white if s not in kings),
            frozenset(s for s in white if s in kings),
            rng.choice((BLACK, WHITE)),
        )
        if ref.is_legal_position(position):
            boards.append(ref.position_to_board(position, Board))
    return boards


# ---------------------------------------------------------------------------------------
# The index
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("pieces, published", PUBLISHED_COUNTS.items())
def test_slice_sizes_sum_to_the_published_position_counts(pieces, published):
    """Summed over every slice with n pieces, the slice sizes are Chinook's counts."""
    assert sum(int(ek.slice_size(*s)) for s in piece_counts(pieces)) == published


@pytest.mark.parametrize("pieces", [2, 3, 4, 5])
def test_slices_are_every_piece_count_with_both_sides_present_in_twin_pairs(pieces):
    """``slices(n)`` lists each count with both sides present once, fewer men first, and
    ``slice_pairs(n)`` groups each with its swapped twin."""
    listed = egdb.slices(pieces)
    expected = {s for s in piece_counts(pieces) if s[0] + s[1] and s[2] + s[3]}
    assert sorted(listed) == sorted(expected)
    men = [s[0] + s[2] for s in listed]
    assert men == sorted(men)
    paired = [s for pair in egdb.slice_pairs(pieces) for s in set(pair)]
    assert sorted(paired) == sorted(expected)
    for a, b in egdb.slice_pairs(pieces):
        assert b == (a[2], a[3], a[0], a[1])


@pytest.mark.parametrize("pieces", [1, 2, 3])
def test_every_index_of_every_slice_up_to_three_pieces_is_a_distinct_legal_position_and_ranks_back(pieces):
    """Exhaustively: ``slice_index(slice_position(i)) == i``, the position has the slice's
    counts and no man on its crowning row, and no two indexes give the same position."""
    for s in piece_counts(pieces):
        size = int(ek.slice_size(*s))
        seen = set()
        for index in range(size):
            mover, opponent, kings = (int(x) for x in ek.slice_position(*s, index))
            problem = position_problem(s, mover, opponent, kings)
            assert problem is None, f"slice {s} index {index}: {problem}"
            assert ek.slice_index(mover, opponent, kings) == index, f"slice {s} index {index}"
            seen.add((mover, opponent, kings))
        assert len(seen) == size, f"slice {s}"


@pytest.mark.parametrize("pieces", [4, 5])
def test_sampled_indexes_of_every_four_and_five_piece_slice_are_legal_positions_that_rank_back(pieces):
    """On a seeded sample (the first and last index included) of every slice with 4 or 5
    pieces: ``slice_index(slice_position(i)) == i`` and the position is legal."""
    rng = random.Random(4 * pieces)
    for s in piece_counts(pieces):
        size = int(ek.slice_size(*s))
        indexes = {0, size - 1} | {rng.randrange(size) for _ in range(2000)}
        positions = set()
        for index in sorted(indexes):
            mover, opponent, kings = (int(x) for x in ek.slice_position(*s, index))
            problem = position_problem(s, mover, opponent, kings)
            assert problem is None, f"slice {s} index {index}: {problem}"
            assert ek.slice_index(mover, opponent, kings) == index, f"slice {s} index {index}"
            positions.add((mover, opponent, kings))
        assert len(positions) == len(indexes)


# ---------------------------------------------------------------------------------------
# Up to 3 pieces: an independent brute-force solver
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def brute3():
    """``{key: (value, distance)}`` of every position with at most 3 pieces, both sides to
    move, solved by ``brute_force_egdb`` (about 10 s)."""
    return brute.solve(3)


def brute_probe(solution, fen: str):
    return solution[brute.key(ref.board_to_position(Board.from_fen(fen)))]


# Worked out by hand: Black's man takes (1x10); White's man is stuck (5 can only go to 1);
# Black's only move 4-8 is taken 12x3, White's only move 12-8 is taken 4x11; two kings in
# their double corners are safe; a king on 4 can only go to 8, which the king on 11 takes.
HAND_POSITIONS = {
    "B:W6:B1": ("win", 1),
    "W:W5:BK1": ("loss", 0),
    "B:W12:B4": ("loss", 2),
    "W:W12:B4": ("loss", 2),
    "B:WK32:BK1": ("draw", None),
    "B:WK11:BK4": ("loss", 2),
}

# Solved by the brute-force solver and pinned here: the two-king example of the egdb
# docstring, a lone king trapped in the single corner, the longest 3-piece wins (two men
# against a king, two men against a man) and loss, and a man against a man, drawn.
SOLVED_POSITIONS = {
    "B:WK14:BK1,K2": ("win", 33),
    "W:WK9:BK1,K2": ("loss", 34),
    "B:WK13:BK1": ("win", 11),
    "B:WK1:BK2": ("loss", 10),
    "B:WK1:B3,4": ("win", 61),
    "W:W29,30:B7": ("win", 61),
    "B:W29,30:B2": ("loss", 62),
    "B:W32:B1": ("draw", None),
}


def test_brute_force_solver_knows_the_positions_worked_out_by_hand_or_pinned(brute3):
    """The oracle is right on positions small enough to solve by hand, and still gives
    the values pinned from it."""
    for fen, expected in {**HAND_POSITIONS, **SOLVED_POSITIONS}.items():
        assert brute_probe(brute3, fen) == expected, fen


def test_brute_force_solver_covers_exactly_the_positions_of_the_database(brute3):
    """The solver's positions are the database's up to 3 pieces, once per side to move."""
    database = sum(int(ek.slice_size(*s)) for n in (2, 3) for s in egdb.slices(n))
    assert len(brute3) == 2 * database


def test_every_position_up_to_three_pieces_agrees_with_the_brute_force_solver(brute3, egdb4):
    """``probe`` of every position with at most 3 pieces, Black and White to move, is the
    brute-force value and distance."""
    wrong = []
    for k, expected in brute3.items():
        position = brute.position_of(k)
        got = egdb4.probe(ref.position_to_board(position, Board))
        if got != expected:
            wrong.append((ref.position_fen(position), expected, got))
    assert not wrong, f"{len(wrong)} positions differ, e.g. (FEN, brute force, database): {wrong[:5]}"


def test_slice_stats_up_to_three_pieces_are_the_brute_force_counts(brute3, egdb4):
    """``stats()`` of every slice up to 3 pieces: the brute force's wins, losses, draws and
    longest win, counted over its Black-to-move positions."""
    tallies = {}
    for k, (value, distance) in brute3.items():
        position = brute.position_of(k)
        if position[4] != BLACK:
            continue
        s = tuple(len(p) for p in (position[0], position[1], position[2], position[3]))
        t = tallies.setdefault(s, {"win": 0, "loss": 0, "draw": 0, "longest": 0})
        t[value] += 1
        if value == "win":
            t["longest"] = max(t["longest"], distance)
    stats = {st.slice: st for st in egdb4.stats() if sum(st.slice) <= 3}
    assert set(stats) == set(tallies)
    for s, t in tallies.items():
        st = stats[s]
        assert (st.wins, st.losses, st.draws, st.longest_win) == (t["win"], t["loss"], t["draw"], t["longest"]), s
        assert st.positions == int(ek.slice_size(*s))


# ---------------------------------------------------------------------------------------
# 4 pieces: every position agrees with its children
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _mark_inconsistent(values, offsets, mm, mk, om, ok, wrong, indices=None):
    """Check the positions of slice ``(mm, mk, om, ok)`` (every one, or those at
    ``indices``) against their children; set ``wrong[i]`` where the ``i``-th position
    checked does not have the value byte its children give; returns the number checked.

    A win at ``d`` must have a child lost at ``d - 1`` and none lost sooner; a loss at
    ``d`` only children won, the longest at ``d - 1`` (``d = 0``: no legal move); a draw a
    drawn child and no lost one. Given the children these fix the byte, so the byte is
    compared with the one they give.
    """
    size = ek.slice_size(mm, mk, om, ok) if indices is None else indices.shape[0]
    start = offsets[mm, mk, om, ok]
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    checked = 0
    for i in range(size):
        index = i if indices is None else indices[i]
        mover, opponent, kings = ek.slice_position(mm, mk, om, ok, index)
        n = generate_moves(mover, opponent, kings, True, moves)
        drawn = False
        outside = n >= MAX_MOVES
        fastest_loss = 0  # smallest byte of a child lost for its mover (odd bytes), 0: none
        longest_win = 0  # largest byte of a child won for its mover (even bytes), 0: none
        for k in range(n):
            c_mover, c_opponent, c_kings = ek.child_frame(
                mover, opponent, kings, moves[k, FROM], moves[k, TO], moves[k, CAPTURED]
            )
            child = ek.value_byte(values, offsets, c_mover, c_opponent, c_kings)
            if child < 0:
                outside = True
            elif child == 0:
                drawn = True
            elif child % 2 == 1:
                if fastest_loss == 0 or child < fastest_loss:
                    fastest_loss = child
            elif child > longest_win:
                longest_win = child
        if fastest_loss:
            expected = fastest_loss + 1  # won in (fastest_loss - 1) + 1 plies
        elif drawn:
            expected = 0
        else:
            expected = longest_win + 1  # lost in (longest_win - 1) + 1 plies, 0 with no move
        if outside or values[start + index] != expected:
            wrong[i] = True
        checked += 1
    return checked


def inconsistent_positions(values, offsets, slices):
    """``(inconsistent, checked, examples)`` over every position of ``slices``: examples are
    ``(slice, index, FEN)`` of the first few inconsistent ones."""
    inconsistent = checked = 0
    examples = []
    for s in slices:
        wrong = np.zeros(int(ek.slice_size(*s)), dtype=np.bool_)
        checked += _mark_inconsistent(values, offsets, *s, wrong)
        bad = np.flatnonzero(wrong)
        inconsistent += bad.size
        for index in bad[: max(0, 5 - len(examples))]:
            mover, opponent, kings = (int(x) for x in ek.slice_position(*s, int(index)))
            examples.append((s, int(index), mover_board(mover, opponent, kings).fen()))
    return inconsistent, checked, examples


@pytest.mark.slow
def test_sampled_positions_of_the_largest_built_database_agree_with_their_children():
    """``make test-slow``: 20,000 seeded positions of every slice of the largest database
    in the default folder (``$CHECKERS_EGDB``; 5 or 6 pieces where one was built), each
    with the value its children give."""
    pieces = egdb.complete_pieces()
    if pieces is None or pieces <= 4:
        pytest.skip("no database over 4 pieces in the default folder (checkers egdb build --pieces 5)")
    values, offsets, _ = egdb.load_values(pieces)
    rng = np.random.default_rng(0)
    for s in egdb.slices(pieces):
        size = int(ek.slice_size(*s))
        indices = np.unique(rng.integers(0, size, 20_000)).astype(np.int64)
        wrong = np.zeros(indices.size, dtype=np.bool_)
        assert _mark_inconsistent(values, offsets, *s, wrong, indices) == indices.size
        assert not wrong.any(), f"slice {egdb.slice_label(s)}: inconsistent at {indices[wrong][:5]}"


def test_every_four_piece_position_agrees_with_its_children(egdb4_values):
    """Every position of every 4-piece slice has the value and distance its children give."""
    values, offsets, _ = egdb4_values
    inconsistent, checked, examples = inconsistent_positions(values, offsets, egdb.slices(4))
    assert checked == sum(int(ek.slice_size(*s)) for s in egdb.slices(4))
    one_side_empty = sum(int(ek.slice_size(*s)) for s in piece_counts(4) if not (s[0] + s[1] and s[2] + s[3]))
    assert checked == PUBLISHED_COUNTS[4] - one_side_empty
    assert inconsistent == 0, f"{inconsistent} inconsistent positions, e.g. {examples}"


@pytest.mark.parametrize(
    "s, kind, change",
    [
        ((1, 1, 1, 1), "draw", lambda byte: 2),  # a draw made a win in 1
        ((1, 1, 1, 1), "win", lambda byte: byte + 2),  # a win two plies slower
        ((0, 2, 2, 0), "loss", lambda byte: 0),  # a loss made a draw
        ((2, 0, 2, 0), "win", lambda byte: byte - 1),  # a win made a loss
    ],
)
def test_the_consistency_check_finds_a_corrupted_four_piece_value(egdb4_values, s, kind, change):
    """The check can fail: one value byte changed in a copy of the tables is flagged."""
    values, offsets, _ = egdb4_values
    values = values.copy()
    start = int(offsets[s])
    table = values[start : start + int(ek.slice_size(*s))]
    if kind == "draw":
        candidates = np.flatnonzero(table == 0)
    elif kind == "win":
        candidates = np.flatnonzero((table > 2) & (table % 2 == 0))
    else:
        candidates = np.flatnonzero((table > 1) & (table % 2 == 1))
    index = int(candidates[len(candidates) // 2])
    table[index] = change(int(table[index]))
    wrong = np.zeros(table.size, dtype=np.bool_)
    _mark_inconsistent(values, offsets, *s, wrong)
    assert wrong[index]
    inconsistent, _, _ = inconsistent_positions(values, offsets, [s])
    assert inconsistent >= 1


@numba.njit(cache=True)
def _codes_differing(tables, offsets, values, start, mm, mk, om, ok):
    """How many positions of a slice have a probed code other than their value byte's."""
    differing = 0
    for index in range(ek.slice_size(mm, mk, om, ok)):
        mover, opponent, kings = ek.slice_position(mm, mk, om, ok, index)
        if ek.probe(tables, offsets, mover, opponent, kings) != ek.code_of(values[start + index]):
            differing += 1
    return differing


def test_the_memory_mapped_codes_are_the_win_draw_loss_of_every_value(egdb4, egdb4_values):
    """What a search probes (the 2-bit codes, through the files' memory maps) is, for every
    position up to 4 pieces, the win, draw or loss of its value byte."""
    values, offsets, order = egdb4_values
    assert all(not table.flags.writeable for table in egdb4.tables) and len(egdb4.tables) == egdb.MAX_BUILD_PIECES - 1
    for s in order:
        assert _codes_differing(egdb4.tables, egdb4.offsets, values, int(offsets[s]), *s) == 0, s
    assert {ek.code_of(b) for b in (0, 1, 2, 3, 4)} == {ek.WDL_DRAW, ek.WDL_LOSS, ek.WDL_WIN}


# ---------------------------------------------------------------------------------------
# The Python API
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fen, expected", {**HAND_POSITIONS, **SOLVED_POSITIONS}.items())
def test_probe_of_known_positions(egdb4, fen, expected):
    """``probe`` of positions worked out by hand or pinned from the brute-force solver."""
    assert egdb4.probe(Board.from_fen(fen)) == expected


def test_two_kings_against_one_king_win_in_nearly_every_position(egdb4):
    """Two kings to move against one king never lose and draw almost never; the lone king
    to move almost always loses."""
    stats = {st.slice: st for st in egdb4.stats()}
    two = stats[(0, 2, 0, 1)]
    assert two.losses == 0
    assert two.wins > 0.99 * two.positions
    one = stats[(0, 1, 0, 2)]
    assert one.losses > 0.85 * one.positions


def test_probe_is_none_outside_the_database_and_a_loss_without_pieces(egdb4):
    """More pieces than the database, or no piece for the side not to move: None; no piece
    for the side to move: lost in 0."""
    assert egdb4.probe(Board.from_fen("B:WK30,K31:BK1,K2,K3")) is None
    assert egdb4.probe(Board()) is None
    assert egdb4.probe(Board.from_squares(black=(1, 2), white=(), turn=BLACK)) is None
    assert egdb4.probe(Board.from_squares(black=(), white=(30,), turn=WHITE)) is None
    assert egdb4.probe_byte(Board.from_squares(black=(1, 2), white=(), turn=BLACK)) == -1
    assert egdb4.probe(Board.from_squares(black=(1, 2), white=(), turn=WHITE)) == egdb.Probe("loss", 0)
    assert egdb4.probe(Board.from_squares(black=(), white=(30,), kings=(30,), turn=BLACK)) == egdb.Probe("loss", 0)
    assert Board.from_fen("B:WK14:BK1,K2") in egdb4
    assert Board() not in egdb4


def test_white_to_move_probes_as_the_colour_swapped_half_turned_board(egdb4):
    """A board and its colour swap turned half a circle, the other side to move, have the
    same value and distance."""
    for board in random_boards(random.Random(7), 3000):
        assert egdb4.probe(board) == egdb4.probe(half_turned_swap(board)), board.fen()


def test_move_values_and_best_moves_follow_the_children(egdb4):
    """``move_values`` scores every legal move by its child; ``best_moves`` keeps the
    fastest wins, the longest losses, or the draws, exactly as the children say."""
    seen = set()
    for board in random_boards(random.Random(11), 600):
        probe = egdb4.probe(board)
        seen.add(probe.value)
        scored = egdb4.move_values(board)
        assert [m for m, _ in scored] == board.legal_moves()
        children = {}
        for move, verdict in scored:
            child = egdb4.probe(board.play(move))
            children[move] = child
            if child.value == "draw":
                assert verdict == child
            else:
                assert verdict == ("win" if child.value == "loss" else "loss", child.distance + 1)
        best = egdb4.best_moves(board)
        if probe.value == "win":
            expected = [m for m, c in children.items() if c == ("loss", probe.distance - 1)]
        elif probe.value == "loss":
            expected = [m for m, c in children.items() if c == ("win", probe.distance - 1)]
            assert (probe.distance == 0) == (not children)
        else:
            expected = [m for m, c in children.items() if c.value == "draw"]
        assert best == expected and (best or probe == ("loss", 0)), board.fen()
    assert seen == {"win", "loss", "draw"}


def test_move_values_outside_the_database_raise(egdb4):
    """Asking for the moves of a board the database does not hold is an error naming it."""
    with pytest.raises(egdb.EndgameDatabaseError, match="4-piece"):
        egdb4.move_values(Board())
    with pytest.raises(egdb.EndgameDatabaseError):
        egdb4.best_moves(Board())
