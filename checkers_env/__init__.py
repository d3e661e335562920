"""English draughts (American checkers): a numba bitboard rules engine with standard
notation, the Gymnasium, vector and PettingZoo environments, and the agent protocol.

    >>> from checkers_env import Board, Game, perft
    >>> perft(Board(), 6)
    36768

What it offers:

- positions, moves and games as values: ``Board`` (``legal_moves``, ``play``, ``fen``),
  ``Move`` (``str(move)`` is its PDN), ``Game`` with the draw rules of ``Rules``, and
  ``read_pdn``/``write_pdn`` for game files; ``perft`` and ``divide`` count move paths;
- the environments: ``gym.make("Checkers-v0")`` (``env``), ``gym.make_vec("Checkers-v0",
  num_envs=N)`` (``vector_env``), ``pettingzoo_env.env()`` and ``parallel_env()``, and the
  same rules in JAX (``checkers_env.jax``, the ``jax`` extra);
- agents: ``make_agent(spec)`` builds any registered kind from its spec string, ``Agent``
  and ``BaseAgent`` are the protocol, ``random`` and ``greedy`` live here;
- endgame databases (``egdb``), the ACF game records (``datasets``), board pictures
  (``svg``), the match loop (``match.play_game``).

Bad input raises a ``CheckersError`` (a ``ValueError``) whose message quotes the input.
"""

from ._numba_cache import configure_numba_cache

configure_numba_cache()  # before any kernel is defined

from .agent import Agent, BaseAgent, UnknownAgentError, agent_kinds, make_agent
from .bitboard import bit_to_square, square_to_bit
from .board import BLACK, WHITE, Board, Color, Move
from .errors import (
    AmbiguousMoveError,
    CheckersError,
    EndgameDatabaseError,
    ForfeitError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidPositionError,
    MissingDependencyError,
    PdnError,
    ShardError,
    WeightsError,
)
from .game import Game, Rules, Termination
from .pdn import iter_pdn, read_pdn, write_pdn
from .perft import divide, perft

__version__ = "0.2.0"

import gymnasium as _gym

_gym.register(
    id="Checkers-v0",
    entry_point="checkers_env.env:CheckersEnv",
    vector_entry_point="checkers_env.vector_env:CheckersVectorEnv",
)

__all__ = [
    "Agent",
    "BaseAgent",
    "UnknownAgentError",
    "agent_kinds",
    "make_agent",
    "BLACK",
    "WHITE",
    "AmbiguousMoveError",
    "Board",
    "CheckersError",
    "EndgameDatabaseError",
    "ForfeitError",
    "Color",
    "Game",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidPositionError",
    "MissingDependencyError",
    "Move",
    "PdnError",
    "Rules",
    "ShardError",
    "Termination",
    "WeightsError",
    "bit_to_square",
    "divide",
    "iter_pdn",
    "perft",
    "read_pdn",
    "square_to_bit",
    "write_pdn",
]
