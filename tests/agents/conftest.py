"""Shared setup of the agents' tests."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env import Game


def _random_games(count: int, seed: int) -> list[Game]:
    """Games from the start position after a random number (0-89) of uniformly random
    moves, none of them over."""
    rng = np.random.default_rng(seed)
    games = []
    while len(games) < count:
        game = Game()
        for _ in range(int(rng.integers(0, 90))):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(moves[int(rng.integers(len(moves)))])
        if not game.is_over():
            games.append(game)
    return games


@pytest.fixture
def random_games():
    """``random_games(count, seed)``: games after a random number of uniformly random moves."""
    return _random_games
