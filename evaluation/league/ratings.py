"""Elo ratings by maximum likelihood, with Bayesian-bootstrap intervals over colour-swapped pairs.

    >>> from checkers_env.match import GameRecord
    >>> games = [GameRecord("greedy", "random", "", [], "1-0", "no_moves"),
    ...          GameRecord("random", "greedy", "", [], "0-1", "no_moves"),
    ...          GameRecord("random", "greedy", "", [], "1/2-1/2", "repetition")]
    >>> ratings = fit_elo(games, bootstrap=200)
    >>> ratings.players()
    ['greedy', 'random']
    >>> ratings["random"].rating, ratings["greedy"].rating > 0
    (0.0, True)

The model
---------
Bradley-Terry on the Elo scale: player ``i`` with rating ``r_i`` scores against ``j``

    E_ij = 1 / (1 + 10 ** ((r_j - r_i) / 400))

in expectation. The ratings maximise the likelihood of the games' scores under that model.

- **Draws** count as half a win for each side: a draw adds ``0.5 * log E_ij + 0.5 * log E_ji``
  to the log-likelihood (the "fractional score" likelihood used by most Elo fitters). It
  needs no draw parameter, the (unpenalised) fit reproduces each player's total score, and
  a draw between two players pulls their ratings together exactly as one win each would.
- **Prior**: each player also plays ``prior_draws`` virtual draws (default one) against a
  virtual reference player rated at the centre of the scale, and each pairing of players
  that met also has ``prior_draws`` virtual draws between them (half with each colour;
  a unit the intervals resample, see below). Without it a player who won
  (or lost) every game has no finite maximum-likelihood rating, and players with no
  comparison path between them have no defined difference; with it the fit is always
  finite and unique. One virtual draw weighs as much as one real game, so after a few
  dozen games per player its pull is a few Elo (more for a lopsided pairing, where one
  draw moves the rating most, but under half a standard error).
- **Anchor**: ratings are shifted so that the anchor player (``random`` by default) is 0.
  The anchor is the player whose spec equals ``anchor``, or else the only player of that
  kind (``random:seed=1`` for ``anchor="random"``). When there is none, the ratings are
  shifted so that their mean is 0.
- **Intervals**: a Bayesian bootstrap (Rubin 1981) over colour-swapped pairs of games,
  with the prior. The two games of one opening (same key up to the last ``/``: the league's
  ``PAIR/ROUND/SWAP``) are one unit, because they are not independent: the opening favours
  one colour, and the pair cancels it. Each replicate weighs the units of every pairing
  of players with Dirichlet(1, ..., 1) weights, together with one more, virtual, unit: the
  prior's draw between the two players (weighed 1 on average, as in the fit). The replicate is refitted and
  re-anchored; the interval is the 2.5 and 97.5 percentiles of a player's replicate
  ratings. The virtual draw is what keeps a perfect score (every game won) from a
  zero-width interval, as a plain bootstrap would give it (every resample is again all
  wins): with few games its weight is large and the interval wide; with many it fades.
  The anchor's interval is [0, 0]: the intervals measure uncertainty relative to the
  anchor. The weights are seeded, so the same games and seed give the same intervals.

The fit is Newton's method with a backtracking line search on the (strictly concave)
penalised log-likelihood, batched over the bootstrap replicates with numpy.
Games are put in a canonical order before resampling, so the ratings do not depend on
the order of ``records`` (a resumed league gives the same table as an uninterrupted one).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

# The fit itself is the suite's one Elo fit, shared with the trainers.
from checkers_env.elo import ELO_SCALE
from checkers_env.elo import bradley_terry as _newton

#: Most bootstrap replicates ``fit_elo`` draws: the replicates' weights take 8 bytes per game
#: each, and beyond this many the 2.5 and 97.5 percentiles no longer move visibly.
MAX_BOOTSTRAP = 10_000

_BLACK_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


class WinsDrawsLosses:
    """Points and score of a player's ``wins``, ``draws`` and ``games`` (the ratings table's
    lines and the crosstable's cells)."""

    # Given by each subclass (dataclass fields; ``games`` may be a property).
    wins: int
    draws: int

    if TYPE_CHECKING:

        @property
        def games(self) -> int: ...

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Points per game (0..1); NaN without games."""
        return self.points / self.games if self.games else float("nan")


@dataclass(frozen=True)
class PlayerRating(WinsDrawsLosses):
    """One player's line of the ratings table.

    Attributes:
        player: the player's spec string.
        rating: Elo, relative to the anchor.
        lower, upper: the 95 % interval (Bayesian bootstrap; NaN when none was run).
        games: games played (games against itself are not counted).
        wins, draws, losses: from the player's view.
    """

    player: str
    rating: float
    lower: float
    upper: float
    games: int
    wins: int
    draws: int
    losses: int

    def to_dict(self) -> dict:
        return {**asdict(self), "points": self.points, "score": self.score}


@dataclass
class Ratings:
    """The fitted ratings, best first.

    Iterating gives ``PlayerRating`` lines best first; ``ratings["greedy"]`` looks one up.

    Attributes:
        lines: the players' lines, sorted by rating, best first.
        anchor: the player rated 0, or None when the mean was set to 0.
        bootstrap: the number of bootstrap replicates behind the intervals.
        prior_draws: virtual draws per player against the centre of the scale.
    """

    lines: list[PlayerRating]
    anchor: str | None
    bootstrap: int
    prior_draws: float = 1.0
    _index: dict[str, PlayerRating] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.lines = sorted(self.lines, key=lambda p: (-p.rating, p.player))
        self._index = {p.player: p for p in self.lines}

    def players(self) -> list[str]:
        """The players' specs, best first."""
        return [p.player for p in self.lines]

    def rating(self, player: str) -> float:
        return self[player].rating

    def as_dict(self) -> dict[str, float]:
        """``{player: rating}``, best first."""
        return {p.player: p.rating for p in self.lines}

    def __getitem__(self, player: str) -> PlayerRating:
        try:
            return self._index[player]
        except KeyError:
            raise KeyError(f"{player!r} is not rated; rated players: {', '.join(self._index)}") from None

    def __contains__(self, player: object) -> bool:
        return player in self._index

    def __iter__(self) -> Iterator[PlayerRating]:
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.lines)

    def _anchor_note(self) -> str:
        if self.anchor is not None:
            where = f"anchored on {self.anchor} = 0"
        else:
            where = "mean rating = 0"
        interval = (
            f"95 % intervals from {self.bootstrap} Bayesian-bootstrap replicates over colour-swapped pairs"
            if self.bootstrap
            else "no bootstrap intervals"
        )
        return f"Elo by maximum likelihood (draws count half), {where}; {interval}."

    def to_markdown(self) -> str:
        """A Markdown table: rank, player, Elo, 95 % interval, games, W-D-L, score."""
        rows = [
            "| # | player | Elo | 95 % interval | games | W-D-L | score |",
            "|--:|:-------|----:|:-------------:|------:|:-----:|------:|",
        ]
        for rank, p in enumerate(self.lines, 1):
            interval = "–" if math.isnan(p.lower) else f"[{p.lower:.0f}, {p.upper:.0f}]"
            rows.append(
                f"| {rank} | {_md(p.player)} | {p.rating:.0f} | {interval} | {p.games} "
                f"| {p.wins}-{p.draws}-{p.losses} | {100 * p.score:.1f} % |"
            )
        return "\n".join(rows) + "\n\n" + self._anchor_note() + "\n"

    def to_csv(self) -> str:
        """CSV with a header line: rank, player, elo, lower, upper, games, wins, draws,
        losses, points, score (ratings to 0.1 Elo, score as a fraction)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            ["rank", "player", "elo", "lower", "upper", "games", "wins", "draws", "losses", "points", "score"]
        )
        for rank, p in enumerate(self.lines, 1):
            writer.writerow(
                [
                    rank,
                    p.player,
                    f"{p.rating:.1f}",
                    "" if math.isnan(p.lower) else f"{p.lower:.1f}",
                    "" if math.isnan(p.upper) else f"{p.upper:.1f}",
                    p.games,
                    p.wins,
                    p.draws,
                    p.losses,
                    f"{p.points:g}",
                    f"{p.score:.4f}",
                ]
            )
        return out.getvalue()

    def __str__(self) -> str:
        return self.to_markdown()


def _md(text: str) -> str:
    return text.replace("|", "\\|")


# -- the fit ---------------------------------------------------------------------------------


def game_table(records: Iterable) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Players and per-game arrays (black index, white index, Black's points) of the games,
    in a canonical order that does not depend on the order of ``records``.

    Games of a player against itself carry no information and are left out.

    Raises:
        ValueError: a result other than ``1-0``, ``0-1`` or ``1/2-1/2``.
    """
    players, black, white, points, _ = _game_rows(records)
    return players, black, white, points


def _game_rows(records: Iterable) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """``game_table`` plus each game's unit for the bootstrap (its colour-swapped pair)."""
    rows = []
    for record in records:
        if record.result not in _BLACK_POINTS:
            raise ValueError(
                f"game {record.key or ''} {record.black} vs {record.white} has result {record.result!r}; "
                "expected 1-0, 0-1 or 1/2-1/2"
            )
        if record.black == record.white:
            continue
        rows.append(
            (
                record.black,
                record.white,
                _BLACK_POINTS[record.result],
                getattr(record, "key", ""),
                getattr(record, "seed", 0),
            )
        )
    rows.sort(key=lambda r: (r[0], r[1], r[3], r[4], r[2]))
    players = sorted({r[0] for r in rows} | {r[1] for r in rows})
    index = {p: i for i, p in enumerate(players)}
    black = np.array([index[r[0]] for r in rows], dtype=np.intp)
    white = np.array([index[r[1]] for r in rows], dtype=np.intp)
    points = np.array([r[2] for r in rows], dtype=float)
    # Games of one opening with colours swapped share a key up to its last "/"; a game
    # without such a key is a unit of its own.
    units = [
        f"{min(r[0], r[1])}|{max(r[0], r[1])}|{r[3].rpartition('/')[0]}" if "/" in (r[3] or "") else f"game {n}"
        for n, r in enumerate(rows)
    ]
    return players, black, white, points, units


def _pair_matrices(n: int, black: np.ndarray, white: np.ndarray, points: np.ndarray, weights: np.ndarray):
    """Points ``W[..., i, j]`` of i against j and games ``N[..., i, j]`` between them, for a
    batch of game weights (``weights`` has shape (B, games): how often each game is drawn)."""
    batch = weights.shape[0]
    W = np.zeros((batch, n * n))
    N = np.zeros((batch, n * n))
    bw = black * n + white
    wb = white * n + black
    for b in range(batch):
        w = weights[b]
        W[b] += np.bincount(bw, w * points, n * n) + np.bincount(wb, w * (1 - points), n * n)
        games = np.bincount(bw, w, n * n)
        N[b] += games + np.bincount(wb, w, n * n)
    return W.reshape(batch, n, n), N.reshape(batch, n, n)


def find_anchor(players: Sequence[str], anchor: str | None) -> str | None:
    """The player to rate 0: the one whose spec is ``anchor``, else the only one of that kind."""
    if not anchor:
        return None
    if anchor in players:
        return anchor
    same_kind = [p for p in players if p.partition(":")[0] == anchor]
    return same_kind[0] if len(same_kind) == 1 else None


def fit_elo(
    records: Iterable,
    anchor: str | None = "random",
    bootstrap: int = 1000,
    seed: int = 0,
    prior_draws: float = 1.0,
) -> Ratings:
    """Elo ratings of the players of ``records`` by maximum likelihood (see the module doc).

    Args:
        records: finished games (``GameRecord``-like: ``.black``, ``.white``, ``.result``).
        anchor: the player rated 0 (``random`` by default); None or absent: mean 0.
        bootstrap: bootstrap replicates for the 95 % intervals, 0 (no intervals) to
            ``MAX_BOOTSTRAP``.
        seed: seed of the bootstrap resampling.
        prior_draws: virtual draws of each player against the centre of the scale (> 0
            keeps every rating finite; 0 is the plain maximum-likelihood fit).

    Raises:
        ValueError: no games, an unfinished result, or (with ``prior_draws=0``) data that
            has no finite maximum.
    """
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise ValueError(f"bootstrap must be 0 to {MAX_BOOTSTRAP}, got {bootstrap}")
    if prior_draws < 0:
        raise ValueError(f"prior_draws must be >= 0, got {prior_draws}")
    players, black, white, points, units = _game_rows(records)
    if not players:
        raise ValueError("no games to rate (games of a player against itself do not count)")
    n = len(players)
    anchor_player = find_anchor(players, anchor)
    anchor_index = players.index(anchor_player) if anchor_player is not None else None

    def to_elo(theta: np.ndarray) -> np.ndarray:
        elo = theta / ELO_SCALE
        if anchor_index is not None:
            return elo - elo[:, [anchor_index]]
        return elo - elo.mean(axis=1, keepdims=True)

    ones = np.ones((1, len(points)))
    W, N = _pair_matrices(n, black, white, points, ones)
    # The prior's draw within each pairing, at its mean weight (as in the replicates).
    met = (N > 0).astype(float) * prior_draws
    elo = to_elo(_newton(W + 0.5 * met, N + met, prior_draws))[0]

    lower = np.full(n, np.nan)
    upper = np.full(n, np.nan)
    if bootstrap:
        weights, drawn_pairs = _bootstrap_weights(n, black, white, units, bootstrap, seed)
        samples = []
        for start in range(0, bootstrap, 256):  # bounded memory for large leagues
            Wb, Nb = _pair_matrices(n, black, white, points, weights[start : start + 256])
            # The prior's virtual draw: half a point of one game, by its weight.
            virtual = prior_draws * drawn_pairs[start : start + 256]
            Wb, Nb = Wb + 0.5 * virtual, Nb + virtual
            samples.append(to_elo(_newton(Wb, Nb, prior_draws)))
        replicate = np.concatenate(samples)
        lower, upper = np.percentile(replicate, [2.5, 97.5], axis=0)

    lines = []
    for i, player in enumerate(players):
        as_black, as_white = black == i, white == i
        mine = np.concatenate([points[as_black], 1 - points[as_white]])
        lines.append(
            PlayerRating(
                player=player,
                rating=float(elo[i]) + 0.0,  # + 0.0 turns -0.0 into 0.0
                lower=float(lower[i]) + 0.0,
                upper=float(upper[i]) + 0.0,
                games=int(mine.size),
                wins=int(np.sum(mine == 1)),
                draws=int(np.sum(mine == 0.5)),
                losses=int(np.sum(mine == 0)),
            )
        )
    return Ratings(lines, anchor=anchor_player, bootstrap=bootstrap, prior_draws=prior_draws)


def _bootstrap_weights(
    n: int, black: np.ndarray, white: np.ndarray, units: list[str], replicates: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Bayesian-bootstrap weights: per pairing of players, Dirichlet(1, ..., 1) weights over
    its units (colour-swapped pairs) and the prior's virtual draw, scaled so that each unit
    weighs 1 on average.

    Returns:
        The weight of each game per replicate, shape (replicates, games), and the weight of
        the virtual draw of each pairing, shape (replicates, n, n) (symmetric).
    """
    rng = np.random.default_rng(seed)
    pair = np.minimum(black, white) * n + np.maximum(black, white)
    unit_index = {unit: k for k, unit in enumerate(dict.fromkeys(units))}
    unit_of_game = np.array([unit_index[u] for u in units], dtype=np.intp)
    weights = np.zeros((replicates, len(pair)))
    drawn_pairs = np.zeros((replicates, n, n))
    for key in np.unique(pair):
        games = np.flatnonzero(pair == key)
        pair_units = np.unique(unit_of_game[games])
        k = len(pair_units) + 1  # the last is the prior's virtual draw
        unit_weights = rng.dirichlet(np.ones(k), size=replicates) * k
        column = np.searchsorted(pair_units, unit_of_game[games])
        weights[:, games] = unit_weights[:, column]
        i, j = divmod(int(key), n)
        drawn_pairs[:, i, j] = drawn_pairs[:, j, i] = unit_weights[:, -1]
    return weights, drawn_pairs


__all__ = [
    "ELO_SCALE",
    "MAX_BOOTSTRAP",
    "PlayerRating",
    "Ratings",
    "WinsDrawsLosses",
    "find_anchor",
    "fit_elo",
    "game_table",
]
