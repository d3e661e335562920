"""The ``checkers`` command line.

The subcommands and their options are declared by the parser itself (``checkers --help``,
``checkers SUBCOMMAND --help``), the one place they are written down.

Each subcommand is one ``_add_<name>(subparsers)`` function that declares its arguments and
names its handler; handlers import what they need when they run, so ``checkers --help``
stays fast and a subcommand's heavy dependencies (numba kernels now; torch, the league or a
trainer later) load only when that subcommand is used. To add one (``league``, ``play``,
``agents``, ``train``), write its ``_add_<name>`` and append it to ``SUBCOMMANDS``; its
handler may live in another module (``handler=_lazy("checkers_evaluation.league", "main")``),
and so may the whole subcommand (``add_egdb`` in ``egdb_command.py``, ``add_agents`` in
``agents_command.py``).
The option types they share, which check a value when it is parsed, are in ``options.py``.

Bad input (a bad FEN, a negative depth) prints one line ``checkers: error: ...`` to stderr
and exits with status 2, the status argparse uses for usage errors.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import time
from collections.abc import Callable, Iterator

# The option types and usage errors every subcommand shares live in options.py, two
# subcommands in their own modules; all are named here too, as the command line's own
# (``from checkers_evaluation.cli import whole_number``).
from checkers_evaluation.agents_command import add_agents, docstring_args, plain_text
from checkers_evaluation.egdb_command import add_egdb
from checkers_evaluation.options import (
    EXIT_USAGE,
    ArgumentParser,
    HelpFormatter,
    UsageError,
    folder_path,
    max_egdb_pieces,
    positive_number,
    rate,
    whole_number,
)

#: Exit status when the reader of stdout went away: 128 + SIGPIPE, as a shell reports it.
EXIT_BROKEN_PIPE = 141

#: From this depth on, perft shows a progress bar over the root moves (on a terminal).
PROGRESS_DEPTH = 12

Handler = Callable[[argparse.Namespace], int]


def _perft_max_depth() -> int:
    from checkers_env.perft import MAX_DEPTH

    return MAX_DEPTH


def _max_bootstrap() -> int:
    from checkers_evaluation.ratings import MAX_BOOTSTRAP

    return MAX_BOOTSTRAP


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
    parser.add_argument(
        "depth", metavar="DEPTH", type=whole_number(0, _perft_max_depth),
        help="plies (single moves) to look ahead, %(minimum)s to %(maximum)s",
    )
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
    from checkers_env.perft import perft_slices

    board = _board_from_fen(args.fen)
    if args.divide and args.depth < 1:
        raise UsageError(f"--divide needs a depth >= 1, got {args.depth}")
    perft(board, 1, args.bulk)  # compile (or load the cached kernel) outside the timing

    # --divide counts below each root move; otherwise the whole tree is one part.
    parts = [(move, board.play(move)) for move in board.legal_moves()] if args.divide else [(None, board)]
    depth = args.depth - 1 if args.divide else args.depth
    show = args.depth >= PROGRESS_DEPTH and sys.stderr.isatty()
    started = time.perf_counter()
    total = 0
    with _progress(f"perft {args.depth}", len(parts), show) as advance:
        for root, position in parts:
            count = 0
            # Slices of at most a second each: Ctrl-C gets through and the bar moves.
            for path, share, slice_count in perft_slices(position, depth, args.bulk):
                count += slice_count
                advance(share, (root,) + path if root is not None else path)
            total += count
            if args.divide:
                print(f"{root}: {count}", flush=True)
    elapsed = time.perf_counter() - started

    label = "total" if args.divide else f"perft {args.depth}"
    nodes = "node" if total == 1 else "nodes"
    print(f"{label}: {total} {nodes} in {elapsed:.3f} s ({_rate(total, elapsed)} nodes/s)")
    return 0


@contextlib.contextmanager
def _progress(description: str, parts: int, show: bool) -> Iterator[Callable]:
    """A rich bar on stderr over ``parts`` parts, moved by ``advance(share, path)`` after each
    slice (``share`` of one part; ``path`` names the line just counted). The bar disappears
    when done, so stdout keeps only the counts. With ``show`` false it draws nothing."""
    if not show:
        yield lambda share, path: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=parts)

        def advance(share: float, path: tuple) -> None:
            line = " ".join(str(move) for move in path[:2])
            progress.update(task, advance=share, description=f"{description}, counted {line}" if line else description)

        yield advance


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


# -- league ----------------------------------------------------------------------------


TRUST_PICKLES_HELP = (
    "let agent specs load files that hold pickled Python objects (a Stable-Baselines3 .zip "
    "given as ppo:weights=): loading such a file runs whatever code it holds, so give this only "
    "for files you made yourself (see SECURITY.md)"
)


def _add_league(subparsers) -> None:
    parser = subparsers.add_parser(
        "league",
        help="round robin between agents, with ratings, crosstable, plots and PDN",
        description="Play a round robin: every pair plays each opening twice with colours "
        "swapped. Games are appended to OUT/games.jsonl as they end; --resume continues a "
        "killed run. OUT then holds crosstable.md/.csv, ratings.md/.csv, heatmap.png, "
        "ratings.png and games.pdn.",
    )
    parser.add_argument(
        "agents", metavar="AGENT_SPEC", nargs="+",
        help="e.g. random greedy alphabeta:depth=4; add name=NAME to a spec to show NAME in the tables "
        "(td-minimax:weights=a.safetensors,name=td-a); 'zoo' stands for every zoo agent",
    )
    parser.add_argument(
        "--gauntlet", metavar="SPEC",
        help="a gauntlet: SPEC plays every AGENT_SPEC, who do not play each other "
        "(checkers league zoo --gauntlet td-minimax:weights=mine.safetensors)",
    )
    parser.add_argument(
        "--games-per-pair", type=whole_number(2), default=20, metavar="N",
        help="games each pair of agents plays: N/2 openings, each with both colours (even, >= 2; default 20)",
    )
    parser.add_argument(
        "--openings", default="ballot",
        help="ballot (default: the ACF 3-move deck, 156 openings, each game tagged with its ACF number), "
        "ballot:crossboard (the deck's 144 crossboard openings), "
        "random:PLIES (games start after PLIES random single moves), or a file with one opening in PDN per line",
    )
    parser.add_argument(
        "--time-per-move", type=positive_number, metavar="S",
        help="seconds per move for the agents that take a time parameter (alphabeta, mcrd, td-minimax)",
    )
    parser.add_argument(
        "--workers", type=whole_number(1), default=1, metavar="K", help="processes playing games at once (default 1)"
    )
    parser.add_argument(
        "--backend", choices=("local", "ray"), default="local",
        help="local processes (default), or Ray tasks on a cluster (pip install 'checkers-suite[ray]')",
    )
    parser.add_argument("--out", type=folder_path, default="runs/league", metavar="DIR", help="output folder (default runs/league)")
    parser.add_argument("--resume", action="store_true", help="continue the league in --out; new AGENT_SPECs play only their own games")
    parser.add_argument("--overwrite", action="store_true", help="discard the games already in --out")
    parser.add_argument(
        "--seed", type=whole_number(0), default=0, help="seed of the random openings and of every game (default 0)"
    )
    parser.add_argument(
        "--max-plies", type=whole_number(1), default=400, metavar="N",
        help="a game longer than this many plies (single moves) is drawn (default 400)",
    )
    parser.add_argument(
        "--bootstrap", type=whole_number(0, _max_bootstrap), default=1000, metavar="N",
        help="resamples of the games behind the ratings' 95 %% intervals, %(minimum)s to %(maximum)s "
        "(default 1000; 0: no intervals)",
    )
    parser.add_argument("--trust-pickles", action="store_true", help=TRUST_PICKLES_HELP)
    parser.add_argument(
        "--adjudicate", choices=("egdb",),
        help="egdb: a game that reaches a position of the endgame database ends there with the database's "
        "result (termination egdb in the PDN); default: games are played to their end",
    )
    parser.add_argument(
        "--adjudicate-pieces", type=whole_number(2, max_egdb_pieces), metavar="N",
        help="pieces of the adjudicating database, %(minimum)s to %(maximum)s (default: the largest N whose "
        "slices are all in the folder)",
    )
    parser.add_argument(
        "--egdb-folder", type=folder_path, metavar="DIR",
        help="the endgame database folder (default $CHECKERS_EGDB, else the platform's cache folder)",
    )
    parser.set_defaults(handler=_run_league)


def _run_league(args: argparse.Namespace) -> int:
    from checkers_env import Rules
    from checkers_evaluation.league import League, expand_zoo

    league = League(
        expand_zoo(args.agents), gauntlet=args.gauntlet, out=args.out, games_per_pair=args.games_per_pair, openings=args.openings,
        time_per_move=args.time_per_move, workers=args.workers, backend=args.backend,
        resume=args.resume, overwrite=args.overwrite, seed=args.seed,
        rules=Rules(max_plies=args.max_plies), bootstrap=args.bootstrap,
        adjudicate=args.adjudicate, adjudicate_pieces=args.adjudicate_pieces, egdb_folder=args.egdb_folder,
        trusted=args.trust_pickles,
    )
    league.run()
    return 0


# -- play ------------------------------------------------------------------------------


def _add_play(subparsers) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play against an agent in the terminal",
        description="Play a game against any agent in the terminal. The board shows square "
        "numbers; type moves in PDN, the standard notation (11-15 a step, 22x15 a capture, "
        "9x18x27 a double capture, or short 9x27), or a command: "
        "undo, hint, moves, board, save FILE, load FILE|FEN, resign, help, quit. Ctrl-C offers to save the game.",
    )
    parser.add_argument(
        "--opponent",
        required=True,
        metavar="SPEC",
        help="the agent to play against, as a spec string (random, greedy, alphabeta:depth=6, "
        "zoo:td-minimax; checkers agents lists them)",
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
    parser.add_argument("--seed", type=whole_number(0), help="seed the opponent's generator (reproducible games)")
    parser.add_argument("--trust-pickles", action="store_true", help=TRUST_PICKLES_HELP)
    parser.set_defaults(handler=_lazy("checkers_evaluation.play", "play_main"))


# -- serve -----------------------------------------------------------------------------


def _add_serve(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="the web page: play an agent, watch two play, replay a league's games",
        description="Start a local web app (needs the serve extra: pip install 'checkers-suite[serve]') "
        "with three tabs: Play (any agent, either colour, from a ballot opening or a FEN, moves by "
        "clicking), Watch (two agents play each other) and League (ratings, crosstable, heatmap and "
        "replays of a league's games). It binds to 127.0.0.1 unless --host says otherwise. Requests "
        "may name agents, zoo entries and plain values only, never a file (SECURITY.md).",
    )

    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=whole_number(0, 65535), default=8000, help="port, 0 to 65535 (default 8000)")
    parser.add_argument(
        "--league", action="append", metavar="DIR",
        help="a league output folder (checkers league --out DIR) for the League tab; repeat for several",
    )
    parser.add_argument(
        "--think-limit", type=positive_number, default=10.0, metavar="S",
        help="seconds an agent may think about one move; past it the move is stopped (default 10)",
    )
    parser.add_argument("--workers", type=whole_number(1), default=2,
                        help="agent moves thought about at once, each in its own process (default 2)")
    parser.add_argument("--record", metavar="DIR", type=folder_path,
                        help="append every finished game to DIR/games.jsonl (the league's format)")
    parser.add_argument("--egdb-folder", metavar="DIR", type=folder_path,
                        help="endgame database folder (default: the cache folder's, when one is built)")
    parser.add_argument(
        "--agents-dir", action="append", metavar="DIR",
        help="a folder of agents to offer the page, laid out as the zoo (DIR/NAME/card.json beside its weights); "
        "the page names one zoo:NAME (the zoo's own entries first). Requests can name no other file; repeat for several",
    )
    parser.set_defaults(handler=_lazy("checkers_evaluation.serve", "serve_main"))


# -- train -----------------------------------------------------------------------------

#: ``checkers train NAME`` runs ``python -m checkers_training.<module>``'s ``main(argv)``.
TRAINERS = {"bc": "checkers_training.behaviour_cloning", "td-minimax": "checkers_training.td_minimax",
            "slow-fast": "checkers_training.slow_fast", "ppo": "checkers_training.ppo",
            "mcrd-net": "checkers_training.mcrd_net", "outcome-net": "checkers_training.outcome_net"}


def _add_train(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a learning agent (bc, td-minimax, slow-fast, ppo, mcrd-net, outcome-net); --help after the name lists its options",
        description="Run one of the training scripts; everything after NAME goes to it "
        "(for example: checkers train td-minimax --games 1000). Every trainer shares the run "
        "options of training/scaffold.py: --resume RUN_DIR, --overwrite, --promote NAME, ...",
        add_help=True,
    )
    parser.add_argument("trainer", metavar="NAME", choices=sorted(TRAINERS), help=", ".join(sorted(TRAINERS)))
    parser.add_argument("trainer_args", nargs=argparse.REMAINDER, help="options of the trainer")
    parser.set_defaults(handler=_run_train)


def _run_train(args: argparse.Namespace) -> int:
    from checkers_env.errors import missing_dependency

    try:
        module = importlib.import_module(TRAINERS[args.trainer])
        return module.main(args.trainer_args) or 0
    except ModuleNotFoundError as error:
        missing = missing_dependency(error, f"checkers train {args.trainer}")
        if missing is None:
            raise
        raise UsageError(str(missing)) from None


# -- data ------------------------------------------------------------------------------


def _add_data(subparsers) -> None:
    parser = subparsers.add_parser(
        "data",
        help="generate training data for the MCRD networks (pseudo-random games, MCRD-labelled positions)",
        description="Write a training database (card.json and shard-*.npz) for the MCRD networks "
        "(checkers train mcrd-net). Running the same command again resumes a killed run with identical data.",
    )
    kinds = parser.add_subparsers(dest="data_kind", metavar="KIND", required=True)
    games = kinds.add_parser(
        "games", help="pseudo-random games with interpolated labels",
        description="The MCRD document's pseudo-random games: each move is the material minimax choice "
        "with probability --minimax-rate, else uniformly random; positions labelled from 0 to the result.",
    )
    games.add_argument("--games", type=whole_number(1), required=True, help="how many games")
    games.add_argument("--shard-size", type=whole_number(1), default=100, help="games per shard (default 100)")
    mcrd = kinds.add_parser(
        "mcrd", help="positions labelled by MCRD searches",
        description="Positions from pseudo-random and MCRD self-play games, each labelled by one MCRD "
        "search of --playouts playouts (per-move wins, draws, losses, playouts and the value).",
    )
    mcrd.add_argument("--positions", type=whole_number(1), required=True, help="how many positions")
    mcrd.add_argument("--playouts", type=whole_number(1), required=True, help="MCRD playouts per position")
    mcrd.add_argument("--shard-size", type=whole_number(1), default=256, help="positions per shard (default 256)")
    mcrd.add_argument("--selfplay-playouts", type=whole_number(1), default=200,
                      help="playouts per move of the self-play games positions are drawn from (default 200)")
    mcrd.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto",
                      help="MCRD backend (default auto: cuda when a GPU is present)")
    mcrd.add_argument("--ray", nargs="?", const=True, default=False, metavar="ADDRESS",
                      help="one Ray task per shard (a local Ray, or the cluster at ADDRESS)")
    for sub in (games, mcrd):
        sub.add_argument("--out", type=folder_path, required=True, metavar="DIR", help="the database folder")
        sub.add_argument("--seed", type=whole_number(0), default=0, help="seed (default 0)")
        sub.add_argument("--minimax-rate", type=rate, default=0.5,
                         help="probability of the minimax move in pseudo-random games (default 0.5)")
        sub.add_argument("--minimax-depth", type=whole_number(1), default=3,
                         help="depth of that material minimax (default 3)")
        sub.add_argument("--workers", type=whole_number(1), default=1, help="processes over shards (default 1)")
        sub.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    parser.set_defaults(handler=_lazy("checkers_evaluation.cli", "_run_data"))


def _run_data(args: argparse.Namespace) -> int:
    from checkers_agents.mcrd import data

    if args.data_kind == "games":
        params = data.games_params(args.games, args.minimax_rate, args.minimax_depth, args.shard_size)
        kind = "interpolated"
    else:
        try:
            params = data.mcrd_params(
                args.positions, args.playouts, args.shard_size, args.backend,
                selfplay_playouts=args.selfplay_playouts, minimax_rate=args.minimax_rate,
                minimax_depth=args.minimax_depth,
            )
        except ValueError as error:
            raise UsageError(str(error)) from None
        kind = "mcrd"
    card = data.generate(args.out, kind, params, seed=args.seed, workers=args.workers,
                         ray=getattr(args, "ray", False), progress=args.progress)
    records = f"{card['games']} games, " if kind == "interpolated" else ""
    print(
        f"{args.out}: {kind} database, {records}{card['positions']} positions in {card['shards']} shards "
        f"({card['built_now']} built now) in {card['wall_s']:.1f} s"
        + (f", backend {params['backend']}" if kind == "mcrd" else "")
    )
    return 0


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
SUBCOMMANDS: list[Callable] = [
    _add_perft, _add_show, add_agents, _add_league, _add_play, _add_serve, _add_train, _add_data, add_egdb,
]


def _version() -> str:
    """The installed distribution's version (read from its metadata: no import of the suite)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("checkers-suite")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="checkers",
        description="English draughts (American checkers): rules, agents, training and evaluation.",
        epilog="checkers COMMAND --help describes a command. To begin: checkers agents lists "
        "the agents; checkers play --opponent zoo:td-minimax plays one.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
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
        status = args.handler(args)
        sys.stdout.flush()  # a reader that left shows up here, inside the try, not at exit
        return status
    except BrokenPipeError:
        # The reader stopped reading (``checkers agents | head -1``): stop quietly, as
        # command-line tools do; stdout goes to devnull so the exit flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
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
