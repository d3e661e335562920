"""Pictures of a position: text (``str(board)``), an RGB array (the SVG picture of
``checkers_env.svg`` painted as pixels), and a pygame window; the envs' ``render`` modes
``ansi``, ``rgb_array`` and ``human``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .board import BLACK, Board, Color, Move

# One drawing: the colours are the SVG picture's, re-exported here for the env's users.
from .svg import (  # noqa: F401
    BLACK_PIECE,
    DARK_SQUARE,
    KING_MARK,
    LAST_MOVE,
    LIGHT_SQUARE,
    PIECE_EDGE,
    WHITE_PIECE,
    board_pixels,
)

SQUARE_PIXELS = 48


def board_to_ascii(board: Board, seen_from: Color = BLACK) -> str:
    """The board seen from one side (Black's by default), every dark square with its number.

    A piece is shown before its square number: ``b`` black man, ``B`` black king, ``w``
    white man, ``W`` white king; an empty dark square shows only its number::

        +--------------------------------+
        |    w32     w31     w30     w29 |
        |w28     w27     w26     w25     |
        ...
    """
    far, near = ("White", "Black") if seen_from == BLACK else ("Black", "White")
    lines = [f"      {far}", "+" + "-" * 32 + "+"]
    # From White's side the picture is turned half round: rows and columns reversed.
    rows = range(7, -1, -1) if seen_from == BLACK else range(8)
    columns = range(8) if seen_from == BLACK else range(7, -1, -1)
    for row in rows:
        cells = []
        for col in columns:
            if (row + col) % 2:
                cells.append("    ")
                continue
            square = 4 * row + 4 - col // 2
            piece = board.piece_at(square) or " "
            cells.append(f"{piece}{square:<2} ")
        lines.append("|" + "".join(cells) + "|")
    lines.append("+" + "-" * 32 + "+")
    lines.append(f"      {near}        {board.turn} to move")
    return "\n".join(lines)


def board_image(board: Board, last_move: Move | None = None, square_pixels: int = SQUARE_PIXELS) -> np.ndarray:
    """``uint8 (8 * square_pixels, 8 * square_pixels, 3)`` picture seen from Black's side
    (Black's back rank at the bottom): the SVG picture of ``checkers_env.svg`` painted as
    pixels (same shapes and colours; no square numbers): men are discs, kings carry a gold
    mark, and the squares of the last move are highlighted."""
    return board_pixels(board, square_pixels, last_move=last_move)


class HumanRenderer:
    """A pygame window showing the board (pygame is imported only here)."""

    def __init__(self, fps: int):
        try:
            import pygame
        except ImportError as error:  # pragma: no cover - depends on the user's install
            raise ImportError(
                "render_mode='human' needs pygame: pip install 'checkers-suite[render]' (or pip install pygame)"
            ) from error
        self.pygame = pygame
        pygame.display.init()  # not pygame.init(): no audio needed
        self.window = pygame.display.set_mode((8 * SQUARE_PIXELS, 8 * SQUARE_PIXELS))
        pygame.display.set_caption("Checkers")
        self.clock = pygame.time.Clock()
        self.fps = fps

    def show(self, image: np.ndarray) -> None:
        surface = self.pygame.surfarray.make_surface(image.swapaxes(0, 1))
        self.window.blit(surface, (0, 0))
        self.pygame.event.pump()
        self.pygame.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        self.pygame.display.quit()
        self.pygame.quit()


def require_reset(has_reset: bool) -> None:
    """``gymnasium.error.ResetNeeded`` before the first ``reset()``: there is no position yet,
    and an empty board would look like a game. (Gymnasium's ``OrderEnforcing`` wrapper, which
    ``gym.make`` adds, raises the same error; this covers the env used unwrapped.)"""
    if not has_reset:
        from gymnasium.error import ResetNeeded

        raise ResetNeeded("call reset() before render(): there is no position to draw yet")


class RenderMixin:
    """``render()`` and ``close()`` of the single and PettingZoo envs (which have
    ``render_mode``, ``board``, ``moves``, a ``_has_reset`` flag and a ``_renderer`` slot)."""

    _has_reset = False
    _renderer: HumanRenderer | None = None

    if TYPE_CHECKING:  # what the envs provide
        render_mode: str | None
        metadata: dict[str, Any]

        @property
        def board(self) -> Board: ...

        @property
        def moves(self) -> list[Move]: ...

    def render(self):
        require_reset(self._has_reset)
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= when making the env")
            return None
        last = self.moves[-1] if self.moves else None
        if self.render_mode == "ansi":
            text = str(self.board)
            if last is not None:
                text += f"\nlast move: {last}"
            return text
        image = board_image(self.board, last)
        if self.render_mode == "rgb_array":
            return image
        if self._renderer is None:
            self._renderer = HumanRenderer(self.metadata["render_fps"])
        self._renderer.show(image)
        return None

    def close(self):
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
