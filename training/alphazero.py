"""Train the AlphaZero agent (``checkers_agents.alphazero``) from zero by self-play, generation
by generation.

    checkers train alphazero --generations 8 --games 2000 --workers 2
    checkers train alphazero --out runs/alphazero/seed0__20261126T030000 --resume   # after a kill
    checkers train alphazero --out runs/alphazero/seed0__20261126T030000 --resume --generations 12

From zero: the first generation's games are played by a net of initial weights (from
``--seed``), and nothing else goes in: no human games, no evaluation by hand, no endgame
database in the search or its targets. The one use of the database allowed is
``--egdb-pieces P`` (off by default): a self-play game ends at its first position that the
``P``-piece database holds, with the database's result, instead of being played out. A later stage in a new run folder (the one before it not kept) goes on from a
net this trainer wrote: ``--init-weights zoo`` (``zoo/alphazero``) or a weights file gives
generation 0's net, and training continues from it. A generation is three steps, each
written as it ends:

1. **Self-play** (``selfplay.generate``): ``--games`` games of the search (``--search``,
   ``--simulations``, ``--considered``, and the agent's additions below the root when asked:
   ``--through-forced``, ``--widen``) with the previous generation's net, from the
   initial position and ``--random-plies`` random moves, ``--slots`` games at once whose
   leaves go through the net as one batch. Shards go to ``RUN/data/gen-G/``, in
   ``--workers`` processes or as Ray tasks (``--ray``), each written atomically: a killed
   run keeps every finished shard and plays the others again, the same games.
2. **Training** on the decisions of the newest ``--window`` generations: ``--epochs``
   passes in minibatches of ``--batch-size`` drawn in a seeded order, AdamW
   (``--learning-rate``, ``--weight-decay``) on the cross-entropy of the net's policy
   (softmax over the legal hops) against the search's improved policy, plus
   ``--value-weight`` times the squared error of its value against the game's result
   for the side to move (1 won, 0 drawn, -1 lost), or with ``--root-value-share s`` against
   ``(1 - s) * result + s * the search's root value``. The net goes on from the previous
   generation's weights, on ``--device`` (a GPU when torch sees one; self-play stays in
   numba on the CPU). A checkpoint (``checkpoint.pt``: net, optimizer, generation, epoch,
   curve) after every epoch, so ``--resume`` continues exactly (on the same device: a GPU's
   arithmetic differs from a CPU's in the last bits).
3. **Evaluation** (the strength curve): the agent (``--eval-simulations`` per decision)
   plays ``--eval-games`` games on ballot openings against each of ``--anchors``, whose
   ratings are fixed (``--anchor-ratings``: the zoo league's); its rating is the
   maximum-likelihood Elo against them. ``curve.json`` and ``curve.png`` are rewritten
   after every generation, and the curve goes to TensorBoard.

``--promote NAME`` writes ``zoo/NAME`` with a card whose agent is ``alphazero:time=0.5``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from checkers_training import generations, scaffold
from checkers_training.checkpoints import WEIGHTS
from checkers_training.generations import INITIAL
from checkers_training.scaffold import BUDGET, MAX_BATCH, MAX_WIDTH, arg

TRAINER = "alphazero"
NEEDS = ("torch", "safetensors")


@dataclass
class Args(scaffold.GenerationArgs):
    """Options of the AlphaZero trainer."""

    generations: int = arg(8, low=1, on_resume=BUDGET)
    shard_size: int = arg(250, low=1, high=100_000)
    """games per data shard"""
    simulations: int = arg(32, low=1, high=100_000)
    """simulations per self-play decision"""
    considered: int = arg(16, low=1, high=128)
    """hops sampled at the root by Gumbel's sequential halving"""
    search: str = arg("gumbel", choices=("gumbel", "puct"))
    """the search: gumbel (sequential halving at the root) or puct"""
    through_forced: bool = arg(False)
    """the search plays a forced hop through instead of stopping there for the net (the agent's default)"""
    widen: int = arg(0, low=0)
    """below the root, each hop's first visit once its node has this many visits per hop, 0 never (the agent's default is 4)"""
    random_plies: int = arg(4, low=0)
    """uniformly random moves from the initial position"""
    egdb_pieces: int = arg(0, low=0, high=5)
    """end self-play games at positions the endgame database of this many pieces holds, with its result (0: never; the search never probes it)"""
    slots: int = arg(64, low=1, high=4096)
    """self-play games searched at once, their leaves one batch"""
    hidden: int = arg(256, low=1, high=MAX_WIDTH)
    """units of the first hidden layer"""
    middle: int = arg(128, low=1, high=MAX_WIDTH)
    """units of the second hidden layer"""
    window: int = arg(4, low=1)
    """generations of self-play data trained on (the newest)"""
    batch_size: int = arg(512, low=1, high=MAX_BATCH)
    """decisions per optimizer step"""
    learning_rate: float = arg(1e-3, low=0.0)
    """AdamW step size"""
    weight_decay: float = arg(1e-4, low=0.0)
    """AdamW weight decay"""
    value_weight: float = arg(1.0, low=0.0)
    """weight of the value's squared error beside the policy's cross-entropy"""
    root_value_share: float = arg(0.0, low=0.0, high=1.0)
    """share of the search's root value in the value's target, the rest the game's result"""
    eval_simulations: int = arg(64, low=1)
    """simulations per decision of the agent in evaluation games"""
    # The anchors' ratings are theirs in the zoo league (zoo/README.md).
    anchors: str = arg("alphabeta:depth=2;alphabeta:depth=4;alphabeta:depth=6", metavar="SPECS")
    anchor_ratings: str = arg("820;1088;1270", metavar="ELOS")
    init_weights: str = arg("", metavar="FILE")
    """start from this net instead of initial weights from --seed: zoo (zoo/alphazero) or an alphazero weights file of --hidden and --middle units"""


def initial_tensors(args: Args) -> dict[str, np.ndarray] | None:
    """The tensors ``--init-weights`` names (None without it); see :func:`net_tensors`."""
    if not args.init_weights:
        return None
    if args.init_weights == "zoo":
        from checkers_agents.zoo import zoo_weights

        return net_tensors(zoo_weights("alphazero"), args)
    return net_tensors(Path(args.init_weights), args)


def net_tensors(path: Path, args: Args) -> dict[str, np.ndarray]:
    """The tensors of the alphazero weights file ``path``, of the run's sizes.

    Raises:
        WeightsError: the file is missing, corrupt, not an alphazero net, or of other sizes
            than ``--hidden`` and ``--middle`` (the message names the file).
    """
    from checkers_agents.alphazero.net import read_net_file
    from checkers_env.errors import WeightsError

    weights = read_net_file(path)
    hidden, middle = weights.sizes
    if (hidden, middle) != (args.hidden, args.middle):
        raise WeightsError(
            f"{path}: a {hidden}-{middle} net, but the run's net is {args.hidden}-{args.middle} "
            f"(give --hidden {hidden} --middle {middle})"
        )
    return dict(weights.tensors)


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """``(options, names of the options given)`` of a ``checkers train alphazero`` command line."""
    return scaffold.parse_args(Args, argv, TRAINER, __doc__)


def _net_file(run_path: Path, generation: int) -> Path:
    """The net generation ``generation`` plays its self-play with: the one before's."""
    return generations.weights_file(run_path, generation - 1)


def _selfplay_params(args: Args, run_path: Path, generation: int) -> dict:
    return {
        "games": args.games,
        "shard_size": args.shard_size,
        "net": str(_net_file(run_path, generation)),
        "simulations": args.simulations,
        "considered": args.considered,
        "search": args.search,
        "random_plies": args.random_plies,
        "explore_plies": 20,
        "slots": args.slots,
        "through_forced": args.through_forced,
        "widen": args.widen,
        **({"egdb_pieces": args.egdb_pieces} if args.egdb_pieces else {}),
    }  # older runs' shards keep their params


def training_batch(data: dict[str, np.ndarray], rows: np.ndarray, root_value_share: float = 0.0):
    """``(inputs, policy, legal, target)`` torch tensors of decisions ``rows``; the value's
    target is the game's result for the side to move, ``root_value_share`` of it replaced by
    the search's root value."""
    import torch

    from checkers_agents.alphazero.net import dense_inputs

    inputs = dense_inputs(
        data["own"][rows],
        data["opponent"][rows],
        data["kings"][rows],
        data["own_is_black"][rows],
        data["continuing"][rows],
    )
    return (
        torch.from_numpy(inputs),
        torch.from_numpy(data["policy"][rows]),
        torch.from_numpy(data["legal"][rows] != 0),
        torch.from_numpy(value_target(data, rows, root_value_share)),
    )


def value_target(data: dict[str, np.ndarray], rows: np.ndarray, root_value_share: float) -> np.ndarray:
    """float32 ``(1 - share) * result + share * root value`` of decisions ``rows``."""
    outcome = data["outcome"][rows].astype(np.float32)
    return ((1.0 - root_value_share) * outcome + root_value_share * data["search"][rows]).astype(np.float32)


def losses(net, inputs, policy, legal, outcome):
    """``(policy cross-entropy, value squared error)``, means over the batch."""
    import torch

    logits, value = net(inputs)
    log_probs = torch.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
    return -(policy * log_probs).sum(dim=1).mean(), ((value - outcome) ** 2).mean()


class AlphaZero(generations.GenerationLearner):
    """The AlphaZero learner: self-play by the search with the previous generation's net,
    and the policy's cross-entropy and the value's squared error as its loss."""

    trainer = TRAINER
    title = "AlphaZero: strength over training"
    needs = NEEDS
    examples = "decisions"
    losses = ("policy_loss", "value_loss")

    def check(self) -> None:
        if not self.args.resume:
            initial_tensors(self.args)  # a bad --init-weights stops the run before its folder is made

    def build(self, run: scaffold.Run, checkpointed: bool):
        import torch

        from checkers_agents.alphazero import net as az_net

        args = self.args
        self.net = az_net.policy_value_net(args.hidden, args.middle, seed=args.seed).to(self.device)
        optimizer = torch.optim.AdamW(self.net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
        if checkpointed:
            return self.net, optimizer
        # Generation 0 trains on from the net its games were played with.
        start = net_tensors(run.path / INITIAL, args) if (run.path / INITIAL).exists() else initial_tensors(args)
        if start is not None:
            self.net.load_state_dict({name: torch.from_numpy(value) for name, value in start.items()})
        if not (run.path / INITIAL).exists():
            self.write_net(self.net, run.path / INITIAL)
        return self.net, optimizer

    def play(self, trainer: generations.Generations, generation: int) -> generations.Games:
        from checkers_agents.alphazero import selfplay

        args, run_path = self.args, trainer.run.path
        window = []
        # The window's older generations too: a shard lost or damaged since is played again,
        # the same games, with its own generation's net.
        for k in range(max(0, generation - args.window + 1), generation + 1):
            newest = selfplay.generate(
                run_path / "data" / f"gen-{k}",
                _selfplay_params(args, run_path, k),
                seed=args.seed * 1000 + k,
                workers=args.workers,
                ray=args.ray_target,
                progress=args.progress and k == generation,
            )
            window += newest
        data = selfplay.load_shards(window)
        played = len(selfplay.load_shards(newest)["own"])  # generation's own decisions
        return generations.Games(data, len(data["own"]), played)

    def loss(self, data: dict[str, np.ndarray], rows: np.ndarray):
        batch = (
            tensor.to(self.device, non_blocking=True)
            for tensor in training_batch(data, rows, self.args.root_value_share)
        )
        policy_loss, value_loss = losses(self.net, *batch)
        objective = policy_loss + self.args.value_weight * value_loss
        return objective, {"policy_loss": policy_loss, "value_loss": value_loss}

    def write_net(self, net, path: Path) -> None:
        from checkers_agents.alphazero import net as az_net

        az_net.save_net(path, az_net.tensors_of(net))

    def agent(self, weights: Path):
        """The agent as the evaluation games play it (``--eval-simulations``)."""
        from checkers_agents.alphazero import AlphaZeroAgent

        args = self.args
        return AlphaZeroAgent(
            weights=str(weights),
            simulations=args.eval_simulations,
            search=args.search,
            considered=args.considered,
            through_forced=args.through_forced,
            widen=args.widen,
        )

    def promote(self, run: scaffold.Run, summary: dict) -> Path:
        return promote(run, self.args, summary)


def train(args: Args, given: set[str] | None = None) -> dict:
    """Run (or resume) training; returns a summary (also printed as one JSON line)."""
    return generations.train(AlphaZero(args), given)


def _same_run(stage: dict, run: scaffold.Run) -> bool:
    """Whether a card's training ``stage`` is an earlier promotion of ``run`` itself (its name
    and first command), which the run resumed and went on from."""
    first = stage.get("command", "").split(" && ")[0]
    return stage.get("run") == run.name and bool(first) and run.command.split(" && ")[0] == first


def promote(run: scaffold.Run, args: Args, summary: dict) -> Path:
    """Write the net and a fresh card to ``zoo/<args.promote>``. A run that went on from
    ``zoo/alphazero`` keeps that card's training and measures as its earlier stages; where
    that card was this run's own earlier promotion, the stage keeps only its budget and
    measures, so that the run's time is counted once."""
    generations = summary["generations"]
    training = {
        "command": run.command,
        "budget": f"{generations} x {args.games} self-play games, {args.epochs} epochs each",
        "wall_time_s": summary["wall_s"],
        "selfplay_s": summary["selfplay_s"],
        "train_s": summary["train_s"],
        "device": summary["device"],
        "selfplay_decisions_per_s": summary["selfplay_decisions_per_s"],
        "train_samples_per_s": summary["train_samples_per_s"],
        "run": run.name,
        "curve": summary["curve"],
        "evaluations": summary.get("evaluations", {}),
    }
    origin = "from zero"
    if args.init_weights:
        training["init_weights"] = args.init_weights
        origin = f"from the net in {args.init_weights}"
        if args.init_weights == "zoo":
            from checkers_agents.zoo import load_card

            card = load_card("alphazero")[0]
            earlier = dict(card.get("training", {}))
            if card.get("measures"):  # what was measured of the earlier net stays with it
                earlier["measures"] = card["measures"]
            stages = earlier.pop("earlier_stages", [])
            if _same_run(earlier, run):
                # This run promoted itself before and went on: its earlier net keeps its
                # budget and measures, while its time is counted once, in this stage.
                training["init_weights"] = earlier.get("init_weights", args.init_weights)
                earlier = {
                    "run": run.name,
                    "budget": earlier.get("budget"),
                    "measures": earlier.get("measures", {}),
                    "continued": "the same run went on from this net; its time is counted in the next stage",
                }
            training["earlier_stages"] = [*stages, earlier]
            origin = (
                f"from zero in {len(training['earlier_stages']) + 1} stages, this one going on from the "
                "net of the earlier ones (training.earlier_stages)"
            )
    return scaffold.promote(
        args.promote,
        "alphazero",
        {"time": 0.5},
        (run.path / WEIGHTS).read_bytes(),
        f"Gumbel AlphaZero {origin}: a {args.hidden}-{args.middle} policy-value net over the env's observation, "
        f"trained on {generations} generation{'s' if generations != 1 else ''} of its own search's self-play "
        f"({args.games} games each, {args.simulations} simulations per decision), searching at 0.5 s per move.",
        training,
    )


main = scaffold.trainer_main(Args, train, TRAINER, __doc__)


if __name__ == "__main__":
    sys.exit(scaffold.script_main(main))
