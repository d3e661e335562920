"""From JAX states back to the suite's values: ``Board`` objects, pictures, perft.

These run on the host (they read the arrays), for tests, notebooks and debugging; the env
itself never calls them inside ``jit``.
"""

from __future__ import annotations

import numpy as np

from .. import svg
from ..bitboard import bit_to_square
from ..board import Board, Color

#: Boards drawn by ``boards_svg`` at most, and per row.
SVG_BOARDS, SVG_PER_ROW = 16, 4


def _rows(state) -> dict[str, np.ndarray]:
    """The position fields of a state (or batch) as flat numpy arrays, one entry per game."""
    fields = {
        "black": state._black,
        "white": state._white,
        "kings": state._kings,
        "turn": state._turn,
        "square": state._square,
    }
    return {name: np.asarray(value).reshape(-1) for name, value in fields.items()}


def boards_of(state) -> list[Board]:
    """The position of each game of ``state`` (one, or a batch of any shape, flattened) as a
    ``Board``. In the middle of a capture it is the board as the hops so far left it: the
    piece on its current square, the jumped pieces gone, the same side to move."""
    rows = _rows(state)
    return [
        Board(int(b), int(w), int(k), Color(int(t)))
        for b, w, k, t in zip(rows["black"], rows["white"], rows["kings"], rows["turn"])
    ]


def boards_svg(state, scale: float | None = None) -> str:
    """SVG of the first ``SVG_BOARDS`` boards of ``state``, ``SVG_PER_ROW`` to a row, the
    piece continuing a capture marked."""
    size = int(round(240 * (scale or 1.0)))
    squares = _rows(state)["square"]
    boards = boards_of(state)[:SVG_BOARDS]
    columns = min(len(boards), SVG_PER_ROW)
    rows = -(-len(boards) // SVG_PER_ROW)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{columns * size}" height="{rows * size}">']
    for n, board in enumerate(boards):
        marked = [bit_to_square(int(squares[n]))] if squares[n] >= 0 else []
        picture = svg.board(board, size=size, marked=marked)
        x, y = (n % SVG_PER_ROW) * size, (n // SVG_PER_ROW) * size
        parts.append(picture.replace("<svg ", f'<svg x="{x}" y="{y}" ', 1))
    parts.append("</svg>")
    return "".join(parts)


def perft(env, depth: int, batch: int = 4096) -> int:
    """Complete moves from the start to ``depth`` (the leaves of the move tree, each capture
    path counted on its own: the published perft counts), through ``env.step`` one hop at a
    time, a level of the tree at once in batches of ``batch`` states.

    Raises:
        ValueError: ``depth`` is negative, or ``batch`` not positive.
    """
    import jax

    if depth < 0 or batch < 1:
        raise ValueError(f"perft needs depth >= 0 and batch >= 1, got depth={depth}, batch={batch}")
    if depth == 0:
        return 1
    step = jax.jit(jax.vmap(env.step))
    # The frontier stays in numpy between the jitted steps: indexing a JAX array by rows of
    # a new length each time would compile a gather for every length.
    frontier = jax.tree.map(lambda x: np.asarray(x)[None], env.init(jax.random.PRNGKey(0)))
    leaves = 0
    while len(frontier.current_player):
        over = frontier.terminated | frontier.truncated
        games, actions = np.nonzero(frontier.legal_action_mask & ~over[:, None])
        if not len(games):
            break
        children = []
        for start in range(0, len(games), batch):  # one batch shape: one compilation
            count = len(games[start : start + batch])
            rows = np.resize(games[start : start + batch], batch)
            child = step(
                jax.tree.map(lambda x, rows=rows: x[rows], frontier), np.resize(actions[start : start + batch], batch)
            )
            child = jax.tree.map(lambda x, count=count: np.asarray(x)[:count], child)
            reached = child._plies  # moves completed; a capture in progress is not one yet
            leaves += int(np.sum((child._square < 0) & (reached == depth)))
            keep = np.nonzero(reached < depth)[0]
            children.append(jax.tree.map(lambda x, keep=keep: x[keep], child))
        frontier = jax.tree.map(lambda *xs: np.concatenate(xs), *children)
    return leaves


__all__ = ["SVG_BOARDS", "SVG_PER_ROW", "boards_of", "boards_svg", "perft"]
