"""The ``checkers`` command's option types and usage errors: they live in
:mod:`checkers_env.options`, the one command-line layer that the trainers share; this module
names them for the command line's own modules."""

from __future__ import annotations

from checkers_env.options import (
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

__all__ = [
    "EXIT_USAGE", "ArgumentParser", "DeprecatedAlias", "HelpFormatter", "UsageError", "folder_path",
    "max_egdb_pieces", "number", "positive_number", "rate", "warn_deprecated", "whole_number",
]
