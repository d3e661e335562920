"""The matches a training run plays through the league: a gauntlet of the agent being
trained against fixed opponents (an evaluation, a point of a strength curve), and a
head-to-head match between two agents given by spec (a promotion gate) that resumes from
its folder.

Both are planned as a league is (``schedule.plan_games``: each opening with both colours,
a seed per game from the match's seed and the game's key), played by the league's runner
and counted by its crosstable, so a game of a gate is the game a league would play.

    >>> from checkers_env import make_agent
    >>> scores = gauntlet(make_agent("greedy"), ["random"], games=4, seed=3)
    >>> scores["random"].games
    4
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from checkers_env import Rules
from checkers_env.agent import Agent, format_spec, parse_spec

from .files import LeagueError
from .reports import Cell, crosstable, write_games_pdn
from .round_robin import League, split_display_name
from .runner import agent_in_process, close_agents_in_process, play_between
from .schedule import plan_games, resolve_openings

#: The gauntlet's name for the agent it is given (its opponents go by their specs).
AGENT = "agent"
#: The players' names in a head-to-head match's records, PDN and ``league.json``.
CANDIDATE, INCUMBENT = "candidate", "incumbent"


def gauntlet(
    agent: Agent,
    opponents: Iterable[str],
    games: int,
    seed: int = 0,
    openings: str = "ballot",
    rules: Rules | None = None,
) -> dict[str, Cell]:
    """``games`` games of ``agent`` against each opponent, in this process: ``games // 2``
    openings of ``openings`` (the ACF 3-move ballot deck by default) drawn without
    repetition per opponent by ``seed``, each played once with each colour.

    ``agent`` is an agent object (the one being trained, which need not have a spec); each
    opponent is built from its spec once per call (and warmed up, as the league's workers
    do) and closed at the end. An opponent listed twice plays once.

    Args:
        opponents: agent specs.
        games: games per opponent, even (each opening with both colours).
        seed: seeds the openings drawn and every game.
        rules: draw rules of every game (default ``Rules()``).

    Returns:
        ``{spec: Cell}``: the agent's wins, draws, losses and score against each opponent
        (``Cell.summary()`` for a log line's numbers), in the order given.

    Raises:
        LeagueError: an odd number of games, or an opponent named ``agent``.
    """
    specs = list(dict.fromkeys(opponents))
    if AGENT in specs:
        raise LeagueError(f"a gauntlet calls its own agent {AGENT!r}: give that opponent another spec")
    rules = rules or Rules()
    opening_list = resolve_openings(openings, seed, games // 2)
    plan = plan_games([AGENT, *specs], opening_list, games, seed, gauntlet=True)
    records = []
    try:
        for game in plan:
            black = agent if game.black == AGENT else agent_in_process(game.black, {})
            white = agent if game.white == AGENT else agent_in_process(game.white, {})
            records.append(play_between(game, black, white, rules))
    finally:
        close_agents_in_process()
    table = crosstable(records, order=[AGENT, *specs])
    return {spec: table.cell(AGENT, spec) for spec in specs}


def head_to_head(
    candidate: str,
    incumbent: str,
    games: int,
    folder: str | os.PathLike,
    seed: int = 0,
    workers: int = 1,
    ray: bool | str = False,
    progress: bool = True,
) -> Cell:
    """``games`` games of ``candidate`` against ``incumbent`` (agent specs) on ballot
    openings drawn by ``seed``, each played with both colours, in ``workers`` processes or
    as Ray tasks: a league of two (the candidate its gauntlet player) in ``folder``.

    Each game is appended to ``folder/games.jsonl`` as it ends, so a killed match started
    again plays only the games it lacks (a line cut by the kill is removed first); the
    folder then holds the league's ``league.json`` and ``games.pdn``, with the players
    named ``candidate`` and ``incumbent`` (their specs in ``league.json`` and the PDN tags).
    Another pair of specs, seed or number of games in a folder that has games is refused.

    Returns:
        The candidate's wins, draws, losses and score against the incumbent.

    Raises:
        LeagueError: an odd number of games, a folder that holds another match, or another
            process playing in it.
    """
    league = League(
        [_named(incumbent, INCUMBENT)],
        out=folder,
        games_per_pair=games,
        workers=workers,
        ray=ray,
        resume=True,
        seed=seed,
        bootstrap=0,
        progress=progress,
        gauntlet=_named(candidate, CANDIDATE),
    )
    records = league.play()
    write_games_pdn(records, Path(folder) / "games.pdn", league.specs)
    names = league.agents  # the gauntlet player first
    return crosstable(records, order=names).cell(names[0], names[1])


def _named(spec: str, name: str) -> str:
    """``spec`` with the display name ``name``, unless it gives one itself."""
    bare, given = split_display_name(spec)
    if given is not None:
        return spec
    kind, params = parse_spec(bare)
    return format_spec(kind, {**params, "name": name})


__all__ = ["AGENT", "CANDIDATE", "INCUMBENT", "gauntlet", "head_to_head"]
