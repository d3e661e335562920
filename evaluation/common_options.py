"""The options that several ``checkers`` subcommands declare alike, each declared here once.

:mod:`checkers_evaluation.options` holds the option types; this module holds the options
built on them that mean the same in every command that has them (``--seed``, ``--out``,
``--no-progress``, the endgame database's ``--egdb-folder`` and pieces), an agent's spec, a whole-number
option whose help states its default, and the second word of ``checkers data KIND`` and
``checkers egdb COMMAND``. Like the option types it imports only the standard library, so
``checkers --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from checkers_evaluation.options import folder_path, max_egdb_pieces, whole_number

#: A subcommand's kinds: name -> (its line in the parent's help, its description). A
#: description may be a function, called only when the help is shown.
Kinds = dict[str, tuple[str, str | Callable[[], str]]]


def add_kinds(parser: argparse.ArgumentParser, dest: str, metavar: str, kinds: Kinds) -> list[argparse.ArgumentParser]:
    """Declare the required second word of a subcommand (``checkers egdb build``).

    Args:
        parser: the subcommand's parser.
        dest: the attribute of the parsed arguments that names the kind given.
        metavar: the word's name in the usage line (``KIND``, ``COMMAND``).
        kinds: the kinds, in the order the help lists them.

    Returns:
        The parser of each kind, in the order of ``kinds``.
    """
    subparsers = parser.add_subparsers(dest=dest, metavar=metavar, required=True)
    # The suite's ArgumentParser (the subparsers' class) calls a description that is a
    # function when the help is shown; argparse's own types know only strings.
    return [
        subparsers.add_parser(name, help=line, description=text)  # type: ignore[arg-type]
        for name, (line, text) in kinds.items()
    ]


def add_whole_number(
    parser: argparse.ArgumentParser,
    flag: str,
    what: str,
    default: int | None = None,
    *,
    minimum: int = 0,
    maximum: int | Callable[[], int] | None = None,
    metavar: str | None = None,
    required: bool = False,
) -> None:
    """Declare an option whose value is a whole number, checked when it is parsed.

    Args:
        parser: the parser to declare it on.
        flag: the option (``--games``).
        what: its help; `` (default N)`` is added when it has a default, so the help
            states the default the parser uses.
        default: its value when it is not given (None: no value, or ``required``).
        minimum: the least value it takes.
        maximum: the most value it takes (None: no bound; a function: a bound looked up only
            when the option is used or its help shown).
        metavar: its value's name in the help (None: argparse's, the flag in capitals).
        required: whether it must be given.
    """
    parser.add_argument(
        flag,
        type=whole_number(minimum, maximum),
        default=default,
        required=required,
        metavar=metavar,
        help=what if default is None else f"{what} (default {default})",
    )


def add_agent_spec(parser: argparse.ArgumentParser, flag: str, help: str, **more) -> None:
    """Declare an option whose value is an agent's spec string (``SPEC`` in the help;
    ``checkers agents`` lists the kinds). ``more``: argparse's other settings of it
    (``default``, ``required``)."""
    parser.add_argument(flag, metavar="SPEC", help=help, **more)


def add_seed(parser: argparse.ArgumentParser, what: str) -> None:
    """Declare ``--seed``: a whole number that defaults to 0 in every command (``what``: the help,
    what it seeds)."""
    add_whole_number(parser, "--seed", what, 0)


def add_out(
    parser: argparse.ArgumentParser, help: str, *, dest: str = "out", default: str | None = None, required: bool = False
) -> None:
    """Declare ``--out DIR``, the folder a command writes to (checked when parsed: not a file).

    Args:
        parser: the parser to declare it on.
        help: its help: what the command writes there.
        dest: the attribute of the parsed arguments it sets.
        default: the folder when it is not given (None: the command writes no folder).
        required: whether it must be given.
    """
    parser.add_argument(
        "--out", dest=dest, type=folder_path, default=default, required=required, metavar="DIR", help=help
    )


def add_no_progress(parser: argparse.ArgumentParser) -> None:
    """Declare ``--no-progress``: ``args.progress`` is False with it, True without."""
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def add_egdb_folder(parser: argparse.ArgumentParser, help: str) -> None:
    """Declare ``--egdb-folder DIR``, the endgame database folder a command reads (``help``: its
    help, with the folder it defaults to)."""
    parser.add_argument("--egdb-folder", type=folder_path, metavar="DIR", help=help)


def add_egdb_pieces(parser: argparse.ArgumentParser, flag: str, what: str, more: str = "") -> None:
    """Declare the endgame database's pieces, 2 up to what ``checkers egdb build`` builds; when
    not given, the command takes the largest complete database in the folder.

    Args:
        parser: the parser to declare it on.
        flag: the option (``--egdb-pieces``; ``--pieces`` inside ``checkers egdb``).
        what: the start of its help, before its bounds and default.
        more: the end of its help, after them.
    """
    parser.add_argument(
        flag,
        type=whole_number(2, max_egdb_pieces),
        metavar="N",
        help=f"{what}, %(minimum)s to %(maximum)s (default: the largest N whose slices are all in the folder){more}",
    )


__all__ = [
    "Kinds",
    "add_egdb_folder",
    "add_egdb_pieces",
    "add_kinds",
    "add_no_progress",
    "add_out",
    "add_seed",
    "add_whole_number",
]
