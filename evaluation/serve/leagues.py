"""The League tab of ``checkers serve``: league output folders given on the command line,
chosen by index; only the report's own files are served from them."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from checkers_env import svg
from checkers_env.match import GameRecord

from .http import RequestError

#: The report files of a league folder that the page may fetch (``evaluation/league/reports.py``).
LEAGUE_FILES = {
    "heatmap.png": "image/png",
    "ratings.png": "image/png",
    "games.pdn": "text/plain; charset=utf-8",
    "crosstable.csv": "text/csv; charset=utf-8",
    "ratings.csv": "text/csv; charset=utf-8",
    "crosstable.md": "text/markdown; charset=utf-8",
    "ratings.md": "text/markdown; charset=utf-8",
}


class LeagueViews:
    """What the page reads of the server's league folders (``self.leagues``, resolved
    paths; ``self._league_cache``: records by index, reloaded when the file changes)."""

    leagues: list[Path]
    _league_cache: dict[int, tuple[float, list[GameRecord]]]

    def league(self, index: int) -> Path:
        if not 0 <= index < len(self.leagues):
            raise RequestError(404, f"no league {index} (this server was given {len(self.leagues)})")
        return self.leagues[index]

    def league_records(self, index: int) -> list[GameRecord]:
        from checkers_evaluation.league import load_records

        path = self.league(index) / "games.jsonl"
        changed = path.stat().st_mtime
        cached = self._league_cache.get(index)
        if cached is None or cached[0] != changed:
            cached = (changed, load_records(path))
            self._league_cache[index] = cached
        return cached[1]

    def league_summary(self, index: int) -> dict:
        folder = self.league(index)
        records = self.league_records(index)
        return {
            "index": index,
            "name": folder.name,
            "ratings": _read_csv(folder / "ratings.csv"),
            "crosstable": _read_csv(folder / "crosstable.csv"),
            "files": [name for name in LEAGUE_FILES if (folder / name).is_file()],
            "games": [
                {
                    "index": number,
                    "black": r.black,
                    "white": r.white,
                    "result": r.result,
                    "plies": r.plies,
                    "opening": r.opening,
                    "termination": r.termination,
                }
                for number, r in enumerate(records)
            ],
        }

    def league_position(self, index: int, number: int, ply: int) -> dict:
        records = self.league_records(index)
        if not 0 <= number < len(records):
            raise RequestError(404, f"no game {number} in league {index} ({len(records)} games)")
        record = records[number]
        game = record.to_game()
        plies = record.plies
        ply = max(0, min(ply, plies))
        boards = game.boards
        last = game.moves[ply - 1] if ply else None
        return {
            "index": number,
            "ply": ply,
            "plies": plies,
            "black": record.black,
            "white": record.white,
            "result": record.result,
            "termination": record.termination,
            "moves": record.moves,
            "move": None if last is None else str(last),
            "fen": boards[ply].fen(),
            "svg": str(svg.board(boards[ply], size=480, last_move=last)),
        }

    def league_file(self, index: int, name: str) -> tuple[Path, str]:
        if name not in LEAGUE_FILES:
            raise RequestError(404, f"{name!r} is not a league report file ({', '.join(LEAGUE_FILES)})")
        path = self.league(index) / name
        if not path.is_file():
            raise RequestError(404, f"league {index} has no {name}")
        return path, LEAGUE_FILES[name]


def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
