"""Random actions for the vector-env tests, read off the boards' action masks."""

from __future__ import annotations

import numpy as np


def choose_actions(chooser, masks, illegal_rate=0.0):
    """A random legal action per board (now and then an illegal one; any illegal action on
    a board without legal ones)."""
    actions = np.empty(len(masks), dtype=np.int64)
    for i, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        if chooser.random() < illegal_rate or len(legal) == 0:
            actions[i] = chooser.choice(np.flatnonzero(mask == 0))
        else:
            actions[i] = chooser.choice(legal)
    return actions
