"""The loop of a supervised trainer: minibatches drawn with the run's generator, one optimizer
step each, the loss logged, and the run saved every ``checkpoint_every`` steps, at the end
and on Ctrl-C (the steps since the last checkpoint are kept). A Ctrl-C is held until the step
under way ends (:mod:`checkers_training.interrupts`), so the run stops with every step it
saved counted and none half taken, and ``--resume`` continues it exactly.

The behaviour-cloning and MCRD-net trainers share it; what differs between them (the data,
the loss, what the progress bar shows) comes in as functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tqdm.auto import tqdm

from .interrupts import saved_on_stop


def run_steps(
    args: Any,
    state: dict,
    examples: int,
    loss_of: Callable[[Any], Any],
    optimizer: Any,
    generator: Any,
    writer: Any,
    save: Callable[[], None],
    report: Callable[[], dict[str, str]] | None = None,
) -> None:
    """Take optimizer steps until ``state["step"]`` reaches ``args.steps``.

    Args:
        args: the trainer's options (``steps``, ``batch_size``, ``checkpoint_every``,
            ``progress``).
        state: the run's counters; ``step`` and ``loss`` are updated in place.
        examples: how many examples there are to draw from.
        loss_of: the loss (a torch scalar) of a minibatch given by its example indices.
        optimizer: a torch optimizer over the net's parameters.
        generator: the run's torch generator (draws the minibatches; saved with the run).
        writer: TensorBoard's writer (``train/loss`` each step).
        save: writes the checkpoint and the weights.
        report: what the progress bar shows at a checkpoint (default: the loss).
    """
    import torch

    bar = tqdm(total=args.steps, initial=state["step"], desc="steps", disable=not args.progress, dynamic_ncols=True)
    try:
        with saved_on_stop(save) as stop:
            while state["step"] < args.steps:
                with stop.step():  # the minibatch drawn, the optimizer stepped and the step counted, or none
                    loss = loss_of(torch.randint(examples, (args.batch_size,), generator=generator))
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    state["step"] += 1
                    state["loss"] = loss.item()
                    writer.add_scalar("train/loss", state["loss"], state["step"])
                    bar.update(1)
                    if state["step"] % args.checkpoint_every == 0 or state["step"] == args.steps:
                        bar.set_postfix(report() if report is not None else {"loss": f"{state['loss']:.4f}"})
                        save()
    finally:
        bar.close()


__all__ = ["run_steps"]
