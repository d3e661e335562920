"""``checkers data``: training databases for the MCRD networks (pseudo-random games,
MCRD-labelled positions). The handler imports the MCRD data module only when it runs."""

from __future__ import annotations

import argparse

from checkers_evaluation.options import UsageError, add_ray_option, folder_path, rate, whole_number

HELP = "generate training data for the MCRD networks (pseudo-random games, MCRD-labelled positions)"
DESCRIPTION = (
    "Write a training database (card.json and shard-*.npz) for the MCRD networks "
    "(checkers train mcrd-net). Running the same command again resumes a killed run with identical data."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers data`` on its parser."""
    kinds = parser.add_subparsers(dest="data_kind", metavar="KIND", required=True)
    games = kinds.add_parser(
        "games",
        help="pseudo-random games with interpolated labels",
        description="The MCRD document's pseudo-random games: each move is the material minimax choice "
        "with probability --minimax-rate, else uniformly random; positions labelled from 0 to the result.",
    )
    games.add_argument("--games", type=whole_number(1), required=True, help="how many games")
    games.add_argument("--shard-size", type=whole_number(1), default=100, help="games per shard (default 100)")
    mcrd = kinds.add_parser(
        "mcrd",
        help="positions labelled by MCRD searches",
        description="Positions from pseudo-random and MCRD self-play games, each labelled by one MCRD "
        "search of --playouts playouts (per-move wins, draws, losses, playouts and the value).",
    )
    mcrd.add_argument("--positions", type=whole_number(1), required=True, help="how many positions")
    mcrd.add_argument("--playouts", type=whole_number(1), required=True, help="MCRD playouts per position")
    mcrd.add_argument("--shard-size", type=whole_number(1), default=256, help="positions per shard (default 256)")
    mcrd.add_argument(
        "--selfplay-playouts",
        type=whole_number(1),
        default=200,
        help="playouts per move of the self-play games positions are drawn from (default 200)",
    )
    mcrd.add_argument(
        "--backend",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="MCRD backend (default auto: cuda when a GPU is present)",
    )
    add_ray_option(mcrd, "one task per shard")
    for sub in (games, mcrd):
        sub.add_argument("--out", type=folder_path, required=True, metavar="DIR", help="the database folder")
        sub.add_argument("--seed", type=whole_number(0), default=0, help="seed (default 0)")
        sub.add_argument(
            "--minimax-rate",
            type=rate,
            default=0.5,
            help="probability of the minimax move in pseudo-random games (default 0.5)",
        )
        sub.add_argument(
            "--minimax-depth", type=whole_number(1), default=3, help="depth of that material minimax (default 3)"
        )
        sub.add_argument("--workers", type=whole_number(1), default=1, help="processes over shards (default 1)")
        sub.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    parser.set_defaults(handler=run_data)


def run_data(args: argparse.Namespace) -> int:
    """Write the database ``args`` describes; returns the exit status."""
    from checkers_agents.mcrd import data

    if args.data_kind == "games":
        params = data.games_params(args.games, args.minimax_rate, args.minimax_depth, args.shard_size)
        kind = "interpolated"
    else:
        try:
            params = data.mcrd_params(
                args.positions,
                args.playouts,
                args.shard_size,
                args.backend,
                selfplay_playouts=args.selfplay_playouts,
                minimax_rate=args.minimax_rate,
                minimax_depth=args.minimax_depth,
            )
        except ValueError as error:
            raise UsageError(str(error)) from None
        kind = "mcrd"
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
