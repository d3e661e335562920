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
from evaluation.league import League, LeagueError, ballot_openings, load_records, plan_games, random_openings

ROOT = Path(__file__).resolve().parents[2]


def test_ballot_is_shipped_and_legal():
    openings = ballot_openings()
    assert len(openings) == 157
    for opening in openings:
        game = Game(rules=Rules.without_draws())
        for move in opening.split():
            game.play(move)
        assert game.ply == 3


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
        sys.executable, "-m", "evaluation.cli", "league", "random", "greedy", "random:seed=5",
        "--games-per-pair", "40", "--out", str(out), "--bootstrap", "200", "--seed", "11", *extra,
    ]


def _ratings(out: Path) -> str:
    return (out / "ratings.csv").read_text()


def _games(out: Path) -> dict[str, dict]:
    """Records by key, without the wall times (the only thing allowed to differ)."""
    games = {}
    for record in load_records(out / "games.jsonl"):
        data = record.to_dict()
        del data["seconds"]
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


def test_workers_die_with_a_killed_league(tmp_path):
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
    while time.time() < deadline and any(Path(f"/proc/{pid}").exists() for pid in children):
        time.sleep(0.1)
    alive = [pid for pid in children if Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)]
    assert not alive, f"workers {alive} outlived the killed league"


def _state(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"


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
    for name in ("crosstable.md", "crosstable.csv", "ratings.md", "ratings.csv", "heatmap.png", "ratings.png", "games.pdn"):
        assert (tmp_path / name).stat().st_size > 0, name
    from checkers_env import read_pdn

    games = read_pdn(tmp_path / "games.pdn")
    assert len(games) == 4
    for game in games:
        assert {"Black", "White", "Result", "Opening", "Termination"} <= set(game.headers)
        assert " ".join(str(m) for m in game.moves[:3]) == game.headers["Opening"]


@pytest.mark.skipif(os.environ.get("CHECKERS_SKIP_RAY") == "1", reason="CHECKERS_SKIP_RAY=1")
def test_ray_backend_plays_the_same_games(tmp_path):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", "")}} if os.environ.get("NUMBA_CACHE_DIR") else None)
    try:
        kwargs = dict(games_per_pair=4, bootstrap=20, seed=4, progress=False)
        League(["random", "greedy"], out=tmp_path / "ray", backend="ray", **kwargs).run()
        League(["random", "greedy"], out=tmp_path / "local", **kwargs).run()
    finally:
        ray.shutdown()
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")
    players = json.loads((tmp_path / "ray" / "league.json").read_text())["players"]
    assert [p["name"] for p in players] == ["random", "greedy"]


def test_players_are_named_by_their_canonical_spec(tmp_path):
    # "greedy:seed=None" is greedy written differently; a time override joins the name.
    league = League(["random", "greedy:seed=4"], out=tmp_path, games_per_pair=2, bootstrap=10,
                    time_per_move=0.5, progress=False)
    assert league.agents == ["random", "greedy:seed=4"]
    ratings = league.run()
    assert set(ratings.players()) == {"random", "greedy:seed=4"}
    with pytest.raises(LeagueError, match="listed twice"):
        League(["greedy", "greedy:seed=None"], out=tmp_path / "b", progress=False)
