"""``checkers data``: training databases for the MCRD networks (pseudo-random games,
MCRD-labelled positions), the database of diverse quiet positions with their
win/draw/loss counts (``checkers_training.positions``), and a searched opening book
(``checkers_agents.searched_book``). The handler imports the data module only when it runs
(the trainers' package by name, as ``checkers train`` does)."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import time

from checkers_evaluation.common_options import (
    Kinds,
    add_egdb_folder,
    add_kinds,
    add_no_progress,
    add_out,
    add_seed,
    add_whole_number,
)
from checkers_evaluation.options import UsageError, add_ray_option, max_egdb_pieces, rate

HELP = "generate training data (MCRD networks' games and positions, diverse quiet positions) or a searched book"
DESCRIPTION = (
    "Write a training database (card.json and shard-*.npz): for the MCRD networks "
    "(checkers train mcrd-net), or diverse quiet positions with their win/draw/loss counts; "
    "or an opening book searched after each ballot opening. "
    "Running the same command again resumes a killed run with identical data."
)


#: ``checkers data book``'s description.
BOOK_DESCRIPTION = (
    "After each ballot opening of the ACF deck, the line of one alpha-beta searcher (--agent SPEC, "
    "its evaluator, switches and endgame database) searched at the fixed --depth for --plies plies, "
    "with the answer to every other move of the first --branch-plies plies: OUT/book.json, which "
    "'alphabeta:book_file=OUT/book.json' plays. One shard a ballot; --ballots N takes the first N."
)

#: ``checkers data KIND``: each kind's line in ``checkers data --help``, and its description.
KINDS: Kinds = {
    "games": (
        "pseudo-random games with interpolated labels",
        "The MCRD document's pseudo-random games: each move is the material minimax choice "
        "with probability --minimax-rate, else uniformly random; positions labelled from 0 to the result.",
    ),
    "mcrd": (
        "positions labelled by MCRD searches",
        "Positions from pseudo-random and MCRD self-play games, each labelled by one MCRD "
        "search of --playouts playouts (per-move wins, draws, losses, playouts and the value).",
    ),
    "positions": (
        "diverse quiet positions with win/draw/loss counts",
        "Quiet positions from the games of many players (a recipe of stages: the alpha-beta "
        "self-play kernel with hand-written evaluations and the zoo's nets at several depths and "
        "random plies, and the ACF game records), merged in the mover's frame with their wins, "
        "draws and losses, mean search value and the endgame database's exact value. Each stage "
        "is a resumable shard folder OUT/stages/NAME (--stages builds some in one session), then "
        "the merge writes OUT/merged (--merge-only); --deep SPEC then searches the merged positions "
        "with one fixed exact alpha-beta at --deep-depth into OUT/deep (--deep-only: that step alone), "
        "its value the labels' search part. A recipe file is JSON: "
        '{"stages": [{"name": ..., "games": ..., "evaluator": ..., "depth": ..., '
        '"random_plies": ..., "egdb_pieces": ...}, {"name": ..., "kind": "records", "games": ...}]}; '
        "docs/agents/outcome-net.md has the format.",
    ),
    "book": ("an opening book searched after each ballot opening", BOOK_DESCRIPTION),
}


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers data`` on its parser."""
    games, mcrd, positions, book = add_kinds(parser, "data_kind", "KIND", KINDS)
    add_whole_number(games, "--games", "how many games", minimum=1, required=True)
    add_whole_number(games, "--shard-size", "games per shard", 100, minimum=1)
    add_whole_number(mcrd, "--positions", "how many positions", minimum=1, required=True)
    add_whole_number(mcrd, "--playouts", "MCRD playouts per position", minimum=1, required=True)
    add_whole_number(mcrd, "--shard-size", "positions per shard", 256, minimum=1)
    what = "playouts per move of the self-play games positions are drawn from"
    add_whole_number(mcrd, "--selfplay-playouts", what, 200, minimum=1)
    mcrd.add_argument(
        "--backend",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="MCRD backend (default auto: cuda when a GPU is present)",
    )
    add_ray_option(mcrd, "one task per shard")
    for sub in (games, mcrd):
        add_out(sub, "the database folder", required=True)
        add_seed(sub, "seed")
        sub.add_argument(
            "--minimax-rate",
            type=rate,
            default=0.5,
            help="probability of the minimax move in pseudo-random games (default 0.5)",
        )
        add_whole_number(sub, "--minimax-depth", "depth of that material minimax", 3, minimum=1)
        add_whole_number(sub, "--workers", "processes over shards", 1, minimum=1)
        add_no_progress(sub)
    _add_positions_arguments(positions)
    _add_book_arguments(book)
    parser.set_defaults(handler=run_data)


def _add_book_arguments(parser) -> None:
    """Declare the arguments of ``checkers data book``."""
    parser.add_argument(
        "--agent",
        required=True,
        metavar="SPEC",
        help="the searcher: an alpha-beta spec (alphabeta:eval=positional, zoo:outcome-net-3); its depth and time unused",
    )
    add_whole_number(parser, "--depth", "depth of every search", minimum=1, required=True)
    add_whole_number(parser, "--plies", "plies of the searcher's line after each ballot", minimum=1, required=True)
    what = "plies after the ballot whose other moves get the searcher's answer"
    add_whole_number(parser, "--branch-plies", what, 2)
    add_whole_number(parser, "--ballots", "the first this many ballots of the deck (default all 156)", minimum=1)
    add_whole_number(parser, "--workers", "processes over the ballots", 1, minimum=1)
    add_out(parser, "the book's folder (card.json, a shard a ballot, book.json)", required=True)
    add_no_progress(parser)


def _add_positions_arguments(parser) -> None:
    """Declare the arguments of ``checkers data positions``."""
    parser.add_argument(
        "--recipe",
        default="diverse",
        metavar="diverse|FILE",
        help="the stages: the built-in diverse recipe, or a JSON recipe file (default diverse)",
    )
    add_whole_number(parser, "--games", "games of all the diverse recipe's stages together", minimum=1)
    add_whole_number(parser, "--workers", "processes over a stage's shards", 1, minimum=1)
    what = "the endgame database the games probe and end at, and the merge re-scores with (0: none)"
    add_whole_number(parser, "--egdb-pieces", what, 0, maximum=max_egdb_pieces)
    add_egdb_folder(parser, "the endgame database's folder (default $CHECKERS_EGDB, else the suite's)")
    add_seed(parser, "seed of the run (each stage's is derived from it and the stage's name)")
    add_out(parser, "the database folder (stages/ and merged/)", required=True)
    parser.add_argument("--stages", metavar="NAMES", help="build only these stages (comma-separated), not the merge")
    parser.add_argument("--merge-only", action="store_true", help="build nothing; merge the finished stages")
    parser.add_argument(
        "--deep",
        metavar="SPEC",
        help="after the merge, search the positions with the exact alpha-beta of this evaluator "
        "(zoo:ENTRY, material, positional or NET:WEIGHTS) into OUT/deep; its value becomes the labels' search part",
    )
    add_whole_number(parser, "--deep-depth", "depth of the --deep search", 8, minimum=1)
    add_whole_number(
        parser, "--deep-positions", "search a seeded sample of this many positions (default all)", minimum=1
    )
    parser.add_argument(
        "--deep-only", action="store_true", help="build and merge nothing; run the --deep step on the finished merge"
    )
    add_no_progress(parser)


def run_data(args: argparse.Namespace) -> int:
    """Write the database ``args`` describes; returns the exit status."""
    if args.data_kind == "positions":
        return run_positions(args)
    if args.data_kind == "book":
        return run_book(args)
    from checkers_agents.mcrd import data

    # Both kinds' games are pseudo-random; the bounds argparse does not know (the minimax
    # depth's most, a backend this machine lacks) are checked here, before any folder is made.
    pseudo_random = {"minimax_rate": args.minimax_rate, "minimax_depth": args.minimax_depth}
    try:
        if args.data_kind == "games":
            kind = "interpolated"
            params = data.games_params(args.games, shard_size=args.shard_size, **pseudo_random)
        else:
            kind = "mcrd"
            params = data.mcrd_params(
                args.positions,
                args.playouts,
                args.shard_size,
                args.backend,
                selfplay_playouts=args.selfplay_playouts,
                **pseudo_random,
            )
    except ValueError as error:
        raise UsageError(str(error)) from None
    card = data.generate(
        args.out,
        kind,
        params,
        seed=args.seed,
        workers=args.workers,
        ray=getattr(args, "ray", False),
        progress=args.progress,
    )
    records = f"{card['games']} games, " if kind == "interpolated" else ""
    print(
        f"{args.out}: {kind} database, {records}{card['positions']} positions in {card['shards']} shards "
        f"({card['built_now']} built now) in {card['wall_s']:.1f} s"
        + (f", backend {params['backend']}" if kind == "mcrd" else "")
    )
    return 0


def run_book(args: argparse.Namespace) -> int:
    """Build the searched book of ``checkers data book``; returns the exit status."""
    from checkers_agents.searched_book import BOOK_FILE, SEARCHED_BOOK, book_params, build_book

    counts = {"depth": args.depth, "plies": args.plies, "branch_plies": args.branch_plies, "ballots": args.ballots}
    try:
        book_params(args.agent, **counts)  # a spec or count the build refuses is a usage error
    except ValueError as error:
        raise UsageError(str(error)) from None
    book = build_book(args.out, args.agent, **counts, workers=args.workers, progress=args.progress)
    card = SEARCHED_BOOK.read_card(args.out)
    print(
        f"{args.out}/{BOOK_FILE}: searched book of {card['ballots']} ballots ({card['built_now']} searched now), "
        f"{len(book)} positions, {args.agent} at depth {args.depth}, {args.plies} plies "
        f"({args.branch_plies} branched) in {card['wall_s']:.1f} s"
    )
    return 0


def run_positions(args: argparse.Namespace) -> int:
    """Build the stages of ``checkers data positions`` and merge them; returns the exit status."""
    positions = importlib.import_module("checkers_training.positions")
    started = time.perf_counter()
    run = _run_of(positions, args)
    if args.deep is None and (args.deep_only or args.deep_positions is not None):
        raise UsageError("--deep-only and --deep-positions are the deep step's: give --deep SPEC")
    if args.deep_only:
        if args.stages is not None or args.merge_only:
            raise UsageError("--deep-only builds and merges nothing: give no --stages or --merge-only")
        print(f"{_run_deep(positions, args, run)} in {time.perf_counter() - started:.1f} s")
        return 0
    if args.deep is not None and args.stages is not None:
        raise UsageError("--stages builds stages without the merge the --deep step searches: give one of them")
    if args.recipe == "diverse":
        if args.games is None:
            raise UsageError("--recipe diverse needs --games (the games of all its stages together)")
        recipe = positions.diverse_recipe(args.games, args.egdb_pieces)
    elif args.games is not None:
        raise UsageError("--games is the diverse recipe's; a recipe file states each stage's games")
    else:
        recipe = positions.read_recipe(args.recipe, args.egdb_pieces)
    chosen = recipe
    if args.stages is not None:
        if args.merge_only:
            raise UsageError("--stages builds stages and --merge-only builds none: give one of them")
        names = [name.strip() for name in args.stages.split(",") if name.strip()]
        unknown = sorted(set(names) - {stage.name for stage in recipe})
        if unknown or not names:
            known = ", ".join(stage.name for stage in recipe)
            raise UsageError(f"--stages: no stage {', '.join(unknown) or 'named'} in the recipe; its stages: {known}")
        chosen = [stage for stage in recipe if stage.name in names]
    built: list[dict] = []
    if not args.merge_only:
        built = positions.build_stages(run, chosen)
    games, played = sum(card["games"] for card in built), sum(card["positions"] for card in built)
    line = f"{args.out}: {len(built)} stages built ({games} games, {played} positions)"
    if args.stages is None:
        card = positions.merge(run, recipe)
        missing = f", {len(card['missing'])} stages missing ({', '.join(card['missing'])})" if card["missing"] else ""
        line += (
            f"; merged {len(card['stages'])} stages, {card['quiet']} quiet positions: {card['positions']} distinct "
            f"({card['egdb_positions']} scored by the database){missing}"
        )
    if args.deep is not None:
        line += "; " + _run_deep(positions, args, run)
    print(f"{line} in {time.perf_counter() - started:.1f} s")
    return 0


def _run_deep(positions, args: argparse.Namespace, run) -> str:
    """Run the deep step of ``args`` on the finished merge with the run's settings ``run``
    (its card's command line adds the deep step's options); returns what it did, in words."""
    words = ["--deep", args.deep, "--deep-depth", str(args.deep_depth)]
    if args.deep_positions is not None:
        words += ["--deep-positions", str(args.deep_positions)]
    run = dataclasses.replace(run, command=" ".join([run.command, *words, "--deep-only"]))
    card = positions.deep_search(run, args.deep, args.deep_depth, args.deep_positions)
    return (
        f"deep search ({args.deep}, depth {args.deep_depth}): {card['positions']} of "
        f"{card['params']['merged_positions']} positions ({card['built_now']} shards built now)"
    )


def _run_of(positions, args: argparse.Namespace):
    """The settings the steps of ``args`` share (``positions.Run``), with the command line
    of the options that name the data, for the cards."""
    return positions.Run(
        out=args.out,
        seed=args.seed,
        egdb_pieces=args.egdb_pieces,
        egdb_folder=None if args.egdb_folder is None else str(args.egdb_folder),
        workers=args.workers,
        command="checkers data positions " + " ".join(_argv_of(args)),
        progress=args.progress,
    )


def _argv_of(args: argparse.Namespace) -> list[str]:
    """The options of ``args`` that name the data (for the card)."""
    words = ["--recipe", args.recipe, "--out", str(args.out), "--seed", str(args.seed)]
    if args.games is not None:
        words += ["--games", str(args.games)]
    words += ["--egdb-pieces", str(args.egdb_pieces)]
    if args.egdb_folder is not None:
        words += ["--egdb-folder", str(args.egdb_folder)]
    return words
