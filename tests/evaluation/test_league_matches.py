"""A trainer's matches through the league: the gauntlet of an agent object against fixed
opponents, and the head-to-head gate that resumes from its folder."""

from __future__ import annotations

import json

import pytest

from checkers_env import make_agent
from checkers_env.match import ballot_openings
from checkers_evaluation.league import CANDIDATE, INCUMBENT, LeagueError, gauntlet, head_to_head, load_records, runner


def test_a_gauntlet_plays_each_ballot_opening_with_both_colours(monkeypatch):
    played = []
    play_game = runner.play_game

    def recording_play_game(black, white, opening, *args, **kwargs):
        played.append((str(black), str(white), opening))
        return play_game(black, white, opening, *args, **kwargs)

    monkeypatch.setattr(runner, "play_game", recording_play_game)
    results = gauntlet(make_agent("greedy"), ["random", "random:seed=1"], 4, seed=3)
    assert list(results) == ["random", "random:seed=1"]
    for cell in results.values():
        assert cell.games == 4 and 0.0 <= cell.score <= 1.0
        assert set(cell.summary()) == {"wins", "draws", "losses", "score"}
    ballot = set(ballot_openings())
    assert all(opening in ballot for *_, opening in played)
    assert [(b, w) for b, w, _ in played[:4]] == [("greedy", "random"), ("random", "greedy")] * 2
    assert played[0][2] == played[1][2] != played[2][2]


def test_a_gauntlet_is_the_same_for_the_same_seed():
    first = gauntlet(make_agent("greedy"), ["random"], 6, seed=5)
    again = gauntlet(make_agent("greedy"), ["random", "random"], 6, seed=5)  # listed twice: played once
    assert first["random"].summary() == again["random"].summary()


def test_a_gauntlet_needs_colour_swapped_pairs_and_its_own_agent_s_name():
    with pytest.raises(LeagueError, match="even"):
        gauntlet(make_agent("greedy"), ["random"], 3)
    with pytest.raises(LeagueError, match="'agent'"):
        gauntlet(make_agent("greedy"), ["agent"], 2)


def test_a_head_to_head_match_resumes_after_a_cut_line(tmp_path):
    whole = head_to_head("greedy", "random", 6, tmp_path / "whole", seed=2, progress=False)
    assert whole.player == CANDIDATE and whole.opponent == INCUMBENT and whole.games == 6
    games = tmp_path / "whole" / "games.jsonl"
    records = load_records(games)
    assert [(r.black, r.white) for r in records[:2]] == [(CANDIDATE, INCUMBENT), (INCUMBENT, CANDIDATE)]
    assert (tmp_path / "whole" / "games.pdn").exists()
    config = json.loads((tmp_path / "whole" / "league.json").read_text())
    assert config["players"] == [{"name": CANDIDATE, "spec": "greedy"}, {"name": INCUMBENT, "spec": "random"}]

    # A match killed after two games, the third cut mid-line, resumes with the four it lacks.
    cut = tmp_path / "cut"
    head_to_head("greedy", "random", 6, cut, seed=2, progress=False)
    lines = games.read_text().splitlines(keepends=True)
    (cut / "games.jsonl").write_text("".join(lines[:2]) + lines[2][:40])
    resumed = head_to_head("greedy", "random", 6, cut, seed=2, progress=False)
    assert resumed.summary() == whole.summary()
    assert sorted(r.key for r in load_records(cut / "games.jsonl")) == sorted(r.key for r in records)


def test_a_head_to_head_folder_holds_one_match(tmp_path):
    head_to_head("greedy", "random", 2, tmp_path, progress=False)
    with pytest.raises(LeagueError, match="incumbent"):
        head_to_head("greedy", "random:seed=1", 2, tmp_path, progress=False)
    with pytest.raises(LeagueError, match="even"):
        head_to_head("greedy", "random", 3, tmp_path / "odd", progress=False)


def test_a_head_to_head_match_of_one_spec_against_itself(tmp_path):
    """Two generations can be the same net (a gate against the starting weights)."""
    cell = head_to_head("greedy", "greedy", 2, tmp_path, progress=False)
    assert cell.games == 2
