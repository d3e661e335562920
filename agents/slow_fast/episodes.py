"""What the slow net generates each episode: generated games, partially explored subtrees,
and the two kinds of online data built from them.

Python here only sequences the numba kernels of ``lookahead`` and the network calls: a
generated game batch costs one forward pass per ply for all its games, and a subtree
forest one forward pass per level for all its trees (``Evaluator`` is any function from a
batch of positions to White's value ``f`` in (0, 1)).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from checkers_env import game_state
from checkers_env.bitboard import BB_BLACK_START, BB_WHITE_START

from . import lookahead as K

#: ``evaluate(black, white, kings, black_to_move) -> f`` (float64, White's view, in (0, 1)).
Evaluator = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

KIND_TACTICAL = 1  #: data kind 1: subtree from a capture-skewed point of a generated game
KIND_ENDGAME = 2  #: data kind 2: subtree at the end of a decisive generated game


@dataclass
class Positions:
    """A batch of positions as arrays (``checkers_env.bitboard`` layout)."""

    black: np.ndarray
    white: np.ndarray
    kings: np.ndarray
    black_to_move: np.ndarray  # int8, 1 when Black moves

    def __len__(self) -> int:
        return len(self.black)

    def take(self, index) -> Positions:
        return Positions(self.black[index], self.white[index], self.kings[index], self.black_to_move[index])

    @classmethod
    def start(cls, n: int) -> Positions:
        """``n`` copies of the start position (Black to move)."""
        return cls(
            np.full(n, BB_BLACK_START, dtype=np.int64),
            np.full(n, BB_WHITE_START, dtype=np.int64),
            np.zeros(n, dtype=np.int64),
            np.ones(n, dtype=np.int8),
        )

    @classmethod
    def of_boards(cls, boards) -> Positions:
        """From ``checkers_env.Board`` values."""
        return cls(
            np.array([b.black for b in boards], dtype=np.int64),
            np.array([b.white for b in boards], dtype=np.int64),
            np.array([b.kings for b in boards], dtype=np.int64),
            np.array([1 if b.turn == 0 else 0 for b in boards], dtype=np.int8),
        )


@dataclass
class Examples:
    """Labelled positions: White's expected future reward ``target`` (reward scale)."""

    positions: Positions
    target: np.ndarray  # float32
    kind: np.ndarray  # int8, KIND_TACTICAL or KIND_ENDGAME

    def __len__(self) -> int:
        return len(self.target)

    @classmethod
    def empty(cls) -> Examples:
        z = np.zeros(0, dtype=np.int64)
        return cls(
            Positions(z, z.copy(), z.copy(), np.zeros(0, np.int8)), np.zeros(0, np.float32), np.zeros(0, np.int8)
        )


# -- generated games -----------------------------------------------------------------------


@dataclass
class GeneratedGames:
    """Games played by the generating network (the slow net) in lockstep.

    Position ``t`` of game ``g`` is ``positions[g, t]`` for ``t <= lengths[g]``; ``moves[g, t]``
    is the index (in ``generate_moves`` order) of the move played from it; ``captures[g, t]``
    the capturing moves available there. ``termination[g]`` is the core's ``END_*`` code of
    the game's end (``checkers_env.game_state``); ``outcome[g]`` is ``WHITE_WINS``/``BLACK_WINS``
    when the side to move at ``lengths[g]`` had no move, else ``DRAW`` (repetition, no
    progress or the ply cap).
    """

    black: np.ndarray
    white: np.ndarray
    kings: np.ndarray
    black_to_move: np.ndarray
    captures: np.ndarray
    moves: np.ndarray
    lengths: np.ndarray
    outcome: np.ndarray
    termination: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    @property
    def decisive(self) -> np.ndarray:
        return self.outcome != K.DRAW

    def positions_at(self, games, plies) -> Positions:
        """Position ``plies[i]`` of game ``games[i]``, for each ``i``."""
        return Positions(
            self.black[games, plies],
            self.white[games, plies],
            self.kings[games, plies],
            self.black_to_move[games, plies],
        )


def generate_games(
    evaluate: Evaluator,
    games: int,
    noise_weight: float,
    max_plies: int,
    no_progress_plies: int,
    state: int,
    repetition: int = 3,
    start: Positions | None = None,
    explore_by: str = "expected-reward",
) -> tuple[GeneratedGames, int]:
    """Play ``games`` games from the start (or from ``start``, one position per game),
    every move the child with the highest exploration score
    (``lookahead.exploration_scores``: the network's evaluation plus noise; ``explore_by``,
    a key of ``lookahead.EXPLORE_BY``, says whether it evaluates the position after the move
    or the move's expected reward).

    Games end under the suite's rules, decided by the core's game state
    (``checkers_env.game_state.advance_games``) as in ``Game`` and the envs: the mover has no
    move (a win), or a draw by ``repetition``, after ``no_progress_plies`` plies without a
    capture or a man move, or at ``max_plies`` (0 turns the first two off).

    Returns:
        ``(games, state)``.
    """
    P = max_plies
    by = K.EXPLORE_BY[explore_by]
    black = np.zeros((games, P + 1), dtype=np.int64)
    white = np.zeros((games, P + 1), dtype=np.int64)
    kings = np.zeros((games, P + 1), dtype=np.int64)
    btm = np.zeros((games, P + 1), dtype=np.int8)
    captures = np.zeros((games, P + 1), dtype=np.int64)
    moves = np.full((games, P), -1, dtype=np.int64)
    lengths = np.full(games, P, dtype=np.int64)
    outcome = np.full(games, K.DRAW, dtype=np.int8)
    termination = np.full(games, game_state.END_MAX_PLIES, dtype=np.int8)
    start = start if start is not None else Positions.start(games)
    black[:, 0], white[:, 0], kings[:, 0], btm[:, 0] = start.black, start.white, start.kings, start.black_to_move
    rules = game_state.rules_array(repetition, no_progress_plies, max_plies)
    plies = np.zeros(games, dtype=np.int64)
    quiet = np.zeros(games, dtype=np.int64)
    keys = np.zeros((games, game_state.history_for(rules)), dtype=np.int64)
    active = np.ones(games, dtype=bool)
    for g in range(games):  # the start itself may be over
        keys[g, 0] = game_state.position_key(black[g, 0], white[g, 0])
        end, winner = game_state.decide_end(
            black[g, 0], white[g, 0], kings[g, 0], 0 if btm[g, 0] else 1, 0, 0, keys, g, rules
        )
        if end != game_state.END_NONE:
            _finish(g, 0, end, winner, lengths, outcome, termination, active)
    for ply in range(P):
        idx = np.flatnonzero(active)
        if len(idx) == 0:
            break
        pb, pw, pk, pt = black[idx, ply], white[idx, ply], kings[idx, ply], btm[idx, ply]
        counts = K.count_children(pb, pw, pk, pt)
        offsets = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        cb, cw, ck, ct, _, creward, co, cprog, ccap = K.expand_children(pb, pw, pk, pt, offsets, int(offsets[-1]))
        f = evaluate(cb, cw, ck, ct)
        scores, state = K.exploration_scores(f, co, creward, offsets, pt, by, noise_weight, state)
        chosen = K.choose_game_moves(scores, offsets)
        rows = offsets[:-1] + chosen
        moves[idx, ply] = chosen
        black[idx, ply + 1], white[idx, ply + 1], kings[idx, ply + 1], btm[idx, ply + 1] = (
            cb[rows],
            cw[rows],
            ck[rows],
            ct[rows],
        )
        captures[idx, ply + 1] = ccap[rows]
        ends = np.empty(len(idx), dtype=np.int64)
        winners = np.empty(len(idx), dtype=np.int64)
        game_state.advance_games(
            idx, cb[rows], cw[rows], ck[rows], ct[rows], cprog[rows], plies, quiet, keys, rules, ends, winners
        )
        for j in np.flatnonzero(ends != game_state.END_NONE):
            _finish(idx[j], ply + 1, ends[j], winners[j], lengths, outcome, termination, active)
    if games:
        captures[:, 0] = K.capture_moves_batch(black[:, 0], white[:, 0], kings[:, 0], btm[:, 0])
    return GeneratedGames(black, white, kings, btm, captures, moves, lengths, outcome, termination), state


def _finish(g, length, end, winner, lengths, outcome, termination, active) -> None:
    """Record the end of generated game ``g`` after ``length`` plies."""
    lengths[g] = length
    termination[g] = end
    if winner == game_state.COLOR_WHITE:
        outcome[g] = K.WHITE_WINS
    elif winner == game_state.COLOR_BLACK:
        outcome[g] = K.BLACK_WINS
    active[g] = False


# -- subtrees ------------------------------------------------------------------------------


@dataclass
class Forest:
    """Partially explored subtrees, one per root, every node in flat arrays.

    Level by level; a node's children (every legal move, explored or not) are the rows
    ``child_start[i] .. child_start[i] + child_count[i] - 1`` (0 children: a leaf or the end
    of the game). ``breadth[i]`` is how many of them were explored, ``probability`` the
    mover's softmax over them, ``line_step`` the node's distance down the forced kind-2 line
    (-1 off the line).
    """

    positions: Positions
    parent: np.ndarray
    depth: np.ndarray
    tree: np.ndarray
    reward: np.ndarray
    outcome: np.ndarray
    f: np.ndarray
    explored: np.ndarray
    probability: np.ndarray
    child_start: np.ndarray
    child_count: np.ndarray
    breadth: np.ndarray
    line_step: np.ndarray
    evaluations: int = 0

    def __len__(self) -> int:
        return len(self.parent)

    @property
    def expanded(self) -> np.ndarray:
        return self.child_count > 0

    def expected_values(self) -> np.ndarray:
        """The design document's softmax expected value at every node
        (``lookahead.expected_value_backup``)."""
        return K.expected_value_backup(
            self.child_start,
            self.child_count,
            self.breadth,
            self.explored,
            self.probability,
            self.reward,
            self.outcome,
            self.f,
        )

    def examples(self, kind: int) -> Examples:
        """Every expanded node labelled with its expected value."""
        values = self.expected_values()
        keep = np.flatnonzero(self.expanded)
        return Examples(self.positions.take(keep), values[keep].astype(np.float32), np.full(len(keep), kind, np.int8))


def grow_forest(
    evaluate: Evaluator,
    roots: Positions,
    depth: int,
    explore_fraction: float,
    min_explored: int,
    noise_weight: float,
    temperature: float,
    state: int,
    line_moves: np.ndarray | None = None,
    explore_by: str = "expected-reward",
) -> tuple[Forest, int]:
    """Search a partially explored subtree of ``depth`` plies from every root at once.

    Each level: every legal move of every frontier node is generated (numba), all children
    are valued in one network call, and ``lookahead.select_explored`` picks the explored
    fraction (network evaluation plus noise, the evaluation chosen by ``explore_by``, a key
    of ``lookahead.EXPLORE_BY``; ``line_moves[tree, step]``, when given, forces
    the moves of an original game line, -1 past its end). Explored children where the game
    goes on form the next frontier. With ``explore_fraction=1`` and ``min_explored`` large
    the forest is full width.

    Returns:
        ``(forest, state)``.
    """
    n_roots = len(roots)
    root_outcome = K.outcome_batch(roots.black, roots.white, roots.kings, roots.black_to_move)
    levels = [
        dict(
            black=roots.black.astype(np.int64),
            white=roots.white.astype(np.int64),
            kings=roots.kings.astype(np.int64),
            black_to_move=roots.black_to_move.astype(np.int8),
            parent=np.full(n_roots, -1, np.int64),
            depth=np.zeros(n_roots, np.int64),
            tree=np.arange(n_roots, dtype=np.int64),
            reward=np.zeros(n_roots),
            outcome=root_outcome,
            f=np.full(n_roots, 0.5),
            explored=np.ones(n_roots, np.int8),
            probability=np.ones(n_roots),
            line_step=np.zeros(n_roots, np.int64) if line_moves is not None else np.full(n_roots, -1, np.int64),
        )
    ]
    child_start_parts, child_count_parts, breadth_parts = [], [], []
    base = 0
    evaluations = 0
    for d in range(depth + 1):
        level = levels[-1]
        size = len(level["parent"])
        child_start = np.zeros(size, np.int64)
        child_count = np.zeros(size, np.int64)
        breadth = np.zeros(size, np.int64)
        child_start_parts.append(child_start)
        child_count_parts.append(child_count)
        breadth_parts.append(breadth)
        if d == depth:
            break
        frontier = np.flatnonzero((level["explored"] != 0) & (level["outcome"] == K.ONGOING))
        if len(frontier) == 0:
            break
        pb, pw, pk, pt = (level[k][frontier] for k in ("black", "white", "kings", "black_to_move"))
        counts = K.count_children(pb, pw, pk, pt)
        offsets = np.zeros(len(frontier) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        cb, cw, ck, ct, cparent, creward, coutcome, _, _ = K.expand_children(pb, pw, pk, pt, offsets, int(offsets[-1]))
        f = evaluate(cb, cw, ck, ct)
        evaluations += len(f)
        ptree = level["tree"][frontier]
        pline = level["line_step"][frontier]
        forced = np.full(len(frontier), -1, np.int64)
        if line_moves is not None:
            on_line = (pline >= 0) & (pline < line_moves.shape[1])
            forced[on_line] = line_moves[ptree[on_line], pline[on_line]]
        explored, probability, parent_breadth, state = K.select_explored(
            f,
            coutcome,
            creward,
            offsets,
            pt,
            K.EXPLORE_BY[explore_by],
            float(explore_fraction),
            int(min_explored),
            float(noise_weight),
            float(temperature),
            forced,
            state,
        )
        local = np.arange(len(cb), dtype=np.int64) - offsets[cparent]
        child_line = np.where((forced[cparent] >= 0) & (local == forced[cparent]), pline[cparent] + 1, -1)
        next_base = base + size
        child_start[frontier] = next_base + offsets[:-1]
        child_count[frontier] = counts
        breadth[frontier] = parent_breadth
        levels.append(
            dict(
                black=cb,
                white=cw,
                kings=ck,
                black_to_move=ct,
                parent=base + frontier[cparent],
                depth=np.full(len(cb), d + 1, np.int64),
                tree=ptree[cparent],
                reward=creward,
                outcome=coutcome,
                f=f,
                explored=explored,
                probability=probability,
                line_step=child_line,
            )
        )
        base = next_base
    cat = {k: np.concatenate([lv[k] for lv in levels]) for k in levels[0]}
    forest = Forest(
        positions=Positions(cat["black"], cat["white"], cat["kings"], cat["black_to_move"]),
        parent=cat["parent"],
        depth=cat["depth"],
        tree=cat["tree"],
        reward=cat["reward"],
        outcome=cat["outcome"],
        f=cat["f"],
        explored=cat["explored"],
        probability=cat["probability"],
        child_start=np.concatenate(child_start_parts)[: len(cat["parent"])],
        child_count=np.concatenate(child_count_parts)[: len(cat["parent"])],
        breadth=np.concatenate(breadth_parts)[: len(cat["parent"])],
        line_step=cat["line_step"],
        evaluations=evaluations,
    )
    return forest, state


# -- the two kinds of data -----------------------------------------------------------------


@dataclass
class SubtreeSettings:
    """How a data subtree is searched (see ``grow_forest``)."""

    depth: int
    explore_fraction: float
    min_explored: int
    noise_weight: float
    temperature: float
    explore_by: str = "expected-reward"


@dataclass
class GameSettings:
    """How the generating games are played (see ``generate_games``)."""

    noise_weight: float
    max_plies: int
    no_progress_plies: int
    repetition: int = 3
    explore_by: str = "expected-reward"


def _play_games(evaluate: Evaluator, games: int, game: GameSettings, state: int) -> tuple[GeneratedGames, int]:
    """``generate_games`` as ``game`` says."""
    return generate_games(
        evaluate,
        games,
        game.noise_weight,
        game.max_plies,
        game.no_progress_plies,
        state,
        game.repetition,
        explore_by=game.explore_by,
    )


def _grow_subtrees(
    evaluate: Evaluator, roots: Positions, subtree: SubtreeSettings, state: int, line_moves: np.ndarray | None = None
) -> tuple[Forest, int]:
    """``grow_forest`` as ``subtree`` says."""
    return grow_forest(
        evaluate,
        roots,
        subtree.depth,
        subtree.explore_fraction,
        subtree.min_explored,
        subtree.noise_weight,
        subtree.temperature,
        state,
        line_moves=line_moves,
        explore_by=subtree.explore_by,
    )


def tactical_data(
    evaluate: Evaluator, games: int, capture_skew: float, game: GameSettings, subtree: SubtreeSettings, state: int
) -> tuple[Examples, Forest, GeneratedGames, np.ndarray, int]:
    """Data kind 1: one subtree per generated game, rooted at a random point of the game
    chosen with probability ``1 + capture_skew * (capturing moves available)`` (positions
    allowing more captures next move are chosen more often).

    Returns:
        ``(examples, forest, games, points, state)``.
    """
    played, state = _play_games(evaluate, games, game, state)
    points, state = K.skewed_points(played.captures, played.lengths, float(capture_skew), state)
    keep = np.flatnonzero(points >= 0)
    roots = played.positions_at(keep, points[keep])
    forest, state = _grow_subtrees(evaluate, roots, subtree, state)
    return forest.examples(KIND_TACTICAL), forest, played, points, state


def endgame_data(
    evaluate: Evaluator, trees: int, max_batches: int, game: GameSettings, subtree: SubtreeSettings, state: int
) -> tuple[Examples, Forest, GeneratedGames, np.ndarray, int]:
    """Data kind 2: subtrees at the end of decisive generated games, each constrained to
    contain the game's original win or loss.

    Games are generated in batches of ``trees`` until ``trees`` decisive ones are found (at
    most ``max_batches`` batches; drawn games are never used). Each root is the position
    ``d`` plies before the end (``d`` uniform in ``1 .. depth``, so the end lies inside the
    subtree), and the moves the game actually played from there are always explored.

    Returns:
        ``(examples, forest, decisive games, root plies, state)``.
    """
    found: list[GeneratedGames] = []
    count = 0
    for _ in range(max_batches):
        played, state = _play_games(evaluate, trees, game, state)
        keep = np.flatnonzero(played.decisive)
        if len(keep):
            found.append(_take_games(played, keep))
            count += len(keep)
        if count >= trees:
            break
    if not found:
        return Examples.empty(), None, None, np.zeros(0, np.int64), state
    decisive = _concat_games(found, trees)
    n = len(decisive)
    back = np.empty(n, np.int64)
    for g in range(n):
        state, u = K.uniform01(state)
        back[g] = 1 + int(u * min(subtree.depth, int(decisive.lengths[g])))
    roots_at = decisive.lengths - back
    g_index = np.arange(n)
    line_moves = np.full((n, subtree.depth), -1, np.int64)
    for g in range(n):
        line_moves[g, : back[g]] = decisive.moves[g, roots_at[g] : decisive.lengths[g]]
    roots = decisive.positions_at(g_index, roots_at)
    forest, state = _grow_subtrees(evaluate, roots, subtree, state, line_moves)
    return forest.examples(KIND_ENDGAME), forest, decisive, roots_at, state


_GAME_FIELDS = ("black", "white", "kings", "black_to_move", "captures", "moves", "lengths", "outcome", "termination")


def _take_games(games: GeneratedGames, index) -> GeneratedGames:
    return GeneratedGames(*(getattr(games, f)[index] for f in _GAME_FIELDS))


def _concat_games(parts: list[GeneratedGames], limit: int) -> GeneratedGames:
    return GeneratedGames(*(np.concatenate([getattr(p, f) for p in parts])[:limit] for f in _GAME_FIELDS))
