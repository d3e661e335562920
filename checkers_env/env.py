"""# Checkers-v0

English draughts (American checkers) against an opponent, one hop per action.

| | |
|---|---|
| Action Space | `Discrete(128)` |
| Observation Space | `Box(0.0, 1.0, (5, 8, 8), float32)` |
| Action mask | `info["action_mask"]` (int8) and `env.action_masks()` (bool) |
| import | `import checkers_env; gym.make("Checkers-v0")` |

## Description

The learner plays Black, White or a colour drawn per episode against an opponent given as
an agent spec (`"random"`, `"greedy"`, `"alphabeta:depth=4"`, `"zoo:td-minimax"`, ...)
or an `Agent` object. Rules are those of the WCDF/ACF: men move and capture forward,
kings one square in every direction, captures are mandatory, a man crowned during a
capture stops there, a side without a legal move loses.

## Action Space

Everything is seen from the mover's chair (the *mover's frame*): the board is turned so
that the mover's men move up. Square `s` has index `k = s - 1` when the learner is Black
and `k = 32 - s` when it is White; `action = 4 * k + d` with `d` the direction:

```
      forward
   0 (fl)   1 (fr)
         [k]
   2 (bl)   3 (br)
      backward
```

| d | direction |
|---|-----------|
| 0 | forward-left |
| 1 | forward-right |
| 2 | backward-left (kings) |
| 3 | backward-right (kings) |

An action is one *hop*: whether it is a step or a jump follows from the position. During
a multi-jump the learner acts again and only the continuing jumps are legal.

## Observation Space

`float32 (5, 8, 8)`, indexed `[plane, row, column]` in the mover's frame: row 0 is the
mover's back rank, column 0 the mover's left.

| plane | content |
|---|---|
| 0 | the mover's men |
| 1 | the mover's kings |
| 2 | the opponent's men |
| 3 | the opponent's kings |
| 4 | the piece that must continue its capture (during a multi-jump) |

During a multi-jump the moving piece is shown where it stands and the pieces it has
jumped are gone.

## Rewards

`reward="win_loss"` (default): +1 win, -1 loss, 0 draw, at the end; 0 otherwise.
`reward="material"`: a shaped reward for material won, `0.1 * ln(m_after / m_before)`
with `m` the learner's material over the opponent's (man 2, king 3 points), measured
between the learner's decisions (the reward of the slow/fast learner, `slow-fast`); the
end of the game gives +1 / 0 / -1 instead.
An illegal action ends the episode with -1 (see `illegal_action`).

## Episode End

Terminated: a side has no legal move (it loses), threefold repetition, 80 plies without
a capture or a man move (draws, per `rules`), or an illegal action. Truncated: the game
reaches `max_plies` plies.

## Info

`action_mask`, `result` (`1-0` Black won, `0-1` White won, `1/2-1/2`, `*`),
`termination` (`no_moves`, `repetition`, `no_progress`, `max_plies`, `illegal_action` or
`None`), `last_moves` (PDN of the moves completed since the previous step; after `reset`,
the opponent's moves before the learner's first turn, such as its opening when the learner
plays White),
`agent_color` (`black`/`white`), and `illegal_action` (True) when that ended it.

## Arguments

```python
gym.make("Checkers-v0", opponent="random", agent_color="black", reward="win_loss",
         rules=Rules(), max_plies=None, illegal_action="terminate", render_mode=None)
```

* `opponent`: agent spec string or `Agent`; `random` and `greedy` run inside numba.
* `agent_color`: `"black"`, `"white"` or `"random"` (drawn each episode).
* `reward`: `"win_loss"` or `"material"`.
* `rules`: a `checkers_env.Rules` (draw rules).
* `max_plies`: truncation length (default `rules.max_plies`, or 400 when that is `None`).
* `illegal_action`: `"terminate"` (reward -1, `info["illegal_action"]`) or `"raise"`
  (`IllegalMoveError`). An action outside `Discrete(128)` always raises `ValueError`.
* `render_mode`: `"ansi"`, `"rgb_array"` or `"human"` (needs pygame). `render()` before
  the first `reset()` raises `gymnasium.error.ResetNeeded`, as `gym.make`'s envs do.

`reset(options={"fen": "B:W18,24:B14,K3"})` starts from a position; `fen` is the only
option, and any other key raises `ValueError` naming it.

## Version History

* v0: initial release.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from . import env_machine as core
from .agent import Agent, GreedyAgent, RandomAgent, make_agent
from .baselines import OPPONENT_EXTERNAL, OPPONENT_GREEDY, OPPONENT_RANDOM
from .board import BLACK, Board, Color, Move, move_from_row, move_to_row
from .errors import IllegalMoveError
from .game import Game, Rules
from .rendering import RenderMixin

COLOR_MODES = {"black": core.COLOR_BLACK, "white": core.COLOR_WHITE, "random": core.COLOR_RANDOM}
REWARD_MODES = {"win_loss": core.REWARD_WIN_LOSS, "material": core.REWARD_MATERIAL}


def resolve_max_plies(rules: Rules, max_plies: int | None) -> int:
    value = max_plies if max_plies is not None else (rules.max_plies or 400)
    if not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"max_plies must be a positive integer, got {max_plies!r}")
    return int(value)


def opponent_kind(opponent: Agent) -> int:
    """The in-kernel chooser for an opponent, or ``OPPONENT_EXTERNAL``."""
    if type(opponent) is RandomAgent:
        return OPPONENT_RANDOM
    if type(opponent) is GreedyAgent:
        return OPPONENT_GREEDY
    return OPPONENT_EXTERNAL


def check_env_arguments(agent_color, reward, illegal_action, render_mode, render_modes) -> None:
    """``ValueError`` naming the first bad argument shared by the single and vector envs."""
    if agent_color not in COLOR_MODES:
        raise ValueError(f"agent_color must be one of {sorted(COLOR_MODES)}, got {agent_color!r}")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {sorted(REWARD_MODES)}, got {reward!r}")
    if illegal_action not in ("terminate", "raise"):
        raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(f"render_mode must be one of {render_modes}, got {render_mode!r}")


#: What ``reset(options=...)`` accepts in every env of the suite.
RESET_OPTIONS = {"fen": "a FEN string, the position to start from"}


def unknown_reset_option(options, known: Mapping[str, str] = RESET_OPTIONS) -> str | None:
    """Why ``options`` is not a valid ``reset(options=...)`` (an unknown key, or not a
    dict), naming what is accepted (``known``: key -> meaning); ``None`` when it is valid."""
    accepted = "; ".join(f"{key!r} ({meaning})" for key, meaning in known.items())
    if options is None:
        return None
    if not isinstance(options, Mapping):
        return f"reset options must be a dict, got {type(options).__name__} {options!r}; accepted keys: {accepted}"
    for key in options:
        if key not in known:
            return f"reset options: unknown key {key!r}; accepted keys: {accepted}"
    return None


def check_reset_options(
    options: Mapping[str, Any] | None, known: Mapping[str, str] = RESET_OPTIONS
) -> Mapping[str, Any]:
    """``options`` (``{}`` for ``None``); ``ValueError`` for an unknown key, naming the
    accepted ones (an option nobody reads must not look as if it had worked)."""
    problem = unknown_reset_option(options, known)
    if problem is not None:
        raise ValueError(problem)
    return options or {}


def check_action(action) -> int:
    """The action as an int; ``ValueError`` for anything outside ``Discrete(128)``."""
    if isinstance(action, np.ndarray):
        if action.shape != () or not np.issubdtype(action.dtype, np.integer):
            raise ValueError(f"action must be an integer in [0, 128), got array {action!r}")
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"action must be an integer in [0, 128), got {type(action).__name__} {action!r}")
    if not 0 <= action < core.NUM_ACTIONS:
        raise ValueError(f"action {action} is outside Discrete(128)")
    return int(action)


def describe_action(action: int, color: Color) -> str:
    """``'k=10 (square 11) forward-left'`` for error messages."""
    k, d = divmod(action, 4)
    square = k + 1 if color == BLACK else 32 - k
    names = ("forward-left", "forward-right", "backward-left", "backward-right")
    return f"action {action} (square {square}, {names[d]})"


#: Kernel move rows ``(from, to, captured, path, hops)`` seen so far -> ``(Move, PDN)``;
#: English draughts has few distinct moves, so the env builds each ``Move`` once.
_MOVE_CACHE: dict[tuple, tuple[Move, str]] = {}


def _cached_move(key: tuple) -> tuple[Move, str]:
    entry = _MOVE_CACHE.get(key)
    if entry is None:
        if len(_MOVE_CACHE) > 200_000:
            _MOVE_CACHE.clear()
        move = move_from_row(key)
        entry = _MOVE_CACHE[key] = (move, str(move))
    return entry


def board_of_row(row: np.ndarray) -> Board:
    """The position a row of the env machine's state holds (``env_machine.S_*`` columns)."""
    return Board(int(row[core.S_BLACK]), int(row[core.S_WHITE]), int(row[core.S_KINGS]), Color(int(row[core.S_TURN])))


class CheckersEnv(RenderMixin, gym.Env):
    __doc__ = __doc__

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        opponent: str | Agent = "random",
        agent_color: str = "black",
        reward: str = "win_loss",
        rules: Rules | None = None,
        max_plies: int | None = None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
    ):
        check_env_arguments(agent_color, reward, illegal_action, render_mode, self.metadata["render_modes"])
        self.rules = rules if rules is not None else Rules()
        self.max_plies = resolve_max_plies(self.rules, max_plies)
        self.opponent = make_agent(opponent)
        self.agent_color = agent_color
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.render_mode = render_mode

        self.observation_space = spaces.Box(0.0, 1.0, (core.NUM_PLANES, 8, 8), dtype=np.float32)
        self.action_space = spaces.Discrete(core.NUM_ACTIONS)

        self._kind = opponent_kind(self.opponent)
        self._rules = self.rules.as_array(self.max_plies)
        self._state, self._moves, self._positions, self._last = core.new_batch(1, core.history_for(self._rules))
        self._mask = np.zeros((1, core.NUM_ACTIONS), dtype=np.int8)
        self._mask_words = core.mask_words(self._mask)
        self._reward_code = REWARD_MODES[self.reward_mode]
        self._game: Game | None = None  # kept only for an external opponent
        self._history: list[tuple] = []  # kernel rows (from, to, captured, path, hops) of the moves
        self._consumed = 0
        self._ended = True  # until the first reset
        self._color_name: str | None = None
        self._start = Board()
        self._renderer = None

    # -- Gymnasium API ----------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._ended = True  # until the new episode is set up
        chosen = check_reset_options(options)
        start = Board.from_fen(chosen["fen"]) if "fen" in chosen else Board()
        self._start = start
        self._history = []
        self._consumed = 0
        reseed = seed is not None or self._state[0, core.S_RNG] == 0
        rng_seed = int(self.np_random.integers(1, 2**62)) if reseed else 0
        if self._kind == OPPONENT_EXTERNAL:
            self.opponent.reset(seed=int(self.np_random.integers(0, 2**62)))
            self._game = Game(start=start, rules=self.rules)
        end = core.reset_to(
            self._state, self._positions, self._last, 0, start, COLOR_MODES[self.agent_color], rng_seed, self._rules
        )
        if end != core.END_NONE:
            raise ValueError(f"the start position {start.fen()} is already decided ({core.END_NAMES[end]})")
        core.start_turns(self._state, self._moves, self._positions, self._last, 0, self._kind, self._rules)
        self._sync()
        self._play_external_opponent()
        if self._state[0, core.S_END] != core.END_NONE:
            raise ValueError(f"the game from {start.fen()} ends before the learner's first move")
        self._ended = False
        self._has_reset = True
        self._color_name = str(Color(int(self._state[0, core.S_AGENT])))
        # The opponent's moves before the learner's first decision (its opening, when the
        # learner plays White) are the episode's first "last moves".
        return self._observe(), self._info(self._history)

    def step(self, action):
        if type(action) is not int or not 0 <= action < core.NUM_ACTIONS:
            action = check_action(action)  # numpy integers pass, anything else raises
        if self._ended:
            raise ResetNeeded("the episode is over: call reset() before step()")
        if self.illegal_action == "raise" and not self._legal_mask()[action]:
            color = Color(int(self._state[0, core.S_TURN]))
            raise IllegalMoveError(
                f"illegal {describe_action(action, color)} in {self.board.fen()}; legal actions: "
                + ", ".join(str(a) for a in np.flatnonzero(self._legal_mask()))
            )
        before = len(self._history)
        self._consumed = 0  # the kernel starts a new list of last moves
        # One kernel call: the hop, the numba opponent's replies, the observation and mask.
        observation = np.empty((core.NUM_PLANES, 8, 8), dtype=np.float32)
        reward, status, end, count, waiting = core.single_step(
            self._state,
            self._moves,
            self._positions,
            self._last,
            action,
            self._kind,
            self._reward_code,
            self._rules,
            observation,
            self._mask_words[0],
        )
        mask = self._mask[0].copy()  # the caller's own, as the observation
        if waiting:
            self._sync()
            reward = self._play_external_opponent()
            end = int(self._state[0, core.S_END])
            observation, mask = self._observe(), self._legal_mask().copy()
        elif count:
            self._sync(count)
        self._ended = end != core.END_NONE
        info = self._info(self._history[before:], end, mask)
        if status == core.HOP_ILLEGAL:
            info["illegal_action"] = True
        if self.render_mode == "human":
            self.render()
        return observation, reward, self._ended and end != core.END_MAX_PLIES, end == core.END_MAX_PLIES, info

    def action_masks(self) -> np.ndarray:
        """Legal actions as bools (the method MaskablePPO looks for)."""
        return self._legal_mask().astype(bool)

    # -- helpers ----------------------------------------------------------------------------

    @property
    def board(self) -> Board:
        """The position now (during a multi-jump: before the move in progress)."""
        return board_of_row(self._state[0])

    @property
    def moves(self) -> list[Move]:
        """Every complete move of the episode so far."""
        return [_cached_move(row)[0] for row in self._history]

    def _legal_mask(self) -> np.ndarray:
        core.write_mask(self._state, 0, self._mask_words[0])
        return self._mask[0]

    def _observe(self) -> np.ndarray:
        observation = np.empty((core.NUM_PLANES, 8, 8), dtype=np.float32)
        core.write_observation(self._state, 0, observation)
        return observation

    def _sync(self, count: int | None = None) -> None:
        """Append the moves the kernel completed since the last look to the history (and
        to the Python game that an external opponent reads)."""
        if count is None:
            count = int(self._state[0, core.S_LAST_COUNT])
        if count <= self._consumed:
            return
        rows = [tuple(row) for row in self._last[0, self._consumed : count, :5].tolist()]
        self._history += rows
        if self._game is not None:
            for row in rows:
                self._game.play(_cached_move(row)[0])
        self._consumed = count

    def _play_external_opponent(self) -> float:
        """Ask a Python opponent for its moves while it is to move; the learner's reward."""
        reward = 0.0
        while self._state[0, core.S_WAITING]:
            self._sync()
            game = self._game
            assert game is not None  # the kernel waits only for an external opponent, whose game is kept
            move = self.opponent.select_move(game)
            if move not in game.legal_moves():
                raise IllegalMoveError(
                    f"opponent {self.opponent} chose {move}, which is not legal in {self.board.fen()}"
                )
            reward = core.after_external_move(
                self._state,
                self._moves,
                self._positions,
                self._last,
                0,
                np.array(move_to_row(move), dtype=np.int64),
                self._kind,
                REWARD_MODES[self.reward_mode],
                self._rules,
            )
        self._sync()
        return reward

    def _info(self, completed: list[tuple] | None = None, end: int | None = None, mask=None) -> dict[str, Any]:
        if end is None:
            end = int(self._state[0, core.S_END])
        if end == core.END_NONE:
            result = "*"
        elif end == core.END_MAX_PLIES:
            result = "1/2-1/2"
        else:
            winner = int(self._state[0, core.S_WINNER])
            result = "1/2-1/2" if winner < 0 else ("1-0" if winner == 0 else "0-1")
        return {
            "action_mask": self._legal_mask().copy() if mask is None else mask,
            "result": result,
            "termination": core.END_NAMES[end] or None,
            "last_moves": [_cached_move(row)[1] for row in completed] if completed else [],
            "agent_color": self._color_name,
        }


def move_from_hops(board: Board, choose_hop) -> Move:
    """The complete move a hop-level policy plays from ``board``.

    ``choose_hop(observation, mask)`` gets the side to move's observation planes and
    legal-hop mask (the env's encoding) and returns an action; it is asked again during
    a multi-jump until the move is complete. This is how a policy trained on
    ``Checkers-v0`` plays as an ``Agent`` (in the league, as a Gym opponent, in ``play``).

    Raises:
        IllegalMoveError: the policy chose a hop outside the mask.
    """
    state, moves, positions, last = core.new_batch(1, 2)
    rules = Rules.without_draws().as_array()
    end = core.reset_to(state, positions, last, 0, board, -1, 1, rules)
    if end != core.END_NONE:
        raise IllegalMoveError(f"no legal move in {board.fen()}")
    observation = np.zeros((core.NUM_PLANES, 8, 8), dtype=np.float32)
    mask = np.zeros(core.NUM_ACTIONS, dtype=np.int8)
    words = core.mask_words(mask)
    while True:
        core.write_observation(state, 0, observation)
        core.write_mask(state, 0, words)
        action = check_action(choose_hop(observation, mask))
        status = core.hop(state, positions, last, 0, action, rules)
        if status == core.HOP_ILLEGAL:
            raise IllegalMoveError(f"the policy chose illegal {describe_action(action, board.turn)} in {board.fen()}")
        if status == core.HOP_COMPLETES:
            return move_from_row(last[0, 0])
