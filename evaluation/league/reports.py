"""What a league leaves behind: the crosstable, the ratings table, two plots and the games.

    >>> from checkers_env.match import GameRecord
    >>> games = [GameRecord("greedy", "random", "", [], "1-0", "no_moves"),
    ...          GameRecord("random", "greedy", "", [], "1/2-1/2", "repetition")]
    >>> table = crosstable(games)
    >>> cell = table.cell("greedy", "random")
    >>> cell.wins, cell.draws, cell.losses, cell.score
    (1, 1, 0, 0.75)

``write_report(records, out_dir)`` writes every file at once:

===================  ==========================================================
``crosstable.md``    wins-draws-losses and points of each row player against each column
``crosstable.csv``   one line per ordered pair (player, opponent) with the same counts
``ratings.md``       Elo with bootstrap 95 % intervals (``checkers_evaluation.league.ratings``)
``ratings.csv``      the same, machine-readable
``heatmap.png``      the pairwise score of each row player, players ordered by rating
``ratings.png``      the ratings with their intervals
``openings.md``      each opening played (by ACF number for the 3-move deck): games and results
``clock.md``         each player's moves and thinking time, and its mean seconds a move
                     (in all, and by stretch of the game)
``games.pdn``        every game, with tags for players, opening (``ACFNumber``), result and termination
===================  ==========================================================
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from checkers_env import BLACK

from .ratings import Ratings, WinsDrawsLosses, fit_elo

_BLACK_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}

REPORT_FILES = (
    "crosstable.md",
    "crosstable.csv",
    "ratings.md",
    "ratings.csv",
    "heatmap.png",
    "ratings.png",
    "openings.md",
    "clock.md",
    "games.pdn",
)


@dataclass
class Cell(WinsDrawsLosses):
    """The games of ``player`` against ``opponent``, from ``player``'s view."""

    player: str
    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    wins_as_black: int = 0
    games_as_black: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def summary(self) -> dict[str, float]:
        """``{"wins", "draws", "losses", "score"}``: the counts and the points per game, as
        a training run logs them."""
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses, "score": self.score}


class Crosstable:
    """Wins, draws and losses of every ordered pair of players.

    Attributes:
        players: the players in table order (by rating when built by ``write_report``,
            else by total score, best first).
    """

    def __init__(self, players: Sequence[str], cells: dict[tuple[str, str], Cell]):
        self.players = list(players)
        self._cells = cells

    def cell(self, player: str, opponent: str) -> Cell:
        """``player``'s games against ``opponent`` (an empty cell when they did not meet)."""
        for name in (player, opponent):
            if name not in self.players:
                raise KeyError(f"{name!r} is not in the crosstable; players: {', '.join(self.players)}")
        return self._cells.get((player, opponent)) or Cell(player, opponent)

    def total(self, player: str) -> Cell:
        """All of ``player``'s games, summed over opponents (``opponent`` is ``"*"``)."""
        total = Cell(player, "*")
        for opponent in self.players:
            if opponent != player:
                cell = self.cell(player, opponent)
                total.wins += cell.wins
                total.draws += cell.draws
                total.losses += cell.losses
                total.wins_as_black += cell.wins_as_black
                total.games_as_black += cell.games_as_black
        return total

    def score_matrix(self):
        """numpy array ``[i, j]``: the score of ``players[i]`` against ``players[j]`` (NaN
        on the diagonal and for pairs that did not meet)."""
        import numpy as np

        n = len(self.players)
        matrix = np.full((n, n), np.nan)
        for i, a in enumerate(self.players):
            for j, b in enumerate(self.players):
                if i != j:
                    matrix[i, j] = self.cell(a, b).score
        return matrix

    def reordered(self, players: Sequence[str]) -> Crosstable:
        """The same table with the players in the given order (all of them, once)."""
        if sorted(players) != sorted(self.players):
            raise ValueError(f"reordering needs exactly the players {self.players}, got {list(players)}")
        return Crosstable(players, self._cells)

    def to_markdown(self) -> str:
        """A square table: each cell ``W-D-L`` then the row player's points out of the
        games, e.g. ``3-1-0 (3.5/4)``; a last column with each player's totals."""
        header = ["", *(f"{i}" for i in range(1, len(self.players) + 1)), "total"]
        rows = ["| " + " | ".join(header) + " |", "|:--" + "|:-:" * (len(header) - 1) + "|"]
        for i, player in enumerate(self.players, 1):
            cells = [f"{i}. {_md(player)}"]
            for opponent in self.players:
                if opponent == player:
                    cells.append("·")
                    continue
                cell = self.cell(player, opponent)
                cells.append(_cell_text(cell) if cell.games else "")
            total = self.total(player)
            cells.append(f"{_cell_text(total)} {100 * total.score:.0f} %" if total.games else "")
            rows.append("| " + " | ".join(cells) + " |")
        note = (
            "Each cell: wins-draws-losses of the row player against the column player, then "
            "its points out of the games played (a draw is half a point)."
        )
        return "\n".join(rows) + "\n\n" + note + "\n"

    def to_csv(self) -> str:
        """One line per ordered pair that met: player, opponent, games, wins, draws,
        losses, points, score, games and wins with Black."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            [
                "player",
                "opponent",
                "games",
                "wins",
                "draws",
                "losses",
                "points",
                "score",
                "games_as_black",
                "wins_as_black",
            ]
        )
        for player in self.players:
            for opponent in self.players:
                if opponent == player:
                    continue
                cell = self.cell(player, opponent)
                if not cell.games:
                    continue
                writer.writerow(
                    [
                        player,
                        opponent,
                        cell.games,
                        cell.wins,
                        cell.draws,
                        cell.losses,
                        f"{cell.points:g}",
                        f"{cell.score:.4f}",
                        cell.games_as_black,
                        cell.wins_as_black,
                    ]
                )
        return out.getvalue()

    def __str__(self) -> str:
        return self.to_markdown()


def _cell_text(cell: Cell) -> str:
    return f"{cell.wins}-{cell.draws}-{cell.losses} ({cell.points:g}/{cell.games})"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def crosstable(records: Iterable, order: Sequence[str] | None = None) -> Crosstable:
    """Count every game into the cells of both its players.

    Args:
        records: finished games (``.black``, ``.white``, ``.result``).
        order: the players' order in the table (default: by total score, best first, then
            by name). Games of a player against itself are left out.
    """
    cells: dict[tuple[str, str], Cell] = {}
    players: set[str] = set()
    for record in records:
        if record.result not in _BLACK_POINTS:
            raise ValueError(
                f"game {record.black} vs {record.white} has result {record.result!r}; expected 1-0, 0-1 or 1/2-1/2"
            )
        if record.black == record.white:
            continue
        players.update((record.black, record.white))
        black_points = _BLACK_POINTS[record.result]
        for player, opponent, points, as_black in (
            (record.black, record.white, black_points, True),
            (record.white, record.black, 1.0 - black_points, False),
        ):
            cell = cells.setdefault((player, opponent), Cell(player, opponent))
            if points == 1.0:
                cell.wins += 1
            elif points == 0.5:
                cell.draws += 1
            else:
                cell.losses += 1
            if as_black:
                cell.games_as_black += 1
                cell.wins_as_black += points == 1.0
    table = Crosstable(sorted(players), cells)
    if order is None:
        order = sorted(players, key=lambda p: (-table.total(p).score, p))
    return table.reordered(list(order))


# -- plots ------------------------------------------------------------------------------------


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _short(name: str, width: int = 40) -> str:
    """The name, shortened in the middle when too long (specs differ at either end)."""
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[-(width - 1 - head) :]


def heatmap_png(table: Crosstable, path: str | os.PathLike, ratings: Ratings | None = None) -> Path:
    """A heatmap of each row player's score against each column player, annotated with the
    score and the games; players in ``ratings`` order when given, else in table order."""
    plt = _pyplot()
    from matplotlib.colors import LinearSegmentedColormap

    if ratings is not None:
        table = table.reordered(ratings.players())
    players = table.players
    n = len(players)
    matrix = table.score_matrix()
    size = max(4.5, 0.9 * n + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    cmap = LinearSegmentedColormap.from_list("score", ["#c0392b", "#f7f7f7", "#1f78b4"]).with_extremes(bad="#d9d9d9")
    image = ax.imshow(matrix, cmap=cmap, vmin=0.0, vmax=1.0)
    fontsize = max(7, min(11, 100 / max(n, 1)))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            cell = table.cell(players[i], players[j])
            if not cell.games:
                continue
            score = matrix[i, j]
            colour = "white" if abs(score - 0.5) > 0.35 else "black"
            ax.text(
                j,
                i,
                f"{100 * score:.0f}%\n{cell.wins}-{cell.draws}-{cell.losses}",
                ha="center",
                va="center",
                fontsize=fontsize,
                color=colour,
            )
    # Rows carry the numbered names, columns the numbers: long specs stay readable.
    ax.set_yticks(range(n), [f"{_short(p)}  {i}" for i, p in enumerate(players, 1)])
    ax.set_xticks(range(n), [str(i) for i in range(1, n + 1)])
    ax.set_xlabel("opponent (numbered as the rows)")
    ax.set_ylabel("player")
    ax.set_xticks([x - 0.5 for x in range(1, n)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, n)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    title = "Score of each row player against each column player"
    if ratings is not None:
        title += "\n(players ordered by rating, best first; cells: score, wins-draws-losses)"
    else:
        title += "\n(cells: score, wins-draws-losses)"
    ax.set_title(title, fontsize=10)
    bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("score (wins + draws / 2) per game")
    bar.set_ticks([0, 0.25, 0.5, 0.75, 1.0], labels=["0%", "25%", "50%", "75%", "100%"])
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def ratings_plot_png(ratings: Ratings, path: str | os.PathLike) -> Path:
    """The ratings as points with horizontal 95 % error bars, best at the top."""
    plt = _pyplot()

    lines = list(ratings)
    n = len(lines)
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.5 * n + 1.5)))
    y = list(range(n))[::-1]
    values = [p.rating for p in lines]
    has_intervals = ratings.bootstrap > 0 and not any(math.isnan(p.lower) for p in lines)
    if has_intervals:
        errors = [[max(0.0, p.rating - p.lower) for p in lines], [max(0.0, p.upper - p.rating) for p in lines]]
        ax.errorbar(values, y, xerr=errors, fmt="o", color="#1f78b4", ecolor="#1f78b4", elinewidth=2, capsize=4)
    else:
        ax.plot(values, y, "o", color="#1f78b4")
    for value, row, p in zip(values, y, lines):
        right = p.upper if has_intervals else value
        label = (
            f"{value:.0f}  [{p.lower:.0f}, {p.upper:.0f}]"
            if has_intervals and p.player != ratings.anchor
            else f"{value:.0f}"
        )
        ax.annotate(label, (right, row), xytext=(6, 0), textcoords="offset points", va="center", fontsize=9)
    ax.set_yticks(y, [_short(p.player, 36) for p in lines])
    ax.axvline(0, color="0.5", linewidth=1, linestyle="--", zorder=0)
    ax.grid(axis="x", color="0.9")
    ax.set_axisbelow(True)
    low = min([p.lower for p in lines] + values) if has_intervals else min(values)
    high = max([p.upper for p in lines] + values) if has_intervals else max(values)
    pad = max(50.0, 0.1 * (high - low))
    right_pad = max(150.0, 0.35 * (high - low))  # room for the labels
    ax.set_xlim(low - pad, high + right_pad)
    ax.set_ylim(-0.7, n - 0.3)
    where = f"{ratings.anchor} = 0" if ratings.anchor is not None else "mean = 0"
    ax.set_xlabel(f"Elo ({where})")
    interval = f", 95 % bootstrap intervals ({ratings.bootstrap} resamples)" if has_intervals else ""
    ax.set_title(f"Ratings by maximum likelihood{interval}", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


# -- games ------------------------------------------------------------------------------------


def write_games_pdn(records: Iterable, path: str | os.PathLike, specs: dict[str, str] | None = None) -> Path:
    """Write every game (``record.to_game()``) to one PDN file, numbered by ``Round``.

    Args:
        specs: the agent spec of each player known by a display name; written as the
            ``BlackAgent`` / ``WhiteAgent`` tags beside the names in ``Black`` / ``White``.
    """
    from checkers_env import write_pdn

    specs = specs or {}
    games = []
    for number, record in enumerate(records, 1):
        game = record.to_game()
        game.headers["Round"] = str(number)
        for side, player in (("Black", record.black), ("White", record.white)):
            if specs.get(player, player) != player:
                game.headers[f"{side}Agent"] = specs[player]
        games.append(game)
    path = Path(path)
    write_pdn(games, path)
    return path


def openings_markdown(records: Iterable) -> str:
    """A Markdown table of the openings played: ACF number and name (for openings of the
    3-move deck), the moves, the games, and Black's wins, the draws and White's wins."""
    rows: dict[str, list] = {}
    for record in records:
        row = rows.setdefault(record.opening, [getattr(record, "acf_number", None), 0, 0, 0, 0])
        row[1] += 1
        row[2 + {"1-0": 0, "1/2-1/2": 1, "0-1": 2}[record.result]] += 1
    from checkers_env.match import ballot_opening

    lines = ["| ACF | name | opening | games | Black wins | draws | White wins |", "|---:|---|---|---:|---:|---:|---:|"]
    ordered = sorted(rows.items(), key=lambda item: (item[1][0] is None, item[1][0] or 0, item[0]))
    for opening, (number, games, black, draws, white) in ordered:
        deck_opening = ballot_opening(opening) if number is not None else None
        name = deck_opening.name if deck_opening is not None else ""
        lines.append(
            f"| {'' if number is None else number} | {_md(name)} | {_md(opening) or '(start)'} | {games} | {black} | {draws} | {white} |"
        )
    return "\n".join(lines) + "\n"


#: The stretches of a game that ``clock.md`` gives each player's seconds a move for: the
#: plies (the opening's counted) from each number up to the next.
CLOCK_PHASES = (1, 21, 41, 81)


def clock_markdown(records: Iterable) -> str:
    """A Markdown table of the time each player took: the moves it chose (the opening's
    are not its), its seconds in all, and the mean seconds a move, which tells how much of a
    time per move a player spends (a search that starts no iteration it cannot finish
    leaves some); then its mean seconds a move in each stretch of the game
    (:data:`CLOCK_PHASES`), from the records that kept each move's time."""
    moves_of: dict[str, int] = {}
    seconds_of: dict[str, float] = {}
    phases_of: dict[str, list[list[float]]] = {}  # per phase: seconds, moves
    for record in records:
        opening = len(record.opening.split())
        start_turn = record.start.turn
        chosen = max(len(record.moves) - opening, 0)
        # Black chose every other move from the first after the opening that was Black's.
        black_first = (start_turn == BLACK) == (opening % 2 == 0)
        black_moves = (chosen + 1) // 2 if black_first else chosen // 2
        for side, moves in (("black", black_moves), ("white", chosen - black_moves)):
            player = getattr(record, side)
            moves_of[player] = moves_of.get(player, 0) + moves
            seconds_of[player] = seconds_of.get(player, 0.0) + float(record.seconds.get(side, 0.0))
            phases_of.setdefault(player, [[0.0, 0] for _ in CLOCK_PHASES])
        for index, took in enumerate(record.move_seconds):
            black_moved = (index % 2 == 0) == black_first
            phase = phases_of[record.black if black_moved else record.white]
            ply = opening + index + 1
            part = phase[sum(ply >= first for first in CLOCK_PHASES) - 1]
            part[0] += took
            part[1] += 1
    bounds = [f"{a}-{b - 1}" for a, b in zip(CLOCK_PHASES, CLOCK_PHASES[1:], strict=False)]
    heads = [f"plies {bound}" for bound in [*bounds, f"{CLOCK_PHASES[-1]}-"]]
    lines = [
        "| player | moves | seconds | seconds a move | " + " | ".join(heads) + " |",
        "|:--|--:|--:|--:|" + "--:|" * len(heads),
    ]
    for player in sorted(moves_of):
        moves, seconds = moves_of[player], seconds_of[player]
        mean = f"{seconds / moves:.3f}" if moves else "-"
        phases = [f"{took / count:.3f}" if count else "-" for took, count in phases_of[player]]
        lines.append(f"| {_md(player)} | {moves} | {seconds:.1f} | {mean} | " + " | ".join(phases) + " |")
    return "\n".join(lines) + "\n"


# -- everything --------------------------------------------------------------------------------


def write_report(
    records: Sequence,
    out_dir: str | os.PathLike,
    bootstrap: int = 1000,
    seed: int = 0,
    anchor: str | None = "random",
    specs: dict[str, str] | None = None,
) -> tuple[Ratings, Crosstable]:
    """Fit the ratings and write every report file (``REPORT_FILES``) into ``out_dir``.

    Players appear under the names their records give them (a league's display names);
    ``specs`` maps those names to agent specs for the PDN tags.

    Returns:
        The ratings and the crosstable (players in rating order).
    """
    records = list(records)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ratings = fit_elo(records, anchor=anchor, bootstrap=bootstrap, seed=seed)
    table = crosstable(records, order=ratings.players())
    (out / "crosstable.md").write_text(table.to_markdown(), encoding="utf-8")
    (out / "crosstable.csv").write_text(table.to_csv(), encoding="utf-8")
    (out / "ratings.md").write_text(ratings.to_markdown(), encoding="utf-8")
    (out / "ratings.csv").write_text(ratings.to_csv(), encoding="utf-8")
    heatmap_png(table, out / "heatmap.png", ratings)
    ratings_plot_png(ratings, out / "ratings.png")
    (out / "openings.md").write_text(openings_markdown(records), encoding="utf-8")
    (out / "clock.md").write_text(clock_markdown(records), encoding="utf-8")
    write_games_pdn(records, out / "games.pdn", specs)
    return ratings, table


__all__ = [
    "REPORT_FILES",
    "Cell",
    "Crosstable",
    "CLOCK_PHASES",
    "clock_markdown",
    "crosstable",
    "heatmap_png",
    "openings_markdown",
    "ratings_plot_png",
    "write_games_pdn",
    "write_report",
]
