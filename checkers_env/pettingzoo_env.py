"""# Checkers (PettingZoo AEC and parallel)

| | |
|---|---|
| Import | `from checkers_env import pettingzoo_env; env = pettingzoo_env.env()` |
| Parallel import | `pettingzoo_env.parallel_env()` |
| Actions | Discrete |
| Parallel API | Yes (`parallel_env()`, turn-based: see below) |
| Manual Control | No |
| Agents | `agents= ['player_0', 'player_1']` (Black, White) |
| Agents | 2 |
| Action Shape | (1,) |
| Action Values | Discrete(128) |
| Observation Shape | (5, 8, 8) |
| Observation Values | [0, 1] |

English draughts (American checkers) for two learners. `player_0` plays Black and moves
first, `player_1` plays White. Rules, action encoding and observation planes are those of
`Checkers-v0` (see `checkers_env.env`): one hop per action in the mover's frame,
`action = 4 * k + d`; during a multi-jump `agent_selection` stays on the same agent.

### Observation Space

A dict: `observation` is `float32 (5, 8, 8)` planes in the observing agent's own frame
(its men, its kings, the opponent's men, the opponent's kings, the piece that must
continue a capture); `action_mask` is `int8 (128,)`, all zeros for the agent not on move.

### Rewards

+1 to the winner and -1 to the loser when a side has no legal move; 0 to both for a draw
(threefold repetition, 80 plies without progress) or a truncated game (`max_plies`).
With `reward="material"` each completed move also earns its mover the material term
`0.1 * ln(m_after / m_before)` of `Checkers-v0` (`m`: the mover's material over the
opponent's). An illegal move (through `env()`) ends the game with -1
for the offender.

### Arguments

`env(render_mode=None, rules=Rules(), max_plies=None, reward="win_loss")`.
`reset(seed=None, options={"fen": "B:W18,24:B14,K3"})` starts from a position. Any other
option key gets a warning naming it and is ignored (a warning rather than an error, since
PettingZoo's `api_test` passes such a key; the Gymnasium envs raise). `render()` before
the first `reset()` raises `gymnasium.error.ResetNeeded` (through `env()`, PettingZoo's
order-enforcing wrapper stops it first).

### Parallel API

`parallel_env(**same arguments)` plays the same game through PettingZoo's parallel API,
for libraries that expect it (`aec_to_parallel` cannot convert the AEC env: during a
multi-jump the same agent moves twice in a row). Checkers stays turn-based, as in
PettingZoo's own `turn_based_aec_to_parallel`: every step takes a dict with an action for
each live agent, only the action of the agent on move is played, and the other agent's is
ignored (give it any no-op, such as 0 or `None`, or leave it out). Its all-zero
`action_mask` says that it has no move, and every info names the agent to move next as
`active_agent` (`None` once the game is over). Rewards, terminations and truncations come
for both agents each step, and `agents` empties when the game ends. An illegal action by
the agent on move ends the game with -1 for it and 0 for the other (as `env()`), with
`info["illegal_action"] = True`.

### Version History

* v0: initial release.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from . import env_machine as core
from .baselines import OPPONENT_NONE
from .board import Board, Move, move_from_row
from .env import REWARD_MODES, board_of_row, check_action, resolve_max_plies, unknown_reset_option
from .game import Rules
from .rendering import RenderMixin


def env(**kwargs):
    """The raw env in PettingZoo's classic wrapper chain (illegal move: -1 and game over)."""
    aec = raw_env(**kwargs)
    aec = wrappers.TerminateIllegalWrapper(aec, illegal_reward=-1)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    aec = wrappers.OrderEnforcingWrapper(aec)
    return aec


def parallel_env(**kwargs):
    """The game in PettingZoo's parallel API (see "Parallel API" in the module docstring);
    same arguments as ``env()``."""
    return ParallelCheckersEnv(**kwargs)


class _TwoPlayerBoard(RenderMixin):
    """What the AEC and the parallel env share: arguments, spaces, the kernel's state of one
    board, observations, and one hop by the agent on move."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "checkers_v0",
        "is_parallelizable": False,  # for aec_to_parallel: multi-jumps break its agent cycle
        "render_fps": 2,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        rules: Rules | None = None,
        max_plies: int | None = None,
        reward: str = "win_loss",
    ):
        super().__init__()  # the PettingZoo base class's
        self._setup(render_mode, rules, max_plies, reward)

    def _setup(self, render_mode, rules, max_plies, reward) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {sorted(REWARD_MODES)}, got {reward!r}")
        self.render_mode = render_mode
        self.rules = rules if rules is not None else Rules()
        self.max_plies = resolve_max_plies(self.rules, max_plies)
        self.reward_mode = reward
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        observation = spaces.Box(0.0, 1.0, (core.NUM_PLANES, 8, 8), dtype=np.float32)
        mask = spaces.Box(0, 1, (core.NUM_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(core.NUM_ACTIONS) for a in self.possible_agents}
        self._rules = self.rules.as_array(self.max_plies)
        self._state, self._moves, self._positions, self._last = core.new_batch(1, core.history_for(self._rules))
        self._history: list[Move] = []
        self._renderer = None

    def observation_space(self, agent):
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._known(agent)]

    def _known(self, agent):
        """``agent``, or a ``ValueError`` naming it and the env's agents."""
        if agent not in self.possible_agents:
            black, white = self.possible_agents
            raise ValueError(f"unknown agent {agent!r}; this env's agents are {black!r} (Black) and {white!r} (White)")
        return agent

    def _observation(self, agent, on_move: bool) -> dict:
        """``agent``'s planes in its own frame and its mask (all zeros unless ``on_move``)."""
        color = self.possible_agents.index(self._known(agent))
        observation = np.zeros((core.NUM_PLANES, 8, 8), dtype=np.float32)
        core.write_observation_for(self._state, 0, color, observation)
        mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
        if on_move:
            core.write_mask(self._state, 0, core.mask_words(mask))
        return {"observation": observation, "action_mask": mask}

    def _start(self, seed, options) -> str:
        """Set up a new game (``options``: see the module docstring); the agent to move."""
        problem = unknown_reset_option(options)
        if problem is not None:
            # A warning, not an error: PettingZoo's own api_test probes the signature with
            # options={"options": 1}, and every PettingZoo env must pass it.
            warnings.warn(problem + " (ignored)", UserWarning, stacklevel=3)
            options = (
                {key: value for key, value in options.items() if key == "fen"} if isinstance(options, Mapping) else None
            )
        if seed is not None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        start = Board.from_fen(options["fen"]) if options and "fen" in options else Board()
        end = core.reset_to(self._state, self._positions, self._last, 0, start, -1, 1, self._rules)
        if end != core.END_NONE:
            raise ValueError(f"the start position {start.fen()} is already decided")
        # Remember the start's material (the material reward of the first move), as the
        # Gymnasium envs do; without it the first move was scored against the last game's.
        core.start_turns(self._state, self._moves, self._positions, self._last, 0, OPPONENT_NONE, self._rules)
        self.agents = self.possible_agents[:]
        self._history = []
        self._has_reset = True
        return self.possible_agents[int(start.turn)]

    def _hop(self, agent, action) -> tuple[dict, int, bool]:
        """Play ``action`` for ``agent`` (on move): ``(rewards of both agents, end code,
        whether the action was illegal)``. An illegal action ends the game (-1 for the
        offender, +1 for the other); a decided game gives +1 / -1; otherwise the mover gets
        the material term (0 for ``win_loss``)."""
        mover = self.possible_agents.index(agent)
        self._state[0, core.S_LAST_COUNT] = 0
        reward, status = core.step_board(
            self._state,
            self._moves,
            self._positions,
            self._last,
            0,
            action,
            OPPONENT_NONE,
            REWARD_MODES[self.reward_mode],
            self._rules,
        )
        end = int(self._state[0, core.S_END])
        for j in range(int(self._state[0, core.S_LAST_COUNT])):
            self._history.append(move_from_row(self._last[0, j]))
        rewards: dict[str, float] = dict.fromkeys(self.possible_agents, 0)
        illegal = status == core.HOP_ILLEGAL
        if illegal:
            rewards[agent] = -1
            rewards[self.possible_agents[1 - mover]] = 1
        elif end == core.END_MAX_PLIES:
            rewards[agent] = float(reward)  # the last move's material term (0 for win_loss)
        elif end != core.END_NONE:
            winner = int(self._state[0, core.S_WINNER])
            if winner >= 0:
                rewards[self.possible_agents[winner]] = 1
                rewards[self.possible_agents[1 - winner]] = -1
        else:
            rewards[agent] = float(reward)
        return rewards, end, illegal

    def _to_move(self) -> str:
        return self.possible_agents[int(self._state[0, core.S_TURN])]

    @property
    def board(self) -> Board:
        """The position now (during a multi-jump: before the move in progress)."""
        return board_of_row(self._state[0])

    @property
    def moves(self) -> list[Move]:
        return list(self._history)


class raw_env(_TwoPlayerBoard, AECEnv):
    __doc__ = __doc__

    def observe(self, agent):
        return self._observation(agent, agent == self.agent_selection)

    def reset(self, seed=None, options=None):
        self.agent_selection = self._start(seed, options)
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = check_action(action)
        rewards, end, illegal = self._hop(agent, action)
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: rewards[a] for a in self.agents}
        if end == core.END_MAX_PLIES:
            self.truncations = dict.fromkeys(self.agents, True)
        elif end != core.END_NONE:  # decided, drawn, or the illegal action (reached only without env()'s wrapper)
            self.terminations = dict.fromkeys(self.agents, True)
        if end == core.END_NONE:
            self.agent_selection = self._to_move()
        for a in self.agents:
            self.infos[a] = {"termination": core.END_NAMES[end] or None}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


class ParallelCheckersEnv(_TwoPlayerBoard, ParallelEnv):
    """Checkers in PettingZoo's parallel API, turn-based (see "Parallel API" in the module
    docstring); build it with ``parallel_env()``."""

    #: The agent on move (None once the game is over).
    _on_move: str | None = None

    def reset(self, seed=None, options=None):
        self._on_move = self._start(seed, options)
        infos = {a: {"active_agent": self._on_move} for a in self.agents}
        return self._observations(), infos

    def step(self, actions):
        if not self._has_reset or not self.agents:
            raise ResetNeeded(
                "the game is over: call reset() before step()" if self._has_reset else "call reset() before step()"
            )
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict {{agent: action}}, got {type(actions).__name__}")
        for agent in actions:
            self._known(agent)
        agent = self._on_move
        assert agent is not None  # someone is on move while the game goes on
        if actions.get(agent) is None:
            raise ValueError(
                f"{agent!r} is on move and needs an action (its action_mask marks the legal ones); "
                f"the other agent's action is ignored"
            )
        rewards, end, illegal = self._hop(agent, check_action(actions[agent]))
        if illegal:
            rewards = {a: (-1 if a == agent else 0) for a in self.agents}  # as env()'s wrapper
        over = end != core.END_NONE
        self._on_move = None if over else self._to_move()
        terminations = dict.fromkeys(self.agents, over and end != core.END_MAX_PLIES)
        truncations = dict.fromkeys(self.agents, end == core.END_MAX_PLIES)
        infos: dict[str, dict[str, Any]] = {
            a: {"termination": core.END_NAMES[end] or None, "active_agent": self._on_move} for a in self.agents
        }
        if illegal:
            infos[agent]["illegal_action"] = True
        observations = self._observations()
        rewards = {a: rewards[a] for a in self.agents}
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict:
        return {a: self._observation(a, a == self._on_move) for a in self.agents}
