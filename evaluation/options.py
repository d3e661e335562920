"""The argparse pieces every ``checkers`` subcommand shares: the one-line usage errors, the
help formatter, and the option types that check a value when it is parsed (so a bad option
stops the command with status 2 before any work is done or any folder is created).

This module imports only the standard library: ``checkers --help`` stays fast. A bound that
lives in a heavier module is given as a function and looked up only when the option is used
or its help shown (``whole_number(2, max_egdb_pieces)``).
"""

from __future__ import annotations

import argparse
import copy
import os
import textwrap
from collections.abc import Callable

#: Exit status for bad input (argparse's own usage errors use it too).
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input found by a handler: reported as one line on stderr, exit status 2."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, without breaking lines inside hyphenated words (``td-minimax``,
    ``--games-per-pair``)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
            break_on_hyphens=False,
        )

    def _expand_help(self, action: argparse.Action) -> str:
        # A bounded type's limits are %(minimum)s and %(maximum)s in the help text (a
        # lazy bound is looked up only here, when the help is shown).
        bound = getattr(action.type, "bound", None)
        if bound is not None:
            action = copy.copy(action)
            action.minimum, action.maximum = action.type.minimum, bound()
        return super()._expand_help(action)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with usage errors on one line (the usage itself is one ``--help`` away)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def format_help(self) -> str:
        # A description may be a function, called only when the help is shown: for figures
        # that live in a module imported only when the command runs.
        if callable(self.description):
            self.description = self.description()
        return super().format_help()


def whole_number(minimum: int | None = None, maximum: int | Callable[[], int] | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` to ``maximum`` (None: no bound);
    errors say so in words.

    ``maximum`` may be a function that returns the bound, for a bound that lives in a module
    this one imports only when the option is used; help texts show the bounds as
    ``%(minimum)s`` and ``%(maximum)s``.
    """

    def bound() -> int | None:
        return maximum() if callable(maximum) else maximum

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        top = bound()
        if (minimum is not None and value < minimum) or (top is not None and value > top):
            if top is None:
                raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {text!r}")
            if minimum is None:
                raise argparse.ArgumentTypeError(f"must be <= {top}, got {text!r}")
            raise argparse.ArgumentTypeError(f"must be {minimum} to {top}, got {text!r}")
        return value

    parse.minimum, parse.bound = minimum, bound
    return parse


def folder_path(text: str) -> str:
    """An argparse type: a folder to read or write, which need not exist yet but must not be
    a file (checked when parsed, so nothing is done or created before the error)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty name")
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
    return text


def positive_number(text: str) -> float:
    """An argparse type: a number > 0 (seconds, for example)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def rate(text: str) -> float:
    """An argparse type: a probability in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, got {text!r}")
    return value


def max_egdb_pieces() -> int:
    """The most pieces an endgame database can have: what ``checkers egdb build`` builds."""
    from checkers_env.egdb import MAX_BUILD_PIECES

    return MAX_BUILD_PIECES
