"""Game records as data: the shipped ACF archive, and any PDN files as arrays for learning.

    >>> from checkers_env.datasets import acf_games
    >>> games = acf_games()          # about ten seconds: every move is validated
    >>> len(games), games[0].headers["Result"]
    (4000, '1/2-1/2')

``ACF_GAMES`` is the file itself, for tools that read PDN on their own. Its source and
licence are in ``checkers_env/data/README.md``.

``game_dataset(sources)`` turns the games of PDN files into the env's encoding, one row
per hop decision (a move of three jumps is three rows, as ``Checkers-v0`` asks for it),
split by game into train and validation::

    >>> from checkers_env.datasets import game_dataset
    >>> split = game_dataset([ACF_GAMES], validation=0.1, seed=0, max_games=20)
    >>> split.train.observations.shape[1:], split.train.action_masks.shape[1:]
    ((5, 8, 8), (128,))
    >>> sorted(set(split.train.game_ids) & set(split.validation.game_ids))
    []
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from . import env_machine as core
from .board import BLACK, Move, move_to_row, square_row_col
from .game import Game, Rules
from .pdn import iter_pdn, read_pdn

#: 4,000 complete American Checker Federation tournament games in PDN (MIT, EricCJoyce/Datasets).
ACF_GAMES = Path(__file__).resolve().parent / "data" / "acf_games.pdn.xz"

#: The result of a game from the view of the side to move: ``RESULT_VALUE[result][color]``.
_RESULT_VALUE = {"1-0": (1, -1), "0-1": (-1, 1), "1/2-1/2": (0, 0)}


def acf_games(rules: Rules | None = None) -> list[Game]:
    """The 4,000 ACF tournament games, every move checked (see :func:`checkers_env.read_pdn`).

    Args:
        rules: draw rules for the returned games; by default none, because human games end
            by claim and an automatic draw would cut two of these records short.
    """
    return read_pdn(ACF_GAMES, rules=rules)


@dataclass
class PositionDataset:
    """The hop decisions of a set of games, as NumPy arrays with one row per decision.

    Attributes:
        observations: ``uint8[N, 5, 8, 8]``, the env's observation planes (own men, own
            kings, opponent men, opponent kings, the piece continuing a capture) in the
            mover's frame; ``.astype(np.float32)`` is exactly what ``Checkers-v0`` returns.
        action_masks: ``int8[N, 128]``, the legal hops (the env's ``action_mask``).
        actions: ``int64[N]``, the hop played (the env's action ``4 * k + d``).
        move_actions: ``int64[N, H]``, every hop action of the complete move this row
            belongs to, padded with -1 (``H`` is the longest move of the data).
        moves: ``int64[N, 5]``, the complete move as the kernels' row (``from, to,
            captured, path, hops``; ``checkers_env.board.move_from_row`` gives the
            ``Move``).
        hop_index: ``int8[N]``, which hop of its move the row is (0 for the position before
            the move).
        side_to_move: ``int8[N]``, 0 Black, 1 White.
        results: ``float32[N]``, the game's result from the side to move's view: 1 won,
            0 drawn, -1 lost, NaN for a game without a result (``*``).
        game_ids: ``int32[N]``, the game's index in the order the games were read.
        plies: ``int32[N]``, the ply of the move in its game (0 for the first move).
    """

    observations: np.ndarray
    action_masks: np.ndarray
    actions: np.ndarray
    move_actions: np.ndarray
    moves: np.ndarray
    hop_index: np.ndarray
    side_to_move: np.ndarray
    results: np.ndarray
    game_ids: np.ndarray
    plies: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    def subset(self, rows: np.ndarray) -> PositionDataset:
        """The rows ``rows`` (indices or a boolean mask) of every array."""
        return PositionDataset(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    def move(self, row: int) -> Move:
        """The complete move played at ``row``."""
        from .board import move_from_row

        return move_from_row(self.moves[row])

    def to_torch(self):
        """A ``torch.utils.data.Dataset`` over these rows: each item a dict of tensors
        ``observation`` (float32 ``[5, 8, 8]``), ``action_mask`` (bool ``[128]``),
        ``action``, ``result``, ``side_to_move``, ``hop_index``.

        Raises:
            MissingDependencyError: torch is not installed.
        """
        try:
            import torch
        except ModuleNotFoundError as error:
            from .errors import missing_dependency

            raise missing_dependency(error, "PositionDataset.to_torch") or error from None

        arrays = self

        class _Positions(torch.utils.data.Dataset):
            def __len__(self) -> int:
                return len(arrays)

            def __getitem__(self, row: int) -> dict:
                return {
                    "observation": torch.from_numpy(arrays.observations[row].astype(np.float32)),
                    "action_mask": torch.from_numpy(arrays.action_masks[row] != 0),
                    "action": torch.tensor(int(arrays.actions[row])),
                    "result": torch.tensor(float(arrays.results[row])),
                    "side_to_move": torch.tensor(int(arrays.side_to_move[row])),
                    "hop_index": torch.tensor(int(arrays.hop_index[row])),
                }

        return _Positions()


@dataclass
class DatasetSplit:
    """Train and validation rows, split by game (never by position).

    Attributes:
        train, validation: the two parts.
        games: how many games went into the data.
        warnings: the reader's warnings and errors, ``"FILE: game N: ..."`` (lenient mode).
    """

    train: PositionDataset
    validation: PositionDataset
    games: int
    warnings: list[str]


def game_dataset(
    sources: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    validation: float = 0.1,
    seed: int = 0,
    lenient: bool = False,
    max_games: int | None = None,
) -> DatasetSplit:
    """Every hop decision of the games in PDN files, split by game into train and validation.

    Args:
        sources: one PDN file or several (paths), read in order.
        validation: the fraction of games (not positions) held out, 0 <= validation < 1.
        seed: seeds the shuffle of the games before the split.
        lenient: read the files with ``read_pdn(..., lenient=True)``; a game whose moves
            end at an error contributes the moves read before it.
        max_games: read only the first this many games (for quick examples and tests).

    The files are read game by game (``iter_pdn``; ``.pdn.gz`` and ``.pdn.xz`` too), and
    only the rows of each game are kept.

    Raises:
        ValueError: ``validation`` is outside [0, 1) or ``max_games`` is below 1.
        PdnError: a file is not PDN (strict mode: the first departure from it), or names
            no regular file; the message names the file.
        FileNotFoundError: a file does not exist.
    """
    if not 0 <= validation < 1:
        raise ValueError(f"validation must be a fraction in [0, 1), got {validation!r}")
    if max_games is not None and max_games < 1:
        raise ValueError(f"max_games must be >= 1, got {max_games!r}")
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    warnings: list[str] = []
    read = 0

    def games() -> Iterator[Game]:
        # Game by game: only the rows are kept, and reading stops at max_games.
        nonlocal read
        for source in sources:
            for number, game in enumerate(iter_pdn(Path(source), lenient=lenient), 1):
                warnings.extend(f"{source}: game {number}: {text}" for text in game.warnings)
                if game.error:
                    warnings.append(f"{source}: game {number}: {game.error}")
                read += 1
                yield game
                if read == max_games:
                    return

    data = positions_of_games(games())
    order = np.random.default_rng(seed).permutation(read)
    held_out = np.zeros(read, dtype=bool)
    held_out[order[: int(round(validation * read))]] = True
    in_validation = held_out[data.game_ids]
    return DatasetSplit(data.subset(~in_validation), data.subset(in_validation), read, warnings)


def hop_action(mover_is_black: bool, frm: int, to: int) -> int:
    """The env's action (``4 * k + d``, the mover's frame) of one hop from square ``frm``
    to the square ``to`` where it lands (a step's or a jump's landing)."""
    if not mover_is_black:  # the half turn s -> 33 - s puts White's men moving up
        frm, to = 33 - frm, 33 - to
    from_row, from_col = square_row_col(frm)
    to_row, to_col = square_row_col(to)
    direction = (0 if to_row > from_row else 2) + (0 if to_col < from_col else 1)
    return 4 * (frm - 1) + direction


def positions_of_games(games: Iterable[Game]) -> PositionDataset:
    """One row per hop decision of every move of ``games`` (see ``PositionDataset``).

    Each row's observation and mask come from the env's own kernels on the position, and
    each move is replayed hop by hop through the env's ``hop``, so the actions are the
    ones ``Checkers-v0`` accepts.

    Raises:
        ValueError: a move's hops do not replay to the move (a bug, never bad input: the
            games' moves are legal).
    """
    columns: dict[str, list] = {
        name: []
        for name in (
            "observations",
            "action_masks",
            "actions",
            "move_actions",
            "moves",
            "hop_index",
            "side_to_move",
            "results",
            "game_ids",
            "plies",
        )
    }
    state, _, positions, last = core.new_batch(1, 2)
    rules = Rules.without_draws().as_array()
    longest = 1
    for game_id, game in enumerate(games):
        values = _RESULT_VALUE.get(game.result)
        for ply, (board, move) in enumerate(zip(game.boards, game.moves)):
            color = int(board.turn)
            black = board.turn == BLACK
            actions = [hop_action(black, a, b) for a, b in zip(move.path, move.path[1:])]
            longest = max(longest, len(actions))
            core.reset_board(state, positions, last, 0, board.black, board.white, board.kings, color, -1, 1, rules)
            for index, action in enumerate(actions):
                observation = np.empty((core.NUM_PLANES, 8, 8), dtype=np.float32)
                core.write_observation(state, 0, observation)
                mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
                core.write_mask(state, 0, core.mask_words(mask))
                status = core.hop(state, positions, last, 0, action, rules)
                expected = core.HOP_COMPLETES if index == len(actions) - 1 else core.HOP_CONTINUES
                if status != expected or not mask[action]:
                    raise ValueError(f"hop {index} of {move} in {board.fen()} does not replay (action {action})")
                columns["observations"].append(observation.astype(np.uint8))
                columns["action_masks"].append(mask)
                columns["actions"].append(action)
                columns["move_actions"].append(actions)
                columns["moves"].append(move_to_row(move))
                columns["hop_index"].append(index)
                columns["side_to_move"].append(color)
                columns["results"].append(np.nan if values is None else values[color])
                columns["game_ids"].append(game_id)
                columns["plies"].append(ply)
    rows = len(columns["actions"])
    move_actions = np.full((rows, longest), -1, dtype=np.int64)
    for row, actions in enumerate(columns["move_actions"]):
        move_actions[row, : len(actions)] = actions
    return PositionDataset(
        observations=np.array(columns["observations"], dtype=np.uint8).reshape(rows, core.NUM_PLANES, 8, 8),
        action_masks=np.array(columns["action_masks"], dtype=np.int8).reshape(rows, core.NUM_ACTIONS),
        actions=np.array(columns["actions"], dtype=np.int64),
        move_actions=move_actions,
        moves=np.array(columns["moves"], dtype=np.int64).reshape(rows, 5),
        hop_index=np.array(columns["hop_index"], dtype=np.int8),
        side_to_move=np.array(columns["side_to_move"], dtype=np.int8),
        results=np.array(columns["results"], dtype=np.float32),
        game_ids=np.array(columns["game_ids"], dtype=np.int32),
        plies=np.array(columns["plies"], dtype=np.int32),
    )


__all__ = [
    "ACF_GAMES",
    "DatasetSplit",
    "PositionDataset",
    "acf_games",
    "game_dataset",
    "hop_action",
    "positions_of_games",
]
