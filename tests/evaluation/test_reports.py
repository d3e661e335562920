"""The crosstable on hand-made records, and the report files of a small real league."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from checkers_env import Rules, make_agent, read_pdn
from checkers_env.match import GameRecord, play_game
from checkers_evaluation.league.ratings import fit_elo
from checkers_evaluation.league.reports import (
    CLOCK_PHASES,
    REPORT_FILES,
    clock_markdown,
    crosstable,
    heatmap_png,
    ratings_plot_png,
    write_games_pdn,
    write_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def game(black: str, white: str, result: str) -> GameRecord:
    return GameRecord(black, white, "", [], result, "no_moves")


# A beats B twice (once with each colour) and draws once; B beats C once with White and
# loses once with Black; A and C draw twice; one game of A against itself (left out).
HAND_MADE = [
    game("A", "B", "1-0"),
    game("B", "A", "0-1"),
    game("A", "B", "1/2-1/2"),
    game("B", "C", "0-1"),
    game("C", "B", "0-1"),
    game("A", "C", "1/2-1/2"),
    game("C", "A", "1/2-1/2"),
    game("A", "A", "1-0"),
]


def test_crosstable_counts_each_pair_from_the_row_players_view():
    table = crosstable(HAND_MADE)
    ab, ba = table.cell("A", "B"), table.cell("B", "A")
    assert (ab.wins, ab.draws, ab.losses, ab.games, ab.points) == (2, 1, 0, 3, 2.5)
    assert (ba.wins, ba.draws, ba.losses) == (0, 1, 2)
    assert ab.score == pytest.approx(2.5 / 3) and ba.score == pytest.approx(0.5 / 3)
    assert (ab.games_as_black, ab.wins_as_black) == (2, 1)
    bc, cb = table.cell("B", "C"), table.cell("C", "B")
    assert (bc.wins, bc.draws, bc.losses) == (1, 0, 1)
    assert (cb.wins, cb.draws, cb.losses) == (1, 0, 1)
    assert (bc.games_as_black, bc.wins_as_black) == (1, 0)
    ac = table.cell("A", "C")
    assert (ac.wins, ac.draws, ac.losses, ac.score) == (0, 2, 0, 0.5)
    total = table.total("A")
    assert (total.wins, total.draws, total.losses) == (2, 3, 0)  # the game against itself is left out
    # Default order: by total score (A 3.5/5, C 2/4, B 1.5/5).
    assert table.players == ["A", "C", "B"]
    matrix = table.score_matrix()
    assert np.isnan(matrix[0, 0])
    assert matrix[0, 2] == pytest.approx(2.5 / 3)


def test_crosstable_markdown_and_csv():
    table = crosstable(HAND_MADE, order=["B", "A", "C"])
    markdown = table.to_markdown()
    lines = markdown.splitlines()
    assert lines[0] == "|  | 1 | 2 | 3 | total |"
    assert lines[2].startswith("| 1. B | · | 0-1-2 (0.5/3) | 1-0-1 (1/2) | 1-1-3 (1.5/5) 30 % |")
    assert lines[3].startswith("| 2. A | 2-1-0 (2.5/3) | · | 0-2-0 (1/2) |")
    assert "wins-draws-losses" in markdown

    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert len(rows) == 6  # every ordered pair that met
    by_pair = {(r["player"], r["opponent"]): r for r in rows}
    assert by_pair["A", "B"] == {
        "player": "A",
        "opponent": "B",
        "games": "3",
        "wins": "2",
        "draws": "1",
        "losses": "0",
        "points": "2.5",
        "score": "0.8333",
        "games_as_black": "2",
        "wins_as_black": "1",
    }
    assert [r["player"] for r in rows] == ["B", "B", "A", "A", "C", "C"]


def test_clock_counts_the_moves_each_player_chose():
    moves = ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17"]
    records = [
        # A two-ply opening: Black chooses moves 3, 5 and 7, White 4 and 6.
        GameRecord("A", "B", "11-15 23-19", moves, "1-0", "no_moves", seconds={"black": 0.9, "white": 0.4}),
        # A three-ply opening: White chooses moves 4 and 6, Black 5 and 7.
        GameRecord("B", "A", "11-15 23-19 8-11", moves, "0-1", "no_moves", seconds={"black": 0.2, "white": 0.6}),
        # From a set-up position with White to move and no opening: White chooses first.
        GameRecord(
            "A",
            "B",
            "",
            ["18-14", "9x18"],
            "0-1",
            "no_moves",
            seconds={"black": 0.3, "white": 0.1},
            start_fen="W:W18:B9",
        ),
    ]
    lines = clock_markdown(records).splitlines()
    # No record kept each move's time: no stretch of the game has a mean.
    assert lines[2] == "| A | 6 | 1.8 | 0.300 | - | - | - | - |"  # 3 + 2 + 1 moves in 0.9 + 0.6 + 0.3 s
    assert lines[3] == "| B | 5 | 0.7 | 0.140 | - | - | - | - |"  # 2 + 2 + 1 moves in 0.4 + 0.2 + 0.1 s


def test_clock_gives_each_player_s_seconds_a_move_by_stretch_of_the_game():
    assert CLOCK_PHASES == (1, 21, 41, 81)
    # A three-ply opening, then 40 moves: plies 4-43, White's first.
    moves = ["11-15", "23-19", "8-11"] + ["x"] * 40
    took = [1.0 if ply <= 20 else 2.0 if ply <= 40 else 4.0 for ply in range(4, 44)]
    took = [t * (10 if i % 2 == 0 else 1) for i, t in enumerate(took)]  # White's moves ten times Black's
    record = GameRecord("A", "B", "11-15 23-19 8-11", moves, "0-1", "no_moves", move_seconds=took)
    head, _, black, white = clock_markdown([record]).splitlines()
    assert head.endswith("| plies 1-20 | plies 21-40 | plies 41-80 | plies 81- |")
    assert black.endswith("| 1.000 | 2.000 | 4.000 | - |")  # plies 5, 7, ..., 19; 21, ..., 39; 41, 43
    assert white.endswith("| 10.000 | 20.000 | 40.000 | - |")


def test_crosstable_of_players_who_never_met():
    table = crosstable([game("A", "B", "1-0"), game("C", "D", "0-1")])
    assert table.cell("A", "C").games == 0
    assert "|  |" in table.to_markdown()
    with pytest.raises(KeyError, match="not in the crosstable"):
        table.cell("A", "Z")
    with pytest.raises(ValueError, match="reordering"):
        table.reordered(["A", "B"])


@pytest.fixture(scope="module")
def league_records() -> list[GameRecord]:
    """A small real league: three players, four games per pair, colours swapped."""
    rng = np.random.default_rng(0)
    specs = ["random", "greedy", "greedy:seed=5"]
    records = []
    for i, a in enumerate(specs):
        for b in specs[i + 1 :]:
            for g in range(4):
                black, white = (a, b) if g % 2 == 0 else (b, a)
                opening = "11-15 23-19" if g < 2 else ""
                records.append(
                    play_game(make_agent(black), make_agent(white), opening, Rules(), rng, key=f"{a}|{b}|{g}")
                )
    return records


def test_write_report_writes_every_file(tmp_path, league_records):
    out = tmp_path / "report"
    ratings, table = write_report(league_records, out, bootstrap=100, seed=1)
    for name in REPORT_FILES:
        path = out / name
        assert path.exists() and path.stat().st_size > 0, name
    assert (out / "heatmap.png").read_bytes()[:8] == PNG_MAGIC
    assert (out / "ratings.png").read_bytes()[:8] == PNG_MAGIC
    assert table.players == ratings.players()
    assert ratings["random"].rating == 0.0
    assert (out / "ratings.md").read_text() == ratings.to_markdown()
    assert (out / "crosstable.csv").read_text() == table.to_csv()
    assert sum(p.games for p in ratings) == 2 * len(league_records)

    games = read_pdn(out / "games.pdn")
    assert len(games) == len(league_records)
    for number, (read, record) in enumerate(zip(games, league_records), 1):
        assert [str(m) for m in read.moves] == record.moves
        assert read.headers["Black"] == record.black
        assert read.headers["White"] == record.white
        assert read.headers["Result"] == record.result
        assert read.headers["Termination"] == record.termination
        assert read.headers["Opening"] == record.opening
        assert read.headers["Round"] == str(number)


def test_games_pdn_keeps_a_set_up_position(tmp_path):
    from checkers_env import Board

    start = Board.from_fen("B:W18:B14")
    record = play_game(make_agent("random"), make_agent("random"), start=start, rng=np.random.default_rng(0))
    path = write_games_pdn([record], tmp_path / "one.pdn")
    (read,) = read_pdn(path)
    assert read.start == start
    assert [str(m) for m in read.moves] == record.moves == ["14x23"]
    assert read.result == "1-0"


def test_plots_alone(tmp_path):
    records = HAND_MADE[:-1]
    ratings = fit_elo(records, anchor=None, bootstrap=20)
    table = crosstable(records)
    heat = heatmap_png(table, tmp_path / "h.png", ratings)
    plot = ratings_plot_png(ratings, tmp_path / "r.png")
    assert heat.read_bytes()[:8] == PNG_MAGIC and plot.read_bytes()[:8] == PNG_MAGIC
    no_intervals = fit_elo(records, bootstrap=0)
    assert ratings_plot_png(no_intervals, tmp_path / "r0.png").stat().st_size > 0
