"""``mcrd:time=15`` is the design document's agent: its loop launches playouts until 15
seconds of the move are spent (``while (time - start_time < limit)``), each launch shared
uniformly among the moves. One documented difference: a launch expected to end past the
deadline is not started, where the document's loop would start it and overrun."""

from __future__ import annotations

import time

import pytest

from checkers_agents.mcrd import MCRDAgent
from checkers_agents.mcrd.cpu import CpuRunner
from checkers_env import Game, make_agent


class LaunchClock:
    """A clock that stands still except that each launch of playouts takes ``seconds``."""

    def __init__(self, seconds: float):
        self.now, self.seconds = 1000.0, seconds

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("seconds_per_launch", "launches"), [(1.0, 15), (0.5, 30), (7.0, 2), (20.0, 1)])
def test_time_15_launches_until_fifteen_seconds_are_spent(monkeypatch, seconds_per_launch, launches):
    clock = LaunchClock(seconds_per_launch)
    monkeypatch.setattr(time, "perf_counter", clock)
    launch = CpuRunner.launch

    def timed_launch(self, *args, **kwargs):
        launch(self, *args, **kwargs)
        clock.now += clock.seconds

    monkeypatch.setattr(CpuRunner, "launch", timed_launch)
    agent = make_agent("mcrd:time=15,backend=cpu,launch=256,seed=1")
    assert isinstance(agent, MCRDAgent) and agent.allocation == "uniform"
    result = agent.search(Game())
    # As many whole launches as fit in 15 s, and the first one always.
    assert result.launches == launches
    assert result.seconds == pytest.approx(launches * seconds_per_launch)
    n = len(result.moves)
    assert result.playouts.tolist() == [launches * (256 // n)] * n
