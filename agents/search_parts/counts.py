"""The check that a count an agent package is given (games, plies, simulations, pieces) is
a whole number at or above its least value.

The self-plays of AlphaZero and of the outcome net take their counts from the command line,
shard parameters and tests alike; one check gives them one message. A bool is refused
although Python counts it an int: ``games=True`` is a mistake, never one game.
"""

from __future__ import annotations

import numpy as np


def check_counts(**counts: tuple[int, int]) -> None:
    """Check each ``name=(value, low)``, in the order given.

    Raises:
        ValueError: the first value that is not an integer (``int`` or a numpy integer, not
            a bool) at least ``low``, named.
    """
    for name, (value, low) in counts.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


__all__ = ["check_counts"]
