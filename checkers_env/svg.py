"""Boards as pictures: SVG for notebooks and the web page, and the same drawing as pixels.

    >>> from checkers_env import Board, svg
    >>> board = Board()
    >>> picture = svg.board(board, last_move=None, numbers=True, size=240)
    >>> picture.startswith("<svg")
    True

The picture is built once, as a list of shapes (``board_shapes``: rectangles, circles,
convex polygons and text, in square units, the board 8 x 8). ``board`` writes the shapes
as SVG; ``rasterise`` paints the same shapes into a numpy RGB array, which is what the
envs' ``rgb_array`` render returns (``rendering.board_image``). Text (the square numbers)
exists only in SVG: the array is drawn without it.

Every dark square of the SVG carries ``class="square"`` and ``data-square="N"``, and every
piece ``data-square="N"``, so a page can find what was clicked (``checkers serve`` does).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .board import BLACK, Board, Color, Move, square_row_col

RGB = tuple[int, int, int]

LIGHT_SQUARE: RGB = (238, 238, 210)
DARK_SQUARE: RGB = (118, 150, 86)
LAST_MOVE: RGB = (186, 202, 68)  #: dark squares of the last move's path
MARKED: RGB = (96, 160, 200)  #: squares a caller marks (a page's landing squares)
BLACK_PIECE: RGB = (34, 34, 34)
WHITE_PIECE: RGB = (250, 250, 245)
PIECE_EDGE: RGB = (90, 90, 90)
KING_MARK: RGB = (212, 175, 55)
ARROW: RGB = (210, 80, 40)
NUMBER_ON_DARK: RGB = (225, 235, 215)

#: Radii, as a fraction of a square: the piece's edge ring, its body, a king's gold mark.
PIECE_RADIUS = 0.40
BODY_RADIUS = 0.36
CROWN_RADIUS = 0.16
ARROW_WIDTH = 0.14
ARROW_HEAD = 0.36
ARROW_OPACITY = 0.8


@dataclass(frozen=True, kw_only=True)
class Painted:
    """What every shape carries besides its geometry: its colour, its CSS class, and the
    dark square it stands for (``data-square`` in the SVG, so a page finds what was clicked)."""

    fill: RGB
    css: str = ""
    square: int | None = None


@dataclass(frozen=True)
class Rect(Painted):
    """An axis-aligned rectangle (square units from the top-left corner)."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Circle(Painted):
    cx: float
    cy: float
    r: float


@dataclass(frozen=True)
class Polygon(Painted):
    """A convex polygon (arrows are two of them)."""

    points: tuple[tuple[float, float], ...]
    opacity: float = 1.0


@dataclass(frozen=True)
class Text(Painted):
    x: float
    y: float
    text: str
    size: float


Shape = Rect | Circle | Polygon | Text
ArrowSpec = Move | tuple[int, int]


def square_position(square: int, flipped: bool = False) -> tuple[int, int]:
    """(x, y) of a square's top-left corner in square units: Black's back rank at the
    bottom, or at the top when ``flipped`` (seen from White)."""
    row, col = square_row_col(square)
    if flipped:
        return 7 - col, row
    return col, 7 - row


def _centre(square: int, flipped: bool) -> tuple[float, float]:
    x, y = square_position(square, flipped)
    return x + 0.5, y + 0.5


def _arrow(tail: int, head: int, flipped: bool, color: RGB) -> list[Polygon]:
    """Shaft and head of an arrow from the centre of ``tail`` to that of ``head``."""
    (x0, y0), (x1, y1) = _centre(tail, flipped), _centre(head, flipped)
    length = float(np.hypot(x1 - x0, y1 - y0))
    if length == 0:
        return []
    ux, uy = (x1 - x0) / length, (y1 - y0) / length  # along the arrow
    nx, ny = -uy, ux  # across it
    neck = length - ARROW_HEAD
    half = ARROW_WIDTH / 2
    shaft = (
        (x0 + nx * half, y0 + ny * half),
        (x0 + ux * neck + nx * half, y0 + uy * neck + ny * half),
        (x0 + ux * neck - nx * half, y0 + uy * neck - ny * half),
        (x0 - nx * half, y0 - ny * half),
    )
    wing = ARROW_HEAD * 0.6
    tip = (
        (x0 + ux * neck + nx * wing, y0 + uy * neck + ny * wing),
        (x1, y1),
        (x0 + ux * neck - nx * wing, y0 + uy * neck - ny * wing),
    )
    return [
        Polygon(shaft, ARROW_OPACITY, fill=color, css="arrow"),
        Polygon(tip, ARROW_OPACITY, fill=color, css="arrow"),
    ]


def _hops(arrow: ArrowSpec) -> list[tuple[int, int]]:
    if isinstance(arrow, Move):
        return list(zip(arrow.path, arrow.path[1:]))
    tail, head = arrow
    return [(int(tail), int(head))]


def board_shapes(
    board: Board,
    *,
    numbers: bool = True,
    flipped: bool = False,
    last_move: Move | None = None,
    arrows: Iterable[ArrowSpec] = (),
    marked: Iterable[int] = (),
) -> list[Shape]:
    """The picture of ``board`` as shapes, back to front (see the module's docstring).

    Args:
        board: the position.
        numbers: write each dark square's number in its corner.
        flipped: seen from White's side (White's back rank at the bottom).
        last_move: its squares are highlighted.
        arrows: moves (an arrow along each hop) or ``(from, to)`` square pairs.
        marked: squares to highlight in another colour (a page's landing squares).
    """
    highlighted = set(last_move.path) if last_move is not None else set()
    marked = set(marked)
    shapes: list[Shape] = [Rect(0, 0, 8, 8, fill=LIGHT_SQUARE, css="light")]
    pieces: list[Shape] = []
    labels: list[Shape] = []
    for square in range(1, 33):
        x, y = square_position(square, flipped)
        fill = MARKED if square in marked else LAST_MOVE if square in highlighted else DARK_SQUARE
        css = "square" + (" marked" if square in marked else "") + (" last" if square in highlighted else "")
        shapes.append(Rect(x, y, 1, 1, fill=fill, css=css, square=square))
        if numbers:
            labels.append(Text(x + 0.05, y + 0.2, str(square), 0.2, fill=NUMBER_ON_DARK, css="number"))
        piece = board.piece_at(square)
        if piece is None:
            continue
        color = "black" if piece in "bB" else "white"
        kind = "king" if piece.isupper() else "man"
        css = f"piece {color} {kind}"
        pieces.append(Circle(x + 0.5, y + 0.5, PIECE_RADIUS, fill=PIECE_EDGE, css=css, square=square))
        pieces.append(
            Circle(
                x + 0.5,
                y + 0.5,
                BODY_RADIUS,
                fill=BLACK_PIECE if color == "black" else WHITE_PIECE,
                css=css,
                square=square,
            )
        )
        if kind == "king":
            pieces.append(Circle(x + 0.5, y + 0.5, CROWN_RADIUS, fill=KING_MARK, css=css + " crown", square=square))
    shapes += labels + pieces
    for arrow in arrows:
        for tail, head in _hops(arrow):
            shapes += _arrow(tail, head, flipped, ARROW)
    return shapes


# -- SVG ---------------------------------------------------------------------------------


class SvgImage(str):
    """An SVG document that Jupyter shows as a picture (python-chess's habit)."""

    def _repr_svg_(self) -> str:
        return str(self)


def _hex(color: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


def _num(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _data(square: int | None) -> str:
    return "" if square is None else f' data-square="{square}"'


def shapes_to_svg(shapes: Sequence[Shape], size: int, title: str = "") -> SvgImage:
    """SVG of shapes on an 8 x 8 board drawn ``size`` pixels wide."""
    unit = 45  # viewBox units per square (whole numbers keep the text readable)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {8 * unit} {8 * unit}" '
        f'width="{size}" height="{size}" class="checkers-board">'
    ]
    if title:
        parts.append(f"<title>{html.escape(title)}</title>")
    for shape in shapes:
        # The attributes every shape has but its fill: its class and its square.
        marks = (f' class="{shape.css}"' if shape.css else "") + _data(shape.square)
        if isinstance(shape, Rect):
            parts.append(
                f'<rect x="{_num(shape.x * unit)}" y="{_num(shape.y * unit)}" width="{_num(shape.width * unit)}" '
                f'height="{_num(shape.height * unit)}" fill="{_hex(shape.fill)}"{marks}/>'
            )
        elif isinstance(shape, Circle):
            parts.append(
                f'<circle cx="{_num(shape.cx * unit)}" cy="{_num(shape.cy * unit)}" r="{_num(shape.r * unit)}" '
                f'fill="{_hex(shape.fill)}"{marks}/>'
            )
        elif isinstance(shape, Polygon):
            points = " ".join(f"{_num(x * unit)},{_num(y * unit)}" for x, y in shape.points)
            parts.append(
                f'<polygon points="{points}" fill="{_hex(shape.fill)}" fill-opacity="{_num(shape.opacity)}"{marks}/>'
            )
        else:
            parts.append(
                f'<text x="{_num(shape.x * unit)}" y="{_num(shape.y * unit)}" font-size="{_num(shape.size * unit)}" '
                f'font-family="sans-serif" fill="{_hex(shape.fill)}" pointer-events="none"{marks}>'
                f"{html.escape(shape.text)}</text>"
            )
    parts.append("</svg>")
    return SvgImage("".join(parts))


def board(
    board: Board | None = None,
    *,
    size: int = 360,
    numbers: bool = True,
    flipped: bool = False,
    last_move: Move | None = None,
    arrows: Iterable[ArrowSpec] = (),
    marked: Iterable[int] = (),
) -> SvgImage:
    """The board as an SVG picture (shown as one in Jupyter).

        >>> from checkers_env import Board, svg
        >>> picture = svg.board(Board(), arrows=[(11, 15)], flipped=True, size=200)
        >>> 'data-square="11"' in picture and 'width="200"' in picture
        True

    Args:
        board: the position (default: the start position).
        size: width and height in pixels.
        numbers: write the square numbers (1-32) in the dark squares' corners.
        flipped: seen from White's side instead of Black's.
        last_move: highlight this move's squares.
        arrows: moves (an arrow along each hop of the path) or ``(from, to)`` pairs.
        marked: squares to highlight (for example the landing squares of a selected piece).

    Raises:
        ValueError: ``size`` is not a positive whole number.
    """
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"size must be a positive whole number of pixels, got {size!r}")
    position = board if board is not None else Board()
    shapes = board_shapes(position, numbers=numbers, flipped=flipped, last_move=last_move, arrows=arrows, marked=marked)
    return shapes_to_svg(shapes, size, title=position.fen())


# -- pixels ------------------------------------------------------------------------------


def rasterise(shapes: Sequence[Shape], square_pixels: int) -> np.ndarray:
    """Paint shapes into ``uint8 (8 * square_pixels, 8 * square_pixels, 3)``; a pixel is
    covered when its centre is inside a shape (no anti-aliasing). Text is skipped."""
    size = 8 * square_pixels
    image = np.zeros((size, size, 3), dtype=np.uint8)
    # Pixel centres in square units.
    centres = (np.arange(size) + 0.5) / square_pixels
    for shape in shapes:
        if isinstance(shape, Rect):
            x0, y0 = round(shape.x * square_pixels), round(shape.y * square_pixels)
            x1 = round((shape.x + shape.width) * square_pixels)
            y1 = round((shape.y + shape.height) * square_pixels)
            image[y0:y1, x0:x1] = shape.fill
        elif isinstance(shape, Circle):
            x0, x1 = _span(shape.cx - shape.r, shape.cx + shape.r, square_pixels, size)
            y0, y1 = _span(shape.cy - shape.r, shape.cy + shape.r, square_pixels, size)
            yy, xx = np.meshgrid(centres[y0:y1], centres[x0:x1], indexing="ij")
            inside = np.hypot(yy - shape.cy, xx - shape.cx) <= shape.r
            image[y0:y1, x0:x1][inside] = shape.fill
        elif isinstance(shape, Polygon):
            xs = [p[0] for p in shape.points]
            ys = [p[1] for p in shape.points]
            x0, x1 = _span(min(xs), max(xs), square_pixels, size)
            y0, y1 = _span(min(ys), max(ys), square_pixels, size)
            yy, xx = np.meshgrid(centres[y0:y1], centres[x0:x1], indexing="ij")
            inside = _inside_convex(shape.points, xx, yy)
            patch = image[y0:y1, x0:x1]
            blended = (1 - shape.opacity) * patch[inside] + shape.opacity * np.array(shape.fill)
            patch[inside] = np.round(blended).astype(np.uint8)
    return image


def _span(low: float, high: float, square_pixels: int, size: int) -> tuple[int, int]:
    return max(0, int(np.floor(low * square_pixels))), min(size, int(np.ceil(high * square_pixels)) + 1)


def _inside_convex(points, xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
    """Pixels on the inner side of every edge of a convex polygon (either winding)."""
    signs = []
    for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1]):
        signs.append((bx - ax) * (yy - ay) - (by - ay) * (xx - ax))
    stacked = np.stack(signs)
    return np.all(stacked >= 0, axis=0) | np.all(stacked <= 0, axis=0)


def board_pixels(
    board: Board,
    square_pixels: int,
    *,
    flipped: bool = False,
    last_move: Move | None = None,
    arrows: Iterable[ArrowSpec] = (),
) -> np.ndarray:
    """The SVG picture's shapes as an RGB array (no square numbers: text is SVG only)."""
    return rasterise(
        board_shapes(board, numbers=False, flipped=flipped, last_move=last_move, arrows=arrows), square_pixels
    )


def game_html(game, size: int = 360, flipped: bool = False) -> str:
    """HTML for a game in a notebook: its current position (last move highlighted) beside
    the numbered move list and the result."""
    moves = [str(move) for move in game.moves]
    numbered = []
    # A game starting with White to move opens with "1. ..." as PDN writes it.
    offset = 1 if game.start.turn != BLACK else 0
    padded = [None] * offset + moves
    for index in range(0, len(padded), 2):
        pair = [m if m is not None else "..." for m in padded[index : index + 2]]
        numbered.append(f"{index // 2 + 1}. " + " ".join(pair))
    last = game.moves[-1] if game.moves else None
    picture = board(game.board, size=size, flipped=flipped, last_move=last)
    listing = html.escape(" ".join(numbered)) or "(no moves)"
    status = html.escape(f"{game.result}" + (f" ({game.termination})" if game.termination else ""))
    turn = "" if game.is_over() else html.escape(f"{Color(game.board.turn)} to move")
    return (
        '<div class="checkers-game" style="display:flex;gap:1em;align-items:flex-start">'
        f"<div>{picture}</div>"
        f'<div style="max-width:30em"><p><code>{listing}</code></p><p>{status} {turn}</p>'
        f"<p><small>FEN {html.escape(game.board.fen())}</small></p></div></div>"
    )
