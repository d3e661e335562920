"""Train the MCRD document's CNN (``checkers_agents.mcrd.net``) on a database of labelled
positions: the document's pseudo-random games with interpolated labels (``checkers data
games``), or the MCRD database (``checkers data mcrd``), whose labels are MCRD's own values.

    checkers data mcrd --positions 20000 --playouts 2000 --out data/mcrd --seed 1
    checkers data mcrd --positions 2000 --playouts 2000 --out data/mcrd-held-out --seed 2
    checkers train mcrd-net --data data/mcrd --held-out data/mcrd-held-out --steps 20000
    checkers train mcrd-net --data data/mcrd --held-out data/mcrd-held-out --architecture conv-local
    checkers train mcrd-net --out runs/mcrd-net/seed0__20261123T101500 --resume   # continue a stopped run

The net learns the value of a position for the side to move, in (-1, 1), by mean squared
error against the database's ``value`` (Adam, minibatches drawn with the run's seed). The
budget is the number of SGD steps of ``--batch-size`` positions, so two nets trained on
different data with the same ``--steps`` and ``--batch-size`` have seen as many examples.

``--held-out DIR`` names an MCRD database never trained on (generate it with another seed):
its mean squared error is logged as ``held_out/mse`` and recorded in the summary and the card,
whatever the training data is, so nets trained on interpolated labels and on MCRD labels are
judged on the same truth. The run folder holds ``checkpoint.pt`` (the net, Adam, the
generator, the step; atomic, every ``--checkpoint-every`` steps and at the end, so a killed
run resumes where it stopped) and ``weights.safetensors``; ``--promote NAME`` writes
``zoo/NAME/`` with a card whose agent is the one alpha-beta with this net as its evaluator
(``alphabeta:eval=mcrd-net,depth=--eval-depth``). ``checkers_training.scaffold`` describes
the run folder and the shared options.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checkers_agents.mcrd.net import ARCHITECTURES, CONV_DENSE, CONV_LOCAL, CONV_LOCAL_DENSE, SIZES
from checkers_env.files import json_text
from checkers_training import scaffold
from checkers_training.checkpoints import CHECKPOINT, WEIGHTS
from checkers_training.dependencies import optional_module
from checkers_training.scaffold import BUDGET, MAX_BATCH, MAX_WIDTH, SESSION, TrainingError, arg
from checkers_training.supervised import run_steps

if TYPE_CHECKING:
    from torch import Tensor, nn

torch = optional_module("torch")

TRAINER = "mcrd-net"
#: The zoo card's words for each architecture.
LAYERS = {
    CONV_DENSE: "a convolution over the 3 x 8 x 8 board planes, then fully connected layers",
    CONV_LOCAL: "a convolution over the 3 x 8 x 8 board planes feeding a locally connected layer over the dark "
    "squares, then a fully connected output",
    CONV_LOCAL_DENSE: "a convolution over the 3 x 8 x 8 board planes feeding a locally connected layer over the "
    "dark squares, then fully connected layers",
}
NEEDS = ("torch", "safetensors")


@dataclass
class Args(scaffold.RunArgs):
    """Options of the MCRD CNN trainer."""

    data: str = arg("", metavar="DIR")
    """the training database (a folder written by `checkers data games` or `checkers data mcrd`)"""
    held_out: str = arg("", metavar="DIR")
    """an MCRD database never trained on, for the held-out error (optional)"""
    steps: int = arg(20_000, low=1, on_resume=BUDGET)
    """SGD steps (the budget: steps x batch size examples)"""
    batch_size: int = arg(256, low=1, high=MAX_BATCH)
    """positions per SGD step"""
    learning_rate: float = arg(1e-3, low=0.0)
    """Adam step size"""
    weight_decay: float = arg(0.0, low=0.0)
    """L2 penalty (Adam's weight_decay)"""
    architecture: str = arg(CONV_DENSE, choices=ARCHITECTURES)
    """conv-dense: a convolution, a fully connected hidden layer; conv-local: a convolution, a locally connected layer over the dark squares; conv-local-dense: conv-local, then a fully connected hidden layer (checkers_agents.mcrd.net)"""
    channels: int = arg(0, low=0, high=512)
    """filters of the first convolution (0: the architecture's default, 8)"""
    hidden: int = arg(0, low=0, high=MAX_WIDTH)
    """the second layer: units of the hidden layer (conv-dense, 0: 32) or channels of the locally connected layer (conv-local, conv-local-dense, 0: 8)"""
    checkpoint_every: int = arg(1000, low=1, on_resume=SESSION)
    """steps between checkpoints (and held-out evaluations)"""
    eval_depth: int = arg(4, low=1)
    """depth of the alpha-beta that plays with the net in evaluation games (and in the zoo)"""

    def check(self) -> list[tuple[str, str]]:
        problems = super().check()
        if not self.data and not self.resume:
            problems.append(("data", "is required: the folder of a database (checkers data games|mcrd --out DIR)"))
        return problems


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """``(options, names of the options given)`` of a ``checkers train mcrd-net`` command line."""
    return scaffold.parse_args(Args, argv, TRAINER, __doc__)


def sizes(args: Args) -> tuple[int, int]:
    """``(channels, hidden)`` of the run's net: the options, or the architecture's defaults for 0."""
    channels, hidden = SIZES[args.architecture]
    return args.channels or channels, args.hidden or hidden


def data_command(card: dict, folder: str) -> str:
    """The ``checkers data`` command that rebuilds a database (recorded in the zoo card)."""
    from checkers_agents.mcrd.data import command

    return command(card, folder)


def _dataset(folder: str) -> tuple[Tensor, Tensor, dict]:
    """Planes, values and the card of a database (its errors name the file)."""
    from checkers_agents.mcrd.data import read_card, torch_dataset

    card = read_card(folder)
    planes, values = torch_dataset(folder).tensors
    return planes, values, card


def mean_squared_error(net: nn.Module, planes: Tensor, values: Tensor, batch: int = 4096) -> float:
    """The net's mean squared error on a whole database, in batches."""
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(values), batch):
            predicted = net(planes[start : start + batch]).reshape(-1)
            total += float(((predicted - values[start : start + batch]) ** 2).sum())
    return total / max(len(values), 1)


def train(args: Args, given: set[str] | None = None) -> dict:
    """Run (or resume) training; returns a summary of the run.

    ``args`` and ``given`` (the options given on the command line) are those of
    :func:`checkers_training.scaffold.start_run`.
    """
    scaffold.check_dependencies(TRAINER, NEEDS, args.tensorboard)
    from checkers_agents.mcrd.net import CNN

    # Read the databases before a run folder is made, so a bad one is refused first (a
    # resume reads the run's own).
    scaffold.check(args)
    saved = scaffold.saved_args(args, TRAINER)
    planes, values, card = _dataset(saved["data"])
    data_commands = [data_command(card, saved["data"])]
    if len(values) == 0:
        raise TrainingError(f"--data {saved['data']}: the database holds no positions")
    held_out = _dataset(saved["held_out"]) if saved["held_out"] else None
    if held_out is not None:
        data_commands.append(data_command(held_out[2], saved["held_out"]))
    run, args = scaffold.start_run(TRAINER, args, given, needs=NEEDS)
    checkpoint = run.path / CHECKPOINT
    torch.manual_seed(args.seed)
    net = CNN(*sizes(args), args.architecture)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    generator = torch.Generator().manual_seed(args.seed)
    state: dict[str, Any] = {"step": 0, "wall_s": 0.0, "loss": float("nan")}
    if run.resumed and checkpoint.exists():
        state = scaffold.load_checkpoint(checkpoint, net=net, optimizer=optimizer, generator=generator)
        net.save(run.path / WEIGHTS)  # a kill may have come between the checkpoint and the weights
    writer = scaffold.tensorboard(run, args.tensorboard, state["step"])
    session_start, wall_before = time.perf_counter(), state["wall_s"]
    held_out_mse = None

    def save() -> None:
        state["wall_s"] = wall_before + time.perf_counter() - session_start
        scaffold.save_checkpoint(checkpoint, state, net=net, optimizer=optimizer, generator=generator)
        net.save(run.path / WEIGHTS)

    def loss_of(batch):
        return torch.nn.functional.mse_loss(net(planes[batch]).reshape(-1), values[batch])

    def report() -> dict[str, str]:
        nonlocal held_out_mse
        shown = {"loss": f"{state['loss']:.4f}"}
        if held_out is not None:
            held_out_mse = mean_squared_error(net, held_out[0], held_out[1])
            writer.add_scalar("held_out/mse", held_out_mse, state["step"])
            shown["held_out_mse"] = f"{held_out_mse:.4f}"
        return shown

    run_steps(args, state, len(values), loss_of, optimizer, generator, writer, save, report)
    evaluations = scaffold.final_evaluation(_agent(run.path / WEIGHTS, args), args, writer, state["step"])
    writer.close()
    summary = {
        "run_dir": str(run.path),
        "steps": state["step"],
        "examples_seen": state["step"] * args.batch_size,
        "labels": card.get("kind", "unknown"),
        "positions": len(values),
        "final_loss": state["loss"],
        "held_out_mse": held_out_mse,
        "wall_s": round(wall_before + time.perf_counter() - session_start, 1),
        "evaluations": evaluations,
        "data_commands": data_commands,
    }
    if args.promote:
        summary["promoted"] = str(promote(run, args, summary))
    print(json_text(summary), flush=True)
    return summary


def _agent(weights: Path, args: Args):
    """The one alpha-beta with the net of ``weights`` as its leaf evaluator, at ``--eval-depth``."""
    from checkers_agents.alphabeta import AlphaBetaAgent

    return AlphaBetaAgent(depth=args.eval_depth, eval="mcrd-net", weights=str(weights), seed=args.seed)


def promote(run: scaffold.Run, args: Args, summary: dict) -> Path:
    """Write the net and a fresh card to ``zoo/<args.promote>``."""
    labels = {
        "interpolated": "the MCRD document's pseudo-random games with interpolated labels",
        "mcrd": "a database of MCRD results (each position's value as MCRD judges it)",
    }
    return scaffold.promote(
        args.promote,
        "alphabeta",
        {"eval": "mcrd-net", "depth": args.eval_depth},
        (run.path / WEIGHTS).read_bytes(),
        f"The MCRD document's CNN ({LAYERS[args.architecture]}, a value in (-1, 1)) trained on "
        f"{labels.get(summary['labels'], summary['labels'])}, "
        f"as the leaf evaluator of the one alpha-beta at depth {args.eval_depth}.",
        {
            "data_commands": summary["data_commands"],
            "command": run.command,
            "budget": f"{summary['steps']} steps x {args.batch_size} positions "
            f"({summary['examples_seen']} examples from {summary['positions']} positions)",
            "wall_time_s": summary["wall_s"],
            "run": run.name,
            "held_out_mse": summary["held_out_mse"],
            "evaluations": summary["evaluations"],
        },
    )


main = scaffold.trainer_main(Args, train, TRAINER, __doc__)


if __name__ == "__main__":
    sys.exit(scaffold.script_main(main))
