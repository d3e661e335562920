"""Bundles of zeroed arrays: the buffers a kernel fills, built from their field types."""

from __future__ import annotations

from typing import NamedTuple, TypeVar

import numpy as np

Bundle = TypeVar("Bundle", bound=NamedTuple)


def zeroed(bundle: type[Bundle], *groups: tuple[int | tuple[int, ...], str]) -> Bundle:
    """A ``bundle`` (a NamedTuple of arrays) whose fields are zeroed arrays, in field order.

    Args:
        bundle: the NamedTuple class.
        groups: ``(shape, types)`` pairs: ``types`` holds one NumPy type code per field
            (``"i8 i8 ? f4"``), each of them an array of ``shape``.

    Raises:
        ValueError: the codes do not name one type per field of ``bundle``.
    """
    arrays = [np.zeros(shape, np.dtype(code)) for shape, types in groups for code in types.split()]
    if len(arrays) != len(bundle._fields):
        raise ValueError(f"{bundle.__name__} has {len(bundle._fields)} fields, the types name {len(arrays)}")
    return bundle(*arrays)


__all__ = ["zeroed"]
