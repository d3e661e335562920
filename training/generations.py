"""The generation trainer: the loop of every learner that improves a net by generations of its
own games, so that a learner (``training/alphazero.py``, ``training/outcome_net.py``) is its
algorithm and nothing else.

A generation is five steps, each written as it ends so that a killed run resumes exactly:

1. **Games**: the learner plays the generation's games (and the older ones of its training
   window that the run folder lacks), shards written whole (:meth:`GenerationLearner.play`).
2. **Training**: ``--epochs`` passes over the window in minibatches of ``--batch-size``
   drawn in an order seeded by ``(--seed, generation, epoch)``, one optimizer step each on
   the learner's loss (:meth:`GenerationLearner.loss`); ``checkpoint.pt`` (the net, the
   optimizer, the run's state) after every epoch.
3. **The generation's net**: ``weights-genG.safetensors`` (:meth:`GenerationLearner.write_net`).
4. **The gate**: which generation the run stands for from now on, the incumbent
   (:meth:`GenerationLearner.gate`; by default every generation replaces the one before).
   ``weights.safetensors`` is the incumbent's net.
5. **The strength curve**: the generation's agent (:meth:`GenerationLearner.agent`) plays
   ``--eval-games`` games against each of ``--anchors``, whose ratings are fixed; its rating
   goes to ``curve.json``, ``curve.png`` and TensorBoard.

The trainer owns the rest: the checks before a run folder is made, the run's state and clock,
the checkpoint and ``--resume``, the progress bars, Ctrl-C and ``kill`` (the run stops where
its state is whole, :mod:`checkers_training.interrupts`), the final evaluation, the summary
(printed as one JSON line) and ``--promote``.

The learner's options extend :class:`~checkers_training.arguments.GenerationArgs` and add
``generations`` (the budget), ``games`` (per generation), ``epochs`` and ``batch_size``.
"""

from __future__ import annotations

import copy
import math
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from checkers_env.files import json_text, write_atomic

from . import scaffold
from .checkpoints import CHECKPOINT, WEIGHTS

#: The net a run began from (an ``--init-weights`` net, or the initial weights from the seed):
#: generation -1 in the run's records.
INITIAL = "weights-init.safetensors"


def weights_file(run_path: Path, generation: int) -> Path:
    """The net of ``generation`` in the run folder (-1: the one the run began from)."""
    return run_path / (INITIAL if generation < 0 else f"weights-gen{generation}.safetensors")


class Games(NamedTuple):
    """What a generation trains on, as :meth:`GenerationLearner.play` returns it."""

    data: Any
    """what the learner's :meth:`~GenerationLearner.loss` draws its minibatches from"""
    examples: int
    """training examples in ``data`` (one epoch's worth)"""
    new: int
    """of them, those of the generation's own games (the self-play speed counts them)"""


class GenerationLearner:
    """The algorithm of a generation trainer, as hooks that :func:`train` calls.

    Attributes:
        trainer: the trainer's name (``checkers train NAME``, the run folder's ``runs/NAME``).
        title: the strength curve's title.
        needs: the optional packages a run needs.
        examples: the run state's name for the size of a generation's training window; it
            goes into each point of the curve.
        losses: the names of the loss's parts (:meth:`loss`), each logged as ``train/NAME``,
            kept in the run's state and in each point of the curve.
        counters: the learner's own entries of the run's state, with their starting values.
        args: the run's options (those saved in the run folder, once it is open).
        device: where torch trains the net (set before :meth:`build`).
    """

    trainer = ""
    title = ""
    needs: tuple[str, ...] = ("torch", "safetensors")
    examples = "examples"
    losses: tuple[str, ...] = ("loss",)
    counters: dict[str, Any] = {}

    def __init__(self, args: Any) -> None:
        self.args = args
        self.device: Any = None

    def check(self) -> None:
        """Refuse what would stop the run later, before its folder is made (a bad file, a
        missing database); raise :class:`~checkers_training.arguments.TrainingError` or
        :class:`~checkers_env.errors.WeightsError`."""

    def build(self, run: scaffold.Run, checkpointed: bool) -> tuple[Any, Any]:
        """``(net, optimizer)``: the net of generation 0 on :attr:`device` (from the run's
        seed or the net it began from), and its optimizer. Where the run is ``checkpointed``
        (a resume with a checkpoint), the checkpoint is loaded into both afterwards."""
        raise NotImplementedError

    def resumed(self, state: dict) -> None:
        """Fill in, in place, what the state of a run begun by an older version lacks."""

    def play(self, trainer: Generations, generation: int) -> Games:
        """Play ``generation``'s games (writing each shard whole) and return its training
        window. Called again on a resume inside the generation: the games are in the run
        folder by then, and the same data must come back. It changes no state."""
        raise NotImplementedError

    def loss(self, data: Any, rows: np.ndarray) -> tuple[Any, dict[str, Any]]:
        """``(objective, parts)`` of the minibatch ``rows`` of ``data``: the torch scalar
        the optimizer descends, and the scalar of each of :attr:`losses` by its name."""
        raise NotImplementedError

    def write_net(self, net: Any, path: Path) -> None:
        """Write ``net`` to the weights file ``path`` (atomically)."""
        raise NotImplementedError

    def gate(self, trainer: Generations, generation: int) -> int:
        """The generation the run stands for once ``generation`` is trained (its net is in
        :func:`weights_file`): by default ``generation`` itself. A learner that makes a
        generation earn its place records the match in ``trainer.state`` (inside
        ``trainer.stop.step()``, then ``trainer.save()``) and returns the incumbent."""
        return generation

    def agent(self, weights: Path) -> Any:
        """The agent of the net ``weights`` as the evaluation games play it."""
        raise NotImplementedError

    def point(self, state: dict) -> dict:
        """The learner's own entries of a point of the strength curve."""
        return {}

    def summary(self, state: dict) -> dict:
        """The learner's own entries of the run's summary."""
        return {}

    def promote(self, run: scaffold.Run, summary: dict) -> Path:
        """Write the run's net and a fresh card to ``zoo/<--promote>``; returns the folder."""
        raise NotImplementedError


def speeds(state: dict) -> dict:
    """Self-play decisions (positions kept as training examples) per second, and training
    samples (an example in one epoch) per second, over what the run's counters saw (0
    before any)."""
    return {
        "selfplay_decisions_per_s": round(state["played"] / state["selfplay_s"], 1) if state["selfplay_s"] else 0.0,
        "train_samples_per_s": round(state["trained"] / state["train_s"], 1) if state["train_s"] else 0.0,
    }


class Generations:
    """A run of a :class:`GenerationLearner`: its folder, net, optimizer, state and clock.

    Attributes:
        learner: the algorithm.
        run: the run folder.
        args: the run's options.
        state: what the checkpoint keeps besides the net and the optimizer: ``generation``
            and ``epoch`` (where the run is), ``evaluated`` (the last generation on the
            curve), ``curve``, ``steps``, the clocks (``wall_s``, ``selfplay_s``,
            ``train_s``), ``played`` and ``trained`` (what the clocks counted), the losses,
            and the learner's own :attr:`~GenerationLearner.counters`.
        stop: the loop's answer to Ctrl-C, while the loop runs.
    """

    def __init__(self, learner: GenerationLearner, run: scaffold.Run) -> None:
        self.learner, self.run, self.args = learner, run, learner.args
        self.checkpoint = run.path / CHECKPOINT
        checkpointed = run.resumed and self.checkpoint.exists()
        self.net, self.optimizer = learner.build(run, checkpointed)
        self.state: dict[str, Any] = {
            "generation": 0,
            "epoch": 0,
            "evaluated": -1,
            "wall_s": 0.0,
            "selfplay_s": 0.0,
            "train_s": 0.0,
            "curve": [],
            learner.examples: 0,
            "steps": 0,
            "played": 0,
            "trained": 0,
            **copy.deepcopy(learner.counters),
        }
        if checkpointed:
            saved = scaffold.load_checkpoint(self.checkpoint, net=self.net, optimizer=self.optimizer)
            learner.resumed(saved)
            self.state.update(saved)  # a run begun before a counter was kept starts it at its start
        self.writer = scaffold.tensorboard(run, self.args.tensorboard, self.state["steps"])
        self.stop = scaffold.Stop()
        self._session_start, self._wall_before = time.perf_counter(), self.state["wall_s"]

    def wall_s(self) -> float:
        """The run's training time so far, over all its sessions."""
        return self._wall_before + time.perf_counter() - self._session_start

    def save(self) -> None:
        """Write the checkpoint (atomically)."""
        self.state["wall_s"] = self.wall_s()
        scaffold.save_checkpoint(self.checkpoint, self.state, net=self.net, optimizer=self.optimizer)

    def run_generations(self) -> None:
        """Train up to ``--generations``, from where the state says the run is."""
        args, state, learner = self.args, self.state, self.learner
        with scaffold.saved_on_stop(self.save) as self.stop:
            while state["generation"] < args.generations:
                g = state["generation"]
                if state["epoch"] < args.epochs:
                    began = time.perf_counter()
                    games = learner.play(self, g)
                    # The counters and the net change from here to each epoch's checkpoint: a
                    # stop in between resumes from the checkpoint before.
                    with self.stop.unsaved():
                        state[learner.examples] = games.examples
                        if state["epoch"] == 0:
                            state["selfplay_s"] += time.perf_counter() - began
                            state["played"] += games.new
                        self._train_epochs(games, g)
                # The net is generation g's whether it was trained now or read from the
                # checkpoint (a kill between the last epoch and these files loses nothing).
                learner.write_net(self.net, weights_file(self.run.path, g))
                incumbent = learner.gate(self, g)
                # What the run stands for (played, promoted) is the incumbent.
                write_atomic(self.run.path / WEIGHTS, weights_file(self.run.path, incumbent).read_bytes())
                if state["evaluated"] < g and args.eval_games:
                    self._curve_point(g)
                state["generation"], state["epoch"] = g + 1, 0
                self.save()

    def _train_epochs(self, games: Games, g: int) -> None:
        """The epochs of generation ``g`` left to train on ``games``, each checkpointed as it ends."""
        from tqdm.auto import tqdm

        args, state = self.args, self.state
        steps = math.ceil(games.examples / args.batch_size)
        bar = tqdm(
            total=args.epochs * steps,
            initial=state["epoch"] * steps,
            desc=f"train gen {g}",
            disable=not args.progress,
            dynamic_ncols=True,
        )
        while state["epoch"] < args.epochs:
            order = np.random.default_rng([args.seed, g, state["epoch"]]).permutation(games.examples)
            totals = dict.fromkeys(self.learner.losses, 0.0)
            began = time.perf_counter()
            for start in range(0, games.examples, args.batch_size):
                rows = order[start : start + args.batch_size]
                objective, parts = self.learner.loss(games.data, rows)
                self.optimizer.zero_grad()
                objective.backward()
                self.optimizer.step()
                for name, part in parts.items():
                    totals[name] += part.item() * len(rows)
                state["steps"] += 1
                bar.update(1)
            state["epoch"] += 1
            state["train_s"] += time.perf_counter() - began
            state["trained"] += games.examples
            for name, total in totals.items():
                state[name] = total / games.examples
                self.writer.add_scalar(f"train/{name}", state[name], state["steps"])
            bar.set_postfix({name: f"{state[name]:.4f}" for name in totals})
            self.save()
        bar.close()

    def _curve_point(self, g: int) -> None:
        """Generation ``g``'s point of the strength curve: its games against the anchors,
        then the point, recorded with the generation it is of."""
        args, state, learner = self.args, self.state, self.learner
        agent = learner.agent(weights_file(self.run.path, g))
        point = scaffold.strength_point(agent, args.anchors, args.anchor_ratings, args.eval_games, seed=args.seed + g)
        with self.stop.step():
            point.update(
                generation=g,
                **learner.point(state),
                wall_s=round(self.wall_s(), 1),
                games=(g + 1) * args.games,
                **{learner.examples: state[learner.examples]},
                **{name: state.get(name) for name in learner.losses},
            )
            state["curve"].append(point)
            state["evaluated"] = g
            self.writer.add_scalar("eval/rating", point["rating"], g + 1)
            print(f"generation {g}: rating {point['rating']} ({point['line']})", file=sys.stderr)
            scaffold.write_curve(self.run.path, state["curve"], self.learner.title)

    def finish(self) -> dict:
        """The final evaluation, the summary (printed as one JSON line) and ``--promote``."""
        args, state = self.args, self.state
        evaluations = scaffold.final_evaluation(self.learner.agent(self.run.path / WEIGHTS), args)
        self.writer.close()
        summary = {
            "run_dir": str(self.run.path),
            "generations": state["generation"],
            "steps": state["steps"],
            "wall_s": round(self.wall_s(), 1),
            "selfplay_s": round(state["selfplay_s"], 1),
            "train_s": round(state["train_s"], 1),
            "device": str(self.learner.device),
            **speeds(state),
            **self.learner.summary(state),
            "curve": state["curve"],
            "evaluations": evaluations,
        }
        if args.promote:
            summary["promoted"] = str(self.learner.promote(self.run, summary))
        print(json_text(summary), flush=True)
        return summary


def train(learner: GenerationLearner, given: set[str] | None = None) -> dict:
    """Run (or resume) ``learner``'s training; returns the summary (also printed as one JSON line).

    ``given`` (the options given on the command line) is that of
    :func:`checkers_training.scaffold.start_run`.
    """
    args = learner.args
    scaffold.check_dependencies(learner.trainer, learner.needs, args.tensorboard)  # before any other check
    scaffold.check(args)
    scaffold.check_opponents(args.anchors, "--anchors")
    egdb = scaffold.saved_args(args, learner.trainer).get("egdb_pieces")  # a resume goes on with the run's own
    if egdb:
        from checkers_env.egdb import EndgameDatabase

        EndgameDatabase.cached(egdb)  # a missing database stops the run before any folder is made
    if not args.resume:
        scaffold.torch_device(args.device)  # a GPU that is not there stops the run before its folder is made
    learner.check()
    run, learner.args = scaffold.start_run(learner.trainer, args, given, needs=learner.needs)
    learner.device = scaffold.torch_device(learner.args.device)
    generations = Generations(learner, run)
    generations.run_generations()
    return generations.finish()


__all__ = ["INITIAL", "GenerationLearner", "Games", "Generations", "speeds", "train", "weights_file"]
