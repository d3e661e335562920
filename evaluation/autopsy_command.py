"""``checkers autopsy``: where an agent's own value fell in the games it lost, the move before
each fall checked by a deep search, and those positions kept as a drift set to measure agents
on. The work is :mod:`checkers_evaluation.autopsy`, imported only when the command runs."""

from __future__ import annotations

import argparse

from checkers_evaluation.common_options import add_agent_spec, add_no_progress, add_out, add_whole_number
from checkers_evaluation.options import UsageError, lazy_handler, number

# The defaults, as checkers_evaluation.autopsy has them (that module loads the engine: the
# parser does not import it; tests/evaluation/test_autopsy.py checks they agree).
DEFAULT_AGENT = "zoo:outcome-net-3"
DEFAULT_DEEP = "zoo:outcome-net-3,time=10,egdb=6"
DEFAULT_THRESHOLD = -0.3

HELP = "follow an agent's value along its lost games; check where it fell with a deep search"
DESCRIPTION = (
    "Replay each game of the PDN files that PLAYER lost, searching every position where PLAYER "
    "is to move with the agent's own spec, up to the first whose value falls below the "
    "threshold. The move PLAYER played before that fall is checked by a deep search (more "
    "time, the endgame database): its best moves, its value and the value of the move played. "
    "OUT/drift.jsonl keeps those positions (a drift set), OUT/games.jsonl each game's values, "
    "both appended after each game (--resume continues a killed run); OUT/report.md has the "
    "table. With --drift FILE instead of games, measure --agent on a drift set: the fraction "
    "of positions where its move is one of the deep search's best, appended to "
    "OUT/scores.jsonl (OUT defaults to the drift set's folder). With --drift FILE --recheck, "
    "check the set's positions again with --deep-spec, written to OUT/drift.jsonl as it goes "
    "(--resume continues a killed recheck). With --drift FILE --agree OTHER (OTHER a recheck of "
    "FILE), write to OUT/drift.jsonl the positions where every verdict shares a best move."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers autopsy`` on its parser."""
    parser.add_argument("games", metavar="PDN", nargs="*", help="PDN files of games (.pdn, .pdn.gz, .pdn.xz)")
    parser.add_argument(
        "--player",
        metavar="NAME",
        help="the player whose losses are examined, as the games' Black or White tag names it "
        "(or their BlackAgent and WhiteAgent tags, where a league wrote the spec)",
    )
    add_agent_spec(
        parser,
        "--agent",
        "the agent whose value is followed, the player's own spec; with --drift, the agent measured (default %(default)s)",
        default=DEFAULT_AGENT,
    )
    add_agent_spec(
        parser,
        "--deep-spec",
        "the deep search that checks each move before a fall, or with --recheck each position of the drift set "
        "(default %(default)s)",
        default=DEFAULT_DEEP,
    )
    parser.add_argument(
        "--threshold",
        type=number(),
        default=DEFAULT_THRESHOLD,
        help="the value, in the agent's evaluation's units (a net's: -1 to 1), below which "
        "the player's position counts as lost (default %(default)s)",
    )
    parser.add_argument(
        "--drift",
        metavar="FILE",
        help="measure --agent on this drift set (a drift.jsonl) instead of examining games",
    )
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="with --drift: check the drift set's positions again with --deep-spec, writing OUT/drift.jsonl",
    )
    parser.add_argument(
        "--agree",
        metavar="OTHER",
        action="append",
        default=[],
        help="with --drift: keep the positions where this recheck's verdict (give --agree again for more) "
        "and the set's share a best move, writing OUT/drift.jsonl",
    )
    add_out(
        parser,
        "where the autopsy writes (required with games, --recheck and --agree); with --drift, where scores.jsonl goes",
    )
    parser.add_argument("--resume", action="store_true", help="continue the autopsy, or the recheck, in --out")
    add_whole_number(
        parser, "--workers", "with --recheck: processes that search positions at once, one a core", 1, minimum=1
    )
    add_no_progress(parser)
    parser.set_defaults(handler=lazy_handler("checkers_evaluation.autopsy_command", "run"))


def run(args: argparse.Namespace) -> int:
    """Run ``checkers autopsy`` (its handler)."""
    if args.workers > 1 and not (args.drift is not None and args.recheck):
        raise UsageError("--workers is for --recheck: the other steps search one position at a time")
    if args.drift is not None:
        if args.games or args.player:
            raise UsageError("--drift works on a drift set: give no PDN or --player with it")
        if args.recheck and args.agree:
            raise UsageError("--recheck and --agree are two steps: recheck first, then agree")
        if args.recheck:
            return _recheck(args)
        if args.agree:
            return _agree(args)
        if args.resume:
            raise UsageError("--drift measures an agent on a drift set at once: --resume is for --recheck")
        return _score(args)
    if args.recheck or args.agree:
        raise UsageError("--recheck and --agree work on a drift set: give --drift FILE")
    if not args.games:
        raise UsageError("give PDN files of games to examine, or --drift FILE to measure an agent")
    if args.player is None:
        raise UsageError("--player is required: the name the games' Black or White tag gives the player")
    if args.out is None:
        raise UsageError("--out is required: the folder the autopsy writes")
    from checkers_evaluation.autopsy import autopsy

    summary = autopsy(
        args.games,
        args.player,
        args.out,
        args.agent,
        args.deep_spec,
        args.threshold,
        resume=args.resume,
        progress=args.progress,
    )
    print(
        f"{args.player}: games read: {summary.games}, played: {summary.played}, lost: {summary.losses}, "
        f"examined: {summary.examined}"
    )
    print(
        f"value below {args.threshold}: {summary.drops}; checked moves the deep search would not play: "
        f"{summary.mistakes}; not replayable under the draw rules: {summary.skipped}"
    )
    if summary.drop_plies:
        print("drops by ply: " + ", ".join(f"{band}: {count}" for band, count in summary.drop_plies.items()))
    print(f"wrote {args.out}/drift.jsonl, games.jsonl and report.md")
    return 0


def _score(args: argparse.Namespace) -> int:
    from pathlib import Path

    from checkers_evaluation.drift import append_score, score_drift

    score = score_drift(args.drift, args.agent, progress=args.progress)
    path = append_score(args.out if args.out is not None else Path(args.drift).parent, score)
    print(
        f"{args.agent}: {score['right']}/{score['positions']} right "
        f"({100 * score['fraction']:.1f} %) on {args.drift}; appended to {path}"
    )
    return 0


def _recheck(args: argparse.Namespace) -> int:
    from checkers_evaluation.drift import drift_records, recheck_drift

    if args.out is None:
        raise UsageError("--out is required with --recheck: the folder of the rechecked drift.jsonl")
    before = drift_records(args.drift)
    after = recheck_drift(
        args.drift, args.deep_spec, args.out, resume=args.resume, progress=args.progress, workers=args.workers
    )
    changed = sum(
        (old.get("deep") or {}).get("best_moves") != new["deep"]["best_moves"] for old, new in zip(before, after)
    )
    mistakes = sum(bool(new["mistake"]) for new in after), sum(bool(old.get("mistake")) for old in before)
    print(
        f"{args.drift} checked again by {args.deep_spec}: positions {len(after)}, best moves changed in {changed}, "
        f"mistakes {mistakes[0]} (were {mistakes[1]})"
    )
    print(f"wrote {args.out}/drift.jsonl")
    return 0


def _agree(args: argparse.Namespace) -> int:
    from checkers_evaluation.drift import agree_drift, drift_records

    if args.out is None:
        raise UsageError("--out is required with --agree: the folder of the agreed drift.jsonl")
    if args.resume:
        raise UsageError("--agree writes its set at once: --resume is for --recheck")
    kept = agree_drift(args.drift, args.agree, args.out)
    total = len(drift_records(args.drift))
    print(
        f"{args.drift} and {', '.join(args.agree)}: the verdicts share a best move in {len(kept)} of {total} "
        f"positions, mistakes {sum(bool(record['mistake']) for record in kept)}"
    )
    print(f"wrote {args.out}/drift.jsonl")
    return 0
