"""``checkers train NAME``: runs a trainer of ``checkers_training`` (imported only then; the
``checkers`` command may dispatch to the trainers, ``checkers_evaluation`` never imports them
otherwise). Each trainer parses its own options with the same option layer
(:mod:`checkers_agents.options`)."""

from __future__ import annotations

import argparse
import importlib

from checkers_evaluation.options import UsageError

#: ``checkers train NAME`` runs ``python -m checkers_training.<module>``'s ``main(argv)``.
TRAINERS = {
    "bc": "checkers_training.behaviour_cloning",
    "td-minimax": "checkers_training.td_minimax",
    "slow-fast": "checkers_training.slow_fast",
    "ppo": "checkers_training.ppo",
    "mcrd-net": "checkers_training.mcrd_net",
    "outcome-net": "checkers_training.outcome_net",
    "alphazero": "checkers_training.alphazero",
}


HELP = "train a learning agent (bc, td-minimax, slow-fast, ppo, mcrd-net, outcome-net, alphazero); --help after the name lists its options"
DESCRIPTION = (
    "Run one of the training scripts; everything after NAME goes to it "
    "(for example: checkers train td-minimax --games 1000). Every trainer shares the run "
    "options of checkers_training.scaffold: --out RUN_DIR, --resume, --overwrite, --promote NAME, ..."
)


def add_arguments(parser) -> None:
    """Declare the arguments of ``checkers train`` on its parser."""
    parser.add_argument("trainer", metavar="NAME", choices=sorted(TRAINERS), help=", ".join(sorted(TRAINERS)))
    parser.add_argument("trainer_args", nargs=argparse.REMAINDER, help="options of the trainer")
    parser.set_defaults(handler=run_train)


def run_train(args: argparse.Namespace) -> int:
    """Run the trainer ``args`` names with its options; returns the exit status."""
    from checkers_env.errors import missing_dependency

    try:
        module = importlib.import_module(TRAINERS[args.trainer])
        return module.main(args.trainer_args) or 0
    except ModuleNotFoundError as error:
        missing = missing_dependency(error, f"checkers train {args.trainer}")
        if missing is None:
            raise
        raise UsageError(str(missing)) from None
