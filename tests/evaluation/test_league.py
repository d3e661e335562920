"""The league: planning, colour swaps, resume after SIGKILL, parallel workers, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from checkers_env import Game, Rules, UnknownAgentError
from checkers_env.match import ballot_openings
from checkers_evaluation.league import League, LeagueError, load_records
from checkers_evaluation.league.schedule import plan_games, random_openings

ROOT = Path(__file__).resolve().parents[2]


def test_ballot_is_shipped_and_legal():
    openings = ballot_openings()
    assert len(openings) == len(set(openings)) == 156
    assert "9-13 24-19 10-15" not in openings  # ACF #26 is barred
    for opening in openings:
        game = Game(rules=Rules.without_draws())
        for move in opening.split():
            game.play(move)
        assert game.ply == 3


def test_ballot_deck_has_acf_numbers_kinds_and_names():
    from checkers_env.match import ballot_deck, ballot_opening

    deck = ballot_deck()
    numbers = [o.number for o in deck]
    assert numbers == sorted(numbers) and len(set(numbers)) == 156
    assert 26 not in numbers and 13 not in numbers and set(numbers) <= set(range(1, 175))
    assert sum(o.crossboard for o in deck) == 144
    assert len(ballot_openings(crossboard_only=True)) == 144
    assert ballot_opening("9-13 22-18 6-9").label == "ACF 5 Dreaded Edinburgh"
    assert ballot_opening(["9-13", "22-17", "13x22"]).label == "ACF 4"
    assert ballot_opening("9-13 24-19 10-15") is None


def test_openings_ballot_crossboard_and_unknown_spec():
    from checkers_evaluation.league.schedule import resolve_openings

    assert len(resolve_openings("ballot", 0, 10)) == 156
    assert len(resolve_openings("ballot:crossboard", 0, 10)) == 144
    with pytest.raises(LeagueError, match="ballot:crossboard"):
        resolve_openings("ballot:mail", 0, 10)


def test_plan_swaps_colours_and_draws_openings_without_repetition():
    agents = ["random", "greedy", "random:seed=1"]
    openings = ballot_openings()
    plan = plan_games(agents, openings, games_per_pair=10, seed=7)
    assert len(plan) == 3 * 10
    assert len({g.key for g in plan}) == len(plan)
    by_pair: dict[frozenset, list] = {}
    for game in plan:
        by_pair.setdefault(frozenset((game.black, game.white)), []).append(game)
    for games in by_pair.values():
        per_opening = Counter((g.opening) for g in games)
        assert len(per_opening) == 5  # 5 distinct openings, no repeat within the pair
        for opening, count in per_opening.items():
            colours = {(g.black, g.white) for g in games if g.opening == opening}
            assert count == 2 and len(colours) == 2  # once with each colour
    # The plan is a pure function of its inputs.
    assert plan == plan_games(agents, openings, games_per_pair=10, seed=7)
    assert plan != plan_games(agents, openings, games_per_pair=10, seed=8)


def test_odd_games_per_pair_is_refused():
    with pytest.raises(LeagueError, match="even"):
        plan_games(["random", "greedy"], ["9-13"], games_per_pair=3, seed=0)


def test_random_openings_are_distinct_and_undecided():
    openings = random_openings(plies=6, count=20, seed=3)
    assert len(openings) == len(set(openings)) == 20
    assert openings == random_openings(plies=6, count=20, seed=3)


def test_bad_league_input_is_a_clear_error(tmp_path):
    with pytest.raises(UnknownAgentError, match="unknown agent kind 'nonsense'"):
        League(["random", "nonsense"], out=tmp_path / "a", progress=False)
    with pytest.raises(LeagueError, match="at least two"):
        League(["random"], out=tmp_path / "b", progress=False)
    with pytest.raises(LeagueError, match="--openings"):
        League(["random", "greedy"], out=tmp_path / "c", openings="nowhere.txt", progress=False)
    bad = tmp_path / "openings.txt"
    bad.write_text("9-13 22-17\n11-16 16-20\n")
    with pytest.raises(LeagueError, match="openings.txt:2"):
        League(["random", "greedy"], out=tmp_path / "d", openings=str(bad), progress=False)


def test_existing_output_needs_resume_or_overwrite(tmp_path):
    League(["random", "greedy"], out=tmp_path, games_per_pair=2, bootstrap=10, progress=False).run()
    with pytest.raises(LeagueError, match="--resume"):
        League(["random", "greedy"], out=tmp_path, games_per_pair=2, progress=False).run()
    with pytest.raises(LeagueError, match="cannot resume"):
        League(["random", "greedy"], out=tmp_path, games_per_pair=4, resume=True, progress=False).run()


def _league_command(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "checkers_evaluation.cli",
        "league",
        "random",
        "greedy",
        "random:seed=5",
        "--games-per-pair",
        "40",
        "--out",
        str(out),
        "--bootstrap",
        "200",
        "--seed",
        "11",
        *extra,
    ]


def _ratings(out: Path) -> str:
    return (out / "ratings.csv").read_text()


def _games(out: Path) -> dict[str, dict]:
    """Records by key, without the wall times (the only thing allowed to differ)."""
    games = {}
    for record in load_records(out / "games.jsonl"):
        data = record.to_dict()
        del data["seconds"], data["move_seconds"]
        games[record.key] = data
    return games


def test_sigkill_then_resume_gives_exactly_the_planned_games_and_same_ratings(tmp_path):
    killed = tmp_path / "killed"
    process = subprocess.Popen(_league_command(killed), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games = killed / "games.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if games.exists() and len(games.read_text().splitlines()) >= 10:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    played = len(load_records(games))
    assert 10 <= played < 120, "the league should have been killed mid-run"
    # A half-written last line (a kill during a write) must not break the resume.
    with open(games, "a") as sink:
        sink.write('{"black": "random", "wh')
    subprocess.run(_league_command(killed, "--resume"), cwd=ROOT, check=True, capture_output=True)
    records = load_records(games)
    assert len(records) == 120
    assert len({r.key for r in records}) == 120

    straight = tmp_path / "straight"
    subprocess.run(_league_command(straight), cwd=ROOT, check=True, capture_output=True)
    assert _ratings(killed) == _ratings(straight)
    assert _games(killed) == _games(straight)


def test_workers_die_with_a_killed_league(tmp_path, process_runs):
    out = tmp_path / "orphans"
    command = _league_command(out, "--workers", "2")
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games = out / "games.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and not (games.exists() and games.read_text().count("\n") >= 2):
        time.sleep(0.05)
    children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert children, "the league should have started worker processes"
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.time() + 20
    while time.time() < deadline and any(process_runs(pid) for pid in children):
        time.sleep(0.1)
    alive = [pid for pid in children if process_runs(pid)]
    assert not alive, f"workers {alive} outlived the killed league"


def test_two_workers_play_the_same_games_as_one(tmp_path):
    kwargs = dict(games_per_pair=8, bootstrap=50, seed=2, progress=False)
    one = League(["random", "greedy"], out=tmp_path / "one", workers=1, **kwargs)
    two = League(["random", "greedy"], out=tmp_path / "two", workers=2, **kwargs)
    one.run()
    two.run()
    assert _games(tmp_path / "one") == _games(tmp_path / "two")
    assert _ratings(tmp_path / "one") == _ratings(tmp_path / "two")


def test_report_files_and_pdn_tags(tmp_path):
    League(["random", "greedy"], out=tmp_path, games_per_pair=4, bootstrap=20, progress=False).run()
    for name in (
        "crosstable.md",
        "crosstable.csv",
        "ratings.md",
        "ratings.csv",
        "heatmap.png",
        "ratings.png",
        "games.pdn",
    ):
        assert (tmp_path / name).stat().st_size > 0, name
    from checkers_env import read_pdn

    games = read_pdn(tmp_path / "games.pdn")
    assert len(games) == 4
    from checkers_env.match import ballot_opening

    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    for game in games:
        assert {"Black", "White", "Result", "Opening", "Termination", "ACFNumber"} <= set(game.headers)
        assert " ".join(str(m) for m in game.moves[:3]) == game.headers["Opening"]
        assert game.headers["ACFNumber"] == str(ballot_opening(game.headers["Opening"]).number)
    for record in records:
        assert record["acf_number"] == ballot_opening(record["opening"]).number
    openings_table = (tmp_path / "openings.md").read_text()
    for record in records:
        assert f"| {record['acf_number']} |" in openings_table


@pytest.mark.skipif(os.environ.get("CHECKERS_SKIP_RAY") == "1", reason="CHECKERS_SKIP_RAY=1")
def test_ray_backend_plays_the_same_games(tmp_path):
    ray = pytest.importorskip("ray")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", "")}}
        if os.environ.get("NUMBA_CACHE_DIR")
        else None,
    )
    try:
        kwargs = dict(games_per_pair=4, bootstrap=20, seed=4, progress=False)
        League(["random", "greedy"], out=tmp_path / "ray", ray=True, **kwargs).run()
        League(["random", "greedy"], out=tmp_path / "local", **kwargs).run()
    finally:
        ray.shutdown()
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")
    players = json.loads((tmp_path / "ray" / "league.json").read_text())["players"]
    assert [p["name"] for p in players] == ["random", "greedy"]


def test_players_are_named_by_their_canonical_spec(tmp_path):
    # "greedy:seed=None" is greedy written differently; a time override joins the name.
    league = League(
        ["random", "greedy:seed=4"], out=tmp_path, games_per_pair=2, bootstrap=10, time_per_move=0.5, progress=False
    )
    assert league.agents == ["random", "greedy:seed=4"]
    ratings = league.run()
    assert set(ratings.players()) == {"random", "greedy:seed=4"}
    with pytest.raises(LeagueError, match="listed twice"):
        League(["greedy", "greedy:seed=None"], out=tmp_path / "b", progress=False)


# -- display names, gauntlets, new players, registered kinds ------------------------------------

from user_kinds import FirstMoveAgent  # noqa: E402

from checkers_env.agent import agent_kinds, register_agent  # noqa: E402
from checkers_evaluation.league import split_display_name  # noqa: E402


@pytest.fixture
def first_move_kind():
    register_agent("first-move", FirstMoveAgent)
    yield "first-move"
    agent_kinds().pop("first-move", None)


def test_display_names_show_in_tables_plots_and_pdn(tmp_path):
    from checkers_env import read_pdn

    league = League(
        ["random:name=dice", "greedy:seed=4,name=glutton"], out=tmp_path, games_per_pair=2, bootstrap=10, progress=False
    )
    assert league.agents == ["dice", "glutton"]
    assert league.specs == {"dice": "random", "glutton": "greedy:seed=4"}
    ratings = league.run()
    assert set(ratings.players()) == {"dice", "glutton"} and ratings.anchor == "dice"
    assert "glutton" in (tmp_path / "crosstable.md").read_text()
    games = read_pdn(tmp_path / "games.pdn")
    assert {g.headers["Black"] for g in games} == {"dice", "glutton"}
    assert {g.headers["BlackAgent"] for g in games} == {"random", "greedy:seed=4"}
    with pytest.raises(LeagueError, match="listed twice"):
        League(["random:name=a", "greedy:name=a"], out=tmp_path / "b", progress=False)


@pytest.mark.parametrize(
    "spec, split",
    [
        ("random", ("random", None)),
        ("alphabeta:depth=2,name=ab2", ("alphabeta:depth=2", "ab2")),
        ("zoo:mcrd,name=zoo-mcrd,time=0.5", ("zoo:mcrd,time=0.5", "zoo-mcrd")),
        ("random:name=r", ("random", "r")),
    ],
)
def test_split_display_name(spec, split):
    assert split_display_name(spec) == split


def test_bad_display_names(tmp_path):
    with pytest.raises(UnknownAgentError, match="parameter 'name' is given twice"):
        split_display_name("random:name=a,name=b")
    with pytest.raises(LeagueError, match="needs a name"):
        split_display_name("random:name=")


def test_a_gauntlet_plays_one_agent_against_the_field(tmp_path):
    league = League(
        ["random", "random:seed=2"], gauntlet="greedy", out=tmp_path, games_per_pair=2, bootstrap=0, progress=False
    )
    assert league.agents[0] == "greedy"
    assert len(league.plan) == 4
    assert all("greedy" in (g.black, g.white) for g in league.plan)
    league.run()
    records = load_records(tmp_path / "games.jsonl")
    assert Counter(frozenset((r.black, r.white)) for r in records) == {
        frozenset({"greedy", "random"}): 2,
        frozenset({"greedy", "random:seed=2"}): 2,
    }


def test_adding_a_player_plays_only_its_games(tmp_path):
    kwargs = dict(out=tmp_path, games_per_pair=2, bootstrap=0, seed=5, progress=False)
    League(["random", "greedy"], **kwargs).run()
    first = load_records(tmp_path / "games.jsonl")
    # The new player is listed first: the league keeps the old places all the same.
    grown = League(["greedy:seed=9,name=newcomer", "random", "greedy"], resume=True, **kwargs)
    assert grown.agents == ["random", "greedy", "newcomer"]
    ratings = grown.run()
    records = load_records(tmp_path / "games.jsonl")
    assert records[: len(first)] == first  # nothing replayed
    new = records[len(first) :]
    assert len(new) == 4 and all("newcomer" in (r.black, r.white) for r in new)
    assert set(ratings.players()) == {"random", "greedy", "newcomer"}
    with pytest.raises(LeagueError, match="it also has newcomer"):
        League(["random", "greedy"], resume=True, **kwargs)
    with pytest.raises(LeagueError, match="games_per_pair=2, not 4"):
        League(
            ["random", "greedy", "greedy:seed=9,name=newcomer"], resume=True, **{**kwargs, "games_per_pair": 4}
        ).run()


def test_registered_kinds_play_in_worker_processes(tmp_path, first_move_kind):
    ratings = League(
        ["random", first_move_kind], out=tmp_path, games_per_pair=4, bootstrap=0, workers=2, progress=False
    ).run()
    assert set(ratings.players()) == {"random", "first-move"}


def test_a_registered_lambda_cannot_go_to_workers(tmp_path):
    class LambdaKindAgent(FirstMoveAgent):
        kind = "lambda-kind"

    register_agent("lambda-kind", lambda seed=None: LambdaKindAgent(seed))
    try:
        with pytest.raises(LeagueError, match="worker processes cannot load"):
            League(["random", "lambda-kind"], out=tmp_path, workers=2, progress=False)
        League(["random", "lambda-kind"], out=tmp_path, workers=1, progress=False)  # fine in-process
    finally:
        agent_kinds().pop("lambda-kind", None)


def test_a_kind_whose_module_workers_would_not_find_is_refused(tmp_path, monkeypatch):
    """A kind from package ``shadowkind`` loaded from one folder, while another folder with
    a package of that name comes first on ``sys.path``: a worker would import the other."""
    import importlib
    import sys

    for folder in ("first", "second"):
        package = tmp_path / folder / "shadowkind"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(
            "from checkers_env.agent import BaseAgent\n\n"
            "class Shadow(BaseAgent):\n    kind = 'shadow'\n\n"
            "    def select_move(self, game):\n        return game.legal_moves()[0]\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path / "first"))
    shadow = importlib.import_module("shadowkind").Shadow
    monkeypatch.syspath_prepend(str(tmp_path / "second"))
    monkeypatch.setitem(sys.modules, "shadowkind", sys.modules["shadowkind"])
    register_agent("shadow", shadow)
    try:
        with pytest.raises(LeagueError, match=r"worker processes cannot load.*'shadowkind' there is .*second"):
            League(["random", "shadow"], out=tmp_path / "league", workers=2, progress=False)
        League(["random", "shadow"], out=tmp_path / "league", workers=1, progress=False)  # fine in-process
    finally:
        agent_kinds().pop("shadow", None)
        sys.modules.pop("shadowkind", None)


def test_bad_league_arguments_are_refused_before_any_game(tmp_path):
    existing = tmp_path / "file"
    existing.write_text("")
    with pytest.raises(LeagueError, match="is a file, not a folder"):
        League(["random", "greedy"], out=existing, progress=False)
    with pytest.raises(LeagueError, match="bootstrap must be"):
        League(["random", "greedy"], out=tmp_path / "b", bootstrap=-5, progress=False)
    with pytest.raises(LeagueError, match="contradict"):
        League(["random", "greedy"], out=tmp_path / "c", resume=True, overwrite=True, progress=False)
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def _opening_to_five_pieces() -> str:
    """A seeded random game from the start up to its first position with five pieces, two
    against three (a capture from there leaves a position of the 4-piece database)."""
    import random

    for seed in range(100):
        rng = random.Random(seed)
        game = Game(rules=Rules.without_draws())
        while not game.is_over() and game.ply < 300 and bin(game.board.black | game.board.white).count("1") > 5:
            game.play(rng.choice(game.legal_moves()))
        sides = sorted(bin(side).count("1") for side in (game.board.black, game.board.white))
        if not game.is_over() and sides == [2, 3]:
            return " ".join(str(m) for m in game.moves)
    raise AssertionError("no random game stops at two pieces against three")


def test_adjudication_plays_the_same_games_in_one_process_and_in_workers(egdb_folder, tmp_path):
    openings = tmp_path / "openings.txt"
    openings.write_text(_opening_to_five_pieces() + "\n")
    kwargs = dict(
        games_per_pair=4,
        openings=str(openings),
        bootstrap=0,
        seed=1,
        progress=False,
        adjudicate="egdb",
        egdb_folder=egdb_folder,
    )
    League(["random", "greedy"], out=tmp_path / "one", workers=1, **kwargs).run()
    League(["random", "greedy"], out=tmp_path / "two", workers=2, **kwargs).run()
    assert _games(tmp_path / "one") == _games(tmp_path / "two")
    records = load_records(tmp_path / "one" / "games.jsonl")
    assert Counter(r.termination for r in records)["egdb"] >= 1
    plain = League(
        ["random", "greedy"], out=tmp_path / "plain", workers=1, **{**kwargs, "adjudicate": None, "egdb_folder": None}
    )
    plain.run()
    assert "egdb" not in {r.termination for r in load_records(tmp_path / "plain" / "games.jsonl")}


def test_bad_adjudication_is_refused(egdb_folder, tmp_path):
    with pytest.raises(LeagueError, match="--adjudicate must be egdb"):
        League(["random", "greedy"], out=tmp_path, adjudicate="tablebase", progress=False)
    with pytest.raises(LeagueError, match="needs adjudicate"):
        League(["random", "greedy"], out=tmp_path, adjudicate_pieces=4, progress=False)
    with pytest.raises(LeagueError, match="no endgame database in"):
        League(["random", "greedy"], out=tmp_path, adjudicate="egdb", egdb_folder=tmp_path, progress=False)
    with pytest.raises(
        LeagueError, match="missing the 5-piece slices.* run `checkers egdb build --pieces 5 --egdb-folder "
    ):
        League(
            ["random", "greedy"],
            out=tmp_path,
            adjudicate="egdb",
            adjudicate_pieces=5,
            egdb_folder=egdb_folder,
            progress=False,
        )


# -- Ctrl-C, two writers, bad records ---------------------------------------------------------


def _restore_sigint() -> None:
    # A child started from a non-interactive shell inherits SIGINT as ignored, and Python
    # then never raises KeyboardInterrupt: restore the default so the test measures the league.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_games(games: Path, count: int, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline and process.poll() is None:
        if games.exists() and games.read_text().count("\n") >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the league did not record {count} games in {seconds} s")


def test_ctrl_c_with_workers_stops_within_seconds_keeps_finished_games_and_resumes(tmp_path):
    # Two quick players and one that thinks the full 0.5 s a move: the quick pair's games end
    # at once, then both workers are deep in the thinker's games when Ctrl-C comes.
    out = tmp_path / "interrupted"
    command = [
        sys.executable,
        "-m",
        "checkers_evaluation.cli",
        "league",
        "random",
        "alphabeta:depth=1,name=quick",
        "alphabeta:depth=30,name=thinker",
        "--time-per-move",
        "0.5",
        "--max-plies",
        "12",
        "--openings",
        "random:0",
        "--games-per-pair",
        "2",
        "--workers",
        "2",
        "--bootstrap",
        "0",
        "--out",
        str(out),
    ]
    games = out / "games.jsonl"
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_restore_sigint,
        start_new_session=True,
    )
    try:
        _wait_for_games(games, 2, process)
        time.sleep(0.5)  # both workers now search in the thinker's games
        process.send_signal(signal.SIGINT)
        began = time.monotonic()
        _, err = process.communicate(timeout=30)
        stopped_after = time.monotonic() - began
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the league and its workers, if left
        except ProcessLookupError:
            pass
    assert stopped_after < 2, f"Ctrl-C took {stopped_after:.1f} s"
    assert process.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    kept = games.read_text().splitlines()
    assert 2 <= len(kept) < 6, "the finished games are kept, the interrupted ones are not recorded"
    quick_pair = {"random", "quick"}
    assert sum({r.black, r.white} == quick_pair for r in load_records(games)) == 2

    resumed = subprocess.run([*command, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    lines = games.read_text().splitlines()
    assert lines[: len(kept)] == kept
    assert len(lines) == 6 and len({r.key for r in load_records(games)}) == 6


def test_a_second_league_on_the_same_folder_is_refused_while_the_first_runs(tmp_path, capsys):
    from checkers_evaluation.cli import main
    from checkers_evaluation.league.files import FolderLock

    out = tmp_path / "busy"
    out.mkdir()
    with FolderLock(out):  # the first league, as far as the folder can tell
        code = main(["league", "random", "greedy", "--games-per-pair", "2", "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and f"another league is writing to {out} (process {os.getpid()})" in err
        assert err.count("\n") == 1
        assert not (out / "games.jsonl").exists()
    League(["random", "greedy"], out=out, games_per_pair=2, bootstrap=0, progress=False).run()  # free again


def test_a_killed_league_does_not_leave_its_folder_locked(tmp_path):
    out = tmp_path / "killed"
    out.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from checkers_evaluation.league.files import FolderLock; "
            f"lock = FolderLock({str(out)!r}); lock.acquire(); print('held', flush=True); time.sleep(60)",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LeagueError, match="another league is writing"):
            League(["random", "greedy"], out=out, games_per_pair=2, bootstrap=0, progress=False).run()
    finally:
        holder.kill()
        holder.wait()
    League(["random", "greedy"], out=out, games_per_pair=2, bootstrap=0, progress=False).run()
    assert len(load_records(out / "games.jsonl")) == 2


def test_loading_drops_games_recorded_twice_with_a_warning_naming_them(tmp_path):
    from checkers_evaluation.league.files import LeagueWarning

    League(["random", "greedy"], out=tmp_path, games_per_pair=4, bootstrap=0, progress=False).run()
    games = tmp_path / "games.jsonl"
    lines = games.read_text().splitlines(keepends=True)
    games.write_text("".join(lines + lines[:2]))  # two writers appended the same two games
    keys = [json.loads(line)["key"] for line in lines[:2]]
    with pytest.warns(LeagueWarning, match="dropped 2 games recorded twice") as caught:
        records = load_records(games)
    assert all(key in str(caught[0].message) for key in keys)
    assert [r.key for r in records] == [json.loads(line)["key"] for line in lines]
    # A resume counts each game once and repairs the file.
    with pytest.warns(LeagueWarning):
        ratings = League(
            ["random", "greedy"], out=tmp_path, games_per_pair=4, bootstrap=0, resume=True, progress=False
        ).run()
    assert ratings["random"].games == 4
    assert games.read_text() == "".join(lines)


@pytest.mark.parametrize(
    "line, problem",
    [
        (
            '{"black": "a", "white": "b", "opening": "", "moves": [], "result": "banana", "termination": "x", "key": "k"}',
            "result 'banana' is not one of 1-0, 0-1, 1/2-1/2",
        ),
        (
            '{"black": "a", "white": "b", "opening": "", "moves": [], "result": "*", "termination": "x", "key": "k"}',
            "result '*' is not one of",
        ),
        ('{"black": "a", "white": "b"}', "not a game record"),
        (
            '{"black": "a", "white": "b", "opening": "", "moves": [], "result": "1-0", "termination": "x", "key": 7}',
            "key must be a string",
        ),
        (
            '{"black": "a", "white": "b", "opening": "", "moves": [], "result": "1-0", "termination": "x",'
            ' "key": "k", "move_seconds": [0.1, "slow"]}',
            "move_seconds must be a list of seconds",
        ),
        (
            '{"black": "a", "white": "b", "opening": "", "moves": [], "result": "1-0", "termination": "x",'
            ' "key": "k", "move_seconds": [0.1, true]}',
            "move_seconds must be a list of seconds",
        ),
        (
            '{"black": "a", "white": "b", "opening": "", "moves": [], "result": "1-0", "termination": "x",'
            ' "key": "k", "move_seconds": [Infinity]}',
            "move_seconds must be a list of seconds",
        ),
        (
            '{"black": "a", "white": "b", "opening": "", "moves": [], "result": "1-0", "termination": "x",'
            ' "key": "k", "seconds": {"black": "slow"}}',
            "seconds must map black and white to seconds",
        ),
        ("[1, 2]", "must be a JSON object"),
        ('{"black": "a", "wh', "corrupt game record"),
    ],
)
def test_a_bad_record_is_an_error_naming_file_and_line(tmp_path, line, problem):
    League(["random", "greedy"], out=tmp_path, games_per_pair=2, bootstrap=0, progress=False).run()
    games = tmp_path / "games.jsonl"
    good = games.read_text()
    games.write_text(line + "\n" + good)  # a bad line before good ones: not a line cut off by a kill
    with pytest.raises(LeagueError) as caught:
        load_records(games)
    assert str(caught.value).startswith(f"{games}:1: ") and problem in str(caught.value)
    assert "\n" not in str(caught.value)
    with pytest.raises(LeagueError, match="games.jsonl:1: "):
        League(["random", "greedy"], out=tmp_path, games_per_pair=2, bootstrap=0, resume=True, progress=False).run()


def test_a_pickled_model_plays_only_with_trust_pickles(pickle_payload, tmp_path):
    """An SB3 zip is unpickled only when the command line says --trust-pickles."""
    pytest.importorskip("sb3_contrib")
    from checkers_evaluation.cli import main

    model, marker = pickle_payload
    command = ["league", f"ppo:weights={model}", "random", "--games-per-pair", "2", "--out", str(tmp_path / "l")]
    assert main(command) == 2
    assert not marker.exists()
    assert main([*command, "--trust-pickles"]) == 2  # loaded (the payload ran), then no policy in it
    assert marker.exists()


@pytest.mark.timeout(60)  # a named pipe opened for reading would wait for a writer for ever
def test_an_openings_file_from_python_is_checked_like_the_command_line_s(tmp_path):
    from checkers_evaluation.league.schedule import openings_from_file

    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(LeagueError, match="openings file '.*pipe' is a named pipe"):
        League(["random", "greedy"], out=tmp_path / "out", openings=str(tmp_path / "pipe"), progress=False).run()
    (tmp_path / "binary").write_bytes(b"11-15 \xff\xfe\n")
    with pytest.raises(LeagueError, match="openings file '.*binary' is not UTF-8 text"):
        openings_from_file(tmp_path / "binary")
