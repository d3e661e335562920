"""Evaluation and play: the match loop, the round-robin league with ratings, reports and
plots, the human-vs-agent play command, and the ``checkers`` command-line interface
(``checkers_evaluation.cli:main``). Imports only ``checkers_env`` and ``agents``; never ``training``
(the CLI may dispatch to training lazily).
"""
