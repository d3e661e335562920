"""The PettingZoo AEC env: PettingZoo's own checks, agents and masks, multi-jumps, rewards."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from checkers_env import Board, Rules
from checkers_env.pettingzoo_env import env, raw_env

# Black's man on 9 can jump 14 then 23 (9x18x27).
DOUBLE_JUMP_FEN = "B:W14,23,K29:B9,K1"


def legal(observation) -> list[int]:
    return np.flatnonzero(observation["action_mask"]).tolist()


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.filterwarnings("ignore:reset options. unknown key 'options'")  # api_test's probe
def test_pettingzoo_api_test():
    api_test(env(), num_cycles=300)
    api_test(env(reward="material", max_plies=40), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(env, num_cycles=300)
    seed_test(lambda: env(reward="material"), num_cycles=300)


def test_agents_metadata_and_masks():
    aec = env()
    aec.reset(seed=0)
    assert aec.possible_agents == ["player_0", "player_1"] and aec.agent_selection == "player_0"
    assert aec.unwrapped.metadata["name"] == "checkers_v0"
    black, white = aec.observe("player_0"), aec.observe("player_1")
    assert black["action_mask"].dtype == np.int8 and legal(black) == [32, 33, 36, 37, 40, 41, 45]
    assert white["action_mask"].sum() == 0  # not on move
    # each in its own frame: own men on rows 0-2 for both
    for observation in (black, white):
        assert observation["observation"][0, :3].sum() == 12 and observation["observation"][2, 5:].sum() == 12
    aec.step(32)
    assert aec.agent_selection == "player_1" and aec.observe("player_0")["action_mask"].sum() == 0
    assert legal(aec.observe("player_1")) == [32, 33, 36, 37, 40, 41, 45]  # the half-turn image
    assert aec.unwrapped.moves[-1].path == (9, 14)


def test_multi_jump_keeps_agent_selection():
    aec = env()
    aec.reset(options={"fen": DOUBLE_JUMP_FEN})
    assert legal(aec.observe("player_0")) == [32]  # 9 forward-left, a jump
    aec.step(32)
    assert aec.agent_selection == "player_0"
    observation = aec.observe("player_0")
    assert legal(observation) == [4 * 17 + 0]  # from 18, forward-left only
    assert observation["observation"][4, 4, 4] == 1.0  # square 18, the piece that must continue
    assert aec.observe("player_1")["action_mask"].sum() == 0
    aec.step(68)
    assert aec.agent_selection == "player_1" and str(aec.unwrapped.moves[-1]) == "9x18x27"


def test_illegal_move_through_env_ends_the_game():
    aec = env()
    aec.reset(seed=0)
    aec.step(0)  # square 1 forward-left is blocked
    assert aec.terminations == {"player_0": True, "player_1": True}
    assert aec._cumulative_rewards["player_0"] == -1


def test_raw_env_illegal_move_loses():
    aec = raw_env()
    aec.reset()
    aec.step(0)
    assert aec.rewards == {"player_0": -1, "player_1": 1} and all(aec.terminations.values())


def test_win_rewards_and_result():
    aec = raw_env()
    aec.reset(options={"fen": "B:W14:B9"})
    aec.step(32)
    assert aec.rewards == {"player_0": 1, "player_1": -1}
    assert aec.terminations == {"player_0": True, "player_1": True}
    assert aec.infos["player_0"]["termination"] == "no_moves"


def test_truncation_at_max_plies():
    aec = raw_env(max_plies=2)
    aec.reset()
    aec.step(32)
    aec.step(32)
    assert aec.truncations == {"player_0": True, "player_1": True} and not any(aec.terminations.values())
    assert aec.rewards == {"player_0": 0, "player_1": 0}


def test_material_reward_of_the_first_move():
    # 9x18 takes a man: the mover's material over the opponent's goes 5/5 -> 5/3.
    aec = raw_env(reward="material")
    for _ in range(2):  # also after a reset that follows a finished game
        aec.reset(options={"fen": "B:W14,K29:B9,K1"})
        aec.step(32)
        assert aec.rewards["player_0"] == pytest.approx(0.1 * math.log(5 / 3))
        assert aec.rewards["player_1"] == 0


def test_repetition_draw_gives_zero():
    aec = raw_env(rules=Rules(repetition=3))
    aec.reset(options={"fen": "B:WK29:BK4"})
    # K4 -> 8 is k=3 forward-right (13), K8 -> 4 is k=7 backward-left (30); White's K29 <-> 25
    # are the same actions, by the half turn.
    for action in [13, 13, 30, 30, 13, 13, 30]:
        aec.step(action)
        assert not any(aec.terminations.values())
    aec.step(30)
    assert all(aec.terminations.values()) and aec.rewards == {"player_0": 0, "player_1": 0}
    assert aec.infos["player_1"]["termination"] == "repetition"


def test_ansi_render():
    aec = env(render_mode="ansi")
    aec.reset()
    assert "black to move" in aec.render()


def test_unknown_reset_option_warns_naming_it_and_the_accepted_ones():
    # A warning, not an error: PettingZoo's api_test resets with options={"options": 1}.
    aec = env()
    with pytest.warns(UserWarning, match=r"^reset options: unknown key 'fenn'; accepted keys: 'fen' .*\(ignored\)$"):
        aec.reset(seed=0, options={"fenn": "B:W14:B9", "fen": DOUBLE_JUMP_FEN})
    assert str(aec.unwrapped.board.fen()) == Board.from_fen(DOUBLE_JUMP_FEN).fen()  # the known key still counts


def test_render_before_reset_needs_reset():
    from gymnasium.error import ResetNeeded

    aec = raw_env(render_mode="ansi")
    with pytest.raises(ResetNeeded, match=r"^call reset\(\) before render\(\)"):
        aec.render()
    aec.reset(seed=0)
    assert "black to move" in aec.render()


@pytest.mark.parametrize("method", ["observe", "observation_space", "action_space"])
@pytest.mark.parametrize("agent", ["nobody", 0, None])
def test_unknown_agent_is_named_with_the_envs_agents(method, agent):
    aec = env()
    aec.reset(seed=0)
    with pytest.raises(
        ValueError,
        match=rf"^unknown agent {re.escape(repr(agent))}; this env's agents are 'player_0' \(Black\) and 'player_1' \(White\)$",
    ):
        getattr(aec, method)(agent)
