"""The league's schedule: its openings and every planned game, each with a key and a seed.

A game's key (``"i-j/round/swap"``, from the players' places) and seed (from the league seed
and the key alone) fix its outcome, whichever worker plays it and whenever: a resumed
league plays exactly the missing keys.
"""

from __future__ import annotations

import os
import random as _random
from dataclasses import dataclass
from itertools import combinations

from checkers_env import Game, Rules
from checkers_env.files import input_file
from checkers_env.match import ballot_openings

from .files import LeagueError

# -- openings ---------------------------------------------------------------------------


def random_openings(plies: int, count: int, seed: int) -> list[str]:
    """``count`` distinct openings of ``plies`` uniformly random moves that leave the
    game undecided (seeded)."""
    rng = _random.Random(seed)
    found: dict[str, None] = {}
    attempts = 0
    while len(found) < count and attempts < 100 * count:
        attempts += 1
        game = Game(rules=Rules.without_draws())
        for _ in range(plies):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        if not game.is_over() and game.ply == plies:
            found.setdefault(" ".join(str(m) for m in game.moves))
    return list(found)


def openings_from_file(path: str | os.PathLike) -> list[str]:
    """One opening per line (PDN moves from the start; ``#`` comments), each checked."""
    try:
        data = input_file(path, "openings file", LeagueError).read_bytes()
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        bad_line = data.count(b"\n", 0, error.start) + 1
        raise LeagueError(
            f"openings file {str(path)!r} is not UTF-8 text (line {bad_line}: {error.reason}): "
            "give one opening in PDN per line"
        ) from None
    except OSError as error:
        raise LeagueError(f"cannot read openings file {str(path)!r}: {error}") from None
    openings = []
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        game = Game(rules=Rules.without_draws())
        try:
            for move in line.split():
                game.play(move)
        except ValueError as error:
            raise LeagueError(f"{path}:{number}: opening {line!r} is not legal: {error}") from None
        openings.append(" ".join(str(m) for m in game.moves))
    if not openings:
        raise LeagueError(f"openings file {str(path)!r} holds no opening")
    return openings


def resolve_openings(spec: str, seed: int, needed: int) -> list[str]:
    """Openings for ``--openings``: ``ballot`` (the whole ACF 3-move deck, 156 openings),
    ``ballot:crossboard`` (its 144 crossboard openings), ``random:PLIES`` or a file path."""
    if spec == "ballot":
        return ballot_openings()
    if spec == "ballot:crossboard":
        return ballot_openings(crossboard_only=True)
    if spec.startswith("random:"):
        try:
            plies = int(spec.split(":", 1)[1])
        except ValueError:
            raise LeagueError(f"--openings {spec!r}: expected random:PLIES with an integer") from None
        if plies < 0:
            raise LeagueError(f"--openings {spec!r}: PLIES must be >= 0")
        if plies == 0:
            return [""]
        return random_openings(plies, max(needed, 1), seed)
    if os.path.exists(spec):
        return openings_from_file(spec)
    raise LeagueError(
        f"--openings must be 'ballot', 'ballot:crossboard', 'random:PLIES' or an existing file, got {spec!r}"
    )


# -- the plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedGame:
    """One game of the schedule."""

    key: str
    black: str
    white: str
    opening: str
    seed: int
    black_spec: str = ""  #: the agent's spec when ``black`` is a display name
    white_spec: str = ""


def plan_games(
    agents: list[str],
    openings: list[str],
    games_per_pair: int,
    seed: int,
    specs: dict[str, str] | None = None,
    gauntlet: bool = False,
) -> list[PlannedGame]:
    """Every pair plays ``games_per_pair`` games: ``games_per_pair // 2`` openings drawn
    without repetition (per pair, seeded), each once with each colour.

    Args:
        agents: the players' names, in a fixed order (a game's key holds their indices).
        specs: each player's agent spec, when it differs from its name.
        gauntlet: only the pairs of the first player with each other one.
    """
    if games_per_pair < 2 or games_per_pair % 2:
        raise LeagueError(f"games per pair must be an even number >= 2 (colour-swapped pairs), got {games_per_pair}")
    specs = specs or {}
    per_pair = games_per_pair // 2
    plan = []
    for (i, a), (j, b) in combinations(enumerate(agents), 2):
        if gauntlet and i != 0:
            continue
        rng = _random.Random(f"{seed}/{i}/{j}")
        chosen: list[int] = []
        while len(chosen) < per_pair:  # reuse the pool only once it is exhausted
            pool = list(range(len(openings)))
            rng.shuffle(pool)
            chosen.extend(pool[: per_pair - len(chosen)])
        for round_, index in enumerate(chosen):
            for swap, (black, white) in enumerate(((a, b), (b, a))):
                key = f"{i}-{j}/{round_}/{swap}"
                game_seed = _random.Random(f"{seed}/{key}").getrandbits(63)
                plan.append(
                    PlannedGame(
                        key, black, white, openings[index], game_seed, specs.get(black, ""), specs.get(white, "")
                    )
                )
    return plan


__all__ = ["PlannedGame", "openings_from_file", "plan_games", "random_openings", "resolve_openings"]
