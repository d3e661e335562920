"""A trainer's options: a dataclass whose fields are the flags of ``checkers train NAME``.

The options are declared the cleanrl way, one dataclass field each with its docstring as
the ``--help`` line, and parsed by the suite's one command-line layer
(:mod:`checkers_agents.options`, the same types and one-line errors as every ``checkers``
subcommand)::

    @dataclass
    class Args(RunArgs):
        games: int = arg(100_000, low=0, on_resume=BUDGET)
        \"\"\"total self-play games\"\"\"

Each field says how it behaves on ``--resume`` (:data:`RUN`, :data:`SESSION`, :data:`BUDGET`);
:mod:`checkers_training.runs` applies it.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import re
import shlex
import sys
import textwrap
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkers_agents.options import (
    ArgumentParser,
    DeprecatedAlias,
    HelpFormatter,
    number,
    warn_deprecated,
    whole_number,
)
from checkers_env.errors import CheckersError

#: The largest seed (numpy's and torch's generators take it; trainers derive larger ones).
MAX_SEED = 2**32 - 1
#: The widest layer a trainer builds (a wider one is a typo: 100000000 units would ask for
#: terabytes before the first step).
MAX_WIDTH = 4096
#: The largest minibatch a trainer draws.
MAX_BATCH = 65536
#: The most processes or threads a trainer starts.
MAX_WORKERS = 256

#: How an option behaves on ``--resume`` (the ``on_resume`` of :func:`arg`).
RUN = "run"
"""The option shapes the run: given on ``--resume`` with another value, it is refused."""
SESSION = "session"
"""The option does not change what is learnt (threads, display): it may differ on ``--resume``."""
BUDGET = "budget"
"""The run's length: it may be raised on ``--resume`` to train on, never lowered."""


class TrainingError(CheckersError):
    """A training command that cannot run as given: a bad option value, a resume that would
    change the run, a folder that holds another run, a zoo name that is a path."""


def arg(
    default: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: Iterable[str] | None = None,
    metavar: str | None = None,
    on_resume: str = RUN,
    const: str | None = None,
    old: Iterable[str] = (),
) -> Any:
    """A trainer option: a dataclass field with its checks (the docstring under it is its help).

    Args:
        default: the value when the flag is not given.
        low, high: inclusive bounds of a number.
        choices: the values a text option accepts.
        metavar: what the value is called in ``--help`` (default from the type: N, X, TEXT).
        on_resume: :data:`RUN`, :data:`SESSION` or :data:`BUDGET`.
        const: for a text option whose value may be left out (``--ray [ADDRESS]``): the value
            of the bare flag.
        old: deprecated spellings of the flag (``--egdb``), which still work for one release
            with a warning naming the new one.
    """
    if on_resume not in (RUN, SESSION, BUDGET):
        raise ValueError(f"on_resume must be RUN, SESSION or BUDGET, got {on_resume!r}")
    metadata = {
        "low": low,
        "high": high,
        "choices": tuple(choices) if choices else None,
        "metavar": metavar,
        "on_resume": on_resume,
        "const": const,
        "old": tuple(old),
    }
    return dataclasses.field(default=default, metadata=metadata)


def zoo_name_problem(name: str) -> str | None:
    """Why ``name`` is not a plain zoo entry name (None when it is one)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name) or name in (".", ".."):
        return (
            f"{name!r} is not a zoo name: give a plain name such as td-minimax "
            "(lower-case letters, digits, . _ -; no folders), written to zoo/NAME"
        )
    return None


@dataclass
class RunArgs:
    """The options every trainer shares (where the run goes, how it is evaluated and shown)."""

    seed: int = arg(0, low=0, high=MAX_SEED)
    """seed of every generator of the run"""
    out: str = arg("", metavar="DIR", on_resume=SESSION)
    """the run folder (default: runs/<trainer>/seed<SEED>__<UTC date and time>)"""
    resume: bool = arg(False, on_resume=SESSION)
    """continue the run in --out exactly as it was started (its saved options win)"""
    overwrite: bool = arg(False, on_resume=SESSION)
    """start the run even if --out holds another run, deleting that run first"""
    promote: str = arg("", metavar="NAME", on_resume=SESSION)
    """when training ends, write the weights and a fresh card to zoo/NAME (a zoo name, not a path)"""
    eval_games: int = arg(20, low=0)
    """games per evaluation opponent: ballot openings, each played with both colours (even; 0: none)"""
    eval_opponents: str = arg("random;greedy", metavar="SPECS")
    """agent specs of the evaluation opponents, separated by semicolons (specs contain commas)"""
    torch_threads: int = arg(1, low=1, high=MAX_WORKERS, on_resume=SESSION)
    """threads torch may use"""
    progress: bool = arg(True, on_resume=SESSION)
    """show a progress bar"""
    tensorboard: bool = arg(True, on_resume=SESSION)
    """write TensorBoard scalars into the run folder (tensorboard --logdir runs)"""

    def check(self) -> list[tuple[str, str]]:
        """Problems that involve several options, as ``(field, message)``; trainers extend it."""
        problems = []
        if self.eval_games % 2:
            problems.append(
                ("eval_games", f"must be even (each opening is played with both colours), got {self.eval_games}")
            )
        if self.resume and self.overwrite:
            problems.append(("overwrite", "cannot go with --resume: a resume continues its run, it never replaces it"))
        if self.resume and not self.out:
            problems.append(("resume", "needs --out RUN_DIR, the run folder to continue"))
        if self.promote:
            problem = zoo_name_problem(self.promote)
            if problem:
                problems.append(("promote", problem))
        if self.out and Path(self.out).exists() and not Path(self.out).is_dir():
            problems.append(("out", f"{self.out!r} is a file, not a run folder"))
        return problems


def flag(name: str) -> str:
    """The command-line flag of a field: ``eval_games`` -> ``--eval-games``."""
    return "--" + name.replace("_", "-")


def field_docs(args_class: type) -> dict[str, str]:
    """The docstring under each field of a dataclass and its bases (cleanrl style)."""
    docs: dict[str, str] = {}
    for cls in reversed(args_class.__mro__):
        if not dataclasses.is_dataclass(cls) or cls is object:
            continue
        try:
            definition = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
        except (OSError, TypeError):
            continue
        if not isinstance(definition, ast.ClassDef):
            continue
        body = definition.body
        for node, following in zip(body, body[1:]):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def _kind(field: dataclasses.Field) -> str:
    """``int``, ``float``, ``bool`` or ``str`` (annotations are strings under ``from __future__``)."""
    annotation = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", str(field.type))
    kind = annotation.replace(" | None", "").strip()
    if kind not in ("int", "float", "bool", "str"):
        raise TypeError(f"option {field.name}: type {annotation} is not int, float, bool or str")
    return kind


def _value_type(field: dataclasses.Field) -> Callable[[str], Any]:
    """The option type of :mod:`checkers_agents.options` that parses and checks the field's value."""
    kind, meta = _kind(field), field.metadata
    if kind == "int":
        return whole_number(meta.get("low"), meta.get("high"))
    if kind == "float":
        return number(meta.get("low"), meta.get("high"))
    return str


_METAVARS = {"int": "N", "float": "X", "str": "TEXT"}


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _old_resume(argv: list[str]) -> list[str]:
    """``--resume`` is a switch; ``--resume RUN_DIR`` (or ``--resume=RUN_DIR``) is the old
    spelling of ``--out RUN_DIR --resume``: rewritten so, after a warning line."""
    words: list[str] = []
    rest = iter(argv)
    for word in rest:
        folder = None
        if word.startswith("--resume="):
            folder = word.split("=", 1)[1]
        elif word == "--resume":
            following = next(rest, None)
            if following is not None and not following.startswith("-"):
                folder = following
            elif following is not None:
                words += [word, following]
                continue
        if folder is None:
            words.append(word)
            continue
        warn_deprecated(f"--resume {folder}", f"--out {folder} --resume")
        words += ["--out", folder, "--resume"]
    return words


def build_parser(args_class: type, trainer: str, description: str = "") -> argparse.ArgumentParser:
    """The ``checkers train <trainer>`` parser of a dataclass of options.

    The trainer's own options come first, then the shared run options; a field's docstring
    is its help line, followed by its default. Defaults are left out of the namespace so that
    the flags given on the command line are known (see :func:`parse_args`). A bad value raises
    :class:`TrainingError` naming the flag.
    """
    parser = ArgumentParser(
        prog=f"checkers train {trainer}",
        usage="%(prog)s [OPTIONS]",
        description=(description or "").strip().split("\n\n")[0].replace("``", ""),
        allow_abbrev=False,
        formatter_class=lambda prog: HelpFormatter(prog, max_help_position=34),
        error_class=TrainingError,
    )
    docs = field_docs(args_class)
    shared = {f.name for f in dataclasses.fields(RunArgs)}
    groups = {
        False: parser.add_argument_group(f"{trainer} options"),
        True: parser.add_argument_group("run options (the same in every trainer)"),
    }
    for field in dataclasses.fields(args_class):
        kind, meta = _kind(field), field.metadata
        text = docs.get(field.name, "")
        if field.default not in ("", None, False):
            text += f" (default: {_shown(field.default)})"
        if meta.get("on_resume") == SESSION and field.name not in ("resume", "overwrite", "out"):
            text += " [may change on --resume]"
        elif meta.get("on_resume") == BUDGET:
            text += " [may be raised on --resume]"
        group = groups[field.name in shared]
        if kind == "bool":
            # An option that is off by default is a plain switch; one that is on gets --no-.
            action = argparse.BooleanOptionalAction if field.default else "store_true"
            group.add_argument(flag(field.name), action=action, default=argparse.SUPPRESS, help=text)
        else:
            value_type = _value_type(field)
            metavar = meta.get("metavar") or (None if meta.get("choices") else _METAVARS[kind])
            extra = {"nargs": "?", "const": meta["const"]} if meta.get("const") is not None else {}
            group.add_argument(
                flag(field.name),
                type=value_type,
                default=argparse.SUPPRESS,
                metavar=metavar,
                choices=meta.get("choices"),
                help=text,
                **extra,
            )
            for old in meta.get("old") or ():
                group.add_argument(
                    old,
                    dest=field.name,
                    type=value_type,
                    default=argparse.SUPPRESS,
                    choices=meta.get("choices"),
                    action=DeprecatedAlias,
                    new=flag(field.name),
                    help=argparse.SUPPRESS,
                    **extra,
                )
    if "out" in shared:
        # Old spellings of --out: the run folder was DIR/<trainer>/NAME.
        parser.add_argument("--runs", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        parser.add_argument("--run-name", dest="run_name", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def check(args: RunArgs) -> None:
    """Raise :class:`TrainingError` for the first option out of its bounds or choices, or
    the first problem of ``args.check()``; the message names the flag, in the words the
    command line uses."""
    for field in dataclasses.fields(args):
        value, meta = getattr(args, field.name), field.metadata
        if _kind(field) in ("int", "float") and not isinstance(value, bool):
            try:
                _value_type(field)(repr(value))
            except argparse.ArgumentTypeError as error:
                raise TrainingError(f"{flag(field.name)}: {error}") from None
        if meta.get("choices") and value not in meta["choices"]:
            raise TrainingError(f"{flag(field.name)}: must be one of {', '.join(meta['choices'])}, got {value!r}")
    for name, message in args.check():
        raise TrainingError(f"{flag(name)}: {message}")


def _old_run_folder(namespace: dict, trainer: str) -> None:
    """Turn the old ``--runs DIR`` and ``--run-name NAME`` into ``--out DIR/<trainer>/NAME``."""
    runs, name = namespace.pop("runs", None), namespace.pop("run_name", None)
    if runs is None and name is None:
        return
    prog = "checkers"
    for old, value in (("--runs", runs), ("--run-name", name)):
        if value is not None:
            warn_deprecated(old, "--out RUN_DIR (the run folder itself)", prog)
    if "out" in namespace:
        raise TrainingError("--out: give the run folder with --out alone, not with the old --runs or --run-name")
    if name is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._=+-]*", name):
        raise TrainingError(f"--run-name: must be a plain folder name (letters, digits, . _ = + -), got {name!r}")
    if runs is not None and Path(runs).exists() and not Path(runs).is_dir():
        raise TrainingError(f"--runs: {runs!r} is a file, not a folder")
    namespace["out"] = str(Path(runs or "runs") / trainer / (name or default_run_name(namespace.get("seed", 0))))


def default_run_name(seed: int) -> str:
    """``seed<SEED>__<UTC date and time>``: the run folder's name when ``--out`` is not given."""
    import datetime

    return f"seed{seed}__{datetime.datetime.now(datetime.UTC):%Y%m%dT%H%M%S}"


def parse_args(args_class: type, argv: list[str] | None, trainer: str, description: str = "") -> tuple[Any, set[str]]:
    """``(options, names of the options given)`` from a command line (default ``sys.argv[1:]``).

    Raises:
        TrainingError: an unknown flag or a bad value (one line, naming the flag).
    """
    argv = _old_resume(list(sys.argv[1:] if argv is None else argv))
    namespace = build_parser(args_class, trainer, description).parse_args(argv)
    given = vars(namespace)
    _old_run_folder(given, trainer)
    args = args_class(**given)
    check(args)
    return args, set(given)


def changed_fields(args: RunArgs) -> set[str]:
    """Names of the options whose value differs from the default (what a Python caller gave)."""
    return {f.name for f in dataclasses.fields(args) if getattr(args, f.name) != f.default}


def command_line(trainer: str, args: RunArgs, names: Collection[str] | None = None) -> str:
    """The ``checkers train`` command that gives ``args`` back when parsed: the options in
    ``names`` (default: every option that differs from its default), in field order."""
    names = changed_fields(args) if names is None else set(names)
    words = ["checkers", "train", trainer]
    for field in dataclasses.fields(args):
        if field.name not in names:
            continue
        value = getattr(args, field.name)
        if isinstance(value, bool):
            words.append(flag(field.name) if value else "--no-" + field.name.replace("_", "-"))
        else:
            words += [flag(field.name), shlex.quote(str(value))]
    return " ".join(words)


@dataclass
class GenerationArgs(RunArgs):
    """The options of a trainer that works in generations of self-play: what the generations
    loop reads (its budget, epochs and batches), the self-play processes, and the anchors of
    the strength curve. A trainer redeclares a field to give it its own default (the help
    stays this one's unless it writes its own)."""

    generations: int = arg(3, low=1, on_resume=BUDGET)
    """generations of self-play and training (the budget)"""
    games: int = arg(2000, low=1)
    """self-play games per generation"""
    epochs: int = arg(2, low=1)
    """passes over the training window per generation"""
    batch_size: int = arg(512, low=1, high=MAX_BATCH)
    """examples per optimizer step"""
    workers: int = arg(2, low=1, high=MAX_WORKERS, on_resume=SESSION)
    """self-play processes"""
    ray: str = arg("", metavar="ADDRESS", on_resume=SESSION, const="local")
    """play self-play shards as Ray tasks: on a local Ray (--ray alone) or the cluster at ADDRESS
    (default: local processes)"""
    device: str = arg("auto", choices=("auto", "cpu", "cuda"), on_resume=SESSION)
    """where torch trains the net: cpu, cuda, or auto (cuda when torch sees a GPU); self-play runs in numba on the CPU"""
    anchors: str = arg("alphabeta:depth=4;alphabeta:depth=6", metavar="SPECS")
    """anchors of the strength curve (--eval-games games each per generation): agent specs separated by semicolons"""
    anchor_ratings: str = arg("1088;1270", metavar="ELOS")
    """the anchors' fixed ratings, in the order of --anchors, separated by semicolons"""

    @property
    def ray_target(self) -> bool | str:
        """``--ray`` as the shard runner takes it: False (local processes), True (a local
        Ray) or a cluster address."""
        return False if not self.ray else (True if self.ray == "local" else self.ray)

    def check(self) -> list[tuple[str, str]]:
        from .games import anchors

        problems = super().check()
        try:
            anchors(self.anchors, self.anchor_ratings)
        except ValueError as error:
            problems.append(("anchor_ratings", str(error)))
        return problems


__all__ = [
    "BUDGET",
    "MAX_BATCH",
    "MAX_SEED",
    "MAX_WIDTH",
    "MAX_WORKERS",
    "GenerationArgs",
    "RUN",
    "SESSION",
    "RunArgs",
    "TrainingError",
    "arg",
    "build_parser",
    "changed_fields",
    "check",
    "command_line",
    "default_run_name",
    "field_docs",
    "flag",
    "parse_args",
    "zoo_name_problem",
]
