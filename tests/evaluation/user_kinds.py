"""A user's own agent kind for the league's tests, in a module of its own.

Worker processes import it by this top-level name (``conftest.py`` puts this folder on
``sys.path``, which spawned workers inherit): a class defined in a test module would be
pickled as ``tests.evaluation.test_league.FirstMoveAgent``, and the name ``tests`` is not
ours alone (pgx 2.6's wheel installs a top-level ``tests`` package, which then hides this
folder from the workers).
"""

from __future__ import annotations

from checkers_env.agent import BaseAgent


class FirstMoveAgent(BaseAgent):
    """Plays the first legal move (a user's own kind, registered at run time)."""

    kind = "first-move"

    def select_move(self, game):
        return game.legal_moves()[0]
