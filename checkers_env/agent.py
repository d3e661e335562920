"""The ``Agent`` protocol, spec strings and the registry of agent kinds.

Every agent is built from a spec string ``kind:key=value,...`` -- the same string in
Python, the CLI, the league and the Gym env's ``opponent=``::

    >>> from checkers_env import Game, make_agent
    >>> agent = make_agent("greedy:seed=3")
    >>> str(agent)
    'greedy:seed=3'
    >>> agent.select_move(Game())
    Move.from_pdn('9-13')

Kinds register through the entry-point group ``checkers_env.agents`` (the ``agents``
package declares its kinds in ``pyproject.toml``; any installed package may add more),
loaded on first use, so the core never imports an agent package. The core itself ships
``random`` and ``greedy``, whose numba choosers the vector env also runs.

Parameters declare what they hold through their annotations: a parameter of type
``FilePath`` (or ``file_path_or("untrained", ...)``) names a file or folder, and
``make_agent(spec, allow_files=False)`` refuses a spec that sets one (a spec that came from
someone else, such as a web page), before anything is opened; a parameter of type
``PythonOnly[...]`` (``trusted=True``: unpickle a file) is set by a Python keyword only,
never by a spec string.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Annotated, Any, Protocol, runtime_checkable

import numpy as np

from .baselines import OPPONENT_GREEDY, OPPONENT_RANDOM, choose
from .board import BLACK, Board, Move, move_from_row
from .errors import EndgameDatabaseError, MissingDependencyError, UnknownAgentError, WeightsError, missing_dependency
from .game import Game
from .movegen import generate_moves_kernel, new_move_buffer

ENTRY_POINT_GROUP = "checkers_env.agents"


@runtime_checkable
class Agent(Protocol):
    """What the league, the envs and the CLI need from a player."""

    @property
    def name(self) -> str:
        """The player's name in records and tables (read only: ``BaseAgent`` derives it)."""

    def select_move(self, game: Game) -> Move:
        """The move to play in ``game.board`` (the game is not over). The suite's agents
        (every ``BaseAgent``) also take a ``Board``, as a game starting there."""

    def reset(self, seed: int | None = None) -> None:
        """Forget per-game state; reseed the agent's generator when ``seed`` is given."""


def as_game(game: Game | Board) -> Game:
    """The game an agent is asked to move in: a ``Game`` as it is, a ``Board`` as a new game
    starting there (default rules, no history).

    Raises:
        TypeError: anything else, naming what to pass.
    """
    if isinstance(game, Game):
        return game
    if isinstance(game, Board):
        return Game(start=game)
    hint = " (for a FEN, pass Board.from_fen(fen))" if isinstance(game, str) else ""
    raise TypeError(f"an agent moves in a Game or a Board, got {type(game).__name__} {game!r}{hint}")


def _taking_a_board(method: Callable) -> Callable:
    """``method(self, game, ...)`` that also takes a ``Board`` (see :func:`as_game`)."""

    @functools.wraps(method)
    def wrapper(self, game, *args, **kwargs):
        return method(self, game if type(game) is Game else as_game(game), *args, **kwargs)

    wrapper._takes_a_board = True  # type: ignore[attr-defined]  # a marker on the function object
    return wrapper


class BaseAgent:
    """Convenience base: a seeded generator, ``reset`` and a spec string from the init
    arguments. Subclasses set ``kind`` and call ``super().__init__(seed=seed)``.

    A subclass's ``select_move(game)`` and ``policy(game, ...)`` get a ``Game`` even when the
    caller passes a ``Board`` (turned into a game starting there by :func:`as_game`, here,
    for every agent); anything else is a ``TypeError`` naming what to pass.
    """

    kind: str = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("select_move", "policy"):
            method = cls.__dict__.get(name)
            if callable(method) and not getattr(method, "_takes_a_board", False):
                setattr(cls, name, _taking_a_board(method))

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    @property
    def name(self) -> str:
        return str(self)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def select_move(self, game: Game) -> Move:  # pragma: no cover - abstract
        raise NotImplementedError

    def spec_params(self) -> dict[str, Any]:
        """The parameters that differ from their defaults (they make up the spec)."""
        params = {}
        for name, parameter in inspect.signature(type(self)).parameters.items():
            value = getattr(self, name, parameter.default)
            if value != parameter.default:
                params[name] = value
        return params

    #: Set by loaders such as the zoo so that ``str(agent)`` gives back the spec that built it.
    spec_override: str | None = None

    def __str__(self) -> str:
        if self.spec_override is not None:
            return self.spec_override
        params = self.spec_params()
        if not params:
            return self.kind
        return self.kind + ":" + ",".join(f"{k}={_format_value(v)}" for k, v in params.items())

    def __repr__(self) -> str:
        return f"make_agent({str(self)!r})"


def _format_value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return repr(value)
    return str(value)


class _NumbaChooserAgent(BaseAgent):
    """An agent whose choice is one of the numba choosers of ``checkers_env.baselines``."""

    opponent_kind = OPPONENT_RANDOM

    def select_move(self, game: Game) -> Move:
        board = game.board
        mover, opponent = board.mover_bitboards
        buffer = new_move_buffer()
        n = generate_moves_kernel(mover, opponent, board.kings, board.turn == BLACK, buffer)
        if n == 0:
            raise ValueError(f"{self} has no legal move in {board.fen()}")
        rng_state = int(self.rng.integers(1, 2**62))
        j, _ = choose(self.opponent_kind, buffer, n, mover, opponent, board.kings, board.turn == BLACK, rng_state)
        return move_from_row(buffer[j])


class RandomAgent(_NumbaChooserAgent):
    """Plays a uniformly random legal move.

    Args:
        seed: seed of the agent's generator.
    """

    kind = "random"
    opponent_kind = OPPONENT_RANDOM


class GreedyAgent(_NumbaChooserAgent):
    """One ply of lookahead: the move that leaves the best material balance (man 2, king
    3 points), ties broken at random.

    Args:
        seed: seed of the agent's generator.
    """

    kind = "greedy"
    opponent_kind = OPPONENT_GREEDY


# -- parameter types ----------------------------------------------------------------------


@dataclass(frozen=True)
class NamesFile:
    """The mark of a parameter whose value names a file or folder (``weights=``,
    ``egdb_folder=``): ``make_agent(spec, allow_files=False)`` refuses it.

    Attributes:
        words: values that name no file (``untrained``, ``zoo``): allowed everywhere.
        prefixes: beginnings of values that name no file (``zoo:`` for a zoo entry).
    """

    words: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    def names_a_file(self, value: Any) -> bool:
        """Whether ``value`` is a path rather than one of the words."""
        text = str(value)
        return text not in self.words and not (self.prefixes and text.startswith(self.prefixes))


@dataclass(frozen=True)
class SetInPython:
    """The mark of a parameter that only a Python keyword sets (``trusted=True``), never a
    spec string, whoever wrote it."""


#: A parameter that names a file or folder.
FilePath = Annotated[str, NamesFile()]


def file_path_or(*words: str, prefixes: tuple[str, ...] = ()) -> Any:
    """The type of a parameter that names a file or folder or is one of ``words`` (or starts
    with one of ``prefixes``): ``weights: file_path_or("zoo", "untrained") | None``."""
    return Annotated[str, NamesFile(tuple(words), tuple(prefixes))]


class PythonOnly:
    """``PythonOnly[bool]``: the type of a parameter set by a Python keyword only."""

    def __class_getitem__(cls, kind: Any) -> Any:
        return Annotated[kind, SetInPython()]


def _marks(annotation: Any) -> list[Any]:
    """The ``Annotated`` marks of an annotation, looking inside ``X | None``."""
    if typing.get_origin(annotation) is Annotated:
        return list(annotation.__metadata__)
    return [mark for arg in typing.get_args(annotation) for mark in _marks(arg)]


def _mark(parameter: inspect.Parameter, kind: type) -> Any:
    return next((mark for mark in _marks(parameter.annotation) if isinstance(mark, kind)), None)


def names_a_file(parameter: inspect.Parameter | None, value: Any) -> bool:
    """Whether ``value`` given to ``parameter`` names a file or folder: the parameter is
    declared ``FilePath`` (or ``file_path_or``) and the value is none of its words, nor
    ``none`` for a parameter whose default is None."""
    if parameter is None:
        return False
    names = _mark(parameter, NamesFile)
    if names is None or (str(value).lower() == "none" and parameter.default is None):
        return False
    return names.names_a_file(value)


def _base_type(annotation: Any) -> type | None:
    """``int`` for ``int | None`` or ``Annotated[int, ...]``; None when it is not one type."""
    if typing.get_origin(annotation) is Annotated:
        return _base_type(annotation.__origin__)
    if isinstance(annotation, type):
        return annotation
    args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    return _base_type(args[0]) if len(args) == 1 else None


# -- registry -------------------------------------------------------------------------------

_BUILTIN: dict[str, Callable[..., Agent]] = {"random": RandomAgent, "greedy": GreedyAgent}
_registry: dict[str, Callable[..., Agent]] | None = None


def register_agent(kind: str, factory: Callable[..., Agent]) -> None:
    """Add an agent kind at run time (packages should prefer the entry-point group)."""
    agent_kinds()[kind] = factory


def agent_kinds() -> dict[str, Callable[..., Agent]]:
    """Every known kind: the built-in ones and those of the ``checkers_env.agents`` entry points."""
    global _registry
    if _registry is None:
        _registry = dict(_BUILTIN)
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            _registry.setdefault(entry.name, _LazyFactory(entry))
    return _registry


class _LazyFactory:
    """Loads an entry point on first use, so listing kinds imports nothing heavy."""

    def __init__(self, entry):
        self.entry = entry
        self._loaded = None

    def load(self):
        if self._loaded is None:
            try:
                self._loaded = self.entry.load()
            except ModuleNotFoundError as error:
                raise missing_dependency(error, f"agent kind {self.entry.name!r}") or error from None
        return self._loaded

    def __call__(self, **params):
        return self.load()(**params)


def _factory_target(factory):
    return factory.load() if isinstance(factory, _LazyFactory) else factory


def agent_parameters(kind: str) -> dict[str, inspect.Parameter]:
    """The parameters (with defaults and their annotations evaluated) that a kind accepts."""
    target = _factory_target(_lookup(kind))
    try:
        return dict(inspect.signature(target, eval_str=True).parameters)
    except (NameError, TypeError, SyntaxError):  # an annotation that names what its module does not import
        return dict(inspect.signature(target).parameters)


def agent_doc(kind: str) -> str:
    """A kind's docstring, dedented (``checkers agents`` shows its first paragraph and its
    ``Args:``)."""
    return inspect.getdoc(_factory_target(_lookup(kind))) or ""


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``kind:key=value,...`` into the kind and its raw parameters.

    A kind whose factory has a ``positional`` attribute takes that parameter as its first,
    bare item: the zoo's ``zoo:NAME,key=value`` gives ``{"entry": NAME, ...}``.

    Raises:
        UnknownAgentError: the spec is not of that form, or names a parameter twice.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownAgentError(f"agent spec must be a non-empty string like 'alphabeta:depth=4', got {spec!r}")
    kind, _, rest = spec.partition(":")
    kind = kind.strip()  # trimmed like the values: " alphabeta : depth = 2 " is alphabeta:depth=2
    params: dict[str, str] = {}
    positional = positional_parameter(kind)
    if positional is not None:
        first, _, rest = rest.partition(",")
        if not first.strip():
            raise UnknownAgentError(
                f"bad agent spec {spec!r}: '{kind}:' needs its {positional} first, like '{kind}:{positional.upper()}'"
            )
        params[positional] = first.strip()
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UnknownAgentError(f"bad agent spec {spec!r}: {item!r} is not key=value")
        if key in params:
            # Silently keeping one of two values would play an agent nobody asked for.
            raise UnknownAgentError(f"bad agent spec {spec!r}: parameter {key!r} is given twice")
        params[key] = value.strip()
    return kind, params


def format_spec(kind: str, params: dict[str, Any]) -> str:
    """The spec string of a kind and its parameters, ``parse_spec``'s inverse:
    ``format_spec("alphabeta", {"depth": "2"})`` is ``alphabeta:depth=2``."""
    positional = positional_parameter(kind)
    items = [str(params[positional])] if positional in params else []
    items += [f"{key}={value}" for key, value in params.items() if key != positional]
    return kind + (":" + ",".join(items) if items else "")


def positional_parameter(kind: str) -> str | None:
    """The parameter a kind takes as its spec's first, bare item (its factory's
    ``positional`` attribute), or None; None for an unknown kind too."""
    factory = agent_kinds().get(kind)
    return None if factory is None else getattr(_factory_target(factory), "positional", None)


def _lookup(kind: str):
    kinds = agent_kinds()
    if kind not in kinds:
        raise UnknownAgentError(f"unknown agent kind {kind!r}; known kinds: {', '.join(sorted(kinds))}")
    return kinds[kind]


def _convert(kind: str, name: str, raw: str, parameter: inspect.Parameter):
    default = parameter.default
    target = type(default) if default is not inspect.Parameter.empty and default is not None else None
    if target is None and not isinstance(parameter.annotation, str):
        target = _base_type(parameter.annotation)
    annotation = parameter.annotation if isinstance(parameter.annotation, str) else ""
    if raw.lower() == "none" and default is None:
        return None
    try:
        if target is bool or (target is None and annotation.startswith("bool")):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if target is int or (target is None and annotation.startswith("int")):
            return int(raw)
        if target is float or (target is None and annotation.startswith("float")):
            return float(raw)
    except ValueError:
        raise UnknownAgentError(
            f"agent {kind!r}: parameter {name}={raw!r} is not {_type_words(target, annotation, default)}"
        ) from None
    return raw


#: How a user reads each parameter type (not Python's annotation syntax).
_TYPE_WORDS = {bool: "true or false", int: "a whole number", float: "a number"}


def _type_words(target: type | None, annotation: str, default: Any) -> str:
    """The expected type in words: ``a whole number (or none)`` for ``int | None``."""
    if target is None:
        target = next((t for t in _TYPE_WORDS if annotation.startswith(t.__name__)), None)
    words = _TYPE_WORDS.get(target, "a valid value") if target is not None else "a valid value"
    return words + " (or none)" if default is None else words


def make_agent(spec: str | Agent, *, allow_files: bool = True, **overrides) -> Agent:
    """Build an agent from its spec string (an ``Agent`` passes through unchanged).

    Args:
        spec: ``kind:key=value,...``, e.g. ``alphabeta:depth=6`` or ``zoo:td-minimax``.
        allow_files: whether the spec may set a parameter that names a file or folder
            (declared ``FilePath``, like ``weights=`` or ``egdb_folder=``). Pass False for a
            spec that someone else wrote (a web request): such a spec is refused before
            anything is opened, and may use kinds, zoo entries and plain values only.
        overrides: parameters that take precedence over the spec's (e.g. ``seed``; those
            the kind does not take are ignored). They are Python's, so they may name files
            and set ``PythonOnly`` parameters such as ``trusted=True``.

    Raises:
        UnknownAgentError: unknown kind or parameter (the message lists the valid ones),
            a value of the wrong type, a file named where files are not allowed, or a
            ``PythonOnly`` parameter set by the spec.
    """
    if not isinstance(spec, str):
        if isinstance(spec, Agent):
            return spec
        raise UnknownAgentError(f"expected an agent spec string or an Agent, got {type(spec).__name__}")
    kind, factory, params = _resolve(spec, allow_files, overrides)
    try:
        return factory(**params)
    except ModuleNotFoundError as error:
        raise missing_dependency(error, f"agent {spec!r}") or error from None
    except (TypeError, ValueError) as error:
        if isinstance(error, (UnknownAgentError, WeightsError, MissingDependencyError, EndgameDatabaseError)):
            raise  # a bad weights file, a missing extra or database is not a bad spec: keep that error
        raise UnknownAgentError(f"agent spec {spec!r}: {error}") from error


def check_spec(spec: str, *, allow_files: bool = False, **overrides) -> str:
    """Check a spec as ``make_agent`` would (kind, parameter names and types, files) without
    building the agent, and return it tidied (``"alphabeta: depth = 2 "`` ->
    ``alphabeta:depth=2``). Opens no file the spec names; a zoo entry's card is read.

    Args:
        spec, allow_files, overrides: as for ``make_agent`` (files are refused by default).

    Raises:
        UnknownAgentError: as ``make_agent`` does before it builds.
    """
    if not isinstance(spec, str):
        raise UnknownAgentError(f"expected an agent spec string, got {type(spec).__name__}")
    kind, raw = parse_spec(spec)
    _resolve(spec, allow_files, overrides)
    return format_spec(kind, raw)


def _resolve(spec: str, allow_files: bool, overrides: dict[str, Any]) -> tuple[str, Callable[..., Agent], dict]:
    """The kind, factory and converted parameters of ``spec`` (see ``make_agent``)."""
    kind, raw = parse_spec(spec)
    factory = _lookup(kind)
    # A factory may decide its parameters from the spec (the zoo: those of the card's kind).
    resolver = getattr(_factory_target(factory), "parameters_for", None)
    parameters = resolver(raw, overrides) if resolver is not None else agent_parameters(kind)
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    params: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in parameters and not accepts_any:
            valid = ", ".join(n for n, p in parameters.items() if p.kind is not inspect.Parameter.VAR_KEYWORD)
            raise UnknownAgentError(f"agent {kind!r} has no parameter {name!r}; its parameters: {valid or 'none'}")
        parameter = parameters.get(name)
        if parameter is not None:
            _check_source(kind, name, value, parameter, allow_files)
            params[name] = _convert(kind, name, value, parameter)
        else:
            params[name] = value
    for name, value in overrides.items():
        if name in parameters or accepts_any:
            params[name] = value
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    missing = [n for n, p in parameters.items() if p.kind in named and p.default is p.empty and n not in params]
    if missing:
        keys = ", ".join(f"{name}=" for name in missing)
        raise UnknownAgentError(
            f"agent spec {spec!r} lacks {keys}, which {kind!r} needs: like '{kind}:{missing[0]}=...'"
        )
    return kind, factory, params


def _check_source(kind: str, name: str, value: str, parameter: inspect.Parameter, allow_files: bool) -> None:
    """Refuse what a spec string may not set: a ``PythonOnly`` parameter, ever; a file or
    folder, when files are not allowed (the value is not repeated: it may be a secret path)."""
    if _mark(parameter, SetInPython) is not None:
        raise UnknownAgentError(
            f"agent {kind!r}: {name}= is set in Python only (make_agent(spec, {name}=...)), not in a spec string"
        )
    if not allow_files and isinstance(parameter.annotation, str) and parameter.annotation:
        # Its module's names could not resolve the annotation: whether it names a file is unknown.
        raise UnknownAgentError(f"agent {kind!r}: the type of {name}= cannot be read, so this spec may not set it")
    if not allow_files and names_a_file(parameter, value):
        names = _mark(parameter, NamesFile)
        words = [*names.words, *(prefix + "NAME" for prefix in names.prefixes)]
        allowed = f"; allowed here: {', '.join(words)}" if words else ""
        raise UnknownAgentError(
            f"agent {kind!r}: {name}= names a file or folder, and this spec may not name files{allowed}"
        )


__all__ = [
    "Agent",
    "BaseAgent",
    "GreedyAgent",
    "RandomAgent",
    "UnknownAgentError",
    "agent_kinds",
    "FilePath",
    "NamesFile",
    "PythonOnly",
    "SetInPython",
    "agent_parameters",
    "as_game",
    "check_spec",
    "file_path_or",
    "format_spec",
    "make_agent",
    "names_a_file",
    "parse_spec",
    "positional_parameter",
    "register_agent",
]
