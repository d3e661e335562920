"""The ``checkers`` command line: a thin dispatcher over one module per subcommand.

The subcommands and their options are declared by the parser itself (``checkers --help``,
``checkers SUBCOMMAND --help``), the one place they are written down. Each subcommand is a
module ``checkers_evaluation.<name>_command`` with its ``HELP`` line, its ``DESCRIPTION``
and an ``add_arguments(parser)`` that declares its arguments and names its handler; handlers import what they need when they run, so
``checkers --help`` stays fast and a subcommand's heavy dependencies (numba kernels, torch,
the league, a trainer) load only when that subcommand is used. To add a subcommand, write
its module and append its name to :data:`SUBCOMMANDS`.

The option types every subcommand shares, which check a value when it is parsed, are in
:mod:`checkers_agents.options` (the trainers use them too), named for the command in
:mod:`checkers_evaluation.options`. The same option means the same thing everywhere:
``--out DIR`` is where a command writes, ``--resume`` continues what is in ``--out``,
``--ray [ADDRESS]`` runs on Ray, ``--seed`` defaults to 0, ``--egdb-folder`` is the endgame
database folder a command reads and ``--egdb-pieces`` its pieces. Old spellings still work
for one release, with one warning line on stderr naming the new one.

Bad input (a bad FEN, a negative depth, a path under a file) prints one line
``checkers: error: ...`` to stderr and exits with status 2, the status argparse uses for
usage errors.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from checkers_evaluation.agents_command import plain_text  # noqa: F401  (the command line's own)
from checkers_evaluation.options import EXIT_USAGE, ArgumentParser, UsageError
from checkers_evaluation.train_command import TRAINERS

#: Exit status when the reader of stdout went away: 128 + SIGPIPE, as a shell reports it.
EXIT_BROKEN_PIPE = 141
#: Exit status when the work stopped on its own failure (not the user's input).
EXIT_FAILED = 1

#: The subcommands, in the order ``checkers --help`` lists them: ``checkers_evaluation.<name>_command``.
SUBCOMMANDS: list[str] = [
    "perft",
    "show",
    "agents",
    "league",
    "play",
    "serve",
    "engine",
    "train",
    "data",
    "egdb",
    "autopsy",
]


def _version() -> str:
    """The installed distribution's version (read from its metadata: no import of the suite)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("checkers-suite")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="checkers",
        description="English draughts (American checkers): rules, agents, training and evaluation.",
        epilog="checkers COMMAND --help describes a command. To begin: checkers agents lists "
        "the agents; checkers play --opponent zoo:td-minimax plays one.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        command = importlib.import_module(f"checkers_evaluation.{name}_command")
        command.add_arguments(subparsers.add_parser(name, help=command.HELP, description=command.DESCRIPTION))
    return parser


def _path_problem(error: OSError) -> str:
    """One line for a path given that cannot be used as asked (a file where a folder should
    be, a folder where a file should be, no permission): the path and why."""
    path = os.fsdecode(error.filename)
    if isinstance(error, NotADirectoryError):
        from pathlib import Path

        file = next((parent for parent in Path(path).parents if parent.is_file()), None)
        if file is not None:
            return f"{path!r}: {str(file)!r} is a file, not a folder"
    return f"{path!r}: {error.strerror or error}"


def main(argv: list[str] | None = None) -> int:
    """Run the ``checkers`` command with ``argv`` (default ``sys.argv[1:]``); return its exit
    status instead of exiting, so that tests and other Python code can call it."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, or a usage error argparse already printed
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        status = args.handler(args)
        sys.stdout.flush()  # a reader that left shows up here, inside the try, not at exit
        return status
    except BrokenPipeError:
        # The reader stopped reading (``checkers agents | head -1``): stop quietly, as
        # command-line tools do; stdout goes to devnull so the exit flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except UsageError as error:
        print(f"checkers: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, FileNotFoundError) as error:
        from checkers_env.errors import CheckersError

        if not isinstance(error, (CheckersError, FileNotFoundError)):
            raise
        print(f"checkers: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (NotADirectoryError, IsADirectoryError, PermissionError) as error:
        if error.filename is None:
            raise
        print(f"checkers: error: {_path_problem(error)}", file=sys.stderr)
        return EXIT_USAGE
    except RuntimeError as error:
        from checkers_env.parallel import WorkerDiedError

        if not isinstance(error, WorkerDiedError):
            raise
        print(f"checkers: error: {error}; what was done before it is kept", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("checkers: interrupted", file=sys.stderr)
        return 130


__all__ = ["EXIT_BROKEN_PIPE", "EXIT_FAILED", "SUBCOMMANDS", "TRAINERS", "UsageError", "build_parser", "main"]


if __name__ == "__main__":
    sys.exit(main())
