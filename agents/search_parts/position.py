"""The position as the searches' kernels pass it: the side to move's pieces first."""

from __future__ import annotations

from collections import namedtuple

#: A position with its side to move first: ``mover``'s pieces, ``opponent``'s, all kings,
#: and whether Black (``mover``) is to move (a named tuple: numba takes it as a typed tuple).
Position = namedtuple("Position", "mover opponent kings black_to_move")

__all__ = ["Position"]
