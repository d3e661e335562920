"""The parts every training script shares, one module per concern, named here together so
that a trainer reads ``scaffold.X``:

- options: :mod:`checkers_training.arguments` (a dataclass of flags, parsed by the suite's
  one command-line layer, :mod:`checkers_agents.options`);
- run folder and resume: :mod:`checkers_training.runs`;
- checkpoints: :mod:`checkers_training.checkpoints`;
- promotion into the zoo: :mod:`checkers_training.promotion`;
- Ctrl-C, which stops a run where its state is whole: :mod:`checkers_training.interrupts`;
- evaluation games and the promotion match of a generation: :mod:`checkers_training.games`.

A trainer (``training/<name>.py``, one readable script per algorithm, the cleanrl habit)
declares its options as a dataclass that extends :class:`RunArgs`; the docstring under each
field is its ``--help`` line::

    @dataclass
    class Args(scaffold.RunArgs):
        games: int = scaffold.arg(100_000, low=0, on_resume=scaffold.BUDGET)
        \"\"\"total self-play games\"\"\"

    def train(args, given=None):
        run, args = scaffold.start_run("td-minimax", args, given)
        ...

    main = scaffold.trainer_main(Args, train, "td-minimax", __doc__)

Run folders (the same for every trainer)::

    --out DIR                         default: runs/<trainer>/seed<SEED>__<UTC time>
        run.json                      trainer, the run's options, the command of every session
        checkpoint.*                  what --resume continues from (written atomically)
        events.out.tfevents.*         TensorBoard scalars (tensorboard --logdir runs)

The same options mean the same thing in every trainer, and in every ``checkers`` command:

- ``--out DIR`` is the output folder (here: the run folder) and ``--resume`` continues what
  is in it: the run exactly as it was started, the options saved in its ``run.json`` winning.
  An option given with ``--resume`` that would change the run (a network size, a learning
  rate, the seed) is refused with one line naming it; options marked :data:`SESSION`
  (threads, progress display, ``--promote``) may differ, and those marked :data:`BUDGET` (the
  number of games or steps) may be raised to train on.
- A run never writes into a folder that holds another run: starting one there is refused
  unless ``--overwrite`` is given, which deletes the old run first (``--overwrite`` with
  ``--resume`` is refused).
- ``--seed`` defaults to 0.
- ``--promote NAME`` writes ``zoo/NAME/weights.safetensors`` and a fresh ``card.json`` when
  training ends; NAME is a plain zoo name, never a path.
- ``--eval-opponents`` / ``--eval-games``: evaluation games through
  :func:`checkers_env.match.play_game` on 3-move ballot openings, each played with both
  colours.
- ``--torch-threads`` (default 1: on a busy machine more threads made each update several
  times slower).

Where the learner lives, the same for every algorithm: the numba kernels a learner runs (a
self-play game with its updates, a data generator) live with the agent in
``agents/<name>/``, because they are that agent's engine; the training loop that calls them
(budget, checkpoints, logging, evaluation, promotion) lives in ``training/<name>.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from checkers_env.errors import CheckersError
from checkers_env.files import write_atomic, write_json_atomic

from .arguments import (
    BUDGET,
    MAX_BATCH,
    MAX_SEED,
    MAX_WIDTH,
    MAX_WORKERS,
    RUN,
    SESSION,
    GenerationArgs,
    RunArgs,
    TrainingError,
    arg,
    build_parser,
    changed_fields,
    check,
    command_line,
    field_docs,
    flag,
    parse_args,
    zoo_name_problem,
)
from .checkpoints import (
    checkpoint_error,
    load_checkpoint,
    read_checkpoint,
    save_checkpoint,
)
from .dependencies import check_dependencies
from .games import (
    anchors,
    check_opponents,
    evaluate,
    evaluation_line,
    final_evaluation,
    gate_match,
    opponent_specs,
    strength_point,
    write_curve,
)
from .interrupts import Stop, saved_on_stop, stop_on_sigterm
from .promotion import REPO_ROOT, git_commit, promote
from .runs import (
    RUN_RECORD,
    Run,
    open_run,
    read_run_record,
    saved_args,
    set_torch_threads,
    start_run,
    tensorboard,
    torch_device,
)


def trainer_main(args_class: type, train: Callable, trainer: str, description: str = "") -> Callable:
    """A trainer's ``main(argv) -> int`` (``checkers train <trainer> [OPTIONS]``): parse the
    options, let a plain ``kill`` stop the run as Ctrl-C does, train."""

    def main(argv: list[str] | None = None) -> int:
        args, given = parse_args(args_class, argv, trainer, description)
        stop_on_sigterm()
        train(args, given)
        return 0

    main.__doc__ = f"``checkers train {trainer} [OPTIONS]``."
    return main


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
    "GenerationArgs",
    "MAX_BATCH",
    "anchors",
    "MAX_SEED",
    "MAX_WIDTH",
    "MAX_WORKERS",
    "REPO_ROOT",
    "RUN",
    "RUN_RECORD",
    "SESSION",
    "Run",
    "RunArgs",
    "Stop",
    "TrainingError",
    "arg",
    "build_parser",
    "changed_fields",
    "check",
    "check_dependencies",
    "check_opponents",
    "checkpoint_error",
    "command_line",
    "evaluate",
    "evaluation_line",
    "field_docs",
    "final_evaluation",
    "flag",
    "gate_match",
    "git_commit",
    "load_checkpoint",
    "open_run",
    "opponent_specs",
    "parse_args",
    "promote",
    "read_checkpoint",
    "read_run_record",
    "save_checkpoint",
    "saved_args",
    "saved_on_stop",
    "script_main",
    "set_torch_threads",
    "start_run",
    "stop_on_sigterm",
    "strength_point",
    "tensorboard",
    "torch_device",
    "trainer_main",
    "write_curve",
    "write_atomic",
    "write_json_atomic",
    "zoo_name_problem",
]
