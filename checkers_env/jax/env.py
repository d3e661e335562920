"""# Checkers (JAX, pgx API)

English draughts as pure array functions, jit- and vmap-compatible, on any accelerator JAX
runs on, with the API of pgx's ``Env``.

| | |
|---|---|
| Actions | 128 hops, ``4 * k + d`` in the mover's frame (those of `Checkers-v0`) |
| Observation | `float32 (5, 8, 8)`, the mover's frame (that of `Checkers-v0`) |
| Players | 2; `current_player` is a player id, not a colour |
| import | `from checkers_env.jax import Checkers` (`pip install 'checkers-suite[jax]'`) |

```python
import jax
from checkers_env.jax import Checkers

env = Checkers()
init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
state = init(jax.random.split(jax.random.PRNGKey(0), 1024))
state = step(state, jax.numpy.argmax(state.legal_action_mask, axis=1))
```

## Description

The rules, actions, observations and draw rules of `Checkers-v0` in self-play: each
``step`` is one hop of the side to move (a multi-jump takes several steps, only the
continuing jumps legal between them), so one policy plays both colours. The random games
of this env and of the numba vector env (``self_play=True``) give the same masks,
observations, rewards and ends at every step (the test suite plays 10^6 steps of them).

## State

A pgx ``State``: ``current_player`` (``int32``), ``observation``, ``rewards``
(``float32[2]``, by player id), ``terminated``, ``truncated``, ``legal_action_mask``
(``bool[128]``). The position is private, as in pgx: ``_black``, ``_white``, ``_kings``
(``uint32`` bitboards in the layout of ``checkers_env.bitboard``), ``_turn`` (0 Black, 1
White to move), ``_square`` (the bit of the piece continuing a capture, -1 between moves),
``_plies`` and ``_quiet`` (moves played, and those since the last capture or man move),
``_history`` (the positions since that last progress, for repetition), ``_termination``
(``game_state``'s ``END_*`` code) and ``_player_order`` (the player id of Black, then
White: drawn from ``init``'s key, as pgx's games draw who starts).

## Rewards and ends

A side with no legal move loses: +1 to the winner's player id, -1 to the loser's.
Threefold repetition and 80 plies without a capture or a man move are draws (0, 0) and set
``terminated``; the move cap (400 plies) sets ``truncated`` with zero rewards, as
`Checkers-v0` reports it. ``rules`` and ``max_plies`` change them as they do for
`Checkers-v0`. An illegal action ends the game at once with -1 to its player and +1 to the
other (pgx's rule), the position unchanged. Once a game is over, ``legal_action_mask`` is all
True (pgx's convention, so a policy's normalisation never divides by zero) and further
steps change nothing and reward nothing.

## pgx

``Checkers`` subclasses ``pgx.core.Env`` and ``State`` subclasses ``pgx.core.State``, so
pgx's tools (``pgx.experimental.auto_reset``, its ``api_test``) work on it. ``pgx.make``
cannot return it: pgx lists its environment ids in a fixed ``Literal`` and builds them with
a fixed chain of branches, which a third-party env cannot join; construct ``Checkers()``
instead. For the same reason pgx's ``api_test`` rejects ``env_id == "checkers"`` as an
unknown id; the test suite runs it with that one list extended. ``State.to_svg`` and
``save_svg`` draw the board with ``checkers_env.svg`` (pgx's visualiser knows only its
own games).

## Arguments

```python
Checkers(rules=Rules(), max_plies=None)
```

* `rules`: a ``checkers_env.Rules`` (draw rules). A game must have a bound (the no-progress
  rule or the move cap) when repetition is on: JAX needs a fixed-size history.
* `max_plies`: the move cap (default ``rules.max_plies``).

## Version History

* v0: initial release.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pgx.core

from ..bitboard import BB_BLACK_START, BB_WHITE_START
from ..board import Board
from ..game import Rules
from ..game_state import (
    END_ILLEGAL,
    END_MAX_PLIES,
    END_NO_MOVES,
    END_NO_PROGRESS,
    END_NONE,
    END_REPETITION,
    RULE_MAX_PLIES,
    RULE_NO_PROGRESS_PLIES,
    RULE_REPETITION,
    history_for,
)
from . import rules as core

ENV_ID = "checkers"
#: The history length of the default rules (80 quiet plies and the position before them).
DEFAULT_HISTORY = int(history_for(Rules().as_array()))


@pgx.core.dataclass
class State(pgx.core.State):
    """One game (or a batch of them, under ``vmap``): see the module docstring."""

    current_player: jax.Array = jnp.int32(0)
    observation: jax.Array = jnp.zeros((5, 8, 8), dtype=jnp.float32)
    rewards: jax.Array = jnp.zeros(2, dtype=jnp.float32)
    terminated: jax.Array = pgx.core.FALSE
    truncated: jax.Array = pgx.core.FALSE
    legal_action_mask: jax.Array = jnp.zeros(core.NUM_ACTIONS, dtype=jnp.bool_)
    _step_count: jax.Array = jnp.int32(0)
    _black: jax.Array = jnp.uint32(BB_BLACK_START)
    _white: jax.Array = jnp.uint32(BB_WHITE_START)
    _kings: jax.Array = jnp.uint32(0)
    _turn: jax.Array = jnp.int32(0)
    _square: jax.Array = jnp.int32(-1)
    _plies: jax.Array = jnp.int32(0)
    _quiet: jax.Array = jnp.int32(0)
    _history: jax.Array = jnp.zeros((DEFAULT_HISTORY, 2), dtype=jnp.uint32)
    _termination: jax.Array = jnp.int32(END_NONE)
    _player_order: jax.Array = jnp.int32([0, 1])

    @property
    def env_id(self) -> str:
        return ENV_ID

    def to_svg(self, *, color_theme=None, scale: float | None = None) -> str:
        """The board (or the first 16 boards of a batch, four to a row) as SVG."""
        from .boards import boards_svg

        return boards_svg(self, scale=scale)

    def save_svg(self, filename, *, color_theme=None, scale: float | None = None) -> None:
        """Write ``to_svg`` to ``filename`` (which must end with ``.svg``)."""
        if not str(filename).endswith(".svg"):
            raise ValueError(f"save_svg writes SVG: the file name must end with .svg, got {filename!r}")
        with open(filename, "w", encoding="utf-8") as file:
            file.write(self.to_svg(scale=scale))


class Checkers(pgx.core.Env):
    """English draughts with pgx's API (see the module docstring)."""

    def __init__(self, rules: Rules = Rules(), max_plies: int | None = None):
        super().__init__()
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a checkers_env.Rules, got {type(rules).__name__}")
        array = rules.as_array(max_plies)
        self.repetition = int(array[RULE_REPETITION])
        self.no_progress_plies = int(array[RULE_NO_PROGRESS_PLIES])
        self.max_plies = int(array[RULE_MAX_PLIES])
        history = int(history_for(array))
        if history == 0 and self.repetition:
            raise ValueError(
                "Checkers (JAX) needs a bound on the game for repetition (a fixed-size history): "
                "give rules a no_progress_plies or a max_plies, or turn repetition off"
            )
        self.history = max(history, 1)

    def _init(self, key: jax.Array) -> State:
        black_player = jax.random.bernoulli(key).astype(jnp.int32)
        order = jnp.stack([black_player, 1 - black_player])
        history = jnp.zeros((self.history, 2), dtype=jnp.uint32)
        history = history.at[0].set(jnp.uint32([BB_BLACK_START, BB_WHITE_START]))
        state = State(_history=history, _player_order=order, current_player=order[0])
        return state.replace(
            legal_action_mask=core.legal_action_mask(  # type: ignore[attr-defined]
                state._black, state._white, state._kings, state._turn, state._square
            )
        )

    def init_position(self, key: jax.Array, board: Board) -> State:
        """The initial state of a game from ``board`` (a ``checkers_env.Board``; players drawn
        from ``key`` as in ``init``). A position whose side to move has no move is over at
        once (``terminated``, rewards zero as at every start). The board is a constant of
        the computation: ``jit`` this with the board bound, not as an argument.

        Raises:
            TypeError: ``board`` is not a ``Board``.
        """
        if not isinstance(board, Board):
            raise TypeError(f"init_position needs a checkers_env.Board, got {type(board).__name__}")
        black, white, kings = jnp.uint32(board.black), jnp.uint32(board.white), jnp.uint32(board.kings)
        turn = jnp.int32(int(board.turn))
        state = self._init(key)
        history = state._history.at[0].set(jnp.stack([black, white]))
        mask = core.legal_action_mask(black, white, kings, turn, jnp.int32(-1))
        end = self._end(mask.any(), jnp.int32(0), jnp.int32(0), history, black, white)
        state = _with_position(state, black, white, kings, turn, history, mask | (end != END_NONE), end)
        return state.replace(observation=self.observe(state))  # type: ignore[attr-defined]

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """One hop of the side to move (pgx's ``step``, with the position kept as it was
        when the action is illegal or outside 0..127)."""
        action = jnp.asarray(action, dtype=jnp.int32)
        inside = (action >= 0) & (action < core.NUM_ACTIONS)
        action = jnp.clip(action, 0, core.NUM_ACTIONS - 1)
        legal = inside & state.legal_action_mask[action]
        counted = state.replace(_step_count=state._step_count + 1)  # type: ignore[attr-defined]
        state = jax.lax.cond(
            state.terminated | state.truncated,
            lambda: state.replace(rewards=jnp.zeros_like(state.rewards)),  # type: ignore[attr-defined]
            lambda: jax.lax.cond(
                legal,
                lambda: self._step(counted, action, key),
                lambda: self._step_with_illegal_action(
                    counted.replace(_termination=jnp.int32(END_ILLEGAL)), state.current_player
                ),  # type: ignore
            ),
        )
        over = state.terminated | state.truncated
        state = state.replace(  # type: ignore[attr-defined]
            legal_action_mask=state.legal_action_mask | over
        )
        return state.replace(observation=self.observe(state))  # type: ignore[attr-defined]

    def _step(self, state: State, action: jax.Array, key) -> State:
        black, white, kings, land, continues, progress = core.play_hop(
            state._black, state._white, state._kings, state._turn, state._square, action
        )
        turn = jnp.where(continues, state._turn, 1 - state._turn)
        square = jnp.where(continues, land, -1)
        done = ~continues  # the move is complete: count it, remember the position, judge the end
        plies = state._plies + done
        quiet = jnp.where(done, jnp.where(progress, 0, state._quiet + 1), state._quiet)
        # An elementwise select rather than a scatter at a traced index (several times faster
        # under vmap on a CPU); beyond the history's length nothing is written.
        slot = (jnp.arange(self.history) == quiet)[:, None] & done
        history = jnp.where(slot, jnp.stack([black, white])[None, :], state._history)
        mask = core.legal_action_mask(black, white, kings, turn, square)
        end = jnp.where(done, self._end(mask.any(), plies, quiet, history, black, white), END_NONE)
        # Only a side left without a move loses: +1 to the other player, -1 to its own.
        stuck = jnp.arange(2) == jnp.where(turn == 0, state._player_order[0], state._player_order[1])
        rewards = jnp.where(end == END_NO_MOVES, jnp.where(stuck, -1.0, 1.0), 0.0).astype(jnp.float32)
        return _with_position(
            state,
            black,
            white,
            kings,
            turn,
            history,
            mask,
            end,
            rewards=rewards,
            _square=square,
            _plies=plies,
            _quiet=quiet,
        )

    def _end(self, has_move, plies, quiet, history, black, white):
        """``game_state.end_of_game`` in the same order: no move, repetition, no progress,
        the move cap."""
        end = jnp.int32(END_NONE)
        if self.max_plies:
            end = jnp.where(plies >= self.max_plies, END_MAX_PLIES, end)
        if self.no_progress_plies:
            end = jnp.where(quiet >= self.no_progress_plies, END_NO_PROGRESS, end)
        if self.repetition:
            repeated = core.repetitions(history, quiet, black, white) >= self.repetition
            end = jnp.where(repeated, END_REPETITION, end)
        return jnp.where(has_move, end, END_NO_MOVES)

    def _observe(self, state: State, player_id: jax.Array) -> jax.Array:
        viewer = jnp.where(state._player_order[0] == player_id, 0, 1)
        return core.planes(state._black, state._white, state._kings, state._square, viewer)

    @property
    def id(self) -> str:
        return ENV_ID

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_players(self) -> int:
        return 2


__all__ = ["Checkers", "DEFAULT_HISTORY", "ENV_ID", "State"]


def _with_position(state: State, black, white, kings, turn, history, mask, end, **more) -> State:
    """``state`` holding a position (its bitboards, side to move and history), its legal
    hops and its end code, with the player to move and the end flags that follow from them:
    what a start from a board and every hop write alike; ``more`` are other fields."""
    return state.replace(  # type: ignore[attr-defined]
        current_player=jnp.where(turn == 0, state._player_order[0], state._player_order[1]),
        terminated=(end != END_NONE) & (end != END_MAX_PLIES),
        truncated=end == END_MAX_PLIES,
        legal_action_mask=mask,
        _black=black,
        _white=white,
        _kings=kings,
        _turn=turn,
        _history=history,
        _termination=end,
        **more,
    )
