"""An opponent that changes every game: one of several agents, drawn by weight at each
``reset``. The PPO trainer plays against it (random, then greedy, then snapshots of itself)."""

from __future__ import annotations

import numpy as np

from checkers_env.agent import Agent, BaseAgent, make_agent
from checkers_env.game import Game


class OpponentPool(BaseAgent):
    """The env's opponent: at every episode (``reset``) one of its agents, drawn by weight.

    Args:
        seed: seed of the draws (and of the seeds each drawn agent gets).
    """

    kind = "pool"

    def __init__(self, seed: int | None = None):
        super().__init__(seed=seed)
        self.choices: list[tuple[Agent, float]] = [(make_agent("random"), 1.0)]
        self.current = self.choices[0][0]

    def set_choices(self, choices: list[tuple[Agent, float]]) -> None:
        """The agents to draw from at the next ``reset``, each with its weight (> 0 to count)."""
        self.choices = [(a, w) for a, w in choices if w > 0]

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        weights = np.array([w for _, w in self.choices], dtype=np.float64)
        index = int(self.rng.choice(len(self.choices), p=weights / weights.sum()))
        self.current = self.choices[index][0]
        self.current.reset(seed=int(self.rng.integers(0, 2**31 - 1)))

    def select_move(self, game: Game):
        return self.current.select_move(game)

    def __str__(self) -> str:
        return "pool"


__all__ = ["OpponentPool"]
