"""Evaluation and play, on top of the match loop (``checkers_env.match.play_game``): the
league as a library (``league``: round robins and gauntlets with Elo ratings, reports and
plots, and the matches a trainer plays), endgame accuracy against a database
(``endgame``), play in the terminal (``play``), the web page (``serve``), engines over a
pipe (``engine_server``), the demo (``demo``), and the ``checkers`` command line
(``checkers_evaluation.cli:main``, one ``<name>_command`` module per subcommand).

Imports only ``checkers_env`` and ``agents``; never ``training`` (``checkers train`` imports a
trainer only when it runs). ``training`` may import ``league``, which imports no other part
of this package than ``agent_workers``; this ``__init__`` imports nothing, so that importing
the league brings nothing else.
"""
