"""``python -m benchmarks pdn_memory`` with tiny files: every figure is there, each reading
read every game of its file (the figures themselves are the benchmark's, not a test's)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_memory_benchmark_reads_every_game_with_both_readers(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import bench_pdn_memory

    monkeypatch.setattr(bench_pdn_memory, "GAMES", (3, 40))
    results = bench_pdn_memory.run()
    for reader in ("iter_pdn", "read_pdn"):
        figures = results[reader]
        assert [figures[f"games_{count}"]["games"] for count in (3, 40)] == [3, 40]
        assert all(figures[f"games_{count}"]["peak_growth_mb"] >= 0 for count in (3, 40))
        assert figures["peak_ratio_40_over_3"] >= 0 and set(figures["file_mb"]) == {"games_3", "games_40"}
