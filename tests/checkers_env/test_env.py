"""``Checkers-v0``: peer checkers, the action and observation encoding of docs/design.md §2,
illegal actions, rewards, episode ends, determinism, rendering and a MaskablePPO smoke run.

Expected encodings are derived here from docs/design.md §1's diagram and §2's definition of
the mover's frame, not from the env's code.
"""

from __future__ import annotations

import math
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

import checkers_env  # noqa: F401  (registers Checkers-v0)
from checkers_env import BaseAgent, IllegalMoveError, Rules, rendering
from checkers_env.baselines import KING_POINTS, MAN_POINTS
from checkers_env.env import CheckersEnv

# -- geometry from docs/design.md §1 -----------------------------------------------------

#: docs/design.md §1's diagram, seen from Black: the first line is row 7, the last row 0.
DIAGRAM = """\
      32      31      30      29
  28      27      26      25
      24      23      22      21
  20      19      18      17
      16      15      14      13
  12      11      10       9
       8       7       6       5
   4       3       2       1
"""


def _diagram_squares() -> dict[int, tuple[int, int]]:
    """Square -> (row, column) seen from Black (row 0 Black's back rank, column 0 its left)."""
    squares = {}
    for line_number, line in enumerate(DIAGRAM.splitlines()):
        row = 7 - line_number
        index = 0
        for token in line.split():
            index = line.index(token, index) + len(token)
            squares[int(token)] = (row, (index - 1) // 4)  # 4 characters per column
    return squares


ROW_COL = _diagram_squares()
SQUARE_AT = {rc: s for s, rc in ROW_COL.items()}


def frame(square: int, color: str) -> tuple[int, int]:
    """(row, column) of ``square`` in the mover's frame (White's is the half turn)."""
    row, col = ROW_COL[square]
    return (row, col) if color == "black" else (7 - row, 7 - col)


def action_of(move: str, color: str) -> int:
    """The first hop of a PDN move as an action, per docs/design.md §2."""
    squares = [int(s) for s in move.replace("x", "-").split("-")]
    a, b = squares[0], squares[1]
    k = a - 1 if color == "black" else 32 - a
    (ra, ca), (rb, cb) = frame(a, color), frame(b, color)
    d = (0 if rb > ra else 2) + (0 if cb < ca else 1)
    return 4 * k + d


def expected_planes(color, own_men=(), own_kings=(), opp_men=(), opp_kings=(), continuing=()):
    planes = np.zeros((5, 8, 8), dtype=np.float32)
    for plane, squares in enumerate((own_men, own_kings, opp_men, opp_kings, continuing)):
        for s in squares:
            planes[(plane, *frame(s, color))] = 1.0
    return planes


def legal(info) -> list[int]:
    return sorted(np.flatnonzero(info["action_mask"]).tolist())


def make(**kwargs):
    return gym.make("Checkers-v0", **kwargs)


class ShuffledAgent(BaseAgent):
    """An external (Python) opponent: a random legal move from its own generator, so the
    env must seed it from ``np_random`` for the determinism checks to pass."""

    kind = "shuffled"

    def select_move(self, game):
        moves = game.legal_moves()
        return moves[int(self.rng.integers(len(moves)))]


class ScriptedAgent(BaseAgent):
    """An external opponent that plays a fixed list of PDN moves."""

    kind = "scripted"

    def __init__(self, moves=(), seed=None):
        super().__init__(seed=seed)
        self.moves = list(moves)
        self.played = 0

    def reset(self, seed=None):
        super().reset(seed)
        self.played = 0

    def select_move(self, game):
        move = game.board.parse_move(self.moves[self.played])
        self.played += 1
        return move


def test_diagram_geometry_is_the_design():
    assert ROW_COL[4] == (0, 0) and ROW_COL[1] == (0, 6) and ROW_COL[32] == (7, 1) and ROW_COL[29] == (7, 7)
    assert len(ROW_COL) == 32 and all((r + c) % 2 == 0 for r, c in ROW_COL.values())


# -- peer checkers ------------------------------------------------------------------------


@pytest.mark.parametrize("agent_color", ["black", "white", "random"])
@pytest.mark.parametrize("reward", ["win_loss", "material"])
@pytest.mark.parametrize("opponent", ["random", "greedy", "external"])
def test_gymnasium_check_env(opponent, reward, agent_color, monkeypatch):
    # The human window waits 1 / render_fps s per frame; the checker needs no waiting.
    monkeypatch.setitem(CheckersEnv.metadata, "render_fps", 1000)
    if opponent == "external":
        opponent = ShuffledAgent()
    env = make(opponent=opponent, reward=reward, agent_color=agent_color)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # every render mode too, "human" through pygame's dummy driver
    problems = [str(w.message) for w in caught if not issubclass(w.category, DeprecationWarning)]
    assert problems == []
    env.close()


def test_stable_baselines3_check_env():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(make(agent_color="random").unwrapped, warn=True)
    # SB3 remarks that (5, 8, 8) float planes are not a CNN image; anything else is a problem.
    problems = [
        str(w.message)
        for w in caught
        if not issubclass(w.category, DeprecationWarning) and "image" not in str(w.message)
    ]
    assert problems == []


# -- encoding -----------------------------------------------------------------------------

BLACK_OPENING_MOVES = ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]


def test_black_start_actions_follow_the_design():
    assert action_of("9-14", "black") == 4 * 8 + 0  # square 9, forward-left
    assert action_of("9-13", "black") == 4 * 8 + 1  # square 9, forward-right
    env = make()
    _, info = env.reset(seed=0)
    assert legal(info) == sorted(action_of(m, "black") for m in BLACK_OPENING_MOVES)
    assert sorted(np.flatnonzero(env.unwrapped.action_masks()).tolist()) == legal(info)
    assert env.unwrapped.action_masks().dtype == bool


@pytest.mark.parametrize("move", BLACK_OPENING_MOVES)
def test_each_black_opening_action_plays_its_move(move):
    env = make()
    env.reset(seed=1)
    _, _, _, _, info = env.step(action_of(move, "black"))
    assert info["last_moves"][0] == move and len(info["last_moves"]) == 2  # then White's reply


def test_white_actions_are_the_half_turn_image():
    # White to move in the start position is the half turn of Black to move.
    white_moves = ["24-20", "24-19", "23-19", "23-18", "22-18", "22-17", "21-17"]
    assert [f"{33 - int(a)}-{33 - int(b)}" for a, b in (m.split("-") for m in BLACK_OPENING_MOVES)] == white_moves
    env = make(agent_color="white")
    _, info = env.reset(seed=0, options={"fen": "W:W21-32:B1-12"})
    assert legal(info) == sorted(action_of(m, "white") for m in white_moves)
    assert legal(info) == sorted(action_of(m, "black") for m in BLACK_OPENING_MOVES)
    _, _, _, _, info = env.step(action_of("24-19", "white"))
    assert info["last_moves"][0] == "24-19"
    assert info["agent_color"] == "white"


def test_white_agent_meets_black_opening_first():
    env = make(agent_color="white", opponent="greedy")
    obs, info = env.reset(seed=3)
    assert env.unwrapped.board.turn == 1 and len(env.unwrapped.moves) == 1
    # Black's reply is in White's frame: the moved black man is an opponent man.
    black_to = env.unwrapped.moves[0].path[-1]
    assert obs[(2, *frame(black_to, "white"))] == 1.0


@pytest.mark.parametrize("opponent", ["greedy", "scripted"])
def test_white_agent_reset_lists_the_opponents_opening(opponent):
    # In-kernel (greedy) and Python (scripted) opponents alike: reset's info names the
    # move the learner now has to answer, as every later step's info does.
    env = make(agent_color="white", opponent=ScriptedAgent(["11-15"]) if opponent == "scripted" else opponent)
    _, info = env.reset(seed=3)
    assert info["last_moves"] == [str(env.unwrapped.moves[0])]
    if opponent == "scripted":
        assert info["last_moves"] == ["11-15"]
    _, info = make(agent_color="black").reset(seed=3)
    assert info["last_moves"] == []  # Black moves first: nothing to report


# Black's man on 9 jumps 14 then 23 (9x18x27); its man on 10 could jump 15 or 14 instead.
DOUBLE_JUMP_FEN = "B:W14,15,23,K29:B9,10,K1"


def test_multi_jump_keeps_the_turn_and_only_continuations_are_legal():
    env = make(opponent="greedy")
    obs, info = env.reset(seed=0, options={"fen": DOUBLE_JUMP_FEN})
    assert legal(info) == sorted(action_of(m, "black") for m in ("9x18", "10x19", "10x17"))
    assert obs[4].sum() == 0
    obs, reward, terminated, truncated, info = env.step(action_of("9x18", "black"))
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["last_moves"] == []  # the move is not complete
    assert env.unwrapped.board.turn == 0  # still Black's turn
    assert legal(info) == [action_of("18x27", "black")] == [4 * 17 + 0]
    # The moving piece stands on 18, marked on plane 4; the jumped man on 14 is gone.
    expected = expected_planes(
        "black", own_men=(10, 18), own_kings=(1,), opp_men=(15, 23), opp_kings=(29,), continuing=(18,)
    )
    np.testing.assert_array_equal(obs, expected)
    # The other capture is not legal any more, nor is any step.
    assert info["action_mask"][action_of("10x19", "black")] == 0
    assert info["action_mask"][action_of("10x17", "black")] == 0
    obs, _, terminated, _, info = env.step(action_of("18x27", "black"))
    assert info["last_moves"][0] == "9x18x27" and not terminated
    assert obs[4].sum() == 0


def test_multi_jump_mid_way_wrong_hop_is_illegal():
    env = make()
    env.reset(seed=0, options={"fen": DOUBLE_JUMP_FEN})
    env.step(action_of("9x18", "black"))
    _, reward, terminated, _, info = env.step(action_of("10x19", "black"))
    assert (reward, terminated, info.get("illegal_action")) == (-1.0, True, True)


OBS_FEN_BLACK = "B:W18,26,K6,K30:B9,11,K3,K20"


def test_observation_planes_black_to_move():
    env = make()
    obs, _ = env.reset(seed=0, options={"fen": OBS_FEN_BLACK})
    assert obs.dtype == np.float32 and obs.shape == (5, 8, 8)
    expected = expected_planes("black", own_men=(9, 11), own_kings=(3, 20), opp_men=(18, 26), opp_kings=(6, 30))
    np.testing.assert_array_equal(obs, expected)
    # spelled out for two cells: square 9 is row 2, column 6; square 30 row 7, column 5
    assert obs[0, 2, 6] == 1.0 and obs[3, 7, 5] == 1.0


def test_observation_planes_white_to_move():
    env = make(agent_color="white")
    obs, _ = env.reset(seed=0, options={"fen": "W" + OBS_FEN_BLACK[1:]})
    expected = expected_planes("white", own_men=(18, 26), own_kings=(6, 30), opp_men=(9, 11), opp_kings=(3, 20))
    np.testing.assert_array_equal(obs, expected)
    # White's man on 18 is at Black's (4, 4), so at (3, 3) after the half turn.
    assert obs[0, 3, 3] == 1.0 and obs[2, 5, 1] == 1.0  # Black's man on 9: (2, 6) -> (5, 1)


# -- illegal and invalid actions ----------------------------------------------------------


def test_illegal_action_terminates_with_minus_one():
    env = make()
    _, info = env.reset(seed=0)
    assert info["action_mask"][0] == 0  # square 1 forward-left: square 6 is Black's own
    _, reward, terminated, truncated, info = env.step(0)
    assert reward == -1.0 and terminated and not truncated
    assert info["illegal_action"] is True
    assert info["termination"] == "illegal_action" and info["result"] == "0-1"
    with pytest.raises(ResetNeeded):
        env.step(32)


def test_legal_action_has_no_illegal_flag():
    env = make()
    env.reset(seed=0)
    _, _, _, _, info = env.step(32)
    assert "illegal_action" not in info


def test_illegal_action_raise_names_the_action_and_the_legal_ones():
    env = make(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError) as caught:
        env.step(0)
    message = str(caught.value)
    assert "action 0" in message
    for action in (32, 33, 36, 37, 40, 41, 45):
        assert str(action) in message.split("legal actions:")[1]
    # the env is untouched: a legal action still plays
    _, _, terminated, _, info = env.step(32)
    assert not terminated and info["last_moves"][0] == "9-14"


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
@pytest.mark.parametrize("action", [128, -1, 1000, 1.5, "3", np.array([1, 2]), None, True, np.float32(32.0)])
def test_action_outside_the_space_raises_value_error(action, illegal_action):
    env = make(illegal_action=illegal_action)
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(action)
    _, _, terminated, _, _ = env.step(np.int64(32))  # numpy integers are fine, and nothing changed
    assert not terminated


def test_step_after_end_needs_reset():
    env = make(max_plies=2)
    env.reset(seed=0)
    _, _, terminated, truncated, _ = env.step(32)
    assert truncated and not terminated
    with pytest.raises(ResetNeeded, match="reset"):
        env.step(32)
    env.reset()
    env.step(32)  # fine again


# -- rewards and episode ends -------------------------------------------------------------


@pytest.mark.parametrize("reward_mode", ["win_loss", "material"])
def test_win_gives_plus_one(reward_mode):
    env = make(reward=reward_mode)
    _, info = env.reset(seed=0, options={"fen": "B:W14:B9"})
    assert legal(info) == [action_of("9x18", "black")]
    _, reward, terminated, truncated, info = env.step(action_of("9x18", "black"))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["result"] == "1-0" and info["termination"] == "no_moves"


@pytest.mark.parametrize("reward_mode", ["win_loss", "material"])
def test_loss_gives_minus_one(reward_mode):
    # Black's only move 4-8 lets White's man on 12 jump it (12x3): Black has no piece left.
    env = make(reward=reward_mode, opponent="greedy")
    _, info = env.reset(seed=0, options={"fen": "B:W12,32:B4"})
    assert legal(info) == [action_of("4-8", "black")]
    _, reward, terminated, truncated, info = env.step(action_of("4-8", "black"))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["last_moves"] == ["4-8", "12x3"] and info["result"] == "0-1"


@pytest.mark.parametrize("reward_mode", ["win_loss", "material"])
def test_loss_as_white(reward_mode):
    # Mirror image: White's only move 29-25 lets Black's man on 21 jump it (21x30).
    env = make(reward=reward_mode, agent_color="white", opponent="random")
    _, info = env.reset(seed=0, options={"fen": "W:W29:B21,1"})
    _, reward, terminated, _, info = env.step(action_of("29-25", "white"))
    assert (reward, terminated) == (-1.0, True) and info["last_moves"] == ["29-25", "21x30"]


@pytest.mark.parametrize("reward_mode", ["win_loss", "material"])
def test_repetition_with_kings_is_a_draw(reward_mode):
    # Both sides shuffle a king; the start position occurs a third time after 8 plies.
    script = ["29-25", "25-29", "29-25", "25-29"]
    env = make(opponent=ScriptedAgent(script), reward=reward_mode)
    env.reset(seed=0, options={"fen": "B:WK29:BK4"})
    outcomes = []
    for move in ["4-8", "8-4", "4-8", "8-4"]:
        _, reward, terminated, truncated, info = env.step(action_of(move, "black"))
        outcomes.append((reward, terminated, truncated))
    assert outcomes == [(0.0, False, False)] * 3 + [(0.0, True, False)]
    assert info["termination"] == "repetition" and info["result"] == "1/2-1/2"


def test_repetition_rule_off_keeps_playing():
    script = ["29-25", "25-29", "29-25", "25-29"]
    env = make(opponent=ScriptedAgent(script), rules=Rules(repetition=None))
    env.reset(seed=0, options={"fen": "B:WK29:BK4"})
    for move in ["4-8", "8-4", "4-8", "8-4"]:
        _, _, terminated, _, _ = env.step(action_of(move, "black"))
    assert not terminated


def test_material_reward_on_a_capture():
    # Black: man 9, king 1 (2 + 3); White: man 14, king 29 (2 + 3). Black jumps 9x18, White
    # answers 29-25: Black's material over White's goes from 5/5 to 5/3.
    env = make(reward="material", opponent="greedy")
    env.reset(seed=0, options={"fen": "B:W14,K29:B9,K1"})
    _, reward, terminated, _, info = env.step(action_of("9x18", "black"))
    assert info["last_moves"] == ["9x18", "29-25"] and not terminated
    before = (MAN_POINTS + KING_POINTS) / (MAN_POINTS + KING_POINTS)
    after = (MAN_POINTS + KING_POINTS) / KING_POINTS
    assert (MAN_POINTS, KING_POINTS) == (2, 3)
    assert reward == pytest.approx(0.1 * math.log(after / before))
    # a quiet move after it: the ratio stays, no reward
    _, reward, _, _, _ = env.step(action_of("1-6", "black"))
    assert reward == pytest.approx(0.0)


def test_material_reward_against_an_external_opponent():
    # As above, with the reply played by an agent outside the kernels (after_external_move).
    env = make(reward="material", opponent=ScriptedAgent(["29-25", "25-22"]))
    env.reset(seed=0, options={"fen": "B:W14,K29:B9,K1"})
    _, reward, _, _, info = env.step(action_of("9x18", "black"))
    assert info["last_moves"] == ["9x18", "29-25"]
    assert reward == pytest.approx(0.1 * math.log((5 / 3) / (5 / 5)))
    _, reward, _, _, _ = env.step(action_of("1-6", "black"))
    assert reward == pytest.approx(0.0)  # measured from the material at the last decision


def test_material_reward_when_losing_a_piece():
    # Black men 11 and 1 against White men 19 and 32: after 11-15 White must jump 19x10,
    # so Black's material over White's goes from 4/4 to 2/4.
    env = make(reward="material", opponent="random")
    env.reset(seed=0, options={"fen": "B:W19,32:B11,1"})
    _, reward, terminated, _, info = env.step(action_of("11-15", "black"))
    assert info["last_moves"] == ["11-15", "19x10"] and not terminated
    assert reward == pytest.approx(0.1 * math.log((2 / 4) / (4 / 4)))


def test_win_loss_reward_is_zero_for_captures():
    env = make(opponent="greedy")
    env.reset(seed=0, options={"fen": "B:W14,K29:B9,K1"})
    _, reward, _, _, _ = env.step(action_of("9x18", "black"))
    assert reward == 0.0


def test_truncation_at_max_plies():
    env = make(max_plies=7)
    _, info = env.reset(seed=5)
    plies = 0
    while True:
        _, reward, terminated, truncated, info = env.step(legal(info)[0])
        plies += len(info["last_moves"])
        if terminated or truncated:
            break
    assert truncated and not terminated and reward == 0.0
    assert plies == 7 and info["termination"] == "max_plies" and info["result"] == "1/2-1/2"


def test_no_progress_draw():
    env = make(rules=Rules(no_progress_plies=6), opponent=ScriptedAgent(["29-25", "25-22", "22-18"]))
    env.reset(seed=0, options={"fen": "B:WK29:BK4"})
    for move in ["4-8", "8-11", "11-15"]:
        _, reward, terminated, _, info = env.step(action_of(move, "black"))
    assert terminated and reward == 0.0 and info["termination"] == "no_progress"


# -- determinism --------------------------------------------------------------------------


def trajectory(env, seed, steps=150):
    """Observations, rewards and ends of ``steps`` steps; actions come from a generator of
    the test's own, so only the env's randomness can differ."""
    chooser = np.random.default_rng(1234)
    obs, info = env.reset(seed=seed)
    record = [obs.tobytes(), info["agent_color"]]
    for _ in range(steps):
        action = int(chooser.choice(legal(info)))
        obs, reward, terminated, truncated, info = env.step(action)
        record += [obs.tobytes(), reward, terminated, truncated, tuple(info["last_moves"])]
        if terminated or truncated:
            obs, info = env.reset()
            record += ["reset", obs.tobytes(), info["agent_color"]]
    return record


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_same_seed_same_trajectory(opponent):
    first = trajectory(make(opponent=opponent, agent_color="random"), seed=11)
    second = trajectory(make(opponent=opponent, agent_color="random"), seed=11)
    assert first == second


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_opponent_randomness_depends_on_the_seed(opponent):
    runs = {tuple(trajectory(make(opponent=opponent), seed=s, steps=40)[2::5]) for s in range(6)}
    assert len(runs) > 1


def test_random_colour_depends_on_the_seed():
    colours = {make(agent_color="random").reset(seed=s)[1]["agent_color"] for s in range(12)}
    assert colours == {"black", "white"}


def test_external_opponent_is_seeded_by_the_env():
    first = trajectory(make(opponent=ShuffledAgent()), seed=4, steps=60)
    second = trajectory(make(opponent=ShuffledAgent(seed=99)), seed=4, steps=60)
    assert first == second


# -- rendering ----------------------------------------------------------------------------

START_ANSI = """\
      White
+--------------------------------+
|    w32     w31     w30     w29 |
|w28     w27     w26     w25     |
|    w24     w23     w22     w21 |
| 20      19      18      17     |
|     16      15      14      13 |
|b12     b11     b10     b9      |
|    b8      b7      b6      b5  |
|b4      b3      b2      b1      |
+--------------------------------+
      Black        black to move"""


def test_ansi_render_of_the_start_position():
    env = make(render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == START_ANSI


def test_ansi_render_names_the_last_move():
    env = make(render_mode="ansi", opponent="greedy")
    env.reset(seed=0, options={"fen": "B:W12,32:B4,1"})
    env.step(action_of("4-8", "black"))
    assert env.render().endswith("last move: 12x3")


def square_centre(square: int) -> tuple[int, int]:
    """Pixel (y, x) of a square's centre in ``rendering.board_image``: the picture is seen
    from Black, square (row, col) of docs/design.md §1's diagram."""
    row, col = ROW_COL[square]
    size = rendering.SQUARE_PIXELS
    return (7 - row) * size + size // 2, col * size + size // 2


def _pixel(image, square, dy=0, dx=0):
    y, x = square_centre(square)
    return tuple(int(v) for v in image[y + dy, x + dx])


def test_rgb_array_frame_of_a_known_position():
    env = make(render_mode="rgb_array")
    env.reset(seed=0, options={"fen": OBS_FEN_BLACK})
    image = env.render()
    size = 8 * rendering.SQUARE_PIXELS
    assert image.shape == (size, size, 3) and image.dtype == np.uint8
    quarter = rendering.SQUARE_PIXELS // 4  # inside the disc, outside the king's mark
    assert _pixel(image, 9) == rendering.BLACK_PIECE
    assert _pixel(image, 18) == rendering.WHITE_PIECE
    assert _pixel(image, 3) == rendering.KING_MARK and _pixel(image, 3, quarter) == rendering.BLACK_PIECE
    assert _pixel(image, 30) == rendering.KING_MARK and _pixel(image, 30, quarter) == rendering.WHITE_PIECE
    assert _pixel(image, 14) == rendering.DARK_SQUARE  # empty
    assert _pixel(image, 14, 0, rendering.SQUARE_PIXELS) == rendering.LIGHT_SQUARE  # its right neighbour
    corner = -rendering.SQUARE_PIXELS // 2 + 1
    assert _pixel(image, 9, corner, corner) == rendering.DARK_SQUARE  # nothing highlighted yet


def test_rgb_array_highlights_the_last_move():
    env = make(render_mode="rgb_array", opponent="random")
    env.reset(seed=0, options={"fen": "B:W29:B4"})
    env.step(action_of("4-8", "black"))  # White's only answer: 29-25
    image = env.render()
    corner = -rendering.SQUARE_PIXELS // 2 + 1
    assert _pixel(image, 29, corner, corner) == rendering.LAST_MOVE
    assert _pixel(image, 25, corner, corner) == rendering.LAST_MOVE
    assert _pixel(image, 25) == rendering.WHITE_PIECE
    assert _pixel(image, 4, corner, corner) == rendering.DARK_SQUARE  # the learner's move is older
    assert _pixel(image, 8) == rendering.BLACK_PIECE


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array", None])
def test_render_before_reset_needs_reset(render_mode):
    # Through gym.make, Gymnasium's OrderEnforcing raises ResetNeeded; the env itself
    # (used unwrapped) raises the same error rather than drawing an empty board.
    env = make(render_mode=render_mode)
    with pytest.raises(ResetNeeded):
        env.render()
    with pytest.raises(ResetNeeded, match=r"^call reset\(\) before render\(\): there is no position to draw yet$"):
        env.unwrapped.render()
    env.reset(seed=0)
    if render_mode == "ansi":
        assert env.unwrapped.render() == START_ANSI


def test_render_without_mode_warns_and_returns_none():
    env = make().unwrapped
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


# -- arguments ----------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*render_mode:UserWarning")
@pytest.mark.parametrize(
    "kwargs",
    [
        {"agent_color": "red"},
        {"reward": "score"},
        {"illegal_action": "ignore"},
        {"render_mode": "video"},
        {"max_plies": 0},
        {"opponent": "nobody"},
    ],
)
def test_bad_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        make(**kwargs)


@pytest.mark.parametrize("options", [{"fenn": "B:W14:B9"}, {"fen": "B:W14:B9", "seed": 3}, {"reset_mask": [True]}])
def test_unknown_reset_option_is_refused_with_the_accepted_ones(options):
    env = make()
    unknown = next(key for key in options if key != "fen")
    with pytest.raises(ValueError, match=rf"^reset options: unknown key '{unknown}'; accepted keys: 'fen' \("):
        env.reset(seed=0, options=options)
    with pytest.raises(ValueError, match="reset options must be a dict"):
        env.reset(seed=0, options="B:W14:B9")
    _, info = env.reset(seed=0, options={"fen": "B:W14:B9"})  # the accepted option still works
    assert legal(info) == [action_of("9x18", "black")]  # the one capture
    env.reset(seed=0, options={})  # an empty dict, as gymnasium's check_env passes


def test_decided_start_position_is_refused():
    env = make()
    with pytest.raises(ValueError, match="decided"):
        env.reset(options={"fen": "W:W:B9"})  # White to move without a piece


# -- MaskablePPO ----------------------------------------------------------------------------


def test_maskable_ppo_smoke_run_plays_only_legal_actions():
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(1)

    class CountIllegal(BaseCallback):
        illegal = 0
        steps = 0

        def _on_step(self):
            for info in self.locals["infos"]:
                self.illegal += bool(info.get("illegal_action"))
                self.steps += 1
            return True

    env = make(agent_color="random", opponent="random")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=256,
        batch_size=128,
        n_epochs=2,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [64]},
    )
    counter = CountIllegal()
    model.learn(total_timesteps=2048, callback=counter)
    assert counter.steps >= 2048 and counter.illegal == 0

    played = 0
    raw = env.unwrapped
    for episode in range(3):
        obs, info = env.reset(seed=100 + episode)
        done = False
        while not done:
            masks = raw.action_masks()
            action, _ = model.predict(obs, action_masks=masks, deterministic=False)
            assert masks[int(action)]
            obs, _, terminated, truncated, info = env.step(int(action))
            assert "illegal_action" not in info
            done = terminated or truncated
            played += 1
    assert played > 30
