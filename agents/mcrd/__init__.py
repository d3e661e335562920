"""Monte Carlo Random Descent (MCRD) on the CPU and on a GPU: random playouts from every
child move, the move whose playouts win most.

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("mcrd:playouts=2000,backend=cpu,seed=1")
    >>> agent.select_move(Game()) in Game().legal_moves()
    True

For every legal move, many uniformly random games (playouts) are played from the position
after it; a playout that reaches ``max_moves`` is won by the side with more material, and
the move whose playouts win most (draws count half) is played. Moves that end the game one
or two plies ahead are valued exactly by the game's rules.

Spec strings: ``mcrd:playouts=N,time=S,allocation=A,backend=B,launch=L,seed=N`` (``checkers
agents`` lists every key with its default):

- ``playouts`` (default 20000) or ``time``: the budget of a move;
- ``allocation``: ``uniform`` (every move the same playouts), ``proportional`` (more to the
  moves that win more) or ``halving`` (sequential halving over the moves);
- ``backend``: ``cpu`` (numba threads), ``cuda`` (one playout per GPU thread; the ``gpu``
  extra) or ``auto`` (CUDA where a GPU is seen); the same seed, budget and backend give the
  same move;
- ``max_moves``, ``king_weight``, ``cycle_check``: the playout's cap, the adjudication's
  weight of a king, and the king-cycle test;
- ``guide=NET`` with ``guide_rate``, ``guide_plies``, ``guide_sample``,
  ``guide_temperature``: playouts partly guided by a net (``zoo:mcrd-net``; CPU only).

``MCRDAgent.search(game)`` returns the per-move statistics (``DescentResult``). The design
document's networks are ``net`` (the CNN, an evaluator of the alpha-beta as
``eval=mcrd-net``) and ``data`` (their training data).

How each mechanism follows the design document, the choices it left open, and what they
measured to: the documentation's MCRD page, ``docs/agents/mcrd.md``.
"""

from .agent import MCRDAgent
from .root import DescentResult

__all__ = ["MCRDAgent", "DescentResult"]
