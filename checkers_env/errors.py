"""The errors of the suite: all are ``ValueError`` so callers can catch bad input in one place."""

from __future__ import annotations


class CheckersError(ValueError):
    """Base class of every error about checkers input."""


class InvalidPositionError(CheckersError):
    """A position that cannot exist (overlapping pieces, a man on its crowning row, ...)."""


class InvalidFenError(InvalidPositionError):
    """A FEN string that does not describe a position."""


class InvalidMoveError(CheckersError):
    """Text that is not a move in PDN notation."""


class IllegalMoveError(CheckersError):
    """A well-formed move that is not legal in the position (or the game is over)."""


class AmbiguousMoveError(IllegalMoveError):
    """A short capture such as ``9x27`` that fits several capture paths."""


class ForfeitError(CheckersError):
    """An agent that cannot go on with its game: an outside engine that crashed, went
    silent past its time, answered something that is not a move, or played an illegal one.
    ``checkers_env.match.play_game`` scores the game as lost by that agent (termination
    ``forfeit``, the message kept in the record); elsewhere it is an error like the others."""


class UnknownAgentError(CheckersError):
    """An agent spec that names an unknown kind or parameter, or gives a bad value."""


class WeightsError(CheckersError):
    """A weights or checkpoint file that is missing, truncated, corrupt, or holds something
    else than the network or run it is loaded for; the message names the file and the fault."""


class EndgameDatabaseError(CheckersError):
    """An endgame database file that is missing, truncated, corrupt or of another version, or
    a database asked for that is not built; the message names the file or the slice and the
    command that builds it (``checkers_env.egdb``)."""


class ShardError(CheckersError):
    """A folder of shards (self-play games, a training database: ``checkers_env.shards``)
    that is missing, truncated, corrupt, of another format version or kind, or inconsistent
    with its card or its parameters; the message names the file and the fault."""


class MissingDependencyError(CheckersError):
    """An optional dependency that an agent or a trainer needs is not installed; the message
    names the pip extra that brings it."""


#: The optional extras of the distribution (``pyproject.toml``), by the module each brings.
EXTRA_OF_MODULE = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "ray": "ray",
    "pygame": "render",
    "jax": "jax",
    "pgx": "jax",
    "mctx": "jax",
}


def missing_dependency(error: ModuleNotFoundError, needed_by: str) -> MissingDependencyError | None:
    """The one-line error for ``error`` when it is an optional dependency of the suite (None
    for any other module: that is a bug or a broken install, and keeps its traceback)."""
    module = (error.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        return None
    return MissingDependencyError(
        f"{needed_by} needs {module}, which is not installed: pip install 'checkers-suite[{extra}]'"
    )


class PdnError(CheckersError):
    """A PDN game file that cannot be read; ``line`` is the 1-based line of the problem and
    ``path`` the file's (None for PDN text), both also at the head of the message."""

    def __init__(self, message: str, line: int | None = None, path: str | None = None):
        self.message, self.line, self.path = message, line, path
        where = (f"{path}: " if path is not None else "") + (f"line {line}: " if line is not None else "")
        super().__init__(where + message)


__all__ = [
    "EXTRA_OF_MODULE",
    "AmbiguousMoveError",
    "CheckersError",
    "ForfeitError",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidPositionError",
    "MissingDependencyError",
    "PdnError",
    "ShardError",
    "UnknownAgentError",
    "WeightsError",
    "missing_dependency",
]
