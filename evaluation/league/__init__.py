"""The league as a library: round robins and gauntlets of agents given by spec, their Elo
ratings and reports, and the matches a training run plays (``checkers league`` and the
web page's league views are built on it).

Modules: ``round_robin`` (the ``League``), ``schedule`` (its openings and planned games),
``runner`` (games played here, in worker processes or on Ray), ``files`` (``games.jsonl``
and the folder's lock), ``ratings`` (the Elo fit), ``reports`` (the crosstable, plots and
PDN) and ``matches`` (a trainer's gauntlet and head-to-head gate).

The library imports ``checkers_env``, the agents, and no other part of
``checkers_evaluation`` than ``agent_workers`` (the warm-up): never the command line, the
web server or a trainer, so that ``checkers_training`` may import it
(``tests/test_layers.py``).
"""

from .files import GAMES_FILE, FolderLock, LeagueError, LeagueWarning, load_records
from .matches import CANDIDATE, INCUMBENT, gauntlet, head_to_head
from .ratings import PlayerRating, Ratings, fit_elo
from .reports import Cell, Crosstable, crosstable, write_report
from .round_robin import CONFIG_FILE, League, expand_zoo, split_display_name
from .schedule import PlannedGame, plan_games, resolve_openings

__all__ = [
    "CANDIDATE",
    "CONFIG_FILE",
    "GAMES_FILE",
    "INCUMBENT",
    "Cell",
    "Crosstable",
    "FolderLock",
    "League",
    "LeagueError",
    "LeagueWarning",
    "PlannedGame",
    "PlayerRating",
    "Ratings",
    "crosstable",
    "expand_zoo",
    "fit_elo",
    "gauntlet",
    "head_to_head",
    "load_records",
    "plan_games",
    "resolve_openings",
    "split_display_name",
    "write_report",
]
