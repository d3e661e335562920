"""Game records shipped with the package.

    >>> from checkers_env.datasets import acf_games
    >>> games = acf_games()          # about ten seconds: every move is validated
    >>> len(games), games[0].headers["Result"]
    (4000, '1/2-1/2')

``ACF_GAMES`` is the file itself, for tools that read PDN on their own. Its source and
licence are in ``checkers_env/data/README.md``.
"""

from __future__ import annotations

from pathlib import Path

from .game import Game, Rules
from .pdn import read_pdn

#: 4,000 complete American Checker Federation tournament games in PDN (MIT, EricCJoyce/Datasets).
ACF_GAMES = Path(__file__).resolve().parent / "data" / "acf_games.pdn"


def acf_games(rules: Rules | None = None) -> list[Game]:
    """The 4,000 ACF tournament games, every move checked (see :func:`checkers_env.read_pdn`).

    Args:
        rules: draw rules for the returned games; by default none, because human games end
            by claim and an automatic draw would cut two of these records short.
    """
    return read_pdn(ACF_GAMES, rules=rules)
