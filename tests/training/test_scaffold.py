"""The training scaffold: options, run folders, resume, overwrite, promotion, evaluation,
and that every trainer uses it the same way."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

from checkers_evaluation.cli import TRAINERS  # every `checkers train NAME`
from checkers_training import scaffold
from checkers_training.scaffold import BUDGET, SESSION, TrainingError, arg


@dataclass
class ToyArgs(scaffold.RunArgs):
    """Options of a toy trainer."""

    games: int = arg(100, low=0, on_resume=BUDGET)
    """total games"""
    hidden: int = arg(40, low=1)
    """hidden units"""
    learning_rate: float = 0.01
    """learning rate"""
    shaping: str = arg("none", choices=("none", "material"))
    """reward shaping"""
    noisy: bool = False
    """add noise"""
    chatty: bool = arg(True, on_resume=SESSION)
    """print a lot"""


def parse(argv):
    return scaffold.parse_args(ToyArgs, argv, "toy")


def test_help_lines_are_the_field_docstrings_with_types_users_read(capsys):
    with pytest.raises(SystemExit) as exit_info:
        parse(["--help"])
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # help lines wrap with the terminal
    assert re.search(r"--games N\s+total games \(default: 100\) \[may be raised on --resume\]", text)
    assert re.search(r"--learning-rate X\s+learning rate \(default: 0.01\)", text)
    assert re.search(r"--shaping \{none,material\}\s+reward shaping", text)
    assert re.search(r"--noisy\s+add noise", text) and "--no-noisy" not in text
    assert "--chatty, --no-chatty" in text and "--out DIR" in text and "--promote NAME" in text
    assert "--runs" not in text and "--run-name" not in text  # old spellings work, unlisted
    for python_word in ("int", "float", "str", "None", "bool"):
        assert not re.search(rf"\b{python_word}\b", text), python_word
    assert "toy options:" in text and "run options (the same in every trainer):" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "many"], "--games: expected a whole number, got 'many'"),
        (["--learning-rate", "fast"], "--learning-rate: expected a number, got 'fast'"),
        (["--games", "-1"], "--games: must be >= 0, got '-1'"),
        (["--shaping", "odd"], "--shaping: invalid choice: 'odd'"),
        (["--eval-games", "3"], "--eval-games: must be even"),
        (["--promote", "/nonexistent/x"], "--promote: '/nonexistent/x' is not a zoo name"),
        (["--promote", ".."], "--promote: '..' is not a zoo name"),
        (["--run-name", "a/b"], "--run-name: must be a plain folder name"),
        (["--out", "x", "--resume", "--overwrite"], "--overwrite: cannot go with --resume"),
        (["--resume"], "--resume: needs --out RUN_DIR"),
        (["--out", "x", "--runs", "y"], "--out: give the run folder with --out alone"),
        (["--gamez", "3"], "unknown option --gamez 3"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_flag(argv, message):
    with pytest.raises(TrainingError) as error:
        parse(argv)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_the_seed_defaults_to_0_as_in_every_checkers_command():
    assert parse([])[0].seed == 0 == ToyArgs().seed


@pytest.mark.parametrize(
    ("argv", "out", "warnings"),
    [
        (["--runs", "R", "--run-name", "n"], "R/toy/n", ["--runs", "--run-name"]),
        (["--run-name", "n"], "runs/toy/n", ["--run-name"]),
        (["--resume", "R/toy/n"], "R/toy/n", ["--resume R/toy/n"]),
    ],
)
def test_old_spellings_of_the_run_folder_work_with_one_warning_line_each(argv, out, warnings, capsys):
    args, given = parse(argv)
    assert args.out == out and "out" in given
    assert args.resume == (argv[0] == "--resume")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == len(warnings)
    for line, old in zip(err, warnings):
        assert line.startswith(f"checkers: warning: {old} is deprecated") and "use --out" in line


def test_runs_without_run_name_gets_the_default_name(capsys):
    args, _ = parse(["--runs", "R", "--seed", "3"])
    assert re.fullmatch(r"R/toy/seed3__\d{8}T\d{6}", args.out)


def test_a_resume_under_the_old_spelling_continues_the_same_run(tmp_path, capsys):
    run, _ = scaffold.open_run("toy", *parse(["--runs", str(tmp_path), "--run-name", "r", "--games", "9"]))
    assert run.path == tmp_path / "toy" / "r"
    resumed, args = scaffold.open_run("toy", *parse(["--resume", str(run.path)]))
    assert resumed.resumed and args.games == 9 and args.out == str(run.path)


def test_the_recorded_command_parses_back_to_the_same_options():
    args, _ = parse(
        [
            "--games",
            "7",
            "--noisy",
            "--no-chatty",
            "--eval-opponents",
            "greedy;alphabeta:depth=2,eval=material",
            "--learning-rate",
            "0.005",
            "--out",
            "runs/toy/x",
        ]
    )
    command = scaffold.command_line("toy", args)
    words = shlex.split(command)
    assert words[:3] == ["checkers", "train", "toy"]
    assert parse(words[3:])[0] == args


def test_runs_are_named_alike_and_never_overwritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run, args = scaffold.open_run("toy", ToyArgs(seed=7))
    assert run.path.parent == Path("runs") / "toy" and re.fullmatch(r"seed7__\d{8}T\d{6}", run.name)
    assert args.out == str(run.path)
    record = json.loads((run.path / "run.json").read_text())
    assert record["trainer"] == "toy" and record["args"]["seed"] == 7
    assert f"--out {run.path}" in record["sessions"][0]["command"]

    (run.path / "checkpoint.bin").write_bytes(b"first run")
    again = ToyArgs(out=str(run.path), seed=8)
    with pytest.raises(TrainingError, match=f"holds another run: give --out {re.escape(str(run.path))} --resume"):
        scaffold.open_run("toy", again)
    assert (run.path / "checkpoint.bin").read_bytes() == b"first run"
    replaced, _ = scaffold.open_run("toy", dataclasses.replace(again, overwrite=True))
    assert not (replaced.path / "checkpoint.bin").exists()  # the old run is gone whole
    assert json.loads((replaced.path / "run.json").read_text())["args"]["seed"] == 8


def test_a_resume_continues_the_run_as_started(tmp_path):
    run, _ = scaffold.open_run("toy", ToyArgs(out=str(tmp_path / "r"), games=8192, hidden=64, noisy=True))
    # Only --resume: every saved option wins over the defaults (the ppo bug: 8,192 became 2,000,000).
    resumed, args = scaffold.open_run("toy", *parse(["--out", str(run.path), "--resume"]))
    assert (args.games, args.hidden, args.noisy, args.resume, args.out) == (8192, 64, True, True, str(run.path))
    assert resumed.resumed and resumed.name == "r"
    # Options that change the run are refused, naming the flag; equal values are fine.
    with pytest.raises(TrainingError, match=r"^--hidden 32 would change the run, which was started with --hidden 64"):
        scaffold.open_run("toy", *parse(["--out", str(run.path), "--resume", "--hidden", "32"]))
    with pytest.raises(TrainingError, match=r"^--noisy False would change the run"):
        scaffold.open_run("toy", ToyArgs(out=str(run.path), resume=True), {"out", "resume", "noisy"})
    scaffold.open_run("toy", *parse(["--out", str(run.path), "--resume", "--hidden", "64"]))
    # Session options may change; the budget may be raised, not lowered.
    _, args = scaffold.open_run("toy", *parse(["--out", str(run.path), "--resume", "--no-chatty", "--games", "10000"]))
    assert (args.chatty, args.games) == (False, 10000)
    with pytest.raises(TrainingError, match="^--games 5: a resume can raise"):
        scaffold.open_run("toy", *parse(["--out", str(run.path), "--resume", "--games", "5"]))
    # Each session's command is recorded and runs as written.
    record = json.loads((run.path / "run.json").read_text())
    assert record["args"]["games"] == 10000
    assert (
        record["sessions"][-1]["command"] == f"checkers train toy --out {run.path} --resume --games 10000 --no-chatty"
    )
    assert resumed.command.count(" && ") >= 1


def test_a_resume_promotes_only_when_asked_again(tmp_path):
    run, args = scaffold.open_run("toy", *parse(["--out", str(tmp_path / "p"), "--promote", "toy"]))
    assert args.promote == "toy"
    _, args = scaffold.open_run("toy", *parse(["--out", str(run.path), "--resume"]))
    assert args.promote == ""
    _, args = scaffold.open_run("toy", *parse(["--out", str(run.path), "--resume", "--promote", "toy2"]))
    assert args.promote == "toy2"


def test_resume_needs_a_run_of_the_same_trainer(tmp_path):
    with pytest.raises(TrainingError, match="no run there"):
        scaffold.open_run("toy", ToyArgs(out=str(tmp_path / "nothing"), resume=True))
    run, _ = scaffold.open_run("other", ToyArgs(out=str(tmp_path / "r")))
    with pytest.raises(TrainingError, match="that is a other run, not a toy run"):
        scaffold.open_run("toy", ToyArgs(out=str(run.path), resume=True))


def test_promote_writes_only_into_the_zoo_a_fresh_card_with_normal_modes(tmp_path, monkeypatch):
    from checkers_agents.zoo import validate_card

    zoo = tmp_path / "zoo"
    monkeypatch.setenv("CHECKERS_ZOO", str(zoo))
    for bad in ("/nonexistent/x", "../x", "a/b", "Zoo Name", ""):
        with pytest.raises(TrainingError, match="is not a zoo name"):
            scaffold.promote(bad, "random", {}, b"w", "d", {"command": "c"})
    assert not Path("/nonexistent").exists() and not zoo.exists()

    (zoo / "toy").mkdir(parents=True)
    (zoo / "toy" / "card.json").write_text(json.dumps({"name": "toy", "league": {"rating": 1500}, "old": 1}))
    folder = scaffold.promote("toy", "random", {}, b"weights", "A toy.", {"command": "checkers train toy"})
    card = json.loads((folder / "card.json").read_text())
    assert "league" not in card and "old" not in card  # the old weights' results are gone
    assert validate_card(card, folder) == []
    assert (folder / "weights.safetensors").read_bytes() == b"weights"
    for path in (folder / "card.json", folder / "weights.safetensors"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def test_the_atomic_writer_leaves_normal_modes_and_no_temporary_file(tmp_path):
    path = scaffold.write_atomic(tmp_path / "a" / "b.bin", b"x")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644 and path.read_bytes() == b"x"
    assert [p.name for p in path.parent.iterdir()] == ["b.bin"]


def test_one_atomic_writer_and_one_git_helper():
    """Files are renamed into place in one function (checkers_env.files), and only the
    one module (checkers_env.provenance) asks git for the commit."""
    root = scaffold.REPO_ROOT
    renames, commits = [], []
    for package in ("checkers_env", "agents", "training", "evaluation"):
        for path in (root / package).rglob("*.py"):
            text = path.read_text()
            if "os.replace(" in text or ".rename(" in text:
                renames.append(path.relative_to(root).as_posix())
            if "rev-parse" in text:
                commits.append(path.relative_to(root).as_posix())
    assert renames == ["checkers_env/files.py"]
    assert commits == ["checkers_env/provenance.py"]


def test_evaluation_plays_ballot_openings_with_both_colours(monkeypatch):
    from checkers_env import make_agent
    from checkers_env.match import ballot_openings, play_game

    played = []

    def recording_play_game(black, white, opening, *args, **kwargs):
        record = play_game(black, white, opening, *args, **kwargs)
        played.append((str(black), str(white), opening))
        return record

    monkeypatch.setattr("checkers_evaluation.league.runner.play_game", recording_play_game)
    results = scaffold.evaluate(make_agent("greedy"), ["random"], 4, seed=3)
    r = results["random"]
    assert r["wins"] + r["draws"] + r["losses"] == 4 and 0.0 <= r["score"] <= 1.0
    ballot = set(ballot_openings())
    assert all(opening in ballot for *_, opening in played)
    assert [(b, w) for b, w, _ in played] == [("greedy", "random"), ("random", "greedy")] * 2
    assert played[0][2] == played[1][2] != played[2][2]


def test_bad_opponents_stop_the_run_before_training():
    with pytest.raises(TrainingError, match="^--eval-opponents: 'nosuchkind'"):
        scaffold.check_opponents("random;nosuchkind")


@pytest.mark.parametrize("name", sorted(TRAINERS))
def test_every_trainer_is_on_the_scaffold(name):
    import importlib

    module = importlib.import_module(TRAINERS[name])
    assert issubclass(module.Args, scaffold.RunArgs)
    docs = scaffold.field_docs(module.Args)
    assert {f.name for f in dataclasses.fields(module.Args)} == set(docs) and all(docs.values())
    assert module.Args().torch_threads == 1  # one default everywhere
    assert module.TRAINER == name


def test_checkers_train_help_reads_alike_for_every_trainer(capsys):
    from checkers_evaluation.cli import main as checkers

    shared = {}
    for name in sorted(TRAINERS):
        with pytest.raises(SystemExit) as exit_info:
            checkers(["train", name, "--help"])
        assert exit_info.value.code == 0
        text = capsys.readouterr().out
        assert text.startswith(f"usage: checkers train {name} [OPTIONS]")
        assert f"{name} options:" in text
        shared[name] = text[text.index("run options (the same in every trainer):") :]
    assert len(set(shared.values())) == 1


def test_checkers_train_bad_option_is_one_line(capsys):
    from checkers_evaluation.cli import main as checkers

    assert checkers(["train", "td-minimax", "--games", "lots"]) == 2
    err = capsys.readouterr().err
    assert err == "checkers: error: --games: expected a whole number, got 'lots'\n"


def test_zoo_cards_record_commands_that_run_as_written(capsys):
    """Every zoo card's training command is ``checkers train NAME ...`` (sessions joined by
    ``&&``) that parses, and reads no file outside the repository."""
    import importlib

    cards = sorted((scaffold.REPO_ROOT / "zoo").glob("*/card.json"))
    checked = 0
    for path in cards:
        card = json.loads(path.read_text())
        command = card.get("training", {}).get("command")
        if not command:
            continue
        for session in command.split(" && "):
            words = shlex.split(session)
            trainer = words[2]
            assert words[:2] == ["checkers", "train"] and trainer in TRAINERS, session
            # The trainer makes the card's agent: its own kind, or the alpha-beta with its net.
            assert trainer == card["kind"] or card["params"].get("eval") == trainer, session
            args, _ = importlib.import_module(TRAINERS[trainer]).parse_args(words[3:])
            for spec in scaffold.opponent_specs(args.eval_opponents):
                assert "weights=" not in spec, f"{path}: evaluation opponent {spec} needs a file"
            assert not args.out or args.out.startswith(f"runs/{trainer}/"), session
        checked += 1
    assert checked >= 3
    assert "deprecated" not in capsys.readouterr().err  # the cards speak the current spellings


def test_resume_is_a_switch_in_help_and_its_old_folder_form_still_parses(capsys):
    with pytest.raises(SystemExit):
        parse(["--help"])
    assert "--resume [" not in capsys.readouterr().out
    args, _ = parse(["--resume=R/toy/n", "--games", "5"])
    assert (args.out, args.resume, args.games) == ("R/toy/n", True, 5)
    assert "--resume R/toy/n is deprecated" in capsys.readouterr().err
    args, _ = parse(["--out", "x", "--resume", "--games", "5"])  # the switch takes no folder
    assert (args.out, args.resume, args.games) == ("x", True, 5)
    assert capsys.readouterr().err == ""
