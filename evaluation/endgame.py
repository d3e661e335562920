"""How close to perfect an agent plays endgames, measured against an endgame database.

    >>> from checkers_env import egdb
    >>> from checkers_evaluation.endgame import measure, measures_markdown
    >>> db = egdb.EndgameDatabase.open(pieces=5)                       # doctest: +SKIP
    >>> result = measure("alphabeta:depth=4", db, positions=200, games=50)  # doctest: +SKIP
    >>> print(measures_markdown([result]))                             # doctest: +SKIP

Or ``checkers egdb measure alphabeta:depth=4 zoo:td-minimax --pieces 5``.

**The sample.** ``positions`` positions drawn uniformly, without repetition, from every
position of the database's slices with *exactly* ``pieces`` pieces (each piece count is
its own population; positions with fewer pieces are reached from these in the conversion
games), each with Black or White to move at random (the database stores one entry for
both): a fixed sample for a given database, piece count and ``seed``, so every agent
meets the same positions. Uniform over positions is not uniform over what games reach:
the sample holds many more scattered kings and far-advanced men than games do.

**Value keeping** (``value_keeping``): the fraction of the agent's moves that keep the
position's value, over the sampled positions that are won or drawn for the side to move
*and where some move throws the value away* (in a won position a move to a position not
lost for the opponent; in a drawn one a move to a lost position). Lost positions are left
out (every move keeps a loss), and so are positions where every legal move keeps the value
(a single legal move, or only winning ones): they would count for every agent alike, a
random one included. Reported for won positions, drawn positions, and both together.
Each position is a new game for the agent (no history, the default ``Rules``).

**Conversion** (``conversion``): from the first ``games`` sampled won positions, the
agent plays the side to move against a perfect defender (:class:`PerfectPlayer`: one of
``db.best_moves``, the longest loss, chosen with a seeded generator). It converts when it
wins within ``distance + margin`` plies (``distance``: the database's shortest win) under
the game's own rules (``Rules(max_plies=distance + margin)``: threefold repetition and 80
plies without a capture or a man move still draw), which is what counts for a user: a
win on the board, in reasonable time. A perfect player converts every position whose
shortest win needs no 80-ply stretch of king moves (every sampled one so far).

**Calibration** (``calibration``), for agents with a value function (the nets the
alpha-beta evaluates at its leaves: ``zoo:td-minimax``, ``zoo:slow-fast``,
``zoo:mcrd-net``, ``zoo:mcrd-net-interpolated``, ``alphabeta:eval=<net>``): the net's
value of each sampled quiet position (the side to move has a move and no capture
pending: the only positions the searches ask the net about) against the truth, +1 won,
0 drawn, -1 lost for the side to move. Every net goes through the search's one evaluator interface
(``checkers_agents.search_parts.evaluators.evaluate``), which gives the value for the side to
move in (-1, 1): td-minimax's ``out[0] - out[1]`` (its targets are (1, 0) won, (0, 1)
lost, (0, 0) drawn), slow-fast's ``2 f - 1`` (``f`` the sigmoid of the mover's logit: an
expected result), mcrd-net's ``tanh``. Reported: the mean squared error, the mean value
per true class, and a reliability table (values in bins of 0.4). Hand-written
evaluations (``material``, ``positional``: points, not results), MCRD and PPO have none
(``-``). Any agent may offer its own: a ``position_value(board) -> float`` method.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from checkers_env import BaseAgent, Board, Game, Move, Rules, make_agent
from checkers_env.board import BLACK, WHITE
from checkers_env.egdb import DRAW, LOSS, WIN, EndgameDatabase, Probe, slices
from checkers_env.egdb import index as egdb_index
from checkers_env.encoding import half_turn
from checkers_env.errors import EndgameDatabaseError
from checkers_env.match import play_game

#: Plies a conversion may take beyond the database's shortest win.
DEFAULT_MARGIN = 20
#: Sampled positions (value keeping, calibration) and won positions played out (conversion).
DEFAULT_POSITIONS = 200
DEFAULT_GAMES = 50
#: Edges of the reliability table's bins of predicted values.
RELIABILITY_EDGES = (-1.0, -0.6, -0.2, 0.2, 0.6, 1.0)

#: The true value of each database verdict, for the side to move.
TRUTH = {WIN: 1.0, DRAW: 0.0, LOSS: -1.0}


# -- the database folder -------------------------------------------------------------------


# -- the sample ----------------------------------------------------------------------------


class Sampled(NamedTuple):
    """A sampled position and the database's verdict on it."""

    board: Board
    probe: Probe


def board_of(mover: int, opponent: int, kings: int, black_to_move: bool) -> Board:
    """The ``Board`` of a position in the mover's frame (``egdb.index``), with Black or
    White to move."""
    if black_to_move:
        return Board(int(mover), int(opponent), int(kings), BLACK)
    return Board(int(half_turn(opponent)), int(half_turn(mover)), int(half_turn(kings)), WHITE)


def sample_positions(db: EndgameDatabase, count: int, seed: int = 0, pieces: int | None = None) -> list[Sampled]:
    """``count`` positions drawn uniformly without repetition from the slices with exactly
    ``pieces`` pieces (default ``db.pieces``), each with a random side to move.

    Args:
        db: the database (it must hold ``pieces``).
        count: how many (all of them when the slices hold fewer).
        seed: the sample is a function of the database's positions, ``pieces`` and ``seed``.
        pieces: 2 to ``db.pieces``.

    Raises:
        ValueError: ``pieces`` outside the database, or ``count`` < 1.
    """
    pieces = db.pieces if pieces is None else pieces
    if not 2 <= pieces <= db.pieces:
        raise ValueError(f"pieces must be 2 to {db.pieces} (the database's), got {pieces}")
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    chosen_slices = slices(pieces)
    sizes = np.array([int(egdb_index.slice_size(*s)) for s in chosen_slices], dtype=np.int64)
    ends = np.cumsum(sizes)
    total = int(ends[-1])
    rng = np.random.default_rng([seed, pieces])
    indices = rng.choice(total, size=min(count, total), replace=False)
    black_to_move = rng.integers(0, 2, size=len(indices)).astype(bool)
    sample = []
    for index, black in zip(indices.tolist(), black_to_move.tolist()):
        k = int(np.searchsorted(ends, index, side="right"))
        local = index - (int(ends[k - 1]) if k else 0)
        mover, opponent, kings = egdb_index.slice_position(*chosen_slices[k], local)
        board = board_of(mover, opponent, kings, black)
        probe = db.probe(board)
        assert probe is not None  # the slices of ``pieces`` pieces are all in the database
        sample.append(Sampled(board, probe))
    return sample


# -- the perfect player ----------------------------------------------------------------------


class PerfectPlayer(BaseAgent):
    """Plays one of the database's best moves (the fastest win, a drawing move, the longest
    loss), chosen with its seeded generator: the defender of the conversion games.

    Args:
        db: the database; every position the player meets must be in it.
        seed: seed of the choice among equally good moves.

    Raises:
        EndgameDatabaseError: (``select_move``) a position outside the database.
    """

    kind = "egdb-perfect"

    def __init__(self, db: EndgameDatabase, seed: int | None = None):
        super().__init__(seed=seed)
        self.db = db
        self.spec_override = f"egdb-perfect:pieces={db.pieces}"

    def select_move(self, game: Game) -> Move:
        moves = self.db.best_moves(game.board)
        if not moves:
            raise ValueError(f"{self} has no legal move in {game.board.fen()}")
        return moves[int(self.rng.integers(len(moves)))]

    def position_value(self, board: Board) -> float:
        """The database's value for the side to move: +1, 0 or -1 (a perfect value
        function)."""
        probe = self.db.probe(board)
        if probe is None:
            raise EndgameDatabaseError(f"{board.fen()} is outside the {self.db.pieces}-piece database")
        return TRUTH[probe.value]


# -- value functions -------------------------------------------------------------------------


def value_function(agent) -> Callable[[Board], float] | None:
    """The agent's estimate of a position's expected result for the side to move, in
    [-1, 1], or None for an agent without one.

    An agent's own ``position_value(board)`` comes first; else the learned net the
    alpha-beta search evaluates at its leaves (``agent.evaluator``), through the search's one evaluator interface.
    """
    own = getattr(agent, "position_value", None)
    if callable(own):
        return own
    from checkers_agents.search_parts.evaluators import EVAL_NET, Evaluator, evaluate

    net = getattr(agent, "evaluator", None)
    if not isinstance(net, Evaluator) or net.kind != EVAL_NET:
        return None

    def value(board: Board) -> float:
        mover, opponent = board.mover_bitboards
        return min(1.0, max(-1.0, evaluate(net, mover, opponent, board.kings, board.turn == BLACK)))

    return value


# -- the measures ----------------------------------------------------------------------------


@dataclass
class ReliabilityBin:
    """Positions whose predicted value falls in ``[low, high)`` (the last bin includes 1)."""

    low: float
    high: float
    positions: int
    mean_prediction: float | None
    mean_truth: float | None


@dataclass
class Calibration:
    """A value function against the database's truth (+1 won, 0 drawn, -1 lost).

    Attributes:
        positions: sampled quiet positions valued.
        mse: mean squared error of the values.
        counts: positions per true value (``win``, ``draw``, ``loss``).
        mean_prediction: the mean value per true value (None where there is none).
        reliability: the positions by predicted value (``RELIABILITY_EDGES``).
    """

    positions: int
    mse: float
    counts: dict[str, int]
    mean_prediction: dict[str, float | None]
    reliability: list[ReliabilityBin]


def calibration(value: Callable[[Board], float], sample: Sequence[Sampled]) -> Calibration | None:
    """Compare ``value`` with the truth on the quiet positions of ``sample`` (a move to
    make, no capture pending); None when there is none."""
    quiet = [s for s in sample if s.board.has_legal_moves() and not s.board.is_capture_position()]
    if not quiet:
        return None
    predicted = np.array([float(value(s.board)) for s in quiet])
    truth = np.array([TRUTH[s.probe.value] for s in quiet])
    counts, means = {}, {}
    for name, target in TRUTH.items():
        chosen = truth == target
        counts[name] = int(chosen.sum())
        means[name] = float(predicted[chosen].mean()) if chosen.any() else None
    bins = []
    for k, (low, high) in enumerate(zip(RELIABILITY_EDGES, RELIABILITY_EDGES[1:])):
        last = k == len(RELIABILITY_EDGES) - 2
        chosen = (predicted >= low) & ((predicted <= high) if last else (predicted < high))
        bins.append(
            ReliabilityBin(
                low,
                high,
                int(chosen.sum()),
                float(predicted[chosen].mean()) if chosen.any() else None,
                float(truth[chosen].mean()) if chosen.any() else None,
            )
        )
    return Calibration(len(quiet), float(np.mean((predicted - truth) ** 2)), counts, means, bins)


@dataclass
class EndgameMeasures:
    """What ``measure`` found for one agent (counts, so that samples can be pooled).

    Attributes:
        agent: the agent's spec.
        pieces: pieces of the sampled positions.
        seed: the sample's seed.
        positions: positions sampled.
        won_positions, won_kept: sampled won positions where a move can lose the win, and
            those where the agent's move kept it.
        drawn_positions, drawn_kept: the same for drawn positions (a move can lose).
        games: won positions played out against the perfect defender.
        mean_distance: their mean shortest win, in plies.
        conversions: games the agent won within ``distance + margin`` plies.
        extra_plies: over the conversions, the mean plies beyond the shortest win.
        margin: the plies allowed beyond the shortest win.
        calibration: the value function's calibration, or None (no value function).
        mistakes: ``FEN move`` of each move that lost the value.
        unconverted: ``FEN`` of each won position not converted, with the game's end.
        seconds: wall time of the measures.
    """

    agent: str
    pieces: int
    seed: int
    positions: int
    won_positions: int = 0
    won_kept: int = 0
    drawn_positions: int = 0
    drawn_kept: int = 0
    games: int = 0
    mean_distance: float | None = None
    conversions: int = 0
    extra_plies: float | None = None
    margin: int = DEFAULT_MARGIN
    calibration: Calibration | None = None
    mistakes: list[str] = field(default_factory=list)
    unconverted: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def value_keeping_won(self) -> float | None:
        return self.won_kept / self.won_positions if self.won_positions else None

    @property
    def value_keeping_drawn(self) -> float | None:
        return self.drawn_kept / self.drawn_positions if self.drawn_positions else None

    @property
    def value_keeping(self) -> float | None:
        counted = self.won_positions + self.drawn_positions
        return (self.won_kept + self.drawn_kept) / counted if counted else None

    @property
    def conversion(self) -> float | None:
        return self.conversions / self.games if self.games else None

    def to_dict(self) -> dict:
        """Every field, and the fractions."""
        data = asdict(self)
        data.update(
            value_keeping_won=self.value_keeping_won,
            value_keeping_drawn=self.value_keeping_drawn,
            value_keeping=self.value_keeping,
            conversion=self.conversion,
        )
        return data


def measure(
    agent_spec,
    db: EndgameDatabase,
    positions: int = DEFAULT_POSITIONS,
    seed: int = 0,
    margin: int = DEFAULT_MARGIN,
    games: int = DEFAULT_GAMES,
    pieces: int | None = None,
    progress: bool = True,
) -> EndgameMeasures:
    """Value keeping, conversion and calibration of one agent (see the module docstring).

    Args:
        agent_spec: a spec string (``alphabeta:depth=4``) or an ``Agent``.
        db: the endgame database.
        positions: positions sampled (value keeping, calibration).
        seed: seed of the sample, of the agent and of the defender.
        margin: plies a conversion may take beyond the shortest win.
        games: won positions of the sample played out (the first ones; fewer when the
            sample holds fewer).
        pieces: pieces of the sampled positions (default ``db.pieces``).
        progress: a progress bar over the positions and games.

    Returns:
        The ``EndgameMeasures``.

    Raises:
        ValueError: a bad spec or argument.
    """
    from tqdm.auto import tqdm

    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    started = time.perf_counter()
    agent = make_agent(agent_spec) if isinstance(agent_spec, str) else agent_spec
    sample = sample_positions(db, positions, seed, pieces)
    # The won positions with their distances (a win always has one).
    won = [(s.board, s.probe.distance) for s in sample if s.probe.value == WIN and s.probe.distance is not None][:games]
    result = EndgameMeasures(str(agent), pieces or db.pieces, seed, len(sample), margin=margin)
    result.mean_distance = float(np.mean([distance for _, distance in won])) if won else None
    with tqdm(total=len(sample) + len(won), desc=str(agent), unit="pos", disable=not progress) as bar:
        for number, (board, probe) in enumerate(sample):
            _keep_value(agent, db, board, probe, seed + number, result)
            bar.update(1)
        extra = []
        for number, (board, distance) in enumerate(won):
            plies, end = _convert(agent, db, board, distance, margin, seed + number)
            result.games += 1
            if plies is None:
                result.unconverted.append(f"{board.fen()} {end}")
            else:
                result.conversions += 1
                extra.append(plies - distance)
            bar.update(1)
    result.extra_plies = float(np.mean(extra)) if extra else None
    value = value_function(agent)
    result.calibration = calibration(value, sample) if value is not None else None
    result.seconds = time.perf_counter() - started
    return result


def _keep_value(agent, db: EndgameDatabase, board: Board, probe: Probe, seed: int, result: EndgameMeasures) -> None:
    """Count the agent's move in one sampled position (won or drawn, with a move that
    loses the value)."""
    if probe.value == LOSS:
        return
    kept = {move: child.value == probe.value for move, child in db.move_values(board)}
    if all(kept.values()):
        return
    agent.reset(seed=seed)
    move = agent.select_move(Game(start=board))
    if move not in kept:
        raise ValueError(f"agent {agent} played {move}, not a legal move in {board.fen()}")
    if probe.value == WIN:
        result.won_positions += 1
        result.won_kept += kept[move]
    else:
        result.drawn_positions += 1
        result.drawn_kept += kept[move]
    if not kept[move]:
        result.mistakes.append(f"{board.fen()} {move}")


def _convert(agent, db: EndgameDatabase, board: Board, distance: int, margin: int, seed: int) -> tuple[int | None, str]:
    """Play a won position (a win in ``distance`` plies) against the perfect defender: the
    plies to the agent's win (None when it did not win within ``distance + margin`` plies
    under the game's rules), and how the game ended (``no_moves``, ``repetition``,
    ``no_progress``, ``max_plies``)."""
    defender = PerfectPlayer(db)
    black, white = (agent, defender) if board.turn == BLACK else (defender, agent)
    record = play_game(
        black, white, rules=Rules(max_plies=distance + margin), rng=np.random.default_rng(seed), start=board
    )
    won = record.result == ("1-0" if board.turn == BLACK else "0-1")
    return (record.plies if won else None), record.termination


# -- reports ----------------------------------------------------------------------------------


def _fraction(kept: int, total: int) -> str:
    return f"{100 * kept / total:.1f} % ({kept}/{total})" if total else "-"


def _number(value: float | None, digits: int = 3) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def measures_markdown(measures: Sequence[EndgameMeasures]) -> str:
    """One row per agent: value keeping (won, drawn, all), conversion, calibration."""
    lines = [
        "| agent | value kept: won | value kept: drawn | value kept: all | conversion | extra plies "
        "| calibration MSE | mean value: won / drawn / lost | seconds |",
        "|:--|--:|--:|--:|--:|--:|--:|:-:|--:|",
    ]
    for m in measures:
        c = m.calibration
        means = " / ".join(_number(c.mean_prediction[k], 2) for k in (WIN, DRAW, LOSS)) if c else "-"
        lines.append(
            f"| {m.agent} | {_fraction(m.won_kept, m.won_positions)} | {_fraction(m.drawn_kept, m.drawn_positions)} "
            f"| {_fraction(m.won_kept + m.drawn_kept, m.won_positions + m.drawn_positions)} "
            f"| {_fraction(m.conversions, m.games)} | {_number(m.extra_plies, 1)} "
            f"| {_number(c.mse) if c else '-'} | {means} | {m.seconds:.0f} |"
        )
    return "\n".join(lines) + "\n"


#: How a conversion game that the agent did not win ended, in words (``Termination``).
UNCONVERTED_ENDS = {
    "max_plies": "not won within the margin",
    "repetition": "drawn by repetition",
    "no_progress": "drawn by no progress",
    "no_moves": "lost",
}


def unconverted_markdown(measures: Sequence[EndgameMeasures]) -> str:
    """How the conversion games each agent did not win ended: too slow (the margin ran
    out), drawn by a rule, or lost."""
    lines = [
        "| agent | " + " | ".join(UNCONVERTED_ENDS.values()) + " |",
        "|:--|" + "--:|" * len(UNCONVERTED_ENDS),
    ]
    for m in measures:
        ends = [entry.rsplit(" ", 1)[-1] for entry in m.unconverted]
        lines.append(f"| {m.agent} | " + " | ".join(str(ends.count(end)) for end in UNCONVERTED_ENDS) + " |")
    return "\n".join(lines) + "\n"


def reliability_markdown(measures: Sequence[EndgameMeasures]) -> str:
    """One reliability table per agent with a value function: per bin of predicted value,
    the positions, their mean predicted value and their mean true value."""
    parts = []
    for m in measures:
        c = m.calibration
        if c is None:
            continue
        lines = [
            f"**{m.agent}** ({c.positions} quiet positions: {c.counts[WIN]} won, {c.counts[DRAW]} drawn, "
            f"{c.counts[LOSS]} lost; MSE {c.mse:.3f})",
            "",
            "| predicted value | positions | mean predicted | mean true |",
            "|:-:|--:|--:|--:|",
        ]
        for b in c.reliability:
            close = "]" if b.high == RELIABILITY_EDGES[-1] else ")"
            lines.append(
                f"| [{b.low:+.1f}, {b.high:+.1f}{close} | {b.positions} | {_number(b.mean_prediction, 2)} "
                f"| {_number(b.mean_truth, 2)} |"
            )
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + ("\n" if parts else "")


def write_measures(measures: Sequence[EndgameMeasures], out: str | os.PathLike, command: str = "") -> list[Path]:
    """Write ``measures.md`` (both tables, and the command) and ``measures.json`` into
    ``out``; returns their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    first = measures[0] if measures else None
    heading = (
        f"# Endgame measures ({first.pieces} pieces, seed {first.seed})\n\n" if first else "# Endgame measures\n\n"
    )
    text = heading + (f"```text\n$ {command}\n```\n\n" if command else "") + measures_markdown(measures)
    if first is not None and first.games:
        text += (
            f"\n## Conversion: the games not won\n\nOver {first.games} won positions (shortest win "
            f"{first.mean_distance:.1f} plies on average), margin {first.margin} plies.\n\n"
            + unconverted_markdown(measures)
        )
    reliability = reliability_markdown(measures)
    if reliability:
        text += "\n## Calibration: reliability\n\n" + reliability
    markdown = out / "measures.md"
    markdown.write_text(text, encoding="utf-8")
    data = out / "measures.json"
    data.write_text(
        json.dumps({"command": command, "measures": [m.to_dict() for m in measures]}, indent=2) + "\n",
        encoding="utf-8",
    )
    return [markdown, data]


__all__ = [
    "Calibration",
    "DEFAULT_GAMES",
    "DEFAULT_MARGIN",
    "DEFAULT_POSITIONS",
    "EndgameMeasures",
    "PerfectPlayer",
    "ReliabilityBin",
    "Sampled",
    "board_of",
    "calibration",
    "measure",
    "measures_markdown",
    "reliability_markdown",
    "unconverted_markdown",
    "sample_positions",
    "value_function",
    "write_measures",
]
