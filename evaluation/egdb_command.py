"""``checkers egdb``: build, probe, statistics, and how well agents play endgames.

Its handlers import the endgame database (numba kernels) only when they run.
"""

from __future__ import annotations

import argparse
import sys

from checkers_evaluation.common_options import (
    Kinds,
    add_egdb_folder,
    add_egdb_pieces,
    add_kinds,
    add_no_progress,
    add_out,
    add_seed,
    add_whole_number,
)
from checkers_evaluation.options import DeprecatedAlias, UsageError, add_ray_option, folder_path, max_egdb_pieces

HELP = "endgame databases: build, probe, statistics, and how well agents play endgames"
DESCRIPTION = (
    "Endgame databases: the exact value (win, loss or draw for the side to move, with "
    "unlimited play) and distance (plies to the end under best play) of every position with few "
    "pieces. Files live in --egdb-folder, default $CHECKERS_EGDB, else the platform's cache folder."
)


def _egdb_build_description() -> str:
    from checkers_env import egdb

    return (
        f"Build every slice with at most N pieces by retrograde analysis ({egdb.build_figures()}, on 2 cores). "
        "Slices already built are checked and kept; a killed build resumes from its files."
    )


#: ``checkers egdb COMMAND``: each command's line in ``checkers egdb --help``, and its description.
COMMANDS: Kinds = {
    "build": ("build the database up to N pieces (resumes a killed build)", _egdb_build_description),
    "probe": (
        "value and distance of positions (FEN arguments, or one FEN a line on stdin)",
        "One line per position: the FEN, then win, loss or draw for the side to move "
        "(none: outside the database), then the plies to the end under best play (- for a draw or none).",
    ),
    "stats": (
        "wins, losses, draws and longest win of every slice",
        "One row per slice (mover men and kings, then the opponent's: 2m1k-1m0k), then "
        "the totals per number of pieces; counts are for the side to move.",
    ),
    "measure": (
        "how well agents play endgames: value keeping, conversion, calibration",
        "For each agent, on a fixed sample of positions with exactly N pieces: the "
        "fraction of its moves that keep a won or drawn position's value (where a move can lose it), "
        "the fraction of won positions it wins against a perfect defender within the shortest win plus "
        "--margin plies, and, for agents with a value net, how well the net's values match the truth. "
        "checkers_evaluation.endgame documents each measure.",
    ),
}


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers egdb`` on its parser."""
    build, probe, stats, measure = add_kinds(parser, "egdb_command", "COMMAND", COMMANDS)
    add_whole_number(
        build, "--pieces", "%(minimum)s to %(maximum)s", 4, minimum=2, maximum=max_egdb_pieces, metavar="N"
    )
    add_no_progress(build)
    add_ray_option(build, "solve the pairs of slices of each level (every node must see the database folder)")
    probe.add_argument("fens", metavar="FEN", nargs="*", help="positions in PDN FEN (default: read stdin)")
    measure.add_argument("agents", metavar="AGENT_SPEC", nargs="+", help="e.g. alphabeta:depth=4 zoo:td-minimax")
    add_whole_number(
        measure, "--positions", "positions sampled for value keeping and calibration", 200, minimum=1, metavar="K"
    )
    add_whole_number(measure, "--games", "won positions of the sample played out for conversion", 50, metavar="G")
    add_seed(measure, "seed of the sample and the games")
    add_whole_number(measure, "--margin", "plies a conversion may take beyond the shortest win", 20, metavar="M")
    add_out(measure, "also write measures.md and measures.json there")
    add_no_progress(measure)
    for sub in (build, probe, stats, measure):
        add_egdb_folder(sub, "the database folder (default $CHECKERS_EGDB, else the platform's cache folder)")
        sub.add_argument(
            "--folder",
            dest="egdb_folder",
            type=folder_path,
            action=DeprecatedAlias,
            new="--egdb-folder",
            help=argparse.SUPPRESS,
        )
    for sub in (probe, stats, measure):
        more = "; the positions sampled have exactly N pieces" if sub is measure else ""
        add_egdb_pieces(sub, "--pieces", "database pieces", more)
    parser.set_defaults(handler=run_egdb)


def run_egdb(args: argparse.Namespace) -> int:
    """Run the ``checkers egdb`` command that ``args`` names; returns the exit status."""
    return {"build": _egdb_build, "probe": _egdb_probe, "stats": _egdb_stats, "measure": _egdb_measure}[
        args.egdb_command
    ](args)


def _egdb_build(args: argparse.Namespace) -> int:
    from checkers_env import egdb

    try:
        report = egdb.build(args.pieces, args.egdb_folder, progress=args.progress, ray=args.ray)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(
        f"egdb up to {report.pieces} pieces: {report.solved} slices solved, {report.found} found, "
        f"{report.positions:,} positions, {report.seconds:.1f} s, {report.bytes / 1e6:.1f} MB in {report.folder}"
    )
    return 0


def _open_egdb(args: argparse.Namespace):
    """The database of ``--pieces`` (default: the largest complete one) in ``--egdb-folder``.

    Raises:
        EndgameDatabaseError: no database there, or a slice missing or corrupt; the message
            names the slice and the command that builds it (one line, status 2).
    """
    from checkers_env.egdb import EndgameDatabase

    return EndgameDatabase.cached(args.pieces, args.egdb_folder)


def _egdb_probe(args: argparse.Namespace) -> int:
    from checkers_env import Board, InvalidFenError

    texts = args.fens or [line.strip() for line in sys.stdin if line.strip()]
    boards = []
    for text in texts:  # every FEN is checked before the database loads
        try:
            boards.append(Board.from_fen(text))
        except InvalidFenError as error:
            raise UsageError(str(error)) from None
    db = _open_egdb(args)
    for text, board in zip(texts, boards):
        verdict = db.probe(board)
        if verdict is None:
            print(f"{text} none -")
        else:
            print(f"{text} {verdict.value} {'-' if verdict.distance is None else verdict.distance}")
    return 0


def _egdb_stats(args: argparse.Namespace) -> int:
    db = _open_egdb(args)
    columns = ("positions", "wins", "losses", "draws", "longest win (plies)")
    slices = []
    totals: dict[int, list[int]] = {}
    for row in db.stats():
        slices.append((row.label, row.positions, row.wins, row.losses, row.draws, row.longest_win))
        total = totals.setdefault(sum(row.slice), [0, 0, 0, 0, 0])
        for k, value in enumerate((row.positions, row.wins, row.losses, row.draws)):
            total[k] += value
        total[4] = max(total[4], row.longest_win)
    print(f"Endgame database up to {db.pieces} pieces in {db.folder}; counts for the side to move.")
    for first, rows in (("slice", slices), ("pieces", [(str(n), *t) for n, t in totals.items()])):
        print()
        print(_markdown_table((first, *columns), rows))
    return 0


def _markdown_table(header: tuple[str, ...], rows: list[tuple]) -> str:
    """A Markdown table aligned in plain text: the first column to the left, numbers (with
    thousands separators) to the right."""
    cells = [[str(row[0])] + [f"{value:,}" for value in row[1:]] for row in rows]
    widths = [max(len(h), *(len(r[k]) for r in cells)) for k, h in enumerate(header)]

    def line(items: list[str]) -> str:
        return (
            "| "
            + " | ".join(item.ljust(w) if k == 0 else item.rjust(w) for k, (item, w) in enumerate(zip(items, widths)))
            + " |"
        )

    rule = "|" + "|".join(":" + "-" * (w + 1) if k == 0 else "-" * (w + 1) + ":" for k, w in enumerate(widths)) + "|"
    return "\n".join([line(list(header)), rule, *(line(r) for r in cells)])


def _egdb_measure(args: argparse.Namespace) -> int:
    import shlex

    from checkers_env import make_agent
    from checkers_evaluation.endgame import measure, measures_markdown, write_measures

    agents = [make_agent(spec) for spec in args.agents]  # a bad spec is reported before any work
    db = _open_egdb(args)
    results = [
        measure(
            agent,
            db,
            positions=args.positions,
            seed=args.seed,
            margin=args.margin,
            games=args.games,
            progress=args.progress,
        )
        for agent in agents
    ]
    print(measures_markdown(results), end="")
    if args.out:
        command = "checkers " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["egdb"] else ""
        for path in write_measures(results, args.out, command):
            print(f"wrote {path}")
    return 0
