"""A batch of ``Checkers-v0`` boards stepped by one numba call.

    >>> import gymnasium as gym, checkers_env
    >>> envs = gym.make_vec("Checkers-v0", num_envs=4, vectorization_mode="vector_entry_point")
    >>> obs, infos = envs.reset(seed=0)
    >>> obs.shape, infos["action_mask"].shape
    ((4, 5, 8, 8), (4, 128))

Every board behaves exactly like a single ``Checkers-v0`` env reset with seed ``seed + i``
(same observations, rewards, masks and ends), with the in-kernel opponents ``random`` and
``greedy``. ``self_play=True`` drops the opponent: each step is one hop by the side to
move, observations are in its frame and rewards are from its point of view, so one
policy plays both colours. Episodes reset on the step after they end (Gymnasium's
``NEXT_STEP`` autoreset: that step's action is ignored). ``parallel=True`` steps the
boards on numba's threads.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import env_machine as core
from . import batch_step as batch
from .agent import Agent, make_agent
from .board import Board, Color
from .env import (
    COLOR_MODES, REWARD_MODES, check_env_arguments, check_reset_options, opponent_kind, resolve_max_plies,
)
from .errors import IllegalMoveError
from .game import Rules
from .baselines import OPPONENT_EXTERNAL, OPPONENT_NONE


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
    ):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if self_play and (opponent is not None or agent_color is not None):
            given = ", ".join(f"{name}={value!r}" for name, value in
                              (("opponent", opponent), ("agent_color", agent_color)) if value is not None)
            raise ValueError(
                f"self_play=True plays one policy against itself on both sides, so it takes no "
                f"opponent or agent_color: drop {given}, or drop self_play=True"
            )
        opponent = "random" if opponent is None else opponent
        agent_color = "black" if agent_color is None else agent_color
        check_env_arguments(agent_color, reward, illegal_action, render_mode, self.metadata["render_modes"])
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
        n = self.num_envs
        self._masks = np.zeros((n, core.NUM_ACTIONS), dtype=np.int8)
        self._mask_words = core.mask_words(self._masks)  # what the kernels write through
        self._episode = None  # the batch step's settings (``batch_step.episode_settings``)
        self._started = False
        self.parallel = parallel

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Reset every board. ``seed`` (an int: board ``i`` gets ``seed + i``, or one seed
        per board) makes board ``i`` match ``Checkers-v0`` reset with that seed.
        ``options={"fen": ...}`` starts all boards from a position (the only option: any
        other key, such as Gymnasium's ``reset_mask``, raises ``ValueError``)."""
        options = check_reset_options(options)
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"expected {self.num_envs} seeds, got {len(seeds)}")
        if seed is not None or not self._started:
            board_seeds = np.array(
                [seeding.np_random(s)[0].integers(1, 2**62) for s in seeds], dtype=np.int64
            )
        else:
            board_seeds = np.zeros(self.num_envs, dtype=np.int64)  # keep each board's stream
        if "fen" in options:
            start = Board.from_fen(options["fen"])
            self._start = np.array([start.black, start.white, start.kings, int(start.turn)], dtype=np.int64)
            self._episode = None
        observations = np.empty((self.num_envs, core.NUM_PLANES, 8, 8), dtype=np.float32)
        batch.vector_reset(
            self._state, self._moves, self._positions, self._last, board_seeds, self._start,
            self._color_mode, self._kind, self._rules, observations, self._mask_words,
        )
        self._started = True
        return observations, self._infos()

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got {actions.dtype} {actions.shape}")
        if ((actions < 0) | (actions >= core.NUM_ACTIONS)).any():
            raise ValueError(f"actions outside Discrete(128): {actions[(actions < 0) | (actions >= 128)]}")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = actions.astype(np.int64, copy=False)
        if self.illegal_action == "raise":
            live = self._state[:, core.S_END] == core.END_NONE
            bad = live & (self._masks[np.arange(self.num_envs), actions] == 0)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise IllegalMoveError(
                    f"illegal action {int(actions[i])} on board {i}; legal actions: "
                    + ", ".join(str(a) for a in np.flatnonzero(self._masks[i]))
                )
        n = self.num_envs
        # Fresh outputs every step (the kernel writes every element): nothing returned is
        # shared with the env or with an earlier step, and no copy is needed.
        observations = np.empty((n, core.NUM_PLANES, 8, 8), dtype=np.float32)
        rewards = np.empty(n, dtype=np.float64)
        terminated = np.empty(n, dtype=np.bool_)
        truncated = np.empty(n, dtype=np.bool_)
        if self._episode is None:  # made again after a reset to another start position
            self._episode = batch.episode_settings(
                self._start, self._color_mode, self._kind, REWARD_MODES[self.reward_mode]
            )
        episode = self._episode
        arguments = (
            self._state, self._moves, self._positions, self._last, actions, episode, self._rules,
            observations, self._mask_words, rewards, terminated, truncated,
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
        return observations, rewards, terminated, truncated, self._infos()

    def action_masks(self) -> np.ndarray:
        """``bool (num_envs, 128)``: the legal actions of every board."""
        return self._masks.astype(bool)

    def _infos(self) -> dict[str, Any]:
        ended = self._state[:, core.S_END]
        winners = self._state[:, core.S_WINNER]
        return {
            "action_mask": self._masks.copy(),
            "_action_mask": np.ones(self.num_envs, dtype=np.bool_),
            "illegal_action": ended == core.END_ILLEGAL,
            "_illegal_action": ended != core.END_NONE,
            "winner": np.where(ended != core.END_NONE, winners, -1),
            "_winner": ended != core.END_NONE,
        }

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
