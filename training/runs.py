"""Run folders and resume: where a run writes, what ``run.json`` records, and how ``--resume``
continues exactly the run that was started.

A run folder holds ``run.json`` (trainer, the run's options, the command of every session),
the trainer's checkpoint files and the TensorBoard scalars. ``--out DIR`` names it (default
``runs/<trainer>/seed<SEED>__<UTC time>``); ``--out DIR --resume`` continues it.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkers_env.files import write_json_atomic

from .arguments import (
    BUDGET,
    RUN,
    SESSION,
    RunArgs,
    TrainingError,
    changed_fields,
    check,
    command_line,
    default_run_name,
    flag,
)
from .dependencies import check_dependencies
from .games import check_opponents
from .promotion import git_commit

RUN_RECORD = "run.json"


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
    return datetime.datetime.now(datetime.UTC)


def read_run_record(run_dir: str | Path, trainer: str) -> dict:
    """The ``run.json`` of a run folder of ``trainer``.

    Raises:
        TrainingError: no run there, or a run of another trainer.
    """
    path = Path(run_dir) / RUN_RECORD
    where = f"--out {str(run_dir)!r} --resume"
    if not path.is_file():
        raise TrainingError(f"{where}: no run there (no {RUN_RECORD})")
    try:
        record = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise TrainingError(f"{where}: {path} is unreadable: {error}") from None
    if not isinstance(record, dict):
        raise TrainingError(f"{where}: {path} is not a run record (not a JSON object)")
    if record.get("trainer") != trainer:
        raise TrainingError(f"{where}: that is a {record.get('trainer')} run, not a {trainer} run")
    for key, kind in (("args", dict), ("sessions", list), ("run_name", str)):
        if not isinstance(record.get(key), kind):
            raise TrainingError(
                f"{where}: {path} has no {key!r} {kind.__name__}: it is damaged or was not written by checkers train"
            )
    return record


def _saved_options(record: dict, args_class: type) -> dict:
    """The options saved in a run record that ``args_class`` has, under their current names
    (an option saved under the name of its deprecated flag, ``egdb``, is ``egdb_pieces`` now)."""
    saved = dict(record["args"])
    fields = {f.name: f for f in dataclasses.fields(args_class)}
    for name, field in fields.items():
        for old in field.metadata.get("old") or ():
            old_name = old.removeprefix("--").replace("-", "_")
            if old_name in saved and name not in saved:
                saved[name] = saved.pop(old_name)
    return {k: v for k, v in saved.items() if k in fields}


def saved_args(args: RunArgs, trainer: str) -> dict:
    """The options a run goes on with before it is opened: a resumed run's saved ones (read
    from ``run.json``), else ``args``'s own (for a trainer that reads its data first)."""
    if args.resume:
        return {**dataclasses.asdict(args), **_saved_options(read_run_record(args.out, trainer), type(args))}
    return dataclasses.asdict(args)


def open_run(trainer: str, args: RunArgs, given: Collection[str] | None = None) -> tuple[Run, Any]:
    """Start a new run folder or reopen the one of ``--out`` with ``--resume``; returns the run
    and the options the run goes on with.

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
        path = Path(args.out)
        record = read_run_record(path, trainer)
        saved = _saved_options(record, args_class)
        for name in sorted(given - {"resume", "out"}, key=list(fields).index):
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
        saved.update(out=str(path), resume=True, overwrite=False)
        resumed_args = args_class(**saved)
        record["args"] = _recorded(resumed_args)
        record["sessions"].append(
            {
                "command": command_line(
                    trainer, resumed_args, sorted(given | {"out", "resume"}, key=list(fields).index)
                ),
                "started": _now().isoformat(timespec="seconds"),
            }
        )
        run = Run(path, trainer, record, resumed=True)
        run.save_record()
        return run, resumed_args

    path = Path(args.out) if args.out else Path("runs") / trainer / default_run_name(args.seed)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        if not args.overwrite:
            raise TrainingError(
                f"{path} holds another run: give --out {path} --resume to continue it, "
                f"--overwrite to replace it, or another --out"
            )
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file where a folder of the path should be
        raise TrainingError(f"cannot make the run folder {path}: {error.strerror}") from None
    args = dataclasses.replace(args, out=str(path), overwrite=False)
    record = {
        "trainer": trainer,
        "run_name": path.name,
        "args": _recorded(args),
        "started": _now().isoformat(timespec="seconds"),
        "commit": git_commit(),
        # The folder is written out so that a later `--out <folder> --resume` of the
        # recorded commands finds the folder this command makes.
        "sessions": [
            {
                "command": command_line(trainer, args, changed_fields(args) | {"out"}),
                "started": _now().isoformat(timespec="seconds"),
            }
        ],
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
        trainer: the trainer's name (the default run folder is ``runs/<trainer>/<run name>``).
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
    document.update(resume=False, overwrite=False, promote="")
    return document


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


def torch_device(name: str):
    """The ``torch.device`` of a ``--device`` option: ``cpu``, ``cuda``, or ``auto`` (``cuda``
    when torch sees a GPU, else ``cpu``).

    Raises:
        TrainingError: ``cuda`` where torch sees no GPU.
    """
    import torch

    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise TrainingError(
            "--device cuda: torch sees no GPU here (torch.cuda.is_available() is False); give --device cpu or auto"
        )
    return torch.device(name)


__all__ = [
    "RUN_RECORD",
    "Run",
    "open_run",
    "read_run_record",
    "saved_args",
    "set_torch_threads",
    "start_run",
    "tensorboard",
]
