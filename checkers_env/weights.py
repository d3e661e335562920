"""The one reader and writer of weights files: safetensors, checked before anything uses them.

Every net of the suite (the learned evaluators of the alpha-beta, the cloned and PPO
policies) is stored as safetensors: tensors and a flat string metadata, and no code runs
when a file is read. :func:`read_weights` reads one and checks what the caller declares:

- the metadata a kind stamps on its files (``kind``, ``format``): another kind's file, or
  a format this version does not read, is refused by name;
- the sizes the metadata carries (``hidden``, ``channels``...), as whole numbers;
- the names and shapes of the tensors, from those sizes;
- finite values only.

Every failure is one :class:`~checkers_env.errors.WeightsError` line that names the file::

    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.safetensors")
    >>> _ = write_weights(path, {"w": np.ones((2, 3))}, {"kind": "tiny", "width": "3"})
    >>> weights = read_weights(path, "tiny", metadata={"kind": "tiny"}, sizes=("width",),
    ...                        shapes=lambda width: {"w": (2, width)})
    >>> weights.sizes, weights.tensors["w"].dtype
    ((3,), dtype('float32'))
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .errors import WeightsError
from .files import input_file, write_atomic


class Weights(NamedTuple):
    """A weights file as read: its tensors (numpy), its string metadata and the sizes asked for."""

    tensors: dict[str, np.ndarray]
    metadata: dict[str, str]
    sizes: tuple[int, ...]


def _read_file(path: str | os.PathLike, kind: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The tensors and the string metadata of a safetensors file, unchecked.

    Raises:
        WeightsError: one line naming the file: missing, not a regular file (a folder, a
            named pipe), unreadable, or not safetensors.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load

    text = str(path)
    try:
        data = input_file(path, f"{kind} weights file", WeightsError).read_bytes()
    except FileNotFoundError as missing:
        raise WeightsError(str(missing)) from None
    except OSError as error:
        raise WeightsError(f"cannot read {kind} weights file {text!r}: {error.strerror or error}") from None
    try:
        tensors = load(data)
        # The header is an 8-byte length and JSON (the safetensors format); load checked both.
        (size,) = struct.unpack("<Q", data[:8])
        metadata = json.loads(data[8 : 8 + size]).get("__metadata__") or {}
    except (SafetensorError, ValueError, TypeError, OverflowError, struct.error) as error:
        raise WeightsError(f"{kind} weights file {text!r} is corrupt or not a safetensors file: {error}") from None
    return tensors, metadata


def read_weights(
    path: str | os.PathLike,
    kind: str,
    *,
    metadata: Mapping[str, str] | None = None,
    sizes: Sequence[str] = (),
    shapes: Callable[..., Mapping[str, tuple[int, ...]]] | None = None,
    defaults: Mapping[str, int] | None = None,
) -> Weights:
    """Read a weights file and check it against what ``kind`` writes.

    Args:
        path: the file.
        kind: what the file should hold, for the messages (``td-minimax``, ``mcrd-net``).
        metadata: entries the file's metadata must have, with their values (``format``,
            ``kind``).
        sizes: metadata entries that are whole numbers (``hidden``, ``channels``); they are
            returned in this order and passed to ``shapes``.
        defaults: values of sizes that a file may lack (files written before the size
            existed).
        shapes: ``shapes(*sizes)`` gives every tensor's name and shape (a ValueError: sizes
            no net of the kind has); the file must hold exactly those.

    Returns:
        The tensors, the metadata and the sizes.

    Raises:
        WeightsError: one line naming the file: missing, unreadable, corrupt, of another
            kind or format, sizes missing, tensors of other names or shapes, values that
            are not finite.
    """
    text = str(path)
    tensors, found = _read_file(path, kind)
    required = dict(metadata or {})
    # The kind first: another kind's file is named so, whatever its format says.
    for name in sorted(required, key=lambda name: name != "kind"):
        if found.get(name) == required[name]:
            continue
        expected = f", expected {required[name]!r}" if name == "format" else ""
        raise WeightsError(
            f"{text!r} is not {kind} weights that this version reads (metadata {name} {found.get(name)!r}{expected})"
        )
    try:
        fallback = defaults or {}
        numbers = tuple(int(found[name]) if name in found or name not in fallback else fallback[name] for name in sizes)
    except (KeyError, ValueError):
        raise WeightsError(f"{text!r} lacks the {kind} sizes (metadata {', '.join(sizes)})") from None
    if shapes is not None:
        try:
            expected_shapes = {name: tuple(shape) for name, shape in shapes(*numbers).items()}
        except ValueError as error:  # sizes that no net of the kind has
            raise WeightsError(f"{text!r}: {error}") from None
        found_shapes = {name: tuple(value.shape) for name, value in tensors.items()}
        if found_shapes != expected_shapes:
            described = ", ".join(f"{name}={value}" for name, value in zip(sizes, numbers))
            raise WeightsError(
                f"{text!r} does not fit the {kind} shapes"
                + (f" for {described}" if described else "")
                + ": tensors "
                + ", ".join(f"{k} {list(v)}" for k, v in sorted(found_shapes.items()))
                + "; expected "
                + ", ".join(f"{k} {list(v)}" for k, v in expected_shapes.items())
            )
    if not all(np.isfinite(value).all() for value in tensors.values() if value.dtype.kind == "f"):
        raise WeightsError(f"{text!r} holds non-finite weights (NaN or infinity)")
    return Weights(tensors, dict(found), numbers)


def write_weights(path: str | os.PathLike, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, str]) -> Path:
    """Write ``tensors`` (as contiguous float32) and ``metadata`` as safetensors, atomically."""
    from safetensors.numpy import save

    arrays = {name: np.ascontiguousarray(value, np.float32) for name, value in tensors.items()}
    return write_atomic(path, save(arrays, metadata={k: str(v) for k, v in metadata.items()}))


__all__ = ["Weights", "read_weights", "write_weights"]
