"""The loss autopsy on games whose blunders are known (``blunders``): a man left to a capture,
found by the fall of the loser's value and checked by a deeper search; a killed run resumed;
bad input refused in one line. Every search has a fixed depth, so the results are the same
on every run."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from blunders import BLACK_BEST, DEEP, FAST, THRESHOLD, WHITE_BEST

from checkers_env import BLACK, BaseAgent, Game, Rules, make_agent
from checkers_env.match import play_game
from checkers_evaluation import autopsy as autopsy_module
from checkers_evaluation import autopsy_command
from checkers_evaluation.autopsy import AutopsyError, LostGame, autopsy, examine, forced_plies, lost_games, read_lines
from checkers_evaluation.cli import main


def test_the_losses_are_the_games_the_player_lost(blunder_pdn):
    lost = lost_games([blunder_pdn], "blunderer")
    assert [game.key for game in lost] == [f"{blunder_pdn}#1", f"{blunder_pdn}#3"]
    assert [game.colour.name for game in lost] == ["BLACK", "WHITE"]


def test_the_drop_and_the_blunder_before_it_are_found(blunder_autopsy, blunder_pdn):
    summary, out = blunder_autopsy
    assert (summary.games, summary.played, summary.losses, summary.examined) == (4, 4, 2, 2)
    assert (summary.drops, summary.mistakes, summary.skipped) == (2, 2, 0)
    black, white = read_lines(out / "drift.jsonl")
    for record, ply, played, best in ((black, 2, "12-16", BLACK_BEST), (white, 3, "22-18", WHITE_BEST)):
        assert (record["ply"], record["played"], record["mistake"]) == (ply, played, True)
        # the deep search's better moves, its level value, and the man the move played loses
        assert set(record["deep"]["best_moves"]) == best and record["deep"]["depth"] == 6
        assert record["deep"]["value"] == 0 and record["deep"]["played_value"] == -100
        # what the fast search saw before the move: a level game, and a move that keeps the man
        assert record["fast"]["value"] >= THRESHOLD and record["fast"]["move"] in best
        assert record["fast"]["depth"] == 4 and record["fast"]["spec"] == FAST
        # the drop is the player's next position, where the man is gone
        assert record["drop"]["ply"] == ply + 2 and record["drop"]["value"] < THRESHOLD
        assert Game(moves=record["moves"]).board.fen() == record["fen"] and len(record["moves"]) == ply
    lines = read_lines(out / "games.jsonl")
    assert [line["drop"]["ply"] for line in lines] == [4, 5]
    assert [line["checked_ply"] for line in lines] == [2, 3]
    # the values followed: the player's positions only, up to the drop
    assert [ply for ply, _ in lines[0]["values"]] == [0, 2, 4]
    assert [ply for ply, _ in lines[1]["values"]] == [1, 3, 5]
    assert summary.drop_plies == {"0-9": 2}


def test_the_deep_verdict_is_the_deep_search_of_the_position(blunder_autopsy):
    _, out = blunder_autopsy
    record = read_lines(out / "drift.jsonl")[0]
    deep = make_agent(DEEP)
    game = Game(moves=record["moves"])
    deep.select_move(game)
    assert record["deep"]["value"] == deep.last_search.value
    game.play(record["played"])
    deep.select_move(game)
    assert record["deep"]["played_value"] == -deep.last_search.value


class ScriptedValues(BaseAgent):
    """Plays the first legal move and reports the value its script gives the ply."""

    kind = "scripted"

    def __init__(self, values: dict[int, float]):
        super().__init__()
        self.values, self.last_search = values, None

    def select_move(self, game):
        move = game.legal_moves()[0]
        self.last_search = SimpleNamespace(value=self.values[game.ply], depth=1, nodes=1, best_moves=(move,), pv=())
        return move


def test_a_forced_move_before_the_drop_is_passed_over():
    # Black's 15x22 at ply 2 is its only legal move: the move checked is 11-15, the choice before it.
    game = Game(moves=["11-15", "22-18", "15x22", "25x18", "9-14"])
    game.headers.update({"Black": "b", "White": "w", "Result": "0-1"})
    lost = LostGame("game#1", game, BLACK)
    agent = ScriptedValues({0: 0.0, 2: 0.0, 4: -1.0})
    line, record = examine(lost, agent, make_agent(DEEP), -0.3, Rules(), ("scripted", DEEP))
    assert line["values"] == [[0, 0.0], [2, 0.0], [4, -1.0]]
    assert line["drop"] == {"ply": 4, "value": -1.0} and line["checked_ply"] == 0
    assert (record["ply"], record["played"], record["fen"]) == (0, "11-15", Game().board.fen())
    assert record["fast"]["choices"] == 7 and record["moves"] == []
    # without a drop, nothing is checked
    line, record = examine(lost, ScriptedValues({0: 0.0, 2: 0.0, 4: 0.0}), make_agent(DEEP), -0.3, Rules(), ("", ""))
    assert line["drop"] is None and record is None


def test_the_report_has_a_row_per_checked_move(blunder_autopsy, blunder_pdn):
    _, out = blunder_autopsy
    report = (out / "report.md").read_text()
    assert "| 2 | 12-16 **x** |" in report and "| 3 | 22-18 **x** |" in report
    assert "| 0-9 | 2 |" in report and "lost: 2" in report
    settings = json.loads((out / "autopsy.json").read_text())
    assert settings["player"] == "blunderer" and settings["threshold"] == THRESHOLD


def test_a_league_loss_is_examined_the_same_way(tmp_path):
    from checkers_evaluation.league.reports import write_games_pdn

    weak, strong = "alphabeta:depth=1,eval=material", "alphabeta:depth=4,eval=material"
    rng = np.random.default_rng(0)
    record = play_game(make_agent(weak), make_agent(strong), "11-15 23-19", Rules(max_plies=120), rng)
    assert record.result == "0-1"  # the shallow search loses
    pdn = write_games_pdn([record], tmp_path / "games.pdn")
    summary = autopsy([pdn], weak, tmp_path / "out", weak + ",seed=0", DEEP, THRESHOLD)
    assert summary.losses == summary.examined == summary.drops == 1
    (found,) = read_lines(tmp_path / "out" / "drift.jsonl")
    line = read_lines(tmp_path / "out" / "games.jsonl")[0]
    values = dict((ply, value) for ply, value in line["values"])
    assert min(values) == 2  # Black's first move was the forced opening's, not its choice
    # the drop is the first of Black's values below the threshold, the checked move the last
    # choice before it: Black's moves between them, if any, were forced
    assert found["drop"]["ply"] == min(ply for ply, value in values.items() if value < THRESHOLD)
    assert found["ply"] < found["drop"]["ply"] and values[found["ply"]] >= THRESHOLD
    assert found["fast"]["choices"] == len(Game(moves=record.moves[: found["ply"]]).legal_moves()) > 1
    between = [ply for ply in values if found["ply"] < ply < found["drop"]["ply"]]
    assert all(len(Game(moves=record.moves[:ply]).legal_moves()) == 1 for ply in between)
    assert found["played"] == str(record.moves[found["ply"]])
    assert found["mistake"] == (found["played"] not in found["deep"]["best_moves"])
    assert found["deep"]["played_value"] <= found["deep"]["value"]


def test_a_forced_opening_is_the_moves_of_an_opening_tag_the_game_begins_with():
    from checkers_env.pdn import read_pdn

    def game(tag):
        return read_pdn(f'[Opening "{tag}"]\n[Result "*"]\n\n1. 11-15 23-19 2. 8-11 *\n')[0]

    assert forced_plies(game("11-15 23-19")) == 2
    assert forced_plies(game("Old Faithful")) == 0  # a name, not moves
    assert forced_plies(game("9-13 23-19")) == 0  # not how the game began


def test_a_killed_autopsy_resumes_at_the_game_it_had_not_finished(blunder_pdn, blunder_autopsy, tmp_path, monkeypatch):
    out = tmp_path / "out"
    examine = autopsy_module.examine
    seen = []

    def killed_at_the_second(lost, *args):
        seen.append(lost.key)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return examine(lost, *args)

    monkeypatch.setattr(autopsy_module, "examine", killed_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        autopsy([blunder_pdn], "blunderer", out, FAST, DEEP, THRESHOLD)
    assert len(read_lines(out / "games.jsonl")) == len(read_lines(out / "drift.jsonl")) == 1
    with (out / "games.jsonl").open("a") as handle:
        handle.write('{"game": "cut sho')  # a line a kill cut short
    with pytest.raises(AutopsyError, match="--resume"):
        autopsy([blunder_pdn], "blunderer", out, FAST, DEEP, THRESHOLD)
    with pytest.raises(AutopsyError, match="threshold -50.0, not -60.0"):
        autopsy([blunder_pdn], "blunderer", out, FAST, DEEP, -60.0, resume=True)
    seen.clear()
    summary = autopsy([blunder_pdn], "blunderer", out, FAST, DEEP, THRESHOLD, resume=True)
    assert seen == [f"{blunder_pdn}#3"]  # the first game is not searched again
    assert summary == blunder_autopsy[0]
    _, whole = blunder_autopsy
    for name in ("drift.jsonl", "games.jsonl"):
        assert read_lines(out / name) == read_lines(whole / name)


def test_the_command_examines_and_scores(blunder_pdn, tmp_path, capsys):
    out = tmp_path / "out"
    common = ["--agent", FAST, "--no-progress"]
    argv = ["autopsy", str(blunder_pdn), "--player", "blunderer", "--out", str(out), "--deep-spec", DEEP]
    assert main([*argv, *common, "--threshold", "-50"]) == 0
    printed = capsys.readouterr().out
    assert "played: 4, lost: 2, examined: 2" in printed and "would not play: 2" in printed
    assert "drops by ply: 0-9: 2" in printed
    assert main(["autopsy", "--drift", str(out / "drift.jsonl"), *common]) == 0
    assert f"{FAST}: 2/2 right (100.0 %)" in capsys.readouterr().out
    (score,) = read_lines(out / "scores.jsonl")
    assert (score["agent"], score["right"], score["positions"]) == (FAST, 2, 2)


def test_the_command_states_the_library_defaults():
    assert autopsy_command.DEFAULT_AGENT == autopsy_module.DEFAULT_AGENT
    assert autopsy_command.DEFAULT_DEEP == autopsy_module.DEFAULT_DEEP
    assert autopsy_command.DEFAULT_THRESHOLD == autopsy_module.DEFAULT_THRESHOLD


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{missing}", "--player", "x", "--out", "{out}"], "{missing}"),
        (["{bad}", "--player", "x", "--out", "{out}"], "bad.pdn"),
        (["{games}", "--player", "nobody", "--out", "{out}"], "no game of 'nobody' in {games} (the players there: "),
        (["{games}", "--player", "blunderer", "--out", "{out}", "--agent", "alphabeta:depth=x"], "'x'"),
        (["{games}", "--player", "blunderer", "--out", "{out}", "--agent", "nosuchkind"], "nosuchkind"),
        (["{games}", "--player", "blunderer", "--out", "{out}", "--agent", "random"], "leaves no search value"),
        (["{games}", "--out", "{out}"], "--player is required"),
        (["{games}", "--player", "blunderer"], "--out is required"),
        ([], "give PDN files"),
        (["{games}", "--drift", "{games}"], "give no PDN"),
        (["--drift", "{missing}"], "no drift set"),
        (["--drift", "{games}"], "1: corrupt JSON object"),
    ],
    ids=[
        "missing file",
        "bad PDN",
        "unknown player",
        "bad spec",
        "unknown kind",
        "no value",
        "no player",
        "no out",
        "nothing",
        "drift and games",
        "missing drift",
        "not a drift set",
    ],
)
def test_bad_input_is_one_line_naming_it(argv, message, blunder_pdn, tmp_path, capsys):
    bad = tmp_path / "bad.pdn"
    bad.write_text('[Black "x"]\n[White "y"]\n1. 11-15 99-98 1-0\n')
    fill = {"missing": tmp_path / "missing.pdn", "bad": bad, "games": blunder_pdn, "out": tmp_path / "out"}
    specs = ["--agent", FAST, "--deep-spec", DEEP] if "--agent" not in argv else ["--deep-spec", DEEP]
    assert main(["autopsy", *[part.format(**fill) for part in argv], *specs, "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("checkers: error: ") and captured.err.count("\n") == 1
    assert message.format(**fill) in captured.err
    assert not (tmp_path / "out").exists()
