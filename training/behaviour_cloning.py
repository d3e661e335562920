"""Behaviour cloning from game records: ``checkers train bc``.

A small fully connected policy (the env's ``5 x 8 x 8`` observation planes in, 128 hop
logits out) learns to play the hop a human played, by cross-entropy over the legal hops
(illegal hops are masked out of the softmax), from the games of PDN files
(``checkers_env.datasets.game_dataset``; by default the 4,000 shipped ACF games), split by
game into train and validation. It reports the top-1 move accuracy on the validation
games: the share of their positions where the policy's complete move (its most likely
hop, hop after hop, through ``move_from_hops``) is the move played. The weights play as
the agent ``bc:weights=RUN_DIR/weights.safetensors``.

    checkers train bc --steps 3000                 # about two minutes on two cores
    checkers league random greedy bc:weights=runs/bc/<run>/weights.safetensors --games-per-pair 40
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from checkers_env.board import move_from_row
from checkers_env.datasets import ACF_GAMES, game_dataset
from checkers_env.files import json_text

from . import scaffold
from .checkpoints import CHECKPOINT, WEIGHTS
from .dependencies import optional_module
from .scaffold import BUDGET, MAX_BATCH, MAX_WIDTH, SESSION, TrainingError, arg
from .supervised import run_steps

if TYPE_CHECKING:
    import torch
else:
    torch = optional_module("torch")

TRAINER = "bc"


NEEDS = ("torch", "safetensors")


@dataclass
class Args(scaffold.RunArgs):
    """Options of the behaviour-cloning trainer."""

    data: str = arg(str(ACF_GAMES), metavar="PDN")
    """PDN files of the games to clone (.pdn, or .pdn.gz / .pdn.xz), separated by semicolons (default: the 4,000
    shipped ACF games)"""
    lenient: bool = arg(False)
    """read the PDN files leniently (read_pdn(lenient=True)): repair what old programs wrote"""
    max_games: int = arg(0, low=0)
    """use only the first this many games (0: all)"""
    validation: float = arg(0.1, low=0.0)
    """fraction of the games held out for validation (split by game, seeded)"""
    steps: int = arg(3000, low=1, on_resume=BUDGET)
    """SGD steps (the budget: steps x batch size hop decisions)"""
    batch_size: int = arg(512, low=1, high=MAX_BATCH)
    """hop decisions per SGD step"""
    learning_rate: float = arg(1e-3, low=0.0)
    """Adam step size"""
    hidden: int = arg(256, low=1, high=MAX_WIDTH)
    """units of each of the two hidden layers"""
    checkpoint_every: int = arg(500, low=1, on_resume=SESSION)
    """steps between checkpoints (and validation accuracies)"""

    def check(self) -> list[tuple[str, str]]:
        problems = super().check()
        if not 0 <= self.validation < 1:
            problems.append(("validation", f"must be a fraction in [0, 1), got {self.validation}"))
        return problems


def build_policy(hidden: int) -> torch.nn.Sequential:
    """The policy: 320 inputs, two hidden ReLU layers of ``hidden`` units, 128 logits."""
    return torch.nn.Sequential(
        torch.nn.Flatten(),
        torch.nn.Linear(320, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, 128),
    )


def masked_logits(policy, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return policy(observations).masked_fill(~masks, float("-inf"))


def save_weights(policy: torch.nn.Sequential, path: Path, metadata: dict[str, str]) -> None:
    """The policy as ``layer0.weight``, ``layer0.bias``, ... in safetensors (what the
    ``bc`` agent loads)."""
    from safetensors.numpy import save

    linears = [m for m in policy if isinstance(m, torch.nn.Linear)]
    tensors = {}
    for index, layer in enumerate(linears):
        tensors[f"layer{index}.weight"] = layer.weight.detach().numpy().copy()
        tensors[f"layer{index}.bias"] = layer.bias.detach().numpy().copy()
    scaffold.write_atomic(path, save(tensors, metadata=metadata))


def move_accuracy(weights: Path, data) -> tuple[float, float]:
    """``(top-1 move accuracy, top-1 hop accuracy)`` of the policy in ``weights`` on the rows
    of ``data``: the share of positions (first hops) where its complete move is the move
    played, and the share of all hop decisions where its hop is the hop played."""
    from checkers_agents.behaviour_cloning import BehaviourCloningAgent

    agent = BehaviourCloningAgent(weights=str(weights))
    if len(data) == 0:
        return float("nan"), float("nan")
    logits = agent.policy.logits(data.observations)
    hops = np.argmax(np.where(data.action_masks != 0, logits, -np.inf), axis=1)
    hop_accuracy = float(np.mean(hops == data.actions))
    from checkers_env.board import Board
    from checkers_env.env import move_from_hops

    first = np.flatnonzero(data.hop_index == 0)
    correct = 0
    for row in first.tolist():
        played = move_from_row(data.moves[row])
        board = _board_before(data, row)
        correct += move_from_hops(board, agent.choose_hop) == played if board is not None else 0
    del Board
    return correct / len(first), hop_accuracy


def _board_before(data, row: int):
    """The position of ``row`` (a first hop), rebuilt from its observation planes."""
    from checkers_env.board import Board, Color
    from checkers_env.encoding import FRAME_CELL

    planes = data.observations[row]
    color = int(data.side_to_move[row])
    own = opponent = kings = 0
    for bit in range(32):
        frame_bit = bit if color == 0 else 31 - bit
        cell = FRAME_CELL[frame_bit]
        row_, col = divmod(int(cell), 8)
        men_own, kings_own, men_opp, kings_opp = (planes[p, row_, col] for p in range(4))
        if men_own or kings_own:
            own |= 1 << bit
        if men_opp or kings_opp:
            opponent |= 1 << bit
        if kings_own or kings_opp:
            kings |= 1 << bit
    black, white = (own, opponent) if color == 0 else (opponent, own)
    return Board(black, white, kings, Color(color))


def train(args: Args, given: set[str] | None = None) -> dict:
    """Run (or resume) training; returns a summary of the run (accuracies included)."""
    scaffold.check(args)
    scaffold.check_dependencies(TRAINER, NEEDS, args.tensorboard)
    saved = scaffold.saved_args(args, TRAINER)
    sources = [Path(p) for p in saved["data"].split(";") if p.strip()]
    started = time.perf_counter()
    split = game_dataset(
        sources,
        validation=saved["validation"],
        seed=saved["seed"],
        lenient=saved["lenient"],
        max_games=saved["max_games"] or None,
    )
    read_s = time.perf_counter() - started
    if len(split.train) == 0:
        raise TrainingError(f"--data {saved['data']}: no move to learn from")
    run, args = scaffold.start_run(TRAINER, args, given, needs=NEEDS)
    torch.manual_seed(args.seed)
    policy = build_policy(args.hidden)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.learning_rate)
    generator = torch.Generator().manual_seed(args.seed)
    # The step, time and loss kept in the checkpoint (a plain dict, as the checkpoint functions take).
    state: dict[str, Any] = {"step": 0, "wall_s": 0.0, "loss": float("nan")}
    checkpoint = run.path / CHECKPOINT
    metadata = {"kind": "bc", "hidden": str(args.hidden)}
    if run.resumed and checkpoint.exists():
        state = scaffold.load_checkpoint(checkpoint, policy=policy, optimizer=optimizer, generator=generator)
        save_weights(policy, run.path / WEIGHTS, metadata)  # a kill may have come between the two
    observations = torch.from_numpy(split.train.observations)
    masks = torch.from_numpy(split.train.action_masks != 0)
    actions = torch.from_numpy(split.train.actions)
    writer = scaffold.tensorboard(run, args.tensorboard, state["step"])
    session_start, wall_before = time.perf_counter(), state["wall_s"]

    def save() -> None:
        state["wall_s"] = wall_before + time.perf_counter() - session_start
        scaffold.save_checkpoint(checkpoint, state, policy=policy, optimizer=optimizer, generator=generator)
        save_weights(policy, run.path / WEIGHTS, metadata)

    def loss_of(batch):
        return torch.nn.functional.cross_entropy(
            masked_logits(policy, observations[batch].float(), masks[batch]), actions[batch]
        )

    run_steps(args, state, len(actions), loss_of, optimizer, generator, writer, save)
    move_acc, hop_acc = move_accuracy(run.path / WEIGHTS, split.validation)
    writer.add_scalar("validation/move_accuracy", move_acc, state["step"])
    from checkers_agents.behaviour_cloning import BehaviourCloningAgent

    evaluations = scaffold.final_evaluation(
        BehaviourCloningAgent(weights=str(run.path / WEIGHTS)), args, writer, state["step"]
    )
    writer.close()
    summary = {
        "run_dir": str(run.path),
        "weights": str(run.path / WEIGHTS),
        "games": split.games,
        "train_decisions": len(split.train),
        "validation_positions": int(np.sum(split.validation.hop_index == 0)),
        "steps": state["step"],
        "final_loss": state["loss"],
        "validation_move_accuracy": round(move_acc, 4),
        "validation_hop_accuracy": round(hop_acc, 4),
        "read_s": round(read_s, 1),
        "wall_s": round(wall_before + time.perf_counter() - session_start, 1),
        "evaluations": evaluations,
    }
    if args.promote:
        summary["promoted"] = str(
            scaffold.promote(
                args.promote,
                "bc",
                {},
                (run.path / WEIGHTS).read_bytes(),
                f"A policy cloned from {split.games} human games (a {args.hidden}x{args.hidden} MLP over the env's "
                f"observation planes, most likely legal hop).",
                {
                    "command": run.command,
                    "budget": f"{state['step']} steps x {args.batch_size} hop decisions",
                    "wall_time_s": summary["wall_s"],
                    "run": run.name,
                    "validation_move_accuracy": summary["validation_move_accuracy"],
                    "evaluations": evaluations,
                },
            )
        )
    print(json_text(summary), flush=True)
    return summary


main = scaffold.trainer_main(Args, train, TRAINER, __doc__)


if __name__ == "__main__":
    sys.exit(scaffold.script_main(main))
