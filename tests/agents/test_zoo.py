"""Every zoo card is valid and every zoo agent loads by name and plays a legal game."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from checkers_agents.book import OpeningBook, SearchedMove
from checkers_agents.zoo import load_card, validate_card, zoo_dir, zoo_names
from checkers_env import Board, Game, Rules, UnknownAgentError, make_agent
from checkers_env.match import play_game

NAMES = zoo_names()


def test_the_zoo_has_td_minimax_slow_fast_mcrd_and_ppo():
    assert {"mcrd", "td-minimax", "slow-fast", "ppo"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_card_is_valid(name):
    folder = zoo_dir() / name
    card = json.loads((folder / "card.json").read_text())
    assert validate_card(card, folder) == []
    assert card["name"] == name
    assert len(card["commit"]) == 40 and card["date"]


@pytest.mark.parametrize("name", NAMES)
def test_agent_loads_and_plays_a_legal_game(name, request, monkeypatch):
    params = load_card(name)[0]["params"]
    spec = f"zoo:{name},time=0.05" if "time" in params else f"zoo:{name}"
    if params.get("egdb"):  # the session's small database stands in for the card's
        database = request.getfixturevalue("egdb4")
        monkeypatch.setenv("CHECKERS_EGDB", str(database.folder))
        spec += f",egdb={database.pieces}"
    agent = make_agent(spec)
    assert str(agent) == spec
    record = play_game(agent, make_agent("random"), "11-15 23-19 8-11", Rules(max_plies=120), np.random.default_rng(0))
    replay = Game()
    for move in record.moves:
        replay.play(move)  # raises if any move was illegal
    assert record.result in ("1-0", "0-1", "1/2-1/2")


def test_validate_card_names_the_problems(tmp_path):
    assert "missing field 'kind'" in validate_card({"name": "x"})
    card = {
        "name": "x",
        "kind": "random",
        "params": {},
        "description": "",
        "commit": "",
        "date": "",
        "weights": "w.safetensors",
    }
    assert any("weights file" in p for p in validate_card(card, tmp_path))
    assert any("unknown fields" in p for p in validate_card({**card, "extra": 1}))


def test_missing_or_corrupt_zoo_entries_are_clear_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path))
    with pytest.raises(UnknownAgentError, match="no zoo entry 'nothing'"):
        make_agent("zoo:nothing")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "card.json").write_text("{not json")
    with pytest.raises(UnknownAgentError, match="not valid JSON"):
        make_agent("zoo:broken")


def test_a_card_parameter_that_names_a_file_names_one_of_the_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path))
    start = Board()
    (tmp_path / "booked").mkdir()
    OpeningBook(searched={start.fen(): SearchedMove("10-14", 0.0, 1)}).save(tmp_path / "booked" / "book.json")
    card = {"name": "booked", "kind": "alphabeta", "params": {"depth": 2, "book_file": "book.json"}}
    card.update(description="", commit="0" * 40, date="2026-12-05")
    (tmp_path / "booked" / "card.json").write_text(json.dumps(card))
    agent = make_agent("zoo:booked")
    assert agent.book_file == str(tmp_path / "booked" / "book.json")
    assert str(agent.select_move(Game(start))) == "10-14" and agent.last_search is None

    for name, book in [("missing", "other.json"), ("outside", "../booked/book.json")]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "card.json").write_text(json.dumps({**card, "name": name, "params": {"book_file": book}}))
        with pytest.raises(UnknownAgentError, match=f"book_file='{re.escape(book)}' names a file that is missing"):
            make_agent(f"zoo:{name}")
