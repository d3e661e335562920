"""English draughts (American checkers): a numba bitboard rules engine with standard
notation, and Gymnasium and PettingZoo environments.

    >>> from checkers_env import Board, Game, perft
    >>> perft(Board(), 6)
    36768
"""

from ._numba_cache import configure_numba_cache

configure_numba_cache()  # before any kernel is defined

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
    WeightsError,
)
from .game import Game, Rules, Termination
from .agent import Agent, BaseAgent, UnknownAgentError, agent_kinds, make_agent
from .pdn import read_pdn, write_pdn
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
    "Termination",
    "WeightsError",
    "bit_to_square",
    "divide",
    "perft",
    "read_pdn",
    "square_to_bit",
    "write_pdn",
]
