"""Text and image pictures of a position."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bitboard import BB_SQUARES

if TYPE_CHECKING:
    from .board import Board


def board_to_ascii(board: Board) -> str:
    """The board seen from Black's side, every dark square with its number.

    A piece is shown before its square number: ``b`` black man, ``B`` black king, ``w``
    white man, ``W`` white king; an empty dark square shows only its number::

        +--------------------------------+
        |    w32     w31     w30     w29 |
        |w28     w27     w26     w25     |
        ...
    """
    lines = ["      White", "+" + "-" * 32 + "+"]
    for row in range(7, -1, -1):
        cells = []
        for col in range(8):
            if (row + col) % 2:
                cells.append("    ")
                continue
            square = 4 * row + 4 - col // 2
            piece = board.piece_at(square) or " "
            cells.append(f"{piece}{square:<2} ")
        lines.append("|" + "".join(cells) + "|")
    lines.append("+" + "-" * 32 + "+")
    lines.append(f"      Black        {board.turn} to move")
    return "\n".join(lines)


__all__ = ["board_to_ascii", "BB_SQUARES"]
