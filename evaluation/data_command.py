"""``checkers data``: training databases for the MCRD networks (pseudo-random games,
MCRD-labelled positions). The handler imports the MCRD data module only when it runs."""

from __future__ import annotations

import argparse

from checkers_evaluation.common_options import (
    Kinds,
    add_kinds,
    add_no_progress,
    add_out,
    add_seed,
    add_whole_number,
)
from checkers_evaluation.options import UsageError, add_ray_option, rate

HELP = "generate training data for the MCRD networks (pseudo-random games, MCRD-labelled positions)"
DESCRIPTION = (
    "Write a training database (card.json and shard-*.npz) for the MCRD networks "
    "(checkers train mcrd-net). Running the same command again resumes a killed run with identical data."
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
}


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers data`` on its parser."""
    games, mcrd = add_kinds(parser, "data_kind", "KIND", KINDS)
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
    parser.set_defaults(handler=run_data)


def run_data(args: argparse.Namespace) -> int:
    """Write the database ``args`` describes; returns the exit status."""
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
