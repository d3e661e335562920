"""The parts every training script shares: options, run folders, resume, promotion,
evaluation games, TensorBoard.

A trainer (``training/<name>.py``, one readable script per algorithm, the cleanrl habit)
declares its options as a dataclass that extends :class:`RunArgs`; the docstring under each
field is its ``--help`` line::

    @dataclass
    class Args(scaffold.RunArgs):
        games: int = scaffold.arg(100_000, low=0, on_resume=scaffold.BUDGET)
        \"\"\"total self-play games\"\"\"

    def main(argv=None):
        args, given = scaffold.parse_args(Args, argv, "td-minimax", __doc__)
        run, args = scaffold.open_run("td-minimax", args, given)
        ...

Run folders (the same for every trainer)::

    runs/<trainer>/<run name>/        run name: --run-name, default seed<SEED>__<UTC time>
        run.json                      trainer, the run's options, the command of every session
        checkpoint.*                  what --resume continues from (written atomically)
        events.out.tfevents.*         TensorBoard scalars (tensorboard --logdir runs)

The same options mean the same thing in every trainer:

- ``--resume RUN_DIR`` continues the run in ``RUN_DIR`` exactly as it was started: the
  options saved in its ``run.json`` win. An option given with ``--resume`` that would change
  the run (a network size, a learning rate, the seed) is refused with one line naming it;
  options marked :data:`SESSION` (threads, progress display, ``--promote``) may differ, and
  those marked :data:`BUDGET` (the number of games or steps) may be raised to train on.
- A run never writes into a folder that holds another run: starting one there is refused
  unless ``--overwrite`` is given, which deletes the old run first (``--overwrite`` with
  ``--resume`` is refused).
- ``--promote NAME`` writes ``zoo/NAME/weights.safetensors`` and a fresh ``card.json`` when
  training ends; NAME is a plain zoo name, never a path.
- ``--eval-opponents`` / ``--eval-games``: evaluation games through
  :func:`checkers_env.match.play_game` on 3-move ballot openings, each played with both
  colours.
- ``--torch-threads`` (default 1: on a busy machine more threads made each update several
  times slower).

Every file goes through :func:`checkers_env.files.write_atomic`, so a kill never leaves a
half-written checkpoint, card or record.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime
import inspect
import json
import math
import re
import shlex
import shutil
import signal
import sys
import textwrap
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from checkers_env.errors import CheckersError, WeightsError
from checkers_env.files import git_commit, write_atomic, write_json_atomic

from .dependencies import check_dependencies

#: The source checkout this package runs from (meaningless for an installed wheel).
REPO_ROOT = Path(__file__).resolve().parents[1]
RUN_RECORD = "run.json"

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


# -- options ----------------------------------------------------------------------------------


def arg(
    default: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: Iterable[str] | None = None,
    metavar: str | None = None,
    on_resume: str = RUN,
) -> Any:
    """A trainer option: a dataclass field with its checks (the docstring under it is its help).

    Args:
        default: the value when the flag is not given.
        low, high: inclusive bounds of a number.
        choices: the values a text option accepts.
        metavar: what the value is called in ``--help`` (default from the type: N, X, TEXT).
        on_resume: :data:`RUN`, :data:`SESSION` or :data:`BUDGET`.
    """
    if on_resume not in (RUN, SESSION, BUDGET):
        raise ValueError(f"on_resume must be RUN, SESSION or BUDGET, got {on_resume!r}")
    metadata = {"low": low, "high": high, "choices": tuple(choices) if choices else None,
                "metavar": metavar, "on_resume": on_resume}
    return dataclasses.field(default=default, metadata=metadata)


@dataclass
class RunArgs:
    """The options every trainer shares (where the run goes, how it is evaluated and shown)."""

    seed: int = arg(1, low=0, high=MAX_SEED)
    """seed of every generator of the run"""
    runs: str = arg("runs", metavar="DIR")
    """folder of the run folders: a run writes into DIR/<trainer>/<run name>"""
    run_name: str = arg("", metavar="NAME")
    """name of the run folder (default: seed<SEED>__<UTC date and time>)"""
    resume: str = arg("", metavar="RUN_DIR", on_resume=SESSION)
    """continue the run in RUN_DIR exactly as it was started (its saved options win)"""
    overwrite: bool = arg(False, on_resume=SESSION)
    """start the run even if its folder holds another run, deleting that run first"""
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
            problems.append(("eval_games", f"must be even (each opening is played with both colours), got {self.eval_games}"))
        if self.resume and self.overwrite:
            problems.append(("overwrite", "cannot go with --resume: a resume continues its run, it never replaces it"))
        if self.promote:
            problem = zoo_name_problem(self.promote)
            if problem:
                problems.append(("promote", problem))
        runs = Path(self.runs)
        if runs.exists() and not runs.is_dir():
            problems.append(("runs", f"{self.runs!r} is a file, not a folder: choose a folder for the run folders"))
        if self.resume and Path(self.resume).exists() and not Path(self.resume).is_dir():
            problems.append(("resume", f"{self.resume!r} is a file, not a run folder"))
        if self.run_name and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._=+-]*", self.run_name):
            problems.append(("run_name", f"must be a plain folder name (letters, digits, . _ = + -), got {self.run_name!r}"))
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
            body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
        except (OSError, TypeError):
            continue
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


def _whole_number(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


_CONVERTERS = {"int": _whole_number, "float": _number, "str": str}
_METAVARS = {"int": "N", "float": "X", "str": "TEXT"}


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: a bad value raises :class:`TrainingError` naming the
    flag, instead of printing the usage block."""

    def error(self, message: str):
        if message.startswith("unrecognized arguments: "):
            message = f"unknown option {message.split(': ', 1)[1]} ({self.prog} --help lists the options)"
        raise TrainingError(message.removeprefix("argument "))


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help without line breaks inside hyphenated words (``self-play``)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
            break_on_hyphens=False,
        )


def build_parser(args_class: type, trainer: str, description: str = "") -> argparse.ArgumentParser:
    """The ``checkers train <trainer>`` parser of a dataclass of options.

    The trainer's own options come first, then the shared run options; a field's docstring
    is its help line, followed by its default. Defaults are left out of the namespace so that
    the flags given on the command line are known (see :func:`parse_args`).
    """
    parser = _Parser(
        prog=f"checkers train {trainer}",
        usage="%(prog)s [OPTIONS]",
        description=(description or "").strip().split("\n\n")[0].replace("``", ""),
        allow_abbrev=False,
        formatter_class=lambda prog: _HelpFormatter(prog, max_help_position=34),
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
        if meta.get("on_resume") == SESSION and field.name not in ("resume", "overwrite"):
            text += " [may change on --resume]"
        elif meta.get("on_resume") == BUDGET:
            text += " [may be raised on --resume]"
        group = groups[field.name in shared]
        if kind == "bool":
            # An option that is off by default is a plain switch; one that is on gets --no-.
            action = argparse.BooleanOptionalAction if field.default else "store_true"
            group.add_argument(flag(field.name), action=action, default=argparse.SUPPRESS, help=text)
        else:
            group.add_argument(
                flag(field.name), type=_CONVERTERS[kind], default=argparse.SUPPRESS,
                metavar=meta.get("metavar") or (None if meta.get("choices") else _METAVARS[kind]),
                choices=meta.get("choices"), help=text,
            )
    return parser


def check(args: RunArgs) -> None:
    """Raise :class:`TrainingError` for the first option out of its bounds or choices, or
    the first problem of ``args.check()``; the message names the flag."""
    for field in dataclasses.fields(args):
        value, meta = getattr(args, field.name), field.metadata
        if isinstance(value, float) and not math.isfinite(value):
            # nan passes every bound check (each comparison is False): it would train on nan.
            raise TrainingError(f"{flag(field.name)}: must be a finite number, got {value}")
        low, high = meta.get("low"), meta.get("high")
        if low is not None and high is not None and not low <= value <= high:
            raise TrainingError(f"{flag(field.name)}: must be from {low} to {high}, got {value}")
        if low is not None and value < low:
            raise TrainingError(f"{flag(field.name)}: must be at least {low}, got {value}")
        if high is not None and value > high:
            raise TrainingError(f"{flag(field.name)}: must be at most {high}, got {value}")
        if meta.get("choices") and value not in meta["choices"]:
            raise TrainingError(f"{flag(field.name)}: must be one of {', '.join(meta['choices'])}, got {value!r}")
    for name, message in args.check():
        raise TrainingError(f"{flag(name)}: {message}")


def parse_args(args_class: type, argv: list[str] | None, trainer: str, description: str = "") -> tuple[Any, set[str]]:
    """``(options, names of the options given)`` from a command line (default ``sys.argv[1:]``).

    Raises:
        TrainingError: an unknown flag or a bad value (one line, naming the flag).
    """
    namespace = build_parser(args_class, trainer, description).parse_args(sys.argv[1:] if argv is None else argv)
    given = vars(namespace)
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


# -- run folders ------------------------------------------------------------------------------


@dataclass
class Run:
    """A run folder and its record (``run.json``).

    Attributes:
        path: the run folder.
        trainer: the trainer's name (``td-minimax``, ``slow-fast``, ``ppo``).
        record: ``{"trainer", "run_name", "args", "started", "commit", "sessions": [{"command", "started"}]}``.
        resumed: whether this session continues an earlier one.
    """

    path: Path
    trainer: str
    record: dict
    resumed: bool

    @property
    def name(self) -> str:
        return self.record["run_name"]

    @property
    def command(self) -> str:
        """The commands of every session of the run, joined by ``&&``: the reproduction."""
        return " && ".join(session["command"] for session in self.record["sessions"])

    def save_record(self) -> None:
        write_json_atomic(self.path / RUN_RECORD, self.record)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def read_run_record(run_dir: str | Path, trainer: str) -> dict:
    """The ``run.json`` of a run folder of ``trainer``.

    Raises:
        TrainingError: no run there, or a run of another trainer.
    """
    path = Path(run_dir) / RUN_RECORD
    if not path.is_file():
        raise TrainingError(f"--resume {str(run_dir)!r}: no run there (no {RUN_RECORD})")
    try:
        record = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise TrainingError(f"--resume {str(run_dir)!r}: {path} is unreadable: {error}") from None
    if not isinstance(record, dict):
        raise TrainingError(f"--resume {str(run_dir)!r}: {path} is not a run record (not a JSON object)")
    if record.get("trainer") != trainer:
        raise TrainingError(
            f"--resume {str(run_dir)!r}: that is a {record.get('trainer')} run, not a {trainer} run"
        )
    for key, kind in (("args", dict), ("sessions", list), ("run_name", str)):
        if not isinstance(record.get(key), kind):
            raise TrainingError(
                f"--resume {str(run_dir)!r}: {path} has no {key!r} {kind.__name__}: it is damaged or was not "
                f"written by checkers train"
            )
    return record


def open_run(trainer: str, args: RunArgs, given: Collection[str] | None = None) -> tuple[Run, Any]:
    """Start a new run folder or reopen the one of ``--resume``; returns the run and the
    options the run goes on with.

    A resume takes the options saved with the run; of the ``given`` ones (default: those that
    differ from their defaults), :data:`SESSION` options replace the saved values,
    :data:`BUDGET` options may raise them, and any other that differs is refused.

    Raises:
        TrainingError: the folder holds another run (without ``--overwrite``), there is no
            run to resume, or a given option would change the resumed run.
    """
    check(args)
    given = changed_fields(args) if given is None else set(given)
    args_class = type(args)
    fields = {f.name: f for f in dataclasses.fields(args)}
    if args.resume:
        path = Path(args.resume)
        record = read_run_record(path, trainer)
        saved = {k: v for k, v in record["args"].items() if k in fields}
        for name in sorted(given - {"resume"}, key=list(fields).index):
            value, before = getattr(args, name), saved.get(name, fields[name].default)
            kind = fields[name].metadata.get("on_resume", RUN)
            if kind == SESSION or value == before:
                saved[name] = value
            elif kind == BUDGET and value >= before:
                saved[name] = value
            elif kind == BUDGET:
                raise TrainingError(
                    f"{flag(name)} {value}: a resume can raise the run's {flag(name)} {before}, not lower it"
                )
            else:
                raise TrainingError(
                    f"{flag(name)} {value} would change the run, which was started with {flag(name)} {before}; "
                    f"a resume continues the run as it was started (start a new run to change it)"
                )
        saved.update(resume=str(path), overwrite=False)
        resumed_args = args_class(**saved)
        record["args"] = _recorded(resumed_args)
        record["sessions"].append({
            "command": command_line(trainer, resumed_args, sorted(given | {"resume"}, key=list(fields).index)),
            "started": _now().isoformat(timespec="seconds"),
        })
        run = Run(path, trainer, record, resumed=True)
        run.save_record()
        return run, resumed_args

    name = args.run_name or f"seed{args.seed}__{_now():%Y%m%dT%H%M%S}"
    path = Path(args.runs) / trainer / name
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        if not args.overwrite:
            raise TrainingError(
                f"{path} holds another run: give --resume {path} to continue it, "
                f"--overwrite to replace it, or another --run-name"
            )
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file where a folder of the path should be
        raise TrainingError(f"cannot make the run folder {path}: {error.strerror}") from None
    args = dataclasses.replace(args, run_name=name, overwrite=False)
    record = {
        "trainer": trainer,
        "run_name": name,
        "args": _recorded(args),
        "started": _now().isoformat(timespec="seconds"),
        "commit": git_commit(),
        # The run name is written out so that a later `--resume runs/<trainer>/<name>`
        # of the recorded commands finds the folder this command makes.
        "sessions": [{"command": command_line(trainer, args, changed_fields(args) | {"run_name"}),
                      "started": _now().isoformat(timespec="seconds")}],
    }
    run = Run(path, trainer, record, resumed=False)
    run.save_record()
    return run, args


def start_run(
    trainer: str, args: RunArgs, given: Collection[str] | None = None, needs: Iterable[str] = ()
) -> tuple[Run, Any]:
    """What every trainer does first: check its dependencies and the evaluation opponents
    (before any folder is made), open the run (:func:`open_run`) and set torch's threads.

    Args:
        trainer: the trainer's name (the run folder is ``runs/<trainer>/<run name>``).
        args: the options.
        given: the options given on the command line (default: those that differ from the
            defaults); on ``--resume`` they are checked against the run's saved options.
        needs: the modules the trainer imports (``torch``, ``sb3_contrib``).

    Returns:
        The run and the options it goes on with (a resumed run's saved ones).

    Raises:
        MissingDependencyError: a module of ``needs``, or TensorBoard's, is not installed.
    """
    check_dependencies(trainer, needs, args.tensorboard)
    check_opponents(args.eval_opponents)
    run, args = open_run(trainer, args, given)
    set_torch_threads(args.torch_threads)
    return run, args


def _recorded(args: RunArgs) -> dict:
    """The options as saved in ``run.json``. ``resume``, ``overwrite`` and ``promote`` are the
    session's, not the run's: a later ``--resume`` that does not ask for ``--promote`` again
    must not overwrite the zoo entry an earlier session promoted."""
    document = dataclasses.asdict(args)
    document.update(resume="", overwrite=False, promote="")
    return document


# -- the zoo ----------------------------------------------------------------------------------


def zoo_name_problem(name: str) -> str | None:
    """Why ``name`` is not a plain zoo entry name (None when it is one)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name) or name in (".", ".."):
        return (
            f"{name!r} is not a zoo name: give a plain name such as td-minimax "
            "(lower-case letters, digits, . _ -; no folders), written to zoo/NAME"
        )
    return None


def promote(
    name: str, kind: str, params: dict, weights: bytes, description: str, training: dict
) -> Path:
    """Write zoo entry ``name``: ``weights.safetensors`` and a fresh ``card.json`` (a card
    already there is replaced whole: its league results belonged to the old weights).

    Args:
        name: the zoo name (``zoo/NAME``; ``$CHECKERS_ZOO`` moves the zoo).
        kind: the agent kind that plays the weights.
        params: the agent's parameters (besides ``weights``).
        weights: the safetensors file's bytes.
        description: what the agent is, in a sentence or two.
        training: ``command`` (the ``checkers train`` command(s) that reproduce it),
            ``budget``, ``wall_time_s`` and what else the trainer records.

    Raises:
        TrainingError: ``name`` is not a plain zoo name.
    """
    from checkers_agents.zoo import validate_card, zoo_dir

    problem = zoo_name_problem(name)
    if problem:
        raise TrainingError(f"--promote: {problem}")
    folder = zoo_dir() / name
    card = {
        "name": name,
        "kind": kind,
        "params": params,
        "weights": "weights.safetensors",
        "description": description,
        "training": training,
        "commit": git_commit(),
        "date": _now().date().isoformat(),
    }
    write_atomic(folder / card["weights"], weights)
    problems = validate_card(card, folder)
    if problems:
        raise ValueError(f"the card for zoo/{name} is invalid: " + "; ".join(problems))
    write_json_atomic(folder / "card.json", card)
    return folder


# -- evaluation -------------------------------------------------------------------------------


def opponent_specs(text: str) -> list[str]:
    """The specs of ``--eval-opponents`` (semicolon-separated)."""
    return [spec.strip() for spec in text.split(";") if spec.strip()]


def check_opponents(text: str) -> None:
    """Build every opponent once, so that a bad spec stops the run before training.

    Raises:
        TrainingError: naming ``--eval-opponents`` and the spec.
    """
    from checkers_env import make_agent

    for spec in opponent_specs(text):
        try:
            make_agent(spec)
        except (CheckersError, ValueError) as error:
            raise TrainingError(f"--eval-opponents: {spec!r}: {error}") from None


def evaluate(agent, opponents: Iterable[str], games: int, seed: int) -> dict[str, dict]:
    """Score of ``agent`` against each opponent spec in ``games`` games through
    :func:`checkers_env.match.play_game`: ``games // 2`` 3-move ballot openings (drawn
    without replacement by ``seed``), each played once with each colour.

    Returns:
        ``{spec: {"score": points per game, "wins", "draws", "losses"}}``.
    """
    from checkers_env import Rules, make_agent
    from checkers_env.match import ballot_openings, play_game

    openings = ballot_openings()
    results: dict[str, dict] = {}
    for number, spec in enumerate(opponents):
        rng = np.random.default_rng([seed, number])
        opponent = make_agent(spec)
        order = rng.permutation(len(openings))
        wins = draws = losses = 0
        for pair in range(games // 2):
            opening = openings[order[pair % len(openings)]]
            for agent_is_black in (True, False):
                black, white = (agent, opponent) if agent_is_black else (opponent, agent)
                record = play_game(black, white, opening, Rules(), rng)
                if record.result == "1/2-1/2":
                    draws += 1
                elif (record.result == "1-0") == agent_is_black:
                    wins += 1
                else:
                    losses += 1
        played = max(wins + draws + losses, 1)
        results[spec] = {"score": (wins + 0.5 * draws) / played, "wins": wins, "draws": draws, "losses": losses}
    return results


def evaluation_line(results: dict[str, dict]) -> str:
    """``random 0.95 (+19 =0 -1), greedy ...``: one evaluation for a progress bar or log."""
    return ", ".join(f"{spec} {r['score']:.2f} (+{r['wins']} ={r['draws']} -{r['losses']})" for spec, r in results.items())


# -- the session ------------------------------------------------------------------------------


class _NoWriter:
    """Stands in for a TensorBoard writer when ``--no-tensorboard``."""

    def add_scalar(self, *args, **kwargs) -> None:
        pass

    def close(self) -> None:
        pass


def tensorboard(run: Run, enabled: bool, step: int = 0):
    """A TensorBoard ``SummaryWriter`` into the run folder (a no-op writer when disabled).

    A resumed run purges the points after ``step`` that an earlier session logged past its
    last checkpoint, so the curves do not fold back.
    """
    if not enabled:
        return _NoWriter()
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run.path), purge_step=step if run.resumed and step else None)


def set_torch_threads(threads: int) -> None:
    """Let torch use ``threads`` threads (if torch is installed)."""
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(threads)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """A plain ``kill`` stops a run as Ctrl-C does, so the trainer can checkpoint first."""
    signal.signal(signal.SIGTERM, _interrupt)


def read_checkpoint(path: Path) -> bytes:
    """The bytes of a run's checkpoint file.

    Raises:
        WeightsError: the file is missing or unreadable.
    """
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise WeightsError(f"checkpoint {str(path)!r} does not exist") from None
    except OSError as error:
        raise WeightsError(f"checkpoint {str(path)!r} cannot be read: {error}") from None


def save_torch_checkpoint(path: Path, document: dict) -> None:
    """Write ``document`` (tensors, numbers, strings, dicts of them) with ``torch.save``,
    atomically: the old checkpoint stays whole until the new one is."""
    import io

    import torch

    data = io.BytesIO()
    torch.save(document, data)
    write_atomic(path, data.getvalue())


def load_torch_checkpoint(path: Path, restore: Callable[[dict], Any], network: str = "this run's network") -> Any:
    """Read a :func:`save_torch_checkpoint` file without executing code
    (``weights_only=True``) and hand it to ``restore``; returns what ``restore`` returns.

    Raises:
        WeightsError: the file is missing, truncated or corrupt, or ``restore`` finds it
            does not fit (a missing key or a tensor of another shape): "does not match
            ``network``".
    """
    import io

    import torch

    data = read_checkpoint(path)
    try:
        saved = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as error:  # torch raises several kinds for a damaged zip or pickle
        raise checkpoint_error(path, "is truncated or corrupt", error) from None
    try:
        return restore(saved)
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise checkpoint_error(path, f"does not match {network}", error) from None


def checkpoint_error(path: Path, fault: str, error: BaseException) -> WeightsError:
    """A :class:`WeightsError` naming a checkpoint, what is wrong with it, and the loader's
    own message on one line (torch and SB3 messages run over many)."""
    text = " ".join(str(error).split())[:300]
    return WeightsError(f"checkpoint {str(path)!r} {fault}: {text}")


def script_main(main: Callable[[list[str] | None], int]) -> int:
    """Run a trainer's ``main`` as ``python -m checkers_training.<name>``: a :class:`CheckersError`
    (a bad option, a bad file) prints one line and exits with status 2, as ``checkers`` does."""
    try:
        return main(None)
    except CheckersError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


__all__ = [
    "BUDGET",
    "RUN",
    "SESSION",
    "Run",
    "RunArgs",
    "TrainingError",
    "arg",
    "build_parser",
    "changed_fields",
    "check",
    "check_dependencies",
    "check_opponents",
    "load_torch_checkpoint",
    "save_torch_checkpoint",
    "checkpoint_error",
    "command_line",
    "evaluate",
    "evaluation_line",
    "field_docs",
    "flag",
    "git_commit",
    "open_run",
    "opponent_specs",
    "parse_args",
    "promote",
    "read_checkpoint",
    "read_run_record",
    "set_torch_threads",
    "start_run",
    "stop_on_sigterm",
    "tensorboard",
    "write_atomic",
    "write_json_atomic",
    "zoo_name_problem",
]
