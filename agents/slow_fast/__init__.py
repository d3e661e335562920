"""The episodic slow/fast reward learner.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("slow-fast:weights=untrained,seed=0")   # zoo:slow-fast is trained
    >>> agent.select_move(Game()) in Game().legal_moves()
    True

A value net (``network.ValueNet``: White's value in (0, 1)) trained online on partly
searched subtrees of its own games: the material-ratio reward ``0.1 ln(m_after /
m_before)``, a softmax expected value over the explored moves of each subtree, two kinds
of generated data (subtrees at random points of a game, and at the end of decisive games),
and two copies of the net: ``slow_net`` generates the data while ``fast_net`` learns from
it, and takes over after each set of episodes.

The agent plays the move that maximises its reward plus the net's value, optionally through
the suite's one alpha-beta (``slow-fast:depth=2``, as ``zoo:slow-fast`` plays); the net is
an evaluator of that search too (``alphabeta:eval=slow-fast``). Train it with ``checkers
train slow-fast``.

Parts: ``network`` (the net and its weights files), ``lookahead`` (numba kernels: subtree
expansion, rewards, the backups), ``episodes`` (generated games and the two kinds of data),
``buffer`` (the replay buffer), ``agent`` (``SlowFastAgent``, ``load_evaluator``).

Where each mechanism of the design document lives, and the choices it left open: the
documentation's slow/fast page, ``docs/agents/slow-fast.md``.
"""

from __future__ import annotations

from .agent import SlowFastAgent, load_evaluator, net_evaluator
from .buffer import ReplayBuffer
from .network import ValueNet, WeightsError, load_weights, save_weights, white_values

__all__ = [
    "ReplayBuffer",
    "SlowFastAgent",
    "load_evaluator",
    "net_evaluator",
    "ValueNet",
    "WeightsError",
    "load_weights",
    "save_weights",
    "white_values",
]
