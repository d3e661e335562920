"""Round-robin leagues: every pair of agents plays every opening twice, colours swapped.

    >>> from checkers_evaluation.league import League
    >>> league = League(["random", "greedy"], out="runs/doc-league", games_per_pair=4,
    ...                 workers=1, overwrite=True, progress=False)
    >>> ratings = league.run()
    >>> sorted(ratings.players()) == ["greedy", "random"]
    True

Games are planned up front (``checkers_evaluation.league.schedule``), each with a key and a
seed derived from the league seed and the key alone, so a game's outcome does not depend
on which worker plays it or when.
Each finished game is appended to ``OUT/games.jsonl`` at once; a killed run started
again with ``resume=True`` plays exactly the missing games. Resuming with more players
keeps the players already there in their places (so their games keep their keys) and
plays only the new pairs. At the end ``OUT`` holds the crosstable, the ratings, the plots
and ``games.pdn`` (``checkers_evaluation.league.reports``).

Players are known by their display name: the agent's own spec (``mcrd:time=1`` ->
``mcrd:time=1.0``), or the ``name=`` item of the spec
(``td-minimax:weights=a.safetensors,name=td-a``), which the league strips before
``make_agent`` sees the spec. ``gauntlet=SPEC`` plays one agent against the others only.

``adjudicate="egdb"`` ends every game that reaches a position of the endgame database
(``adjudicate_pieces`` pieces, default the largest complete one in ``egdb_folder``) with
the database's result, termination ``egdb`` (``checkers_env.match.play_game``). Each
process that plays games opens the database once (a local worker, a Ray worker: the
folder must be readable there too, ``$CHECKERS_EGDB`` or ``egdb_folder``).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from checkers_env import Rules, make_agent
from checkers_env.agent import format_spec, parse_spec
from checkers_env.files import json_text, write_json_atomic
from checkers_env.match import GameRecord

from .files import GAMES_FILE, FolderLock, LeagueError, load_records
from .runner import ADJUDICATORS, kind_registrations, play_planned_games
from .schedule import PlannedGame, plan_games, resolve_openings

CONFIG_FILE = "league.json"

# -- players ---------------------------------------------------------------------------------

#: The spec item that names a player in the league's tables, plots and PDN (never an
#: agent parameter: the league strips it before ``make_agent``).
NAME_KEY = "name"


def split_display_name(spec: str) -> tuple[str, str | None]:
    """The agent's spec without its ``name=`` item, and that name (None when absent).

        >>> split_display_name("td-minimax:weights=a.safetensors,name=td-a")
        ('td-minimax:weights=a.safetensors', 'td-a')
        >>> split_display_name("zoo:mcrd,name=mcrd-zoo")
        ('zoo:mcrd', 'mcrd-zoo')

    Raises:
        LeagueError: not a spec string, or an empty ``name=``.
        UnknownAgentError: a spec ``parse_spec`` refuses (``name=`` given twice).
    """
    if not isinstance(spec, str):
        raise LeagueError(f"a league player must be an agent spec string, got {spec!r}")
    kind, params = parse_spec(spec)
    if NAME_KEY not in params:
        return spec.strip(), None
    name = params.pop(NAME_KEY)
    if not name:
        raise LeagueError(f"agent spec {spec!r}: name= needs a name, like name=td-a")
    return format_spec(kind, params), name


def expand_zoo(specs: list[str]) -> list[str]:
    """Replace a bare ``zoo`` in a list of specs by every zoo entry (``zoo:NAME`` each)."""
    if "zoo" not in specs:
        return list(specs)
    from checkers_agents.zoo import zoo_names

    expanded: list[str] = []
    for spec in specs:
        expanded.extend(f"zoo:{name}" for name in zoo_names()) if spec == "zoo" else expanded.append(spec)
    return expanded


# -- the league ------------------------------------------------------------------------------


@dataclass
class League:
    """A round robin (or a gauntlet) between agents given by spec strings.

    Args:
        agents: agent specs (``random``, ``alphabeta:depth=4``, ``zoo:td-minimax``), each
            optionally with a display name (``...,name=td-a``); two or more, or one or
            more with ``gauntlet``.
        out: the output folder.
        games_per_pair: games per pair of agents (even: each opening with both colours).
        openings: ``ballot`` (the ACF 3-move deck, 156 openings; each game's record and
            PDN name its opening by ACF number), ``ballot:crossboard`` (the deck's 144
            crossboard openings), ``random:PLIES`` or a file of openings.
        time_per_move: seconds per move for agents that take a ``time`` parameter.
        workers: local processes playing games in parallel (agent kinds added with
            ``register_agent`` are passed on to them).
        ray: play the games as Ray tasks (the ``ray`` extra): ``True`` for a local Ray (or
            the cluster of ``RAY_ADDRESS``, as ``ray.init()`` finds it), or a cluster's
            address; False (the default): local processes (``workers``).
        resume: continue the league in ``out``, playing exactly the missing games; players
            not in it yet are added and play only their own pairs.
        overwrite: start afresh even if ``out`` holds games.
        seed: seeds the openings drawn and every game.
        rules: draw rules of every game.
        bootstrap: bootstrap resamples for the rating intervals (0: none).
        progress: show a progress bar and a line per finished pair.
        gauntlet: an agent spec that plays every agent of ``agents`` (who do not play each
            other).
        adjudicate: ``"egdb"``: a game that reaches a position of the endgame database
            ends with the database's result (termination ``egdb``); None (default): games
            are played to their end.
        adjudicate_pieces: pieces of the database that adjudicates; default the largest
            number whose slices are all in ``egdb_folder``.
        egdb_folder: the database folder; default ``checkers_env.egdb.default_folder()``
            (``$CHECKERS_EGDB`` or the platform's cache).
        trusted: let the agents load files that hold pickled Python objects (an SB3
            ``.zip`` given to ``ppo:weights=``); loading one runs whatever code it holds,
            so only for files you made yourself. Not saved with the league: a resume
            must say it again.

    Attributes:
        agents: after construction, the players' names in table order (the gauntlet first).
        specs: each player's agent spec, by name.
    """

    agents: list[str]
    out: str | os.PathLike = "runs/league"
    games_per_pair: int = 20
    openings: str = "ballot"
    time_per_move: float | None = None
    workers: int = 1
    ray: bool | str = False
    resume: bool = False
    overwrite: bool = False
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    bootstrap: int = 1000
    progress: bool = True
    gauntlet: str | None = None
    adjudicate: str | None = None
    adjudicate_pieces: int | None = None
    egdb_folder: str | os.PathLike | None = None
    trusted: bool = False

    def __post_init__(self) -> None:
        # Every check runs here, before a game is played or a file written.
        self._folder = Path(self.out)  # typed as a Path for the methods below
        self.out = self._folder
        if self._folder.exists() and not self._folder.is_dir():
            raise LeagueError(f"--out {str(self._folder)!r} is a file, not a folder: choose a folder for the league")
        if self.resume and self.overwrite:
            raise LeagueError("--resume and --overwrite contradict each other: continue the league, or discard it")
        given = list(self.agents) if not isinstance(self.agents, str) else [self.agents]
        if self.gauntlet is not None:
            given = [self.gauntlet, *given]
        if len(given) < 2:
            raise LeagueError(
                "a league needs at least two agents"
                if self.gauntlet is None
                else "a gauntlet needs at least one opponent"
            )
        if self.time_per_move is not None and not self.time_per_move > 0:
            raise LeagueError(f"time per move must be positive, got {self.time_per_move}")
        if isinstance(self.bootstrap, bool) or not isinstance(self.bootstrap, int) or self.bootstrap < 0:
            raise LeagueError(f"bootstrap must be a whole number >= 0, got {self.bootstrap!r}")
        if not isinstance(self.ray, (bool, str)) or self.ray == "":
            raise LeagueError(f"ray must be True, False or a cluster address, got {self.ray!r}")
        if self.workers < 1:
            raise LeagueError(f"workers must be >= 1, got {self.workers}")
        if not isinstance(self.rules, Rules) or (self.rules.max_plies is None and self.rules.no_progress_plies is None):
            raise LeagueError("league rules must end every game (max_plies or no_progress_plies)")
        self.adjudication = self._open_adjudicator()
        # Each player is known by its display name, else by its agent's own spec
        # (``mcrd:time=1`` -> ``mcrd:time=1.0``, time overrides included); building the
        # agents here also reports a bad spec now, with the agent's own message.
        overrides = self.agent_overrides
        self.specs: dict[str, str] = {}
        names = []
        for spec in given:
            bare, name = split_display_name(spec)
            canonical = str(make_agent(bare, **overrides))
            name = name or canonical
            if name in self.specs:
                raise LeagueError(f"an agent is listed twice: {name!r} (from {spec!r}); give one a name=...")
            self.specs[name] = canonical
            names.append(name)
        self.agents = self._with_saved_order(names)
        self.registrations = kind_registrations(list(self.specs.values())) if self.workers > 1 or self.ray else {}
        needed = math.ceil(self.games_per_pair / 2)
        self.opening_list = resolve_openings(self.openings, self.seed, needed)
        specs = {name: spec for name, spec in self.specs.items() if spec != name}
        self.plan = plan_games(
            self.agents, self.opening_list, self.games_per_pair, self.seed, specs, gauntlet=self.gauntlet is not None
        )

    def _open_adjudicator(self) -> tuple[int, str] | None:
        """``(pieces, folder)`` of the adjudicating database, opened here once (so a missing
        or corrupt database is reported before any game), or None.

        Raises:
            LeagueError: an unknown adjudicator, or no database in the folder, or a slice
                of it missing or corrupt (the message names the build command).
        """
        if self.adjudicate is None:
            if self.adjudicate_pieces is not None:
                raise LeagueError("adjudicate_pieces needs adjudicate='egdb' (--adjudicate egdb)")
            return None
        if self.adjudicate not in ADJUDICATORS:
            raise LeagueError(f"--adjudicate must be {' or '.join(ADJUDICATORS)}, got {self.adjudicate!r}")
        from checkers_env.egdb import EndgameDatabase, EndgameDatabaseError

        try:
            database = EndgameDatabase.cached(self.adjudicate_pieces, self.egdb_folder)
        except EndgameDatabaseError as error:
            raise LeagueError(f"--adjudicate egdb: {error}") from None
        return database.pieces, str(database.folder)

    # -- files -------------------------------------------------------------------------------

    def _config(self) -> dict:
        return {
            "players": [{"name": name, "spec": self.specs[name]} for name in self.agents],
            "gauntlet": self.agents[0] if self.gauntlet is not None else None,
            "games_per_pair": self.games_per_pair,
            "openings": self.openings,
            "time_per_move": self.time_per_move,
            "seed": self.seed,
            "rules": asdict(self.rules),
            # None when off, as a league written before adjudication reads (no such key).
            "adjudicate": None
            if self.adjudication is None
            else {"database": self.adjudicate, "pieces": self.adjudication[0]},
        }

    def _saved_config(self) -> dict | None:
        """The configuration of the league in ``out`` when resuming it, else None."""
        config_path = self._folder / CONFIG_FILE
        if not self.resume or self.overwrite or not config_path.exists():
            return None
        try:
            saved = json.loads(config_path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise LeagueError(f"cannot resume {self._folder}: {config_path} is unreadable: {error}") from None
        if "players" not in saved:  # leagues written before display names
            saved["players"] = [{"name": a, "spec": a} for a in saved.pop("agents", [])]
            saved.setdefault("gauntlet", None)
        return saved

    def _with_saved_order(self, names: list[str]) -> list[str]:
        """The players in the order of the league being resumed, new players last (a
        game's key holds its players' places, so the games already played keep theirs)."""
        saved = self._saved_config()
        if saved is None:
            return names
        saved_names = [p["name"] for p in saved["players"]]
        missing = [n for n in saved_names if n not in self.specs]
        if missing:
            raise LeagueError(
                f"cannot resume {self._folder}: it also has {', '.join(missing)}; list every player again"
            )
        for player in saved["players"]:
            if self.specs[player["name"]] != player["spec"]:
                raise LeagueError(
                    f"cannot resume {self._folder}: player {player['name']!r} was {player['spec']!r}, "
                    f"not {self.specs[player['name']]!r}"
                )
        gauntlet = names[0] if self.gauntlet is not None else None
        if saved.get("gauntlet") != gauntlet:
            raise LeagueError(
                f"cannot resume {self._folder}: its gauntlet player was {saved.get('gauntlet')!r}, not {gauntlet!r}"
            )
        return saved_names + [n for n in names if n not in saved_names]

    def _prepare_out(self) -> list[GameRecord]:
        games_path = self._folder / GAMES_FILE
        config_path = self._folder / CONFIG_FILE
        if games_path.exists() and not self.overwrite:
            if not self.resume:
                raise LeagueError(f"{games_path} exists: pass --resume to continue it, or choose another --out")
            saved = self._saved_config()
            if saved is not None:
                mine = self._config()
                for key in sorted(set(saved) | set(mine) - {"players"}):
                    if key != "players" and saved.get(key) != mine.get(key):
                        raise LeagueError(
                            f"cannot resume {self._folder}: it was started with {key}={saved.get(key)!r}, not {mine.get(key)!r}"
                        )
            write_json_atomic(config_path, self._config())  # with any new players
            return load_records(games_path, repair=True)
        if games_path.exists():
            games_path.unlink()
        write_json_atomic(config_path, self._config())
        return []

    # -- running -------------------------------------------------------------------------------

    def run(self):
        """Play the missing games, write the report, and return the ``Ratings``.

        The folder is locked while the league runs (a second league on the same ``out``
        is refused); each game is appended to ``games.jsonl`` as it ends, so Ctrl-C (which
        stops the worker processes at once) or a kill loses only the games being played.

        Raises:
            LeagueError: another league holds ``out``, or its files do not fit this league.
        """
        ratings = self.write_report(self.play())
        if self.progress:
            print(ratings.to_markdown())
            print(f"\nreport written to {self._folder}/")
        return ratings

    def play(self) -> list[GameRecord]:
        """Play the missing games (as :meth:`run` does) and return every game of the plan,
        in the plan's order, without writing the report.

        Raises:
            LeagueError: another league holds ``out``, or its files do not fit this league.
        """
        self._folder.mkdir(parents=True, exist_ok=True)
        with FolderLock(self._folder):
            done = self._prepare_out()
            planned_keys = {g.key for g in self.plan}
            done = [r for r in done if r.key in planned_keys]
            done_keys = {r.key for r in done}
            todo = [g for g in self.plan if g.key not in done_keys]
            records = list(done)
            with open(self._folder / GAMES_FILE, "a", encoding="utf-8") as sink, self._progress_bar(len(done)) as bar:

                def keep(game: PlannedGame, record: dict) -> None:
                    sink.write(json_text(record) + "\n")
                    sink.flush()
                    os.fsync(sink.fileno())
                    finished = GameRecord.from_dict(record)
                    records.append(finished)
                    bar.update(1)
                    self._pair_summary(finished, records, bar)

                play_planned_games(
                    todo,
                    keep,
                    self.rules,
                    self.agent_overrides,
                    workers=self.workers,
                    ray=self.ray,
                    registrations=self.registrations,
                    adjudicate=self.adjudication,
                )
        order = self._order
        return sorted(records, key=lambda r: order[r.key])

    def write_report(self, records: list[GameRecord]):
        """Write the league's report of ``records`` into ``out`` (``reports.write_report``)
        and return the ``Ratings``; the anchor (rated 0) is the ``random`` player, found by
        spec whatever name it goes by."""
        from .ratings import find_anchor
        from .reports import write_report

        anchor_spec = find_anchor(list(self.specs.values()), "random")
        anchor = next((n for n, spec in self.specs.items() if spec == anchor_spec), None)
        ratings, _ = write_report(
            records, self._folder, bootstrap=self.bootstrap, seed=self.seed, anchor=anchor, specs=self.specs
        )
        return ratings

    @property
    def _order(self) -> dict[str, int]:
        return {g.key: n for n, g in enumerate(self.plan)}

    @property
    def agent_overrides(self) -> dict:
        """What the league sets in every agent it builds: the time per move, and trust."""
        overrides: dict = {} if self.time_per_move is None else {"time": self.time_per_move}
        if self.trusted:
            overrides["trusted"] = True
        return overrides

    def _progress_bar(self, initial: int):
        from tqdm import tqdm

        return tqdm(
            total=len(self.plan),
            initial=initial,
            unit="game",
            desc="league",
            disable=not self.progress,
            dynamic_ncols=True,
        )

    def _pair_summary(self, game: GameRecord, records: list[GameRecord], bar) -> None:
        if not self.progress:
            return
        pair = game.key.split("/")[0]
        games = [r for r in records if r.key.split("/")[0] == pair]
        if len(games) != self.games_per_pair:
            return
        i, j = (int(x) for x in pair.split("-"))
        a, b = self.agents[i], self.agents[j]
        wins = sum(r.score(a) == 1.0 for r in games)
        draws = sum(r.score(a) == 0.5 for r in games)
        losses = len(games) - wins - draws
        score = (wins + draws / 2) / len(games)
        bar.write(f"{a} vs {b}: +{wins} ={draws} -{losses} ({100 * score:.1f} %)")
