"""A batch of ``Checkers-v0`` boards stepped by one numba call.

    >>> import gymnasium as gym, checkers_env
    >>> envs = gym.make_vec("Checkers-v0", num_envs=4, vectorization_mode="vector_entry_point")
    >>> obs, infos = envs.reset(seed=0)
    >>> obs.shape, infos["action_mask"].shape
    ((4, 5, 8, 8), (4, 128))

Every board behaves exactly like a single ``Checkers-v0`` env reset with seed ``seed + i``
(same observations, rewards, masks and ends), with the in-kernel opponents ``random`` and
``greedy``: the batch equals Gymnasium's ``SyncVectorEnv`` over ``Checkers-v0`` envs in
each autoreset mode. ``self_play=True`` drops the opponent: each step is one hop by the
side to move, observations are in its frame and rewards are from its point of view, so
one policy plays both colours. ``parallel=True`` steps the boards on numba's threads.

## Autoreset

``autoreset_mode`` is one of Gymnasium's ``AutoresetMode`` (or its value, ``"NextStep"``,
``"SameStep"``, ``"Disabled"``), given as a plain keyword:
``gym.make_vec("Checkers-v0", num_envs=N, autoreset_mode=AutoresetMode.SAME_STEP)``.
Gymnasium 1.x hands a vector entry point its options as keywords and refuses
``vector_kwargs`` there (``gymnasium.error.Error``); ``vector_kwargs={"autoreset_mode": ...}``
is the form of ``vectorization_mode="sync"``, Gymnasium's own loop over single envs.
``metadata["autoreset_mode"]`` tells the mode in use. Finished boards start again inside
the numba step, never in a Python loop.

| mode | a board that ends | `infos` of a step |
|---|---|---|
| `NEXT_STEP` (default) | is reset by the next step, whose action it ignores (reward 0, not done) | `action_mask`, `illegal_action`, `winner` |
| `SAME_STEP` | is reset in the same step: the observation and mask are the new episode's; reward, terminated and truncated are the end's | `action_mask`; where a board ended, `final_obs` (object array, the end's observation per board, `None` elsewhere) and `final_info` (`action_mask`, `illegal_action`, `winner` of the end) |
| `DISABLED` | waits for `reset(options={"reset_mask": mask})`; stepping it before raises `FinishedBoardError` (an `AssertionError`, as `SyncVectorEnv` asserts, and a `ResetNeeded`) | as `NEXT_STEP` |

Each key ``k`` comes with its ``_k`` bool mask, as ``SyncVectorEnv`` builds them: ``_action_mask``
is every board (after a ``reset_mask`` reset, the boards reset, though every row of
``action_mask`` holds its board's mask); ``_illegal_action`` the boards that ended on an
illegal action; ``_winner`` the boards that ended (``winner``: 0 Black, 1 White, -1 draw).
``reset(options={"reset_mask": mask})`` (a numpy bool array, one per board, at least one
True) resets only those boards, in every mode; the others keep their game and their
observation. Gymnasium's ``SyncVectorEnv`` raises ``TypeError`` for a mask of the wrong
type or dtype; this env raises ``ValueError`` for every bad mask, naming ``reset_mask``.

## Torch tensors without copies

``device="torch"`` returns observations, rewards, terminated, truncated and every array of
``infos`` as CPU torch tensors on the very memory the kernel wrote (``torch.from_numpy``:
no copy), ``final_obs`` as an object array of such tensors, and ``action_masks()`` as a bool
tensor over the masks the kernel wrote in the last step or reset. ``step`` takes the
actions as an int64 tensor (or anything numpy reads) without copying them. Each step
writes new arrays, so nothing returned is overwritten later. Gymnasium's
``gymnasium.wrappers.vector.NumpyToTorch`` (which needs ``array-api-compat``) works on the
numpy env too, also without copies, except in ``SAME_STEP`` mode: it cannot convert
``final_obs`` (an object array), whether the batch is this env or ``SyncVectorEnv``.

## Version History

* v0: initial release, ``NEXT_STEP`` autoreset only.
* v0, later: the three autoreset modes, ``reset_mask`` and ``device="torch"``;
  ``_illegal_action`` marks the boards that ended on an illegal action, as
  ``SyncVectorEnv`` does (it marked every finished board). Observations, rewards and ends
  are unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import batch_step as batch
from . import env_machine as core
from .agent import Agent, make_agent
from .baselines import OPPONENT_EXTERNAL, OPPONENT_NONE
from .board import Board, Color
from .env import (
    COLOR_MODES,
    RESET_OPTIONS,
    REWARD_MODES,
    check_env_arguments,
    check_reset_options,
    opponent_kind,
    resolve_max_plies,
)
from .errors import IllegalMoveError, missing_dependency
from .game import Rules
from .game_state import END_ILLEGAL, END_NONE

#: The batch kernel's code of each of Gymnasium's autoreset modes.
AUTORESET_CODES = {
    AutoresetMode.NEXT_STEP: batch.AUTORESET_NEXT_STEP,
    AutoresetMode.SAME_STEP: batch.AUTORESET_SAME_STEP,
    AutoresetMode.DISABLED: batch.AUTORESET_DISABLED,
}
#: What ``reset(options=...)`` of the vector env accepts.
VECTOR_RESET_OPTIONS = {
    **RESET_OPTIONS,
    "reset_mask": "a numpy bool array, one per board: reset only those boards",
}
DEVICES = ("numpy", "torch")


class FinishedBoardError(ResetNeeded, AssertionError):
    """A finished board was stepped with autoreset ``DISABLED``: reset it first
    (``reset(options={"reset_mask": ...})``). An ``AssertionError`` too, which is what
    Gymnasium's ``SyncVectorEnv`` raises in that case."""


class CheckersVectorEnv(VectorEnv):
    """``num_envs`` checkers boards in one numba kernel (see the module docstring).

    Args:
        num_envs: number of boards.
        opponent: ``"random"`` (default) or ``"greedy"`` (they run inside the kernel).
        agent_color: ``"black"`` (default), ``"white"`` or ``"random"``, as for ``Checkers-v0``.
        reward, rules, max_plies: as for ``Checkers-v0``.
        self_play: one policy plays both sides (see above); it takes neither ``opponent``
            nor ``agent_color``, and giving either with it is a ``ValueError``.
        illegal_action: ``"terminate"`` (reward -1 and the episode ends) or ``"raise"``.
        render_mode: ``"ansi"`` or ``"rgb_array"`` (board 0 is rendered; before the first
            ``reset()``, ``render()`` raises ``gymnasium.error.ResetNeeded``).
        parallel: step the boards on numba's threads (``NUMBA_NUM_THREADS``), for large
            batches on a machine with idle cores. Results are the same either way. Off by
            default: where the cores are shared with other work, a parallel step waits
            until every thread has been scheduled and can be several times slower.
        autoreset_mode: a ``gymnasium.vector.AutoresetMode`` or its value (default
            ``NEXT_STEP``; see the module docstring).
        device: ``"numpy"`` (default) or ``"torch"``: CPU torch tensors on the kernel's
            own arrays (needs torch).

    Raises:
        ValueError: a bad argument, named in the message.
        MissingDependencyError: ``device="torch"`` without torch installed.
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array"],
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_envs: int = 1,
        opponent: str | Agent | None = None,
        agent_color: str | None = None,
        reward: str = "win_loss",
        rules: Rules | None = None,
        max_plies: int | None = None,
        self_play: bool = False,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        parallel: bool = False,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        device: str = "numpy",
    ):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if self_play and (opponent is not None or agent_color is not None):
            given = ", ".join(
                f"{name}={value!r}"
                for name, value in (("opponent", opponent), ("agent_color", agent_color))
                if value is not None
            )
            raise ValueError(
                f"self_play=True plays one policy against itself on both sides, so it takes no "
                f"opponent or agent_color: drop {given}, or drop self_play=True"
            )
        opponent = "random" if opponent is None else opponent
        agent_color = "black" if agent_color is None else agent_color
        check_env_arguments(agent_color, reward, illegal_action, render_mode, self.metadata["render_modes"])
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        if device not in DEVICES:
            raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
        self.device = device
        self._torch = _import_torch() if device == "torch" else None
        self.num_envs = int(num_envs)
        self.rules = rules if rules is not None else Rules()
        self.max_plies = resolve_max_plies(self.rules, max_plies)
        self.self_play = bool(self_play)
        if self.self_play:
            self._kind = OPPONENT_NONE
            self._color_mode = -1
        else:
            self.opponent = make_agent(opponent)
            self._kind = opponent_kind(self.opponent)
            if self._kind == OPPONENT_EXTERNAL:
                raise ValueError(
                    f"the vector env runs its opponent inside numba: use 'random' or 'greedy' "
                    f"(or self_play=True), not {opponent!r}; the single env takes any agent"
                )
            self._color_mode = COLOR_MODES[agent_color]
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.render_mode = render_mode

        self.single_observation_space = spaces.Box(0.0, 1.0, (core.NUM_PLANES, 8, 8), dtype=np.float32)
        self.single_action_space = spaces.Discrete(core.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        self._rules = self.rules.as_array(self.max_plies)
        # No last-move records: nothing here reads them.
        self._state, self._moves, self._positions, self._last = core.new_batch(
            self.num_envs, core.history_for(self._rules), last_moves=0
        )
        start = Board()
        self._start = np.array([start.black, start.white, start.kings, int(start.turn)], dtype=np.int64)
        self._masks = np.zeros((self.num_envs, core.NUM_ACTIONS), dtype=np.int8)  # the latest the kernel wrote
        self._no_finals = np.empty((0, core.NUM_PLANES, 8, 8), dtype=np.float32)
        self._episode = None  # the batch step's settings (``batch_step.episode_settings``)
        self._started = False
        self.parallel = parallel

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Reset the boards. ``seed`` (an int: board ``i`` gets ``seed + i``, or one seed
        per board) makes board ``i`` match ``Checkers-v0`` reset with that seed.

        Args:
            seed: as above; ``None`` keeps each board's random stream (after the first reset).
            options: ``{"fen": ...}`` starts the boards from a position, and so do their
                later autoresets (in ``SyncVectorEnv`` each env's later episodes start from
                the usual position); ``{"reset_mask": mask}`` resets only the boards where the
                numpy bool array ``mask`` is True (the others keep their game).

        Returns:
            ``(observations, infos)`` (tensors with ``device="torch"``).

        Raises:
            ValueError: an unknown option key, a bad ``reset_mask`` or a wrong number of seeds.
        """
        boards = self._boards_to_reset(options)
        if options is not None and boards is not None:
            options = {key: value for key, value in options.items() if key != "reset_mask"}
        chosen = check_reset_options(options, VECTOR_RESET_OPTIONS)
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"expected {self.num_envs} seeds, got {len(seeds)}")
        if seed is not None or not self._started:
            board_seeds = np.array([seeding.np_random(s)[0].integers(1, 2**62) for s in seeds], dtype=np.int64)
        else:
            board_seeds = np.zeros(self.num_envs, dtype=np.int64)  # keep each board's stream
        if "fen" in chosen:
            start = Board.from_fen(chosen["fen"])
            self._start = np.array([start.black, start.white, start.kings, int(start.turn)], dtype=np.int64)
            self._episode = None
        every_board = boards is None
        if boards is None:
            boards = np.ones(self.num_envs, dtype=np.bool_)
        observations = np.empty((self.num_envs, core.NUM_PLANES, 8, 8), dtype=np.float32)
        masks = np.empty((self.num_envs, core.NUM_ACTIONS), dtype=np.int8)
        batch.vector_reset(
            self._state,
            self._moves,
            self._positions,
            self._last,
            boards,
            board_seeds,
            self._start,
            self._color_mode,
            self._kind,
            self._rules,
            observations,
            core.mask_words(masks),
        )
        self._masks = masks
        self._started = True
        infos = {"action_mask": masks, "_action_mask": boards if every_board else boards.copy()}
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            no_end = np.full((batch.ENDS_FIELDS, self.num_envs), -1, dtype=np.int8)
            no_end[batch.ENDS_CODE] = END_NONE
            infos.update(_end_infos(no_end))
        return self._out(observations), self._out(infos)

    def step(self, actions):
        """Play one hop on every board (see the module docstring for autoresets).

        Args:
            actions: ``num_envs`` integers in ``[0, 128)`` (a numpy array, a list, or a CPU
                torch tensor).

        Returns:
            ``(observations, rewards, terminated, truncated, infos)``.

        Raises:
            ValueError: actions of the wrong shape or type, or outside ``Discrete(128)``.
            RuntimeError: before the first ``reset()``.
            FinishedBoardError: autoreset ``DISABLED`` and a finished board not reset.
            IllegalMoveError: an illegal action with ``illegal_action="raise"``.
        """
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got {actions.dtype} {actions.shape}")
        if ((actions < 0) | (actions >= core.NUM_ACTIONS)).any():
            raise ValueError(f"actions outside Discrete(128): {actions[(actions < 0) | (actions >= 128)]}")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = actions.astype(np.int64, copy=False)
        live = self._state[:, core.S_END] == END_NONE
        if self.autoreset_mode == AutoresetMode.DISABLED and not live.all():
            finished = np.flatnonzero(~live)
            raise FinishedBoardError(
                f"boards {finished.tolist()} have finished and autoreset_mode is DISABLED: reset them "
                f"with reset(options={{'reset_mask': mask}}) before the next step"
            )
        if self.illegal_action == "raise":
            bad = live & (self._masks[np.arange(self.num_envs), actions] == 0)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise IllegalMoveError(
                    f"illegal action {int(actions[i])} on board {i}; legal actions: "
                    + ", ".join(str(a) for a in np.flatnonzero(self._masks[i]))
                )
        n = self.num_envs
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        # Fresh outputs every step (the kernel writes every element): nothing returned is
        # shared with the env or with an earlier step, and no copy is needed.
        observations = np.empty((n, core.NUM_PLANES, 8, 8), dtype=np.float32)
        masks = np.empty((n, core.NUM_ACTIONS), dtype=np.int8)
        rewards = np.empty(n, dtype=np.float64)
        ends = np.empty((batch.ENDS_FIELDS, n), dtype=np.int8)
        # Untouched pages cost nothing: only the rows of boards that end are written.
        finals = np.empty_like(observations) if same_step else self._no_finals
        if self._episode is None:  # made again after a reset to another start position
            self._episode = batch.episode_settings(
                self._start,
                self._color_mode,
                self._kind,
                REWARD_MODES[self.reward_mode],
                autoreset=AUTORESET_CODES[self.autoreset_mode],
            )
        arguments = (
            self._state,
            self._moves,
            self._positions,
            self._last,
            actions,
            self._episode,
            self._rules,
            observations,
            core.mask_words(masks),
            rewards,
            ends,
            finals,
        )
        if self.parallel:
            batch.vector_step(*arguments)
        else:
            threads = numba.get_num_threads()
            numba.set_num_threads(1)  # for this calling thread only
            try:
                batch.vector_step(*arguments)
            finally:
                numba.set_num_threads(threads)
        self._masks = masks
        code = ends[batch.ENDS_CODE]
        terminated = ends[batch.ENDS_TERMINATED].view(np.bool_)  # the kernel's 0 and 1, no copy
        truncated = ends[batch.ENDS_TRUNCATED].view(np.bool_)
        infos = {"action_mask": masks, "_action_mask": np.ones(n, dtype=np.bool_)}
        if not same_step:
            infos.update(_end_infos(ends))
        elif (code != END_NONE).any():
            infos.update(_final_infos(ends, finals))
        return (
            self._out(observations),
            self._out(rewards),
            self._out(terminated),
            self._out(truncated),
            self._out(infos),
        )

    def action_masks(self):
        """``bool (num_envs, 128)``: the legal actions of every board (with
        ``device="torch"``, a tensor on the masks the kernel wrote in the last step or reset,
        the same memory as ``infos["action_mask"]``)."""
        if self._torch is not None:
            return self._torch.from_numpy(self._masks.view(np.bool_))
        return self._masks.astype(bool)

    def _boards_to_reset(self, options) -> np.ndarray | None:
        """``options["reset_mask"]`` checked, or ``None`` when there is none."""
        if not isinstance(options, Mapping) or "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        if self._torch is not None and isinstance(mask, self._torch.Tensor):
            mask = mask.numpy()
        expected = f"a numpy bool array of shape ({self.num_envs},)"
        if not isinstance(mask, np.ndarray):
            raise ValueError(f"reset_mask must be {expected}, got {type(mask).__name__} {mask!r}")
        if mask.dtype != np.bool_:
            raise ValueError(f"reset_mask must be {expected}, got dtype {mask.dtype}")
        if mask.shape != (self.num_envs,):
            raise ValueError(f"reset_mask must be {expected}, got shape {mask.shape}")
        if not mask.any():
            raise ValueError("reset_mask resets no board: it needs at least one True")
        if not self._started:
            raise ValueError("reset_mask resets some boards of a batch under way: the first reset() resets them all")
        return mask

    def _out(self, value):
        """``value`` as returned: numpy, or torch tensors on the same memory."""
        return value if self._torch is None else _as_tensors(self._torch, value)

    def board(self, i: int) -> Board:
        """The position of board ``i``."""
        s = self._state[i]
        return Board(int(s[core.S_BLACK]), int(s[core.S_WHITE]), int(s[core.S_KINGS]), Color(int(s[core.S_TURN])))

    def render(self):
        from .rendering import board_image, require_reset

        require_reset(self._started)
        if self.render_mode == "ansi":
            return str(self.board(0))
        if self.render_mode == "rgb_array":
            return board_image(self.board(0))
        return None


def _autoreset_mode(value) -> AutoresetMode:
    try:
        return AutoresetMode(value)
    except (ValueError, TypeError):
        accepted = ", ".join(f"AutoresetMode.{mode.name} ({mode.value!r})" for mode in AutoresetMode)
        raise ValueError(f"autoreset_mode must be one of {accepted}, got {value!r}") from None


def _end_infos(ends: np.ndarray) -> dict[str, np.ndarray]:
    """``illegal_action`` and ``winner`` with their masks, from the step's ``ends``."""
    code = ends[batch.ENDS_CODE]
    illegal = code == END_ILLEGAL
    return {
        "illegal_action": illegal,
        "_illegal_action": illegal.copy(),
        "winner": ends[batch.ENDS_WINNER].astype(np.int64),
        "_winner": code != END_NONE,
    }


def _final_infos(ends: np.ndarray, finals: np.ndarray) -> dict[str, Any]:
    """``SAME_STEP``'s ``final_obs`` and ``final_info`` of the boards that ended, built as
    ``SyncVectorEnv`` builds them: one observation per finished board in an object array,
    and the end's infos (a finished board has no legal action) under their masks."""
    ended = ends[batch.ENDS_CODE] != END_NONE
    final_obs = np.full(len(ended), None, dtype=object)
    for i in np.flatnonzero(ended):
        final_obs[i] = finals[i]
    final_info = {
        "action_mask": np.zeros((len(ended), core.NUM_ACTIONS), dtype=np.int8),
        "_action_mask": ended.copy(),
        **_end_infos(ends),
    }
    return {"final_obs": final_obs, "_final_obs": ended, "final_info": final_info, "_final_info": ended.copy()}


def _import_torch():
    try:
        import torch
    except ModuleNotFoundError as error:
        raise missing_dependency(error, 'CheckersVectorEnv(device="torch")') or error from None
    return torch


def _as_tensors(torch, value):
    """Every numeric array in ``value`` (an array or a dict of them, nested) as a torch
    tensor on the same memory; an object array (``final_obs``) keeps its shape, holding
    tensors."""
    if isinstance(value, dict):
        return {key: _as_tensors(torch, item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return torch.from_numpy(value)
        tensors = np.full(value.shape, None, dtype=object)
        for i, item in enumerate(value):
            if item is not None:
                tensors[i] = torch.from_numpy(item)
        return tensors
    return value
