"""The PettingZoo parallel env: PettingZoo's own parallel checks, the turn-based protocol
(only the agent on move acts; the other's action is ignored and its mask is all zeros), and
the same games, rewards and ends as the AEC env."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel

from checkers_env.pettingzoo_env import env, parallel_env, raw_env

DOUBLE_JUMP_FEN = "B:W14,23,K29:B9,K1"
OTHER = {"player_0": "player_1", "player_1": "player_0"}


def legal(observation) -> list[int]:
    return np.flatnonzero(observation["action_mask"]).tolist()


@pytest.mark.filterwarnings("ignore:reset options. unknown key 'options'")  # parallel_api_test's probe
@pytest.mark.parametrize("kwargs", [{}, {"reward": "material", "max_plies": 40}])
def test_pettingzoo_parallel_api_test(kwargs):
    parallel_api_test(parallel_env(**kwargs), num_cycles=500)


def test_pettingzoo_parallel_seed_test():
    parallel_seed_test(parallel_env, num_cycles=300)
    parallel_seed_test(lambda: parallel_env(reward="material"), num_cycles=300)


def test_the_aec_env_cannot_be_converted_and_parallel_env_is_the_way():
    # PettingZoo's aec_to_parallel needs agents that take turns in a fixed cycle; a
    # multi-jump moves the same agent twice, so the env says it is not parallelizable.
    with pytest.raises(AssertionError):
        aec_to_parallel(env())
    assert parallel_env().metadata["name"] == "checkers_v0"


def test_reset_gives_both_agents_and_names_the_one_on_move():
    par = parallel_env()
    observations, infos = par.reset(seed=0)
    assert par.agents == par.possible_agents == ["player_0", "player_1"]
    assert infos == {"player_0": {"active_agent": "player_0"}, "player_1": {"active_agent": "player_0"}}
    assert legal(observations["player_0"]) == [32, 33, 36, 37, 40, 41, 45]
    assert observations["player_1"]["action_mask"].sum() == 0  # not on move: nothing to choose
    # each in its own frame: own men on rows 0-2 for both
    for observation in observations.values():
        assert observation["observation"][0, :3].sum() == 12 and observation["observation"][2, 5:].sum() == 12


@pytest.mark.parametrize("no_op", [0, None, 127, "absent"])
def test_the_action_of_the_agent_not_on_move_is_ignored(no_op):
    par = parallel_env()
    par.reset(seed=0)
    actions = {"player_0": 32} if no_op == "absent" else {"player_0": 32, "player_1": no_op}
    observations, rewards, terminations, truncations, infos = par.step(actions)
    assert [str(m) for m in par.moves] == ["9-14"]
    assert infos["player_0"]["active_agent"] == infos["player_1"]["active_agent"] == "player_1"
    assert legal(observations["player_1"]) == [32, 33, 36, 37, 40, 41, 45]  # the half-turn image
    assert observations["player_0"]["action_mask"].sum() == 0
    assert rewards == {"player_0": 0, "player_1": 0}
    assert not any(terminations.values()) and not any(truncations.values())


def test_the_agent_on_move_must_act():
    par = parallel_env()
    par.reset(seed=0)
    for actions in ({"player_1": 32}, {"player_0": None, "player_1": 32}):
        with pytest.raises(ValueError, match=r"^'player_0' is on move and needs an action"):
            par.step(actions)
    with pytest.raises(ValueError, match=r"^unknown agent 'nobody'; this env's agents are 'player_0'"):
        par.step({"player_0": 32, "nobody": 0})
    with pytest.raises(TypeError, match="actions must be a dict"):
        par.step([32, 0])
    with pytest.raises(ValueError, match="outside Discrete"):
        par.step({"player_0": 128})
    assert par.moves == []  # nothing was played


def test_multi_jump_keeps_the_same_agent_on_move():
    par = parallel_env()
    observations, _ = par.reset(options={"fen": DOUBLE_JUMP_FEN})
    assert legal(observations["player_0"]) == [32]
    observations, _, _, _, infos = par.step({"player_0": 32, "player_1": 0})
    assert infos["player_1"]["active_agent"] == "player_0"
    assert legal(observations["player_0"]) == [4 * 17 + 0]  # from 18, forward-left only
    assert observations["player_0"]["observation"][4, 4, 4] == 1.0  # the piece that must continue
    assert observations["player_1"]["action_mask"].sum() == 0
    _, _, _, _, infos = par.step({"player_0": 68, "player_1": 0})
    assert infos["player_0"]["active_agent"] == "player_1" and str(par.moves[-1]) == "9x18x27"


def test_a_win_ends_the_game_for_both_and_empties_agents():
    par = parallel_env()
    par.reset(options={"fen": "B:W14:B9"})
    observations, rewards, terminations, truncations, infos = par.step({"player_0": 32, "player_1": 0})
    assert rewards == {"player_0": 1, "player_1": -1}
    assert terminations == {"player_0": True, "player_1": True} and not any(truncations.values())
    assert infos["player_0"] == {"termination": "no_moves", "active_agent": None}
    assert set(observations) == {"player_0", "player_1"}
    assert all(o["action_mask"].sum() == 0 for o in observations.values())
    assert par.agents == []
    with pytest.raises(ResetNeeded, match="game is over"):
        par.step({"player_0": 0, "player_1": 0})


def test_an_illegal_action_loses_as_through_env():
    par = parallel_env()
    par.reset(seed=0)
    _, rewards, terminations, _, infos = par.step({"player_0": 0, "player_1": 0})  # square 1 is blocked
    assert rewards == {"player_0": -1, "player_1": 0}
    assert all(terminations.values()) and par.agents == []
    assert infos["player_0"]["illegal_action"] is True and "illegal_action" not in infos["player_1"]
    assert infos["player_0"]["termination"] == "illegal_action"


def test_truncation_at_max_plies():
    par = parallel_env(max_plies=2)
    par.reset()
    par.step({"player_0": 32})
    _, rewards, terminations, truncations, _ = par.step({"player_1": 32})
    assert truncations == {"player_0": True, "player_1": True} and not any(terminations.values())
    assert rewards == {"player_0": 0, "player_1": 0} and par.agents == []


def test_step_before_reset_needs_reset():
    with pytest.raises(ResetNeeded, match=r"^call reset\(\) before step\(\)$"):
        parallel_env().step({"player_0": 32})


@pytest.mark.parametrize("reward", ["win_loss", "material"])
def test_random_games_match_the_aec_env(reward):
    """The same hops give the same observations, masks, rewards and ends in both APIs."""
    rng = np.random.default_rng(7)
    for game in range(6):
        par, aec = parallel_env(reward=reward, max_plies=120), raw_env(reward=reward, max_plies=120)
        observations, _ = par.reset(seed=game)
        aec.reset(seed=game)
        while par.agents:
            mover = aec.agent_selection
            for agent in par.agents:
                expected = aec.observe(agent)
                np.testing.assert_array_equal(observations[agent]["observation"], expected["observation"])
                np.testing.assert_array_equal(observations[agent]["action_mask"], expected["action_mask"])
            action = int(rng.choice(legal(observations[mover])))
            observations, rewards, terminations, truncations, infos = par.step({mover: action, OTHER[mover]: 0})
            aec.step(action)
            assert rewards == aec.rewards
            assert terminations == aec.terminations and truncations == aec.truncations
            assert infos[mover]["termination"] == aec.infos[mover]["termination"]
        assert [str(m) for m in par.moves] == [str(m) for m in aec.moves]


def test_ansi_render_and_render_before_reset():
    par = parallel_env(render_mode="ansi")
    with pytest.raises(ResetNeeded):
        par.render()
    par.reset()
    par.step({"player_0": 32, "player_1": 0})
    assert par.render().endswith("last move: 9-14")
