"""The drift set of the blunderer's autopsy (``blunders``): agents scored on it, its positions
checked again by a deep search (a wrong verdict mended, a killed recheck resumed), and bad
input refused in one line; and the zoo's own drift sets, which replay to their positions."""

from __future__ import annotations

import json

import pytest
from blunders import BLACK_BEST, DEEP, FAST

from checkers_agents.zoo import zoo_dir
from checkers_env import Rules
from checkers_evaluation import drift as drift_module
from checkers_evaluation.autopsy import AutopsyError, read_lines, same_position
from checkers_evaluation.cli import main
from checkers_evaluation.drift import agree_drift, drift_position, recheck_drift, score_drift


def write_set(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


@pytest.fixture
def wrong_verdicts(blunder_autopsy, tmp_path):
    """The blunderer's drift set with each verdict turned into the blunder: the move played
    is the deep search's only best move, no mistake."""
    _, out = blunder_autopsy
    records = [
        dict(record, deep=dict(record["deep"], best_moves=[record["played"]]), mistake=False)
        for record in read_lines(out / "drift.jsonl")
    ]
    (tmp_path / "wrong").mkdir()
    return write_set(tmp_path / "wrong" / "drift.jsonl", records)


def test_the_drift_set_scores_the_agents_that_find_the_better_move(blunder_autopsy, tmp_path):
    _, out = blunder_autopsy
    drift = out / "drift.jsonl"
    assert score_drift(drift, DEEP)["fraction"] == 1.0  # the deep search agrees with itself
    # a set whose verdict is the blunder: the depth-4 search plays another move
    records = read_lines(drift)
    wrong = dict(records[0], deep=dict(records[0]["deep"], best_moves=["12-16"]))
    mixed = write_set(tmp_path / "drift.jsonl", [*records, wrong])
    score = score_drift(mixed, FAST)
    assert (score["positions"], score["right"]) == (3, 2)
    assert score["fraction"] == pytest.approx(2 / 3)
    assert [row["right"] for row in score["per_position"]] == [True, True, False]
    assert score["per_position"][2]["move"] in BLACK_BEST
    # what each search took: FAST searches to its fixed depth
    assert [row["depth"] for row in score["per_position"]] == [4, 4, 4]
    assert all(row["seconds"] > 0.0 for row in score["per_position"])


def test_a_recheck_by_the_same_search_gives_the_same_verdicts(blunder_autopsy, tmp_path):
    _, out = blunder_autopsy
    before = read_lines(out / "drift.jsonl")
    after = recheck_drift(out / "drift.jsonl", DEEP, tmp_path / "again")
    assert after == read_lines(tmp_path / "again" / "drift.jsonl")
    assert len(after) == len(before) == 2
    for old, new in zip(before, after, strict=True):
        assert {key: new[key] for key in old if key != "deep"} == {key: old[key] for key in old if key != "deep"}
        for key in ("spec", "best_moves", "value", "played_value", "depth"):
            assert new["deep"][key] == old["deep"][key]


def test_a_recheck_mends_a_wrong_verdict(wrong_verdicts, tmp_path):
    assert score_drift(wrong_verdicts, FAST)["right"] == 0  # nobody plays the blunders
    after = recheck_drift(wrong_verdicts, DEEP, tmp_path / "mended")
    assert [record["mistake"] for record in after] == [True, True]
    assert set(after[0]["deep"]["best_moves"]) == BLACK_BEST
    assert after[0]["deep"]["played_value"] < after[0]["deep"]["value"]
    assert score_drift(tmp_path / "mended" / "drift.jsonl", FAST)["right"] == 2


def test_a_killed_recheck_resumes_at_the_position_it_had_not_finished(wrong_verdicts, tmp_path, monkeypatch):
    out = tmp_path / "out"
    verdict = drift_module.deep_verdict
    seen = []

    def killed_at_the_second(deep, game, played, seed):
        seen.append(seed)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return verdict(deep, game, played, seed)

    monkeypatch.setattr(drift_module, "deep_verdict", killed_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        recheck_drift(wrong_verdicts, DEEP, out)
    assert len(read_lines(out / "drift.jsonl")) == 1
    with (out / "drift.jsonl").open("a") as handle:
        handle.write('{"fen": "cut sho')  # a line a kill cut short
    with pytest.raises(AutopsyError, match="--resume"):
        recheck_drift(wrong_verdicts, DEEP, out)
    with pytest.raises(AutopsyError, match="holds a recheck by"):
        recheck_drift(wrong_verdicts, FAST, out, resume=True)
    seen.clear()
    after = recheck_drift(wrong_verdicts, DEEP, out, resume=True)
    assert seen == [2]  # the first position is not searched again
    monkeypatch.undo()
    assert after == read_lines(out / "drift.jsonl") == recheck_drift(wrong_verdicts, DEEP, tmp_path / "whole")


def test_a_recheck_never_writes_over_its_own_set_or_resumes_another(blunder_autopsy, wrong_verdicts, tmp_path):
    _, out = blunder_autopsy
    with pytest.raises(AutopsyError, match="is the drift set itself"):
        recheck_drift(out / "drift.jsonl", DEEP, out, resume=True)
    # a folder holding the recheck of another set: its first position is not this set's
    records = read_lines(wrong_verdicts)
    other = write_set(tmp_path / "other.jsonl", records[::-1])
    recheck_drift(other, DEEP, tmp_path / "other")
    with pytest.raises(AutopsyError, match="line 1 holds another position"):
        recheck_drift(wrong_verdicts, DEEP, tmp_path / "other", resume=True)
    with pytest.raises(AutopsyError, match="holds more positions"):
        recheck_drift(write_set(tmp_path / "one.jsonl", records[:1]), DEEP, tmp_path / "other", resume=True)


def test_the_command_rechecks(wrong_verdicts, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["autopsy", "--drift", str(wrong_verdicts), "--recheck", "--deep-spec", DEEP, "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert (
        f"{wrong_verdicts} checked again by {DEEP}: positions 2, best moves changed in 2, mistakes 2 (were 0)"
        in printed
    )
    assert [record["mistake"] for record in read_lines(out / "drift.jsonl")] == [True, True]


def test_a_recheck_on_two_workers_writes_the_set_of_one(wrong_verdicts, tmp_path):
    one = recheck_drift(wrong_verdicts, DEEP, tmp_path / "one")
    argv = ["autopsy", "--drift", str(wrong_verdicts), "--recheck", "--deep-spec", DEEP, "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "two"), "--workers", "2"]) == 0
    assert read_lines(tmp_path / "two" / "drift.jsonl") == one  # the same verdicts, in the set's order


def test_workers_are_for_the_recheck_alone(wrong_verdicts, capsys):
    assert main(["autopsy", "--drift", str(wrong_verdicts), "--agent", FAST, "--workers", "2"]) == 2
    assert "--workers is for --recheck" in capsys.readouterr().err


def test_the_agreement_keeps_the_best_moves_every_verdict_shares(blunder_autopsy, tmp_path):
    _, out = blunder_autopsy
    drift = out / "drift.jsonl"
    records = read_lines(drift)
    assert set(records[0]["deep"]["best_moves"]) == BLACK_BEST
    two = sorted(BLACK_BEST)[:2]
    # the second search counts two of the first position's best moves, and only the blunder
    # at the second position
    other = write_set(
        tmp_path / "other.jsonl",
        [
            dict(records[0], deep=dict(records[0]["deep"], spec="other", best_moves=[*two, records[0]["played"]])),
            dict(records[1], deep=dict(records[1]["deep"], spec="other", best_moves=[records[1]["played"]])),
        ],
    )
    (kept,) = agree_drift(drift, [other], tmp_path / "agreed")
    assert kept == read_lines(tmp_path / "agreed" / "drift.jsonl")[0]
    assert sorted(kept["deep"]["best_moves"]) == two and kept["mistake"]  # the blunder is no best move of the first
    assert kept["deep"]["spec"] == f"{DEEP} & other"
    assert [verdict["spec"] for verdict in kept["verdicts"]] == [DEEP, "other"]
    assert {key: kept[key] for key in ("fen", "played", "moves")} == {
        key: records[0][key] for key in ("fen", "played", "moves")
    }
    assert score_drift(tmp_path / "agreed" / "drift.jsonl", DEEP)["positions"] == 1
    # a third search agreed with the agreed set adds its verdict to the two
    third = dict(records[0], deep=dict(records[0]["deep"], spec="third", best_moves=[two[0]]))
    (again,) = agree_drift(
        tmp_path / "agreed" / "drift.jsonl", [write_set(tmp_path / "third.jsonl", [third])], tmp_path / "again"
    )
    assert [verdict["spec"] for verdict in again["verdicts"]] == [DEEP, "other", "third"]
    assert again["deep"] == {"spec": f"{DEEP} & other & third", "best_moves": [two[0]]}
    # a recheck of the agreed set is one search's verdict: the agreement's are dropped
    (rechecked,) = recheck_drift(tmp_path / "agreed" / "drift.jsonl", DEEP, tmp_path / "rechecked")
    assert "verdicts" not in rechecked and rechecked["deep"]["spec"] == DEEP
    # a verdict agrees with itself everywhere
    assert [record["deep"]["best_moves"] for record in agree_drift(drift, [drift], tmp_path / "self")] == [
        record["deep"]["best_moves"] for record in records
    ]


def test_the_agreement_refuses_sets_of_other_positions(blunder_autopsy, tmp_path, capsys):
    _, out = blunder_autopsy
    drift = out / "drift.jsonl"
    records = read_lines(drift)
    with pytest.raises(AutopsyError, match="holds 1 positions"):
        agree_drift(drift, [write_set(tmp_path / "one.jsonl", records[:1])], tmp_path / "agreed")
    with pytest.raises(AutopsyError, match="line 1 holds another position"):
        agree_drift(drift, [write_set(tmp_path / "turned.jsonl", records[::-1])], tmp_path / "agreed")
    with pytest.raises(AutopsyError, match="one of the drift sets"):
        agree_drift(drift, [drift], out)
    with pytest.raises(AutopsyError, match="give the drift sets"):
        agree_drift(drift, [], tmp_path / "agreed")
    assert not (tmp_path / "agreed").exists()
    assert main(["autopsy", "--drift", str(drift), "--agree", str(drift), "--out", str(tmp_path / "agreed")]) == 0
    assert "the verdicts share a best move in 2 of 2 positions, mistakes 2" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--recheck", "--out", "{out}"], "give --drift FILE"),
        (["--drift", "{drift}", "--recheck"], "--out is required with --recheck"),
        (["--drift", "{drift}", "--resume"], "--resume is for --recheck"),
        (["--drift", "{drift}", "--recheck", "--out", "{out}", "--deep-spec", "random"], "leaves no search value"),
        (["--drift", "{missing}", "--recheck", "--out", "{out}"], "no drift set"),
        (["--drift", "{bad}", "--recheck", "--out", "{out}"], "line 1 is not a drift record"),
        (["--agree", "{drift}", "--out", "{out}"], "give --drift FILE"),
        (["--drift", "{drift}", "--agree", "{drift}"], "--out is required with --agree"),
        (["--drift", "{drift}", "--agree", "{drift}", "--recheck", "--out", "{out}"], "recheck first, then agree"),
        (["--drift", "{drift}", "--agree", "{drift}", "--resume", "--out", "{out}"], "--resume is for --recheck"),
        (["--drift", "{bad}", "--agree", "{drift}", "--out", "{out}"], "line 1 is not a drift record"),
    ],
    ids=[
        "no drift set",
        "no out",
        "resume without recheck",
        "no value",
        "missing set",
        "not a drift record",
        "agree without a set",
        "agree without out",
        "agree and recheck",
        "agree and resume",
        "agree with a bad set",
    ],
)
def test_bad_input_is_one_line_naming_it(argv, message, wrong_verdicts, tmp_path, capsys):
    bad = write_set(tmp_path / "bad.jsonl", [{"fen": "B:W99:B1"}])
    fill = {"drift": wrong_verdicts, "missing": tmp_path / "missing.jsonl", "bad": bad, "out": tmp_path / "out"}
    specs = [] if "--deep-spec" in argv else ["--deep-spec", DEEP]
    assert main(["autopsy", *[part.format(**fill) for part in argv], *specs, "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("checkers: error: ") and captured.err.count("\n") == 1
    assert message.format(**fill) in captured.err
    assert not (tmp_path / "out").exists()


ZOO_DRIFT_SETS = sorted(zoo_dir().glob("*/drift*.jsonl"))


def test_the_zoo_ships_its_drift_sets():
    assert len(ZOO_DRIFT_SETS) >= 10


@pytest.mark.parametrize("drift", ZOO_DRIFT_SETS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_zoo_drift_set_replays_to_its_positions_and_its_verdicts_are_legal(drift):
    """A shipped drift set's games lead to the positions it names, and the moves it names
    there are legal; an agreed set's best moves are the ones every verdict shares."""
    records = read_lines(drift)
    assert records
    for number, record in enumerate(records, 1):
        board = drift_position(record, Rules(), f"{drift}: line {number}").board
        assert board.fen() == record["fen"]
        legal = {str(move) for move in board.legal_moves()}
        best = record["deep"]["best_moves"]
        assert best and set(best) <= legal
        assert record["played"] in legal
        assert record["mistake"] == (not same_position(board, record["played"], best))
        for verdict in record.get("verdicts", []):
            assert set(verdict["best_moves"]) <= legal
            assert all(same_position(board, move, verdict["best_moves"]) for move in best)
