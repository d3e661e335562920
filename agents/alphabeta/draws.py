"""The game's draw rules as the search knows them: :class:`Draws`, and the kernel's bundle
of them (``negamax.DrawRules``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from checkers_env import Board, Game

from .negamax import DrawRules


class Draws(NamedTuple):
    """What the search knows of the game's draw rules (a named tuple: built once per move,
    it must cost next to nothing).

    Attributes:
        keys: ``game_state.position_key`` of the game's positions since its last capture
            or man move, the current one included (a king move back to one of them
            repeats): ``Game.position_keys_since_progress()``.
        quiet: plies since the last capture or man move.
        no_progress_plies: the no-progress limit (0: the rule is off).
    """

    keys: np.ndarray
    quiet: int = 0
    no_progress_plies: int = 0

    def rules(self, contempt: float = 0.0) -> DrawRules:
        """The kernel's bundle of these rules (every key is read), a draw costing the
        root's side ``contempt``. A game's keys are a read-only view, a self-play kernel's
        its own writable array: numba compiles a kernel for each, so the keys are copied to
        a writable array (a few dozen numbers) and every search shares one compiled kernel."""
        keys = self.keys if self.keys.flags.writeable else self.keys.copy()
        return DrawRules(keys, len(keys), int(self.quiet), int(self.no_progress_plies), float(contempt))

    @classmethod
    def none(cls) -> Draws:
        return cls(np.zeros(0, dtype=np.int64))

    @classmethod
    def of_game(cls, game: Game | Board) -> Draws:
        """The draw rules of ``game`` as its rules have them (a bare ``Board``: none)."""
        if not isinstance(game, Game):
            return NO_DRAWS
        rules = game.rules
        keys = game.position_keys_since_progress() if rules.repetition is not None else _NO_KEYS
        return cls(keys, game.plies_since_progress, rules.no_progress_plies or 0)


#: No draw rule: a bare position's (``Draws.none()``).
NO_DRAWS = Draws.none()
_NO_KEYS = NO_DRAWS.keys


__all__ = ["NO_DRAWS", "Draws"]
