"""The ``checkers`` command line.

    checkers perft DEPTH [--fen FEN] [--divide] [--no-bulk]
    checkers show FEN
    checkers agents
    checkers league AGENT_SPEC ... [--games-per-pair N] [--openings ballot|random:PLIES|FILE]
        [--time-per-move S] [--workers K] [--backend local|ray] [--out DIR] [--resume]
    checkers train td-minimax|slow-fast|ppo [TRAINER OPTIONS]

Each subcommand is one ``_add_<name>(subparsers)`` function that declares its arguments and
names its handler; handlers import what they need when they run, so ``checkers --help``
stays fast and a subcommand's heavy dependencies (numba kernels now; torch, the league or a
trainer later) load only when that subcommand is used. To add one (``league``, ``play``,
``agents``, ``train``), write its ``_add_<name>`` and append it to ``SUBCOMMANDS``; its
handler may live in another module (``handler=_lazy("evaluation.league", "main")``).

Bad input (a bad FEN, a negative depth) prints one line ``checkers: error: ...`` to stderr
and exits with status 2, the status argparse uses for usage errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Iterator

#: Exit status for bad input (argparse's own usage errors use it too).
EXIT_USAGE = 2

#: From this depth on, perft shows a progress bar over the root moves (on a terminal).
PROGRESS_DEPTH = 12

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """Bad input found by a handler: reported as one line on stderr, exit status 2."""


def _lazy(module: str, function: str) -> Handler:
    """A handler that imports ``module.function`` only when the subcommand runs."""

    def handler(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(module), function)(args)

    return handler


# -- perft ---------------------------------------------------------------------------


def _add_perft(subparsers) -> None:
    parser = subparsers.add_parser(
        "perft",
        help="count the move paths of DEPTH plies (checks the move generator, measures speed)",
        description="Count the complete-move paths of DEPTH plies from a position "
        "(from the start: 1:7, 2:49, 3:302, 4:1469, ..., OEIS A133046).",
    )
    parser.add_argument("depth", metavar="DEPTH", type=int, help="plies to look ahead (>= 0)")
    parser.add_argument("--fen", help="start from this PDN FEN instead of the start position")
    parser.add_argument(
        "--divide", action="store_true", help="print the count below each root move, then the total"
    )
    parser.add_argument(
        "--no-bulk",
        dest="bulk",
        action="store_false",
        help="make every leaf move instead of counting the last ply in bulk (slower)",
    )
    parser.set_defaults(handler=_run_perft)


def _run_perft(args: argparse.Namespace) -> int:
    from checkers_env import perft

    board = _board_from_fen(args.fen)
    if args.depth < 0:
        raise UsageError(f"perft depth must be >= 0, got {args.depth}")
    if args.divide and args.depth < 1:
        raise UsageError(f"--divide needs a depth >= 1, got {args.depth}")
    perft(board, 1, args.bulk)  # compile (or load the cached kernel) outside the timing

    started = time.perf_counter()
    if not args.divide and args.depth < PROGRESS_DEPTH:
        total = perft(board, args.depth, args.bulk)
    else:
        # Divide over the root moves: the natural unit for a progress bar on long runs.
        total = 0
        moves = board.legal_moves()
        show = args.depth >= PROGRESS_DEPTH and sys.stderr.isatty()
        for move in _track(moves, f"perft {args.depth}", show):
            count = perft(board.play(move), args.depth - 1, args.bulk)
            total += count
            if args.divide:
                print(f"{move}: {count}", flush=True)
    elapsed = time.perf_counter() - started

    label = "total" if args.divide else f"perft {args.depth}"
    nodes = "node" if total == 1 else "nodes"
    print(f"{label}: {total} {nodes} in {elapsed:.3f} s ({_rate(total, elapsed)} nodes/s)")
    return 0


def _track(moves: list, description: str, show: bool) -> Iterator:
    """Iterate over the root moves; if ``show``, draw a rich bar on stderr naming the move
    being searched (the bar disappears when done, so stdout keeps only the counts)."""
    if not show:
        yield from moves
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("root moves"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=len(moves))
        for move in moves:
            progress.update(task, description=f"{description}, searching {move}")
            yield move
            progress.advance(task)


def _rate(count: int, seconds: float) -> str:
    if seconds <= 0:
        return "inf"
    rate = count / seconds
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate >= scale:
            return f"{rate / scale:.1f} {unit}"
    return f"{rate:.0f}"


# -- show ----------------------------------------------------------------------------


def _add_show(subparsers) -> None:
    parser = subparsers.add_parser(
        "show",
        help="print a position as an ASCII board with its legal moves",
        description="Print the position of a PDN FEN (like 'B:W18,K30:B14') as an ASCII board "
        "with square numbers, then its legal moves.",
    )
    parser.add_argument("fen", metavar="FEN", help="the position, in PDN FEN")
    parser.set_defaults(handler=_run_show)


def _run_show(args: argparse.Namespace) -> int:
    board = _board_from_fen(args.fen)
    print(board)
    print(f"FEN: {board.fen()}")
    moves = board.legal_moves()
    if not moves:
        print(f"{board.turn} has no legal move and loses")
        return 0
    kind = "capture" if board.is_capture_position() else "move"
    plural = "" if len(moves) == 1 else "s"
    print(f"{len(moves)} legal {kind}{plural} for {board.turn}: " + " ".join(map(str, moves)))
    return 0


# -- agents ----------------------------------------------------------------------------


def _add_agents(subparsers) -> None:
    parser = subparsers.add_parser(
        "agents",
        help="list every agent kind with its parameters and defaults",
        description="List the agent kinds that spec strings (kind:key=value,...) can name.",
    )
    parser.set_defaults(handler=_run_agents)


def _run_agents(args: argparse.Namespace) -> int:
    import inspect

    from checkers_env.agent import agent_kinds, agent_parameters, agent_summary

    for kind in sorted(agent_kinds()):
        params = []
        for name, parameter in agent_parameters(kind).items():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            default = "required" if parameter.default is inspect.Parameter.empty else parameter.default
            params.append(f"{name}={default}")
        print(f"{kind:<12} {', '.join(params) or '(no parameters)'}")
        summary = agent_summary(kind)
        if summary:
            print(f"{'':<12} {summary}")
    return 0


# -- league ----------------------------------------------------------------------------


def _add_league(subparsers) -> None:
    parser = subparsers.add_parser(
        "league",
        help="round robin between agents, with ratings, crosstable, plots and PDN",
        description="Play a round robin: every pair plays each opening twice with colours "
        "swapped. Games are appended to OUT/games.jsonl as they end; --resume continues a "
        "killed run. OUT then holds crosstable.md/.csv, ratings.md/.csv, heatmap.png, "
        "ratings.png and games.pdn.",
    )
    parser.add_argument("agents", metavar="AGENT_SPEC", nargs="+", help="e.g. random greedy alphabeta:depth=4")
    parser.add_argument("--games-per-pair", type=int, default=20, metavar="N", help="even (default 20)")
    parser.add_argument(
        "--openings", default="ballot", help="ballot (3-move ballot, default), random:PLIES, or a file"
    )
    parser.add_argument("--time-per-move", type=float, metavar="S", help="for agents with a time parameter")
    parser.add_argument("--workers", type=int, default=1, metavar="K", help="local processes (default 1)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local")
    parser.add_argument("--out", default="runs/league", metavar="DIR", help="output folder (default runs/league)")
    parser.add_argument("--resume", action="store_true", help="continue the league in --out")
    parser.add_argument("--overwrite", action="store_true", help="discard the games already in --out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-plies", type=int, default=400, help="games longer than this are drawn")
    parser.add_argument("--bootstrap", type=int, default=1000, help="resamples for the rating intervals")
    parser.set_defaults(handler=_run_league)


def _run_league(args: argparse.Namespace) -> int:
    from checkers_env import Rules
    from evaluation.league import League

    league = League(
        args.agents, out=args.out, games_per_pair=args.games_per_pair, openings=args.openings,
        time_per_move=args.time_per_move, workers=args.workers, backend=args.backend,
        resume=args.resume, overwrite=args.overwrite, seed=args.seed,
        rules=Rules(max_plies=args.max_plies), bootstrap=args.bootstrap,
    )
    league.run()
    return 0


# -- play ------------------------------------------------------------------------------


def _add_play(subparsers) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play against an agent in the terminal",
        description="Play a game against any agent in the terminal. The board shows square "
        "numbers; type moves in PDN (11-15, 22x15, 9x18x27 or short 9x27) or a command: "
        "undo, hint, moves, board, save FILE, help, quit.",
    )
    parser.add_argument(
        "--opponent",
        required=True,
        metavar="SPEC",
        help="the agent to play against, as a spec string (random, greedy, alphabeta:depth=6, zoo:NAME)",
    )
    parser.add_argument(
        "--color",
        "--colour",
        dest="color",
        choices=("black", "white"),
        default="black",
        help="your colour (default black; Black moves first from the start position)",
    )
    parser.add_argument("--fen", help="start from this PDN FEN (its side to move moves first)")
    parser.add_argument("--seed", type=int, help="seed the opponent's generator (reproducible games)")
    parser.set_defaults(handler=_lazy("evaluation.play", "play_main"))


# -- train -----------------------------------------------------------------------------

#: ``checkers train NAME`` runs ``python -m training.<module>``'s ``main(argv)``.
TRAINERS = {"td-minimax": "training.td_minimax", "slow-fast": "training.slow_fast", "ppo": "training.ppo"}


def _add_train(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a learning agent (td-minimax, slow-fast, ppo); --help after the name lists its options",
        description="Run one of the training scripts; everything after NAME goes to it "
        "(for example: checkers train td-minimax --games 1000). Every trainer shares the run "
        "options of training/scaffold.py: --resume RUN_DIR, --overwrite, --promote NAME, ...",
        add_help=True,
    )
    parser.add_argument("trainer", metavar="NAME", choices=sorted(TRAINERS), help=", ".join(sorted(TRAINERS)))
    parser.add_argument("trainer_args", nargs=argparse.REMAINDER, help="options of the trainer")
    parser.set_defaults(handler=_run_train)


def _run_train(args: argparse.Namespace) -> int:
    try:
        module = importlib.import_module(TRAINERS[args.trainer])
    except ModuleNotFoundError as error:
        raise UsageError(f"trainer {args.trainer!r} is not available: {error}") from None
    return module.main(args.trainer_args) or 0


# -- shared ----------------------------------------------------------------------------


def _board_from_fen(fen: str | None):
    from checkers_env import Board, InvalidFenError

    if fen is None:
        return Board()
    try:
        return Board.from_fen(fen)
    except InvalidFenError as error:
        raise UsageError(str(error)) from None


#: The subcommands, in the order ``checkers --help`` lists them.
SUBCOMMANDS: list[Callable] = [_add_perft, _add_show, _add_agents, _add_league, _add_play, _add_train]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="checkers",
        description="English draughts (American checkers): rules, agents, training and evaluation.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``checkers`` command with ``argv`` (default ``sys.argv[1:]``); return its exit
    status instead of exiting, so that tests and other Python code can call it."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, or a usage error argparse already printed
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as error:
        print(f"checkers: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, FileNotFoundError) as error:
        from checkers_env.errors import CheckersError

        if not isinstance(error, (CheckersError, FileNotFoundError)):
            raise
        print(f"checkers: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("checkers: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
