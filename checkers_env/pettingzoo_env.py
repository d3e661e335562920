"""# Checkers (PettingZoo AEC)

| | |
|---|---|
| Import | `from checkers_env import pettingzoo_env; env = pettingzoo_env.env()` |
| Actions | Discrete |
| Parallel API | No |
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
With `reward="material"` each completed move also earns its mover the seed-000 term
`0.1 * ln(m_after / m_before)`. An illegal move (through `env()`) ends the game with -1
for the offender.

### Arguments

`env(render_mode=None, rules=Rules(), max_plies=None, reward="win_loss")`.
`reset(seed=None, options={"fen": "B:W18,24:B14,K3"})` starts from a position. Any other
option key gets a warning naming it and is ignored (a warning rather than an error, since
PettingZoo's `api_test` passes such a key; the Gymnasium envs raise). `render()` before
the first `reset()` raises `gymnasium.error.ResetNeeded` (through `env()`, PettingZoo's
order-enforcing wrapper stops it first).

### Version History

* v0: initial release.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import env_kernels as core
from .board import Board, Color, move_from_row
from .env import REWARD_MODES, check_action, resolve_max_plies, unknown_reset_option
from .game import Rules
from .baselines import OPPONENT_NONE
from .rendering import RenderMixin


def env(**kwargs):
    """The raw env in PettingZoo's classic wrapper chain (illegal move: -1 and game over)."""
    aec = raw_env(**kwargs)
    aec = wrappers.TerminateIllegalWrapper(aec, illegal_reward=-1)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    aec = wrappers.OrderEnforcingWrapper(aec)
    return aec


class raw_env(RenderMixin, AECEnv):
    __doc__ = __doc__

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "checkers_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        rules: Rules | None = None,
        max_plies: int | None = None,
        reward: str = "win_loss",
    ):
        super().__init__()
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
        self._history = []
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

    def observe(self, agent):
        color = self.possible_agents.index(self._known(agent))
        observation = np.zeros((core.NUM_PLANES, 8, 8), dtype=np.float32)
        core.write_observation_for(self._state, 0, color, observation)
        mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
        if agent == self.agent_selection:
            core.write_mask(self._state, 0, core.mask_words(mask))
        return {"observation": observation, "action_mask": mask}

    def reset(self, seed=None, options=None):
        problem = unknown_reset_option(options)
        if problem is not None:
            # A warning, not an error: PettingZoo's own api_test probes the signature with
            # options={"options": 1}, and every PettingZoo env must pass it.
            warnings.warn(problem + " (ignored)", UserWarning, stacklevel=2)
            options = {key: value for key, value in options.items() if key == "fen"} if isinstance(options, Mapping) else None
        if seed is not None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        start = Board.from_fen(options["fen"]) if options and "fen" in options else Board()
        end = core.reset_board(
            self._state, self._positions, self._last, 0,
            start.black, start.white, start.kings, int(start.turn), -1, 1, self._rules,
        )
        if end != core.END_NONE:
            raise ValueError(f"the start position {start.fen()} is already decided")
        # Remember the start's material (the material reward of the first move), as the
        # Gymnasium envs do; without it the first move was scored against the last game's.
        core.start_turns(self._state, self._moves, self._positions, self._last, 0, OPPONENT_NONE, self._rules)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._history = []
        self.agent_selection = self.possible_agents[int(start.turn)]
        self._has_reset = True

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = check_action(action)
        mover = self.possible_agents.index(agent)
        self._state[0, core.S_LAST_COUNT] = 0
        reward, status = core.step_board(
            self._state, self._moves, self._positions, self._last, 0, action,
            OPPONENT_NONE, REWARD_MODES[self.reward_mode], self._rules,
        )
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        end = int(self._state[0, core.S_END])
        for j in range(int(self._state[0, core.S_LAST_COUNT])):
            self._history.append(move_from_row(self._last[0, j]))
        if status == core.HOP_ILLEGAL:
            # Reached only without TerminateIllegalWrapper: the offender loses.
            self.rewards[agent] = -1
            self.rewards[self.possible_agents[1 - mover]] = 1
            self.terminations = dict.fromkeys(self.agents, True)
        elif end == core.END_MAX_PLIES:
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards[agent] = float(reward)  # the last move's material term (0 for win_loss)
        elif end != core.END_NONE:
            winner = int(self._state[0, core.S_WINNER])
            if winner >= 0:
                self.rewards[self.possible_agents[winner]] = 1
                self.rewards[self.possible_agents[1 - winner]] = -1
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.rewards[agent] = float(reward)
        if end == core.END_NONE:
            self.agent_selection = self.possible_agents[int(self._state[0, core.S_TURN])]
        for a in self.agents:
            self.infos[a] = {"termination": core.END_NAMES[end] or None}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    @property
    def board(self) -> Board:
        s = self._state[0]
        return Board(int(s[core.S_BLACK]), int(s[core.S_WHITE]), int(s[core.S_KINGS]), Color(int(s[core.S_TURN])))

    @property
    def moves(self):
        return list(self._history)
