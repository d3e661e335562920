"""A small, slow, independent move generator for English draughts, for the tests only.

It shares no code with ``checkers_env`` (no bitboards, no kernels): it works on an 8x8 grid
of (row, column) cells drawn from the numbering diagram of docs/design.md §1, seen from
Black's side::

      32      31      30      29        row 7
  28      27      26      25            row 6
      24      23      22      21        row 5
  20      19      18      17            row 4
      16      15      14      13        row 3
  12      11      10       9            row 2
       8       7       6       5        row 1
   4       3       2       1            row 0
 (column 0 on the left, column 7 on the right)

Row ``r`` holds squares ``4r+1 .. 4r+4`` from right to left; square 4 is (0, 0), square 1
is (0, 6), square 5 is (1, 7). Black's men (starting on 1-12) move toward higher rows and
are crowned on row 7; White's men move toward lower rows and are crowned on row 0.

A position is ``(black_men, black_kings, white_men, white_kings, side_to_move)``: four
frozensets of square numbers and ``BLACK`` (0) or ``WHITE`` (1).

A move is ``(path, captured, result)``: the tuple of squares the piece stands on from first
to last, the frozenset of captured squares, and the resulting position.
"""

from __future__ import annotations

BLACK, WHITE = 0, 1

Position = tuple  # (frozenset, frozenset, frozenset, frozenset, int)


def square_to_cell(square: int) -> tuple[int, int]:
    """(row, column) of a square number, seen from Black."""
    if not 1 <= square <= 32:
        raise ValueError(f"no square {square}")
    row, from_right = divmod(square - 1, 4)
    from_left = 3 - from_right
    return row, 2 * from_left + row % 2


def cell_to_square(row: int, col: int) -> int | None:
    """Square number of a cell, or None off the board or on a light cell."""
    if not (0 <= row < 8 and 0 <= col < 8) or (row + col) % 2:
        return None
    from_left = (col - row % 2) // 2
    return 4 * row + (3 - from_left) + 1


CROWNING_ROW = {BLACK: 7, WHITE: 0}
FORWARD = {BLACK: 1, WHITE: -1}
ALL_DIRECTIONS = ((1, -1), (1, 1), (-1, -1), (-1, 1))


def start_position() -> Position:
    return (
        frozenset(range(1, 13)),
        frozenset(),
        frozenset(range(21, 33)),
        frozenset(),
        BLACK,
    )


def _directions(side: int, is_king: bool):
    if is_king:
        return ALL_DIRECTIONS
    forward = FORWARD[side]
    return ((forward, -1), (forward, 1))


def _neighbour(square: int, dr: int, dc: int, distance: int = 1) -> int | None:
    row, col = square_to_cell(square)
    return cell_to_square(row + distance * dr, col + distance * dc)


def legal_moves(position: Position) -> list[tuple[tuple[int, ...], frozenset, Position]]:
    """Every legal complete move: captures only if any exists, each capture path once."""
    black_men, black_kings, white_men, white_kings, side = position
    if side == BLACK:
        own_men, own_kings = black_men, black_kings
        opponents = white_men | white_kings
    else:
        own_men, own_kings = white_men, white_kings
        opponents = black_men | black_kings
    occupied = black_men | black_kings | white_men | white_kings

    captures: list[tuple[tuple[int, ...], frozenset]] = []
    for origin in sorted(own_men | own_kings):
        is_king = origin in own_kings
        # The moving piece leaves its origin: that square is empty during its own capture.
        blocked = occupied - {origin}

        # extend() runs within this iteration, so it reads this origin's is_king and blocked.
        def extend(square: int, path: tuple[int, ...], captured: frozenset) -> None:
            continued = False
            for dr, dc in _directions(side, is_king):  # noqa: B023
                over = _neighbour(square, dr, dc)
                land = _neighbour(square, dr, dc, 2)
                if over is None or land is None:
                    continue
                if over not in opponents or over in captured:
                    continue
                # Captured pieces stay on the board until the move ends: not a landing square.
                if land in blocked:  # noqa: B023
                    continue
                continued = True
                new_path, new_captured = path + (land,), captured | {over}
                if not is_king and square_to_cell(land)[0] == CROWNING_ROW[side]:  # noqa: B023
                    captures.append((new_path, new_captured))  # crowned: the move ends
                else:
                    extend(land, new_path, new_captured)
            if not continued and len(path) > 1:
                captures.append((path, captured))

        extend(origin, (origin,), frozenset())

    if captures:
        candidates = captures
    else:
        candidates = []
        for origin in sorted(own_men | own_kings):
            for dr, dc in _directions(side, origin in own_kings):
                target = _neighbour(origin, dr, dc)
                if target is not None and target not in occupied:
                    candidates.append(((origin, target), frozenset()))

    return [(path, captured, _result(position, path, captured)) for path, captured in candidates]


def _result(position: Position, path: tuple[int, ...], captured: frozenset) -> Position:
    black_men, black_kings, white_men, white_kings, side = position
    origin, target = path[0], path[-1]
    if side == BLACK:
        men, kings, other_men, other_kings = set(black_men), set(black_kings), white_men, white_kings
    else:
        men, kings, other_men, other_kings = set(white_men), set(white_kings), black_men, black_kings
    if origin in kings:
        kings.remove(origin)
        kings.add(target)
    else:
        men.remove(origin)
        if square_to_cell(target)[0] == CROWNING_ROW[side]:
            kings.add(target)
        else:
            men.add(target)
    other_men = frozenset(other_men - captured)
    other_kings = frozenset(other_kings - captured)
    if side == BLACK:
        return (frozenset(men), frozenset(kings), other_men, other_kings, WHITE)
    return (other_men, other_kings, frozenset(men), frozenset(kings), BLACK)


def perft(position: Position, depth: int) -> int:
    """Number of move paths of ``depth`` plies (slow; for small depths only)."""
    if depth == 0:
        return 1
    moves = legal_moves(position)
    if depth == 1:
        return len(moves)
    return sum(perft(result, depth - 1) for _, _, result in moves)


def position_fen(position: Position) -> str:
    """PDN FEN of a position (``B:W21,K30:B1,K9``), written without ``checkers_env``."""
    black_men, black_kings, white_men, white_kings, side = position

    def pieces(men, kings):
        return ",".join(("K" if s in kings else "") + str(s) for s in sorted(men | kings))

    turn = "B" if side == BLACK else "W"
    return f"{turn}:W{pieces(white_men, white_kings)}:B{pieces(black_men, black_kings)}"


# -- adapters to the public API under test (duck-typed: no import of the rules core) ---------


def board_to_position(board) -> Position:
    """Reference position of a ``checkers_env.Board`` (read through ``Board.pieces``)."""
    return (
        frozenset(board.pieces(BLACK, kings=False)),
        frozenset(board.pieces(BLACK, kings=True)),
        frozenset(board.pieces(WHITE, kings=False)),
        frozenset(board.pieces(WHITE, kings=True)),
        int(board.turn),
    )


def position_to_board(position: Position, board_class):
    """A ``board_class`` (``checkers_env.Board``) built with ``from_squares``."""
    black_men, black_kings, white_men, white_kings, side = position
    return board_class.from_squares(
        black=tuple(sorted(black_men | black_kings)),
        white=tuple(sorted(white_men | white_kings)),
        kings=tuple(sorted(black_kings | white_kings)),
        turn=side,
    )


def is_legal_position(position: Position) -> bool:
    """No square twice, no man on its own crowning row, at most 12 pieces a side."""
    black_men, black_kings, white_men, white_kings, side = position
    sets = (black_men, black_kings, white_men, white_kings)
    if sum(map(len, sets)) != len(frozenset().union(*sets)):
        return False
    if any(square_to_cell(s)[0] == 7 for s in black_men):
        return False
    if any(square_to_cell(s)[0] == 0 for s in white_men):
        return False
    return (
        len(black_men | black_kings) <= 12
        and len(white_men | white_kings) <= 12
        and side
        in (
            BLACK,
            WHITE,
        )
    )


def random_position(rng) -> Position:
    """A random legal position (``rng`` is a ``random.Random``), often king-heavy; legality
    by rejection with ``is_legal_position``."""
    while True:
        n_black = rng.randint(1, 12)
        n_white = rng.randint(0, 12) if rng.random() < 0.05 else rng.randint(1, 12)
        squares = rng.sample(range(1, 33), n_black + n_white)
        king_share = rng.choice((0.3, 0.7, 0.9, 1.0))
        pieces = [set(), set(), set(), set()]
        for i, square in enumerate(squares):
            colour = 0 if i < n_black else 2
            pieces[colour + (rng.random() < king_share)].add(square)
        candidate = (*map(frozenset, pieces), rng.choice((BLACK, WHITE)))
        if is_legal_position(candidate):
            return candidate
