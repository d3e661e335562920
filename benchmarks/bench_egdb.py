"""Endgame databases: build time, size and memory, and the probe rate.

* ``build_{4,5}_seconds``: ``egdb.build(N)`` from an empty folder, every position up to N
  pieces (goals: 4 pieces under 60 s, 5 under 1200 s), in a fresh process each (numba's
  compiled kernels come from its cache, warmed first); ``build_{4,5}_peak_rss_mb``: that
  process's peak resident memory; ``build_{4,5}_mb``: the files on disk.
* ``probe_per_s``: ``egdb.index.probe_board`` (the win/draw/loss codes a search reads,
  through the files' memory maps) called from a numba loop on one thread over ``PROBES``
  positions drawn uniformly from the 5-piece slices (half of them with White to move);
  goal 10 M/s. ``count_moves_per_s`` is the core's move counter over the same positions
  in the same run, and ``probe_vs_count_moves`` the ratio of the two rates. Uniform
  positions are the worst case: nearly every probe misses the caches.
* ``probe_walk_per_s``: the same over ``PROBES`` positions of random games inside the
  5-piece database (each position one move from the one before, restarting from a
  uniform position when a game ends): the way a search probes, neighbouring positions
  sharing the men's part of the index and so the cache lines.
* ``probe_children_per_s``: the children of those positions, each position's children one
  after another, as a search probes when it expands a node (siblings share a slice, and
  siblings by a king move share the men's part of their index); goal 5 M/s.
* ``six_pieces``: the three rates over the 6-piece database of the default folder
  (``$CHECKERS_EGDB``), when one is built there (``checkers egdb build --pieces 6``,
  about twenty minutes): its open time (mapping and checking the codes) and files' size too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from checkers_env.bitboard import apply_move, count_moves
from checkers_env.egdb.index import probe_board
from checkers_env.movegen import CAPTURED, FROM, MAX_MOVES, MOVE_FIELDS, TO, generate_moves, random_below, seed_state

PROBES = 2_000_000

_BUILD = """
import json, resource, sys
from checkers_env import egdb
report = egdb.build(int(sys.argv[1]), sys.argv[2], progress=False)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": report.seconds, "positions": report.positions, "bytes": report.bytes, "peak_mb": peak}))
"""


def _build(pieces: int, folder: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _BUILD, str(pieces), str(folder)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# Without reference counting, as the search's kernel is compiled: with it, taking each
# probe's array out of the tables' tuple costs an atomic increment and decrement.
@numba.njit(cache=True, _nrt=False)
def _probe_loop(tables, offsets, black, white, kings, black_to_move):
    total = 0
    for i in range(black.shape[0]):
        total += probe_board(tables, offsets, black[i], white[i], kings[i], black_to_move[i])
    return total


@numba.njit(cache=True)
def _count_loop(black, white, kings, black_to_move):
    total = 0
    for i in range(black.shape[0]):
        if black_to_move[i]:
            total += count_moves(black[i], white[i], kings[i], True)
        else:
            total += count_moves(white[i], black[i], kings[i], False)
    return total


@numba.njit(cache=True)
def _walk(starts_black, starts_white, starts_kings, count, seed, black, white, kings, black_to_move):
    """``count`` positions of random games from the given starts (Black to move), each a
    move after the one before; a finished game restarts from the next start."""
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    state = seed_state(seed, 0)
    start = 0
    b, w, k, btm = starts_black[0], starts_white[0], starts_kings[0], True
    for i in range(count):
        black[i], white[i], kings[i], black_to_move[i] = b, w, k, btm
        mover, opponent = (b, w) if btm else (w, b)
        n = generate_moves(mover, opponent, k, btm, moves)
        if n == 0:
            start = (start + 1) % starts_black.shape[0]
            b, w, k, btm = starts_black[start], starts_white[start], starts_kings[start], True
            continue
        state, j = random_below(state, n)
        mover, opponent, k = apply_move(mover, opponent, k, btm, moves[j, FROM], moves[j, TO], moves[j, CAPTURED])
        b, w = (mover, opponent) if btm else (opponent, mover)
        btm = not btm


@numba.njit(cache=True)
def _children(black, white, kings, black_to_move, count, out_black, out_white, out_kings, out_black_to_move):
    """The children of the positions, in order, until ``count`` are written."""
    moves = np.empty((MAX_MOVES, MOVE_FIELDS), dtype=np.int64)
    written = 0
    for i in range(black.shape[0]):
        btm = black_to_move[i]
        mover, opponent = (black[i], white[i]) if btm else (white[i], black[i])
        n = generate_moves(mover, opponent, kings[i], btm, moves)
        for j in range(n):
            if written == count:
                return written
            m, o, k = apply_move(mover, opponent, kings[i], btm, moves[j, FROM], moves[j, TO], moves[j, CAPTURED])
            out_black[written], out_white[written] = (m, o) if btm else (o, m)
            out_kings[written] = k
            out_black_to_move[written] = not btm
            written += 1
    return written


def sample_boards(pieces: int, count: int, seed: int = 0):
    """``count`` boards drawn uniformly from the slices with exactly ``pieces`` pieces, as
    arrays (black, white, kings, black_to_move); half have White to move."""
    from checkers_env import egdb
    from checkers_env.egdb import index as egdb_index
    from checkers_env.encoding import half_turn

    rng = np.random.default_rng(seed)
    slices = egdb.slices(pieces)
    sizes = np.array([egdb_index.slice_size(*s) for s in slices], dtype=np.float64)
    chosen = rng.choice(len(slices), size=count, p=sizes / sizes.sum())
    black = np.empty(count, np.int64)
    white = np.empty(count, np.int64)
    kings = np.empty(count, np.int64)
    black_to_move = rng.random(count) < 0.5
    for i, k in enumerate(chosen):
        mover, opponent, king_bits = egdb_index.slice_position(*slices[k], int(rng.integers(sizes[k])))
        if black_to_move[i]:
            black[i], white[i], kings[i] = mover, opponent, king_bits
        else:
            black[i], white[i], kings[i] = half_turn(opponent), half_turn(mover), half_turn(king_bits)
    return black, white, kings, black_to_move


def _best_rate(kernel, args, count: int, repeats: int = 3) -> float:
    """The best of ``repeats`` rates (``count`` per second) of ``kernel(*args)``."""
    best = 0.0
    for _ in range(repeats):
        started = time.perf_counter()
        kernel(*args)
        best = max(best, count / (time.perf_counter() - started))
    return best


def _probe_rates(db, pieces: int) -> dict:
    """Probes a second of ``db`` over uniform positions, random walks and node expansions
    of ``pieces`` pieces (best of 3, one thread)."""
    boards = sample_boards(pieces, PROBES)
    _probe_loop(db.tables, db.offsets, *(a[:10] for a in boards))
    starts = sample_boards(pieces, 100_000, seed=1)
    keep = starts[3]  # Black-to-move starts
    walk = tuple(np.empty(PROBES, dtype) for dtype in (np.int64, np.int64, np.int64, np.bool_))
    _walk(starts[0][keep], starts[1][keep], starts[2][keep], PROBES, 2, *walk)
    children = tuple(np.empty(PROBES, dtype) for dtype in (np.int64, np.int64, np.int64, np.bool_))
    made = _children(*walk, PROBES, *children)
    children = tuple(a[:made] for a in children)
    return {
        "probe_per_s": _best_rate(_probe_loop, (db.tables, db.offsets, *boards), PROBES),
        "probe_walk_per_s": _best_rate(_probe_loop, (db.tables, db.offsets, *walk), PROBES),
        "probe_children_per_s": _best_rate(_probe_loop, (db.tables, db.offsets, *children), made),
    }, boards


def run() -> dict:
    from checkers_env import egdb

    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        _build(3, Path(tmp) / "warm")  # compile into numba's cache outside the timings
        for pieces in (4, 5):
            figures = _build(pieces, Path(tmp) / f"egdb{pieces}")
            results[f"build_{pieces}_seconds"] = figures["seconds"]
            results[f"build_{pieces}_positions"] = figures["positions"]
            results[f"build_{pieces}_mb"] = figures["bytes"] / 1e6
            results[f"build_{pieces}_peak_rss_mb"] = figures["peak_mb"]
        rates, boards = _probe_rates(egdb.EndgameDatabase.open(5, Path(tmp) / "egdb5"), 5)
        results.update(rates)
        _count_loop(*(a[:10] for a in boards))
        results["count_moves_per_s"] = _best_rate(_count_loop, boards, PROBES)
        results["probe_vs_count_moves"] = results["probe_per_s"] / results["count_moves_per_s"]
    if (egdb.complete_pieces() or 0) >= 6:
        started = time.perf_counter()
        six = egdb.EndgameDatabase.open(6)
        opened = time.perf_counter() - started
        rates, _ = _probe_rates(six, 6)
        results["six_pieces"] = {
            **rates,
            "open_seconds": opened,
            "mb": sum(f.path.stat().st_size for f in six.files) / 1e6,
        }
    results["sizes"] = {"probes": PROBES}
    for key, value in results.items():
        if isinstance(value, dict):
            for sub, figure in value.items():
                print(f"   {key + '.' + sub:28s} {figure:,.2f}")
        else:
            print(f"   {key:28s} {value:,.2f}")
    return results
