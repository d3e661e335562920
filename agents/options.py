"""The one command-line layer of the suite: the argparse pieces that every ``checkers``
subcommand and every ``checkers train NAME`` trainer share. One-line usage errors, the help
formatter, the option types that check a value when it is parsed (so a bad option stops the
command with status 2 before any work is done or any folder is created), and the deprecated
spellings of renamed options.

It lives in the lowest package that both ``checkers_evaluation`` (the ``checkers`` command)
and ``checkers_training`` (the trainers) may import, since neither imports the other, and
whose import is free: ``checkers_agents`` loads nothing until a module of it is asked for,
while ``checkers_env`` loads numba and Gymnasium. This module imports only the standard
library, so ``checkers --help`` stays fast; a bound that lives in a heavier module is given
as a function and looked up only when the option is used or its help shown
(``whole_number(2, max_egdb_pieces)``).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
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
            " ".join(text.split()),
            width,
            initial_indent=indent,
            subsequent_indent=indent,
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
    """argparse with usage errors on one line (the usage itself is one ``--help`` away).

    Args:
        error_class: raise this exception with the one-line message instead of printing it
            and exiting with status 2 (the trainers raise their ``TrainingError``, which the
            ``checkers`` command reports the same way); default: print and exit.
    """

    def __init__(self, *args, error_class: type[Exception] | None = None, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.error_class = error_class

    def error(self, message: str):
        if self.error_class is not None:
            if message.startswith("unrecognized arguments: "):
                message = f"unknown option {message.split(': ', 1)[1]} ({self.prog} --help lists the options)"
            raise self.error_class(message.removeprefix("argument "))
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def format_help(self) -> str:
        # A description may be a function, called only when the help is shown: for figures
        # that live in a module imported only when the command runs.
        if callable(self.description):
            self.description = self.description()
        return super().format_help()


def _within(value, text: str, minimum, maximum):
    """``value`` (parsed from ``text``) if it is from ``minimum`` to ``maximum`` (None: no bound).

    Raises:
        argparse.ArgumentTypeError: it is not, in words that quote ``text``.
    """
    if minimum is not None and maximum is not None and not minimum <= value <= maximum:
        raise argparse.ArgumentTypeError(f"must be {minimum} to {maximum}, got {text!r}")
    if minimum is not None and value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {text!r}")
    if maximum is not None and value > maximum:
        raise argparse.ArgumentTypeError(f"must be <= {maximum}, got {text!r}")
    return value


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
        return _within(value, text, minimum, bound())

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


def number(minimum: float | None = None, maximum: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite number from ``minimum`` to ``maximum`` (None: no bound)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        return _within(value, text, minimum, maximum)

    parse.minimum, parse.bound = minimum, lambda: maximum
    return parse


def positive_number(text: str) -> float:
    """An argparse type: a number > 0 (seconds, for example)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


#: An argparse type: a probability in [0, 1].
rate = number(0.0, 1.0)


def max_egdb_pieces() -> int:
    """The most pieces an endgame database can have: what ``checkers egdb build`` builds."""
    from checkers_env.egdb import MAX_BUILD_PIECES

    return MAX_BUILD_PIECES


def warn_deprecated(old: str, new: str, prog: str = "checkers") -> None:
    """One line on stderr: the old spelling ``old`` still works for one release; ``new`` is the
    spelling to use."""
    print(f"{prog}: warning: {old} is deprecated and goes in the next release; use {new}", file=sys.stderr)


class DeprecatedAlias(argparse.Action):
    """An old spelling of an option: it stores into the new option's ``dest`` as the new one
    would, after one line on stderr naming the new spelling (:func:`warn_deprecated`).

    Declare it hidden beside the new option::

        parser.add_argument("--folder", dest="egdb_folder", type=folder_path, action=DeprecatedAlias,
                            new="--egdb-folder", help=argparse.SUPPRESS)

    With ``nargs=0`` it is a switch that stores ``const``.
    """

    def __init__(self, option_strings, dest, new: str, const=None, nargs=None, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, const=const, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        warn_deprecated(option_string, self.new, parser.prog.split()[0])
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)
