"""The ``checkers`` command's shared option pieces. The option types and usage errors live in
:mod:`checkers_agents.options`, the one command-line layer that the trainers share; this module
names them for the command's own modules and adds what only the command uses."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from checkers_agents.options import (
    EXIT_USAGE,
    ArgumentParser,
    DeprecatedAlias,
    HelpFormatter,
    UsageError,
    folder_path,
    max_egdb_pieces,
    number,
    positive_number,
    rate,
    warn_deprecated,
    whole_number,
)

Handler = Callable[[argparse.Namespace], int]

TRUST_PICKLES_HELP = (
    "let agent specs load files that hold pickled Python objects (a Stable-Baselines3 .zip "
    "given as ppo:weights=): loading such a file runs whatever code it holds, so give this only "
    "for files you made yourself (see SECURITY.md)"
)


def lazy_handler(module: str, function: str) -> Handler:
    """A handler that imports ``module.function`` only when the subcommand runs."""

    def handler(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(module), function)(args)

    return handler


def add_ray_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ray [ADDRESS]``, the same in every command: ``what`` runs as Ray tasks, on a local
    Ray (``--ray`` alone: ``args.ray`` is True) or the cluster at ADDRESS (``args.ray`` is the
    address); without it ``args.ray`` is False."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const=True,
        default=False,
        metavar="ADDRESS",
        help=f"{what} as Ray tasks: on a local Ray, or the cluster at ADDRESS "
        "(pip install 'checkers-suite[ray]'; after positional arguments, or as --ray=ADDRESS)",
    )


def board_from_fen(fen: str | None):
    """The position of a ``--fen`` or FEN argument (None: the start position).

    Raises:
        UsageError: the FEN is not valid (one line naming it).
    """
    from checkers_env import Board, InvalidFenError

    if fen is None:
        return Board()
    try:
        return Board.from_fen(fen)
    except InvalidFenError as error:
        raise UsageError(str(error)) from None


__all__ = [
    "EXIT_USAGE",
    "TRUST_PICKLES_HELP",
    "ArgumentParser",
    "DeprecatedAlias",
    "Handler",
    "HelpFormatter",
    "UsageError",
    "add_ray_option",
    "board_from_fen",
    "folder_path",
    "lazy_handler",
    "max_egdb_pieces",
    "number",
    "positive_number",
    "rate",
    "warn_deprecated",
    "whole_number",
]
