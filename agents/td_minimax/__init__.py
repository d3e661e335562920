"""The TD-trained minimax net, a TD-Gammon-style learner, adapted to English draughts.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("td-minimax:weights=zoo/td-minimax/weights.safetensors,depth=2")  # doctest: +SKIP
    >>> agent.select_move(Game())  # doctest: +SKIP

The suite's one alpha-beta (depth 2 by default, with quiescence) over complete moves, with a
net at the leaves: 128 mover-frame inputs (own men, own kings, opponent men, opponent kings
on the 32 squares), 40 sigmoid hidden units and two sigmoid outputs (how well the side to
move and its opponent are doing), scored ``out[0] - out[1]``. It learns by self-play: after
each move, one backpropagation step toward the net's own outputs on the chosen position,
and at the game's end two corrections toward the result.

Spec strings: ``td-minimax:weights=W,depth=D,time=S,quiescence=Q,seed=N`` (``zoo:td-minimax``
is the trained agent). The net is an evaluator of the alpha-beta at any depth too
(``alphabeta:eval=td-minimax``). Train it with ``checkers train td-minimax``.

Parts: ``net.py`` (forward, backprop, files, the net as an evaluator), ``learn.py`` (one
self-play training game, searching with ``checkers_agents.alphabeta``'s kernel), ``agent.py``
(``TDMinimaxAgent``, kind ``td-minimax``). The inputs come from ``checkers_env.encoding``.

Every mechanism of the design document, and how each was adapted to checkers: the
documentation's TD-minimax page, ``docs/agents/td-minimax.md``.
"""

from .agent import TDMinimaxAgent, load_evaluator, load_net
from .net import NUM_HIDDEN, NUM_INPUTS, Net, WeightsError

__all__ = [
    "NUM_HIDDEN",
    "NUM_INPUTS",
    "Net",
    "TDMinimaxAgent",
    "WeightsError",
    "load_evaluator",
    "load_net",
]
