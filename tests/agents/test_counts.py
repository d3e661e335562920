"""The self-plays' one check of their counts (``search_parts.counts``)."""

import numpy as np
import pytest

from checkers_agents.alphazero.selfplay import self_play
from checkers_agents.outcome_net.selfplay import play_games
from checkers_agents.search_parts.counts import check_counts


def test_whole_numbers_at_their_least_pass():
    check_counts(games=(0, 0), depth=(np.int64(1), 1), slots=(64, 1))


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"games": (-1, 0)}, "games must be an integer >= 0, got -1"),
        ({"depth": (True, 1)}, "depth must be an integer >= 1, got True"),
        ({"slots": (2.0, 1)}, "slots must be an integer >= 1, got 2.0"),
        # The first bad count is the one named.
        ({"games": (1, 0), "simulations": (0, 1), "slots": (0, 1)}, "simulations must be an integer >= 1, got 0"),
    ],
)
def test_a_bad_count_is_named(counts, message):
    with pytest.raises(ValueError) as raised:
        check_counts(**counts)
    assert str(raised.value) == message


def test_both_self_plays_refuse_a_bad_count_before_playing():
    with pytest.raises(ValueError, match="random_plies must be an integer >= 0"):
        play_games(1, random_plies=-1)
    with pytest.raises(ValueError, match="simulations must be an integer >= 1"):
        self_play(1, simulations=0)
