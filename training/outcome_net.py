"""Train the outcome net (``checkers_agents.outcome_net``) on the results of the search's own
self-play games, generation by generation.

    checkers train outcome-net --generations 3 --games 40000 --workers 2
    checkers train outcome-net --out runs/outcome-net/seed0__20261124T101500 --resume   # after a kill
    checkers train outcome-net --out runs/outcome-net/seed0__20261124T101500 --resume --generations 5
    checkers train outcome-net --init-weights zoo:outcome-net-3 --hidden 128 --middle 32 --depth 8
    checkers train outcome-net --positions runs/positions/merged --hidden 128 --middle 32 --search-weight 0.5

A generation is four steps, each written as it ends so that a killed run resumes: self-play
shards (``RUN/data/gen-G/``, by the incumbent's net), training on the quiet positions of the
last ``--window`` generations (binary cross-entropy against the result, or a target mixed with
the search's root values by ``--search-weight`` and ``--target-lambda``; ``checkpoint.pt``
after every epoch), the gate against the incumbent (``--gate-games``, in ``RUN/gate-genG/``),
and a point of the strength curve against fixed anchors (``curve.json``, ``curve.png``,
TensorBoard). ``--promote NAME`` writes ``zoo/NAME``. The documentation's outcome-net page
explains each option.

**choice** ``--positions DIR``: every generation also trains on a database of diverse quiet
positions (``checkers data positions``, :mod:`checkers_training.positions`), read once a
session and kept in memory. Each distinct position is one example with its mean label
(``positions.labels`` with the run's ``--search-weight``, so the weight means one thing for
both sources), as Cake's regression counted each position once: a position its games reached
a thousand times weighs no more than a rare one, and its label is the mean of its results.
The label, an expected result in [-1, 1] for the mover, becomes the probability target
``(label + 1) / 2`` of the self-play targets (``outcome_targets.targets``). A position is
given as the database keeps it, the mover as Black and to move: the net's inputs are the
mover's frame, so it sees what it would see from the position's real colour. The database's
examples are simply concatenated with the window's self-play positions, each drawn once an
epoch; ``--target-lambda`` shapes the self-play targets only (the database keeps no games).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from checkers_agents.search_parts.net_layers import PHASE_SPAN
from checkers_training import generations, scaffold
from checkers_training.checkpoints import WEIGHTS
from checkers_training.generations import INITIAL
from checkers_training.outcome_targets import targets
from checkers_training.scaffold import MAX_BATCH, MAX_WIDTH, SESSION, arg

TRAINER = "outcome-net"
NEEDS = ("torch", "safetensors")


@dataclass
class Args(scaffold.GenerationArgs):
    """Options of the outcome-net trainer."""

    games: int = arg(40_000, low=1)
    shard_size: int = arg(500, low=1, high=100_000)
    """games per data shard"""
    depth: int = arg(6, low=1, high=30)
    """depth of the self-play searches"""
    random_plies: int = arg(4, low=0)
    """uniformly random moves after each ballot opening"""
    egdb_pieces: int = arg(5, low=0, high=5, old=("--egdb",))
    """pieces of the endgame database that ends self-play games and is probed (0: none)"""
    hidden: int = arg(32, low=1, high=MAX_WIDTH)
    """units of the hidden layer"""
    middle: int = arg(0, low=0, high=MAX_WIDTH)
    """units of a second hidden layer (0: none)"""
    patterns: bool = arg(False)
    """the net also sees 21 blocks of four squares, each as one of its 625 states (pattern inputs); a net without them starts one with them (--init-weights) with its block rows zero"""
    pattern_units: int = arg(0, low=0, high=MAX_WIDTH)
    """hidden units the pattern inputs feed, the first of --hidden (0: all); fewer make the search's leaf cheaper"""
    phases: int = arg(1, low=1, high=PHASE_SPAN)
    """sets of middle and output layers, one for each phase of the game by its piece count (the first layer shared); a net of one phase starts one of several (--init-weights) with each phase a copy of its layers"""
    window: int = arg(2, low=1, on_resume=SESSION)
    """generations of self-play data trained on (the newest); a run folder copied without an earlier
    generation's shards plays its games again, or a resumed run may shorten the window"""
    batch_size: int = arg(1024, low=1, high=MAX_BATCH)
    """positions per Adam step"""
    learning_rate: float = arg(1e-3, low=0.0)
    """Adam step size"""
    search_weight: float = arg(0.0, low=0.0, high=1.0)
    """weight of the self-play search's root value in the training target (0: the game's result alone)"""
    target_lambda: float = arg(1.0, low=0.0, high=1.0)
    """lambda of the result's part of the target: 1, the game's result; below 1, the TD(lambda) return of the root values of the game's later positions, ending at the result"""
    gate_games: int = arg(0, low=0)
    """games each generation plays against the incumbent to replace it (0: no gate, every generation does)"""
    gate_time: float = arg(0.5, low=0.001)
    """seconds per move in the gate's games"""
    gate_score: float = arg(0.55, low=0.0, high=1.0)
    """points per game a generation needs in the gate"""
    search: str = arg("", metavar="PARAMS")
    """search parameters of the gate's players and the promoted agent, as in an alphabeta spec (for example table_cutoffs=1,pvs=1,reductions=1)"""
    init_weights: str = arg("", metavar="NET")
    """start from this net instead of the positional points: zoo:NAME (the zoo entry's weights) or an outcome-net weights file of --hidden and --middle units; it plays generation 0's games, training goes on from it, and with --gate-games generation 0 must beat it"""
    eval_depth: int = arg(6, low=1)
    """depth of the net's search in evaluation games"""
    # The anchors' ratings are their Elo in the zoo league that was current when stage 1 was
    # trained (before the outcome net joined it); fixed, so that the points of one curve stay
    # comparable (the re-run league in zoo/README.md differs).
    anchors: str = arg("alphabeta:depth=4;alphabeta:depth=6", metavar="SPECS")
    anchor_ratings: str = arg("1306;1563", metavar="ELOS")
    positions: str = arg("", metavar="DIR")
    """every generation also trains on this database of quiet positions (checkers data positions' --out or its merged folder), each distinct position once with its label mixed by --search-weight"""
    positions_deep_only: bool = arg(False)
    """train on only the --positions database's positions that its deep step searched (checkers data positions --deep), whose labels mix the result with that deeper search's value"""

    def check(self) -> list[tuple[str, str]]:
        problems = super().check()
        if self.gate_games % 2:
            problems.append(
                ("gate_games", f"must be even (each opening is played with both colours), got {self.gate_games}")
            )
        if self.pattern_units and not self.patterns:
            problems.append(("pattern_units", "is the width of the pattern inputs' rows: give --patterns too"))
        if self.pattern_units > self.hidden:
            problems.append(("pattern_units", f"{self.pattern_units} is more than the --hidden {self.hidden} units"))
        if self.positions_deep_only and not self.positions:
            problems.append(("positions_deep_only", "needs --positions (the database whose deep step it trains on)"))
        return problems


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """``(options, names of the options given)`` of a ``checkers train outcome-net`` command line."""
    return scaffold.parse_args(Args, argv, TRAINER, __doc__)


def initial_tensors(args: Args) -> dict[str, np.ndarray] | None:
    """The tensors ``--init-weights`` names (None without it).

    Raises:
        WeightsError: no such zoo entry, or the file is missing, corrupt, not an outcome
            net, or of other sizes than ``--hidden`` and ``--middle`` (the message names it).
    """
    from checkers_agents.outcome_net import net as outcome_net
    from checkers_env.errors import WeightsError

    if not args.init_weights:
        return None
    try:
        path = Path(args.init_weights)
        if args.init_weights.startswith("zoo:"):
            from checkers_agents.zoo import zoo_weights

            path = zoo_weights(args.init_weights.removeprefix("zoo:"))
        tensors = outcome_net.read(path)
    except WeightsError as error:
        raise WeightsError(f"--init-weights {args.init_weights}: {error}") from None
    if outcome_net.sizes_of(tensors) != (args.hidden, args.middle):
        hidden, middle = outcome_net.sizes_of(tensors)
        raise WeightsError(
            f"--init-weights {args.init_weights}: a {hidden}-{middle} net, but the run's net is "
            f"{args.hidden}-{args.middle} (give --hidden {hidden} --middle {middle})"
        )
    if outcome_net.has_patterns(tensors) and not args.patterns:
        raise WeightsError(
            f"--init-weights {args.init_weights}: a net with pattern inputs, but the run's net has "
            "none (give --patterns)"
        )
    phases = outcome_net.phases_of(tensors)
    if phases == 1 and args.phases > 1:
        tensors = outcome_net.with_phases(tensors, args.phases)
    elif phases != args.phases:
        raise WeightsError(
            f"--init-weights {args.init_weights}: a net of {phases} phases, but the run's has {args.phases} "
            f"(give --phases {phases})"
        )
    units = outcome_net.pattern_units_of(tensors)
    if units and units != (args.pattern_units or args.hidden):
        raise WeightsError(
            f"--init-weights {args.init_weights}: its pattern inputs feed {units} hidden units, but "
            f"the run's feed {args.pattern_units or args.hidden} (give --pattern-units {units})"
        )
    return tensors


def _plays(run_path: Path, generation: int) -> bool:
    """Whether ``generation`` is a net: every generation is, and -1 is where the run began
    from ``--init-weights`` (else -1 is the positional points)."""
    return generation >= 0 or (run_path / INITIAL).is_file()


def _name(generation: int) -> str:
    return "the initial net" if generation < 0 else f"generation {generation}"


def _selfplay_params(args: Args, run_path: Path, incumbent: int) -> dict:
    """Self-play by the incumbent generation's net (-1: the initial net or the positional points)."""
    evaluator = str(_weights(run_path, incumbent)) if _plays(run_path, incumbent) else "positional"
    return {
        "games": args.games,
        "shard_size": args.shard_size,
        "evaluator": evaluator,
        "depth": args.depth,
        "random_plies": args.random_plies,
        "egdb_pieces": args.egdb_pieces,
    }


def _selfplay_seed(args: Args, generation: int) -> int:
    """The seed of ``generation``'s self-play games."""
    return args.seed * 1000 + generation


def _weights(run_path: Path, generation: int) -> Path:
    """The net of ``generation`` (-1: the one ``--init-weights`` gave)."""
    return generations.weights_file(run_path, generation)


def _played_by(state: dict, generation: int) -> int:
    """The generation whose net played ``generation``'s games (-1: the positional points):
    the incumbent its gate met, else (no gate) the generation before."""
    return next((gate["incumbent"] for gate in state["gates"] if gate["generation"] == generation), generation - 1)


def _replay_window(args: Args, run_path: Path, generation: int, state: dict) -> None:
    """Play again the games of ``generation``'s window that the run folder lacks (a run
    copied without its ``data`` folder): a shard depends on its seed and the run's options
    only, so these are the games the run played, at the cost of their self-play.

    Raises:
        TrainingError: the net that played them is not in the run folder.
    """
    from checkers_agents.outcome_net import selfplay

    from .arguments import TrainingError

    for g in range(max(0, generation - args.window + 1), generation):
        folder = run_path / "data" / f"gen-{g}"
        if len(list(folder.glob("shard-*.npz"))) == -(-args.games // args.shard_size):
            continue
        player = _played_by(state, g)
        if player >= 0 and not _weights(run_path, player).is_file():
            raise TrainingError(
                f"generation {generation} trains on the last {args.window} generations' games; "
                f"{folder} lacks generation {g}'s, and {_weights(run_path, player)}, the net that "
                f"played them, is missing (resume with a shorter --window)"
            )
        if args.progress:
            print(f"generation {g}'s games are not in {folder}: playing them again (the same games)")
        selfplay.generate(
            folder,
            _selfplay_params(args, run_path, player),
            seed=_selfplay_seed(args, g),
            workers=args.workers,
            ray=args.ray_target,
            progress=args.progress,
        )


def _window_shards(args: Args, run_path: Path, generation: int) -> list[list[Path]]:
    """The self-play shards of each generation of ``generation``'s training window.

    Raises:
        TrainingError: one of them has none (its games were neither kept nor played again).
    """
    from .arguments import TrainingError

    window = []
    for g in range(max(0, generation - args.window + 1), generation + 1):
        folder = run_path / "data" / f"gen-{g}"
        window.append(sorted(folder.glob("shard-*.npz")))
        if not window[-1]:
            raise TrainingError(
                f"generation {generation} trains on the last {args.window} generations' games, "
                f"and {folder} has no self-play shards of generation {g} "
                f"(resume with a shorter --window to train on the games the run has)"
            )
    return window


def _window_parts(args: Args, run_path: Path, generation: int) -> list[tuple[np.ndarray, ...]]:
    """The quiet positions and targets of each of the last ``--window`` generations' games."""
    from checkers_agents.outcome_net.quiet import quiet_mask
    from checkers_agents.outcome_net.selfplay import load_shards

    parts: list[tuple[np.ndarray, ...]] = []
    for shards in _window_shards(args, run_path, generation):
        # Each generation apart: its search values are in the units of its own evaluator.
        data = load_shards(shards)
        keep = quiet_mask(data["black"], data["white"], data["kings"], data["black_to_move"])
        target = targets(data, keep, args.search_weight, args.target_lambda)
        parts.append(
            (data["black"][keep], data["white"][keep], data["kings"][keep], data["black_to_move"][keep], target)
        )
    return parts


def _training_data(args: Args, run_path: Path, generation: int) -> tuple[np.ndarray, ...]:
    """The quiet positions and targets of the last ``--window`` generations' games, and then
    the ``--positions`` database's, together: what ``generation`` trains on."""
    from .positions.examples import positions_part

    parts = _window_parts(args, run_path, generation)
    if args.positions:
        parts.append(positions_part(args.positions, args.search_weight, args.positions_deep_only))
    return tuple(np.concatenate(arrays) for arrays in zip(*parts))


def search_params(text: str) -> dict[str, int | float | str]:
    """The parameters of ``--search`` (``key=value,...``), checked on an alphabeta agent.

    Raises:
        TrainingError: a parameter the alphabeta agent does not take, or one the trainer
            sets itself (``eval``, ``weights``, ``time``, ``depth``, ``egdb``, ``seed``, ``name``).
    """
    from checkers_env import make_agent
    from checkers_env.agent import parse_spec
    from checkers_env.errors import CheckersError

    from .arguments import TrainingError

    if not text.strip():
        return {}
    try:
        _kind, params = parse_spec(f"alphabeta:{text}")
    except CheckersError as error:
        raise TrainingError(f"--search: {error}") from None
    own = sorted(set(params) & {"eval", "weights", "time", "depth", "egdb", "seed", "name"})
    if own:
        raise TrainingError(f"--search: {', '.join(own)} is set by the trainer, not by --search")
    try:
        make_agent(f"alphabeta:time=0.5,{text}")
    except (CheckersError, ValueError) as error:
        raise TrainingError(f"--search: {text!r}: {error}") from None
    return {key: _number(value) for key, value in params.items()}


def _number(text: str) -> int | float | str:
    """A spec value as the card keeps it: a number where it is one."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _gate(args: Args, run_path: Path, generation: int, incumbent: int) -> dict:
    """Generation ``generation`` against the incumbent (``--gate-games`` games); the result
    with ``promoted``."""
    search = "".join(f",{key}={value}" for key, value in search_params(args.search).items())

    def spec(g: int) -> str:
        return (
            f"alphabeta:eval=outcome-net,weights={_weights(run_path, g)},time={args.gate_time},"
            f"egdb={args.egdb_pieces},seed={args.seed}{search}"
        )

    result = scaffold.gate_match(
        spec(generation),
        spec(incumbent),
        args.gate_games,
        run_path / f"gate-gen{generation}",
        seed=args.seed + generation,
        workers=args.workers,
        ray=args.ray_target,
        progress=args.progress,
    )
    result.update(generation=generation, incumbent=incumbent, promoted=result["score"] >= args.gate_score)
    return result


class OutcomeNet(generations.GenerationLearner):
    """The outcome-net learner: self-play by the incumbent's alpha-beta, binary cross-entropy
    of the net against the result (or the mixed target) on the quiet positions, and the gate."""

    trainer = TRAINER
    title = "outcome net: strength over training"
    needs = NEEDS
    examples = "positions"
    counters = {"incumbent": -1, "gated": -1, "gates": []}

    def __init__(self, args: Args) -> None:
        super().__init__(args)
        #: ``(folder, search weight, deep only, card, examples)`` of the ``--positions`` database, read once.
        self._positions: tuple[str, float, bool, dict, tuple[np.ndarray, ...]] | None = None

    def check(self) -> None:
        search_params(self.args.search)
        if not self.args.resume:
            initial_tensors(self.args)  # a bad --init-weights stops the run before its folder is made
        # A resume goes on with the run's own --positions: read it now, before any game.
        saved = scaffold.saved_args(self.args, TRAINER)
        if saved.get("positions"):
            self.positions_data(saved["positions"], saved["search_weight"], saved.get("positions_deep_only", False))

    def positions_data(
        self, folder: str, search_weight: float, deep_only: bool = False
    ) -> tuple[dict, tuple[np.ndarray, ...]]:
        """The ``--positions`` database's card and examples (``positions.examples``), read
        once a session and kept."""
        from .positions.examples import positions_card, positions_part

        if self._positions is None or self._positions[:3] != (folder, search_weight, deep_only):
            card = positions_card(folder)
            self._positions = (folder, search_weight, deep_only, card, positions_part(folder, search_weight, deep_only))
        return self._positions[3], self._positions[4]

    def build(self, run: scaffold.Run, checkpointed: bool):
        import torch

        from checkers_agents.outcome_net import net as outcome_net

        args = self.args
        net = outcome_net.value_net(
            args.hidden,
            args.middle,
            seed=args.seed,
            patterns=args.patterns,
            pattern_units=args.pattern_units,
            phases=args.phases,
        )
        start = initial_tensors(args) if not (run.path / INITIAL).exists() else None
        if start is not None:  # the --init-weights net, kept in the run folder
            outcome_net.save_tensors(run.path / INITIAL, start)
        if (run.path / INITIAL).exists():  # generation 0 trains on from the net its games were played with
            initial = {name: torch.from_numpy(value) for name, value in outcome_net.read(run.path / INITIAL).items()}
            # A squares net starting a pattern net: the block rows stay at their zeros.
            net.load_state_dict(initial, strict=not args.patterns or "blocks.weight" in initial)
        self.net = net.to(self.device)
        return self.net, torch.optim.Adam(self.net.parameters(), lr=args.learning_rate)

    def resumed(self, state: dict) -> None:
        # A run begun before the gate existed: each generation played with the one before.
        state.setdefault("incumbent", state["generation"] - 1)
        state.setdefault("gated", state["generation"] - 1)

    def play(self, trainer: generations.Generations, generation: int) -> generations.Games:
        from checkers_agents.outcome_net import selfplay

        args, run_path = self.args, trainer.run.path
        _replay_window(args, run_path, generation, trainer.state)
        selfplay.generate(
            run_path / "data" / f"gen-{generation}",
            _selfplay_params(args, run_path, trainer.state["incumbent"]),
            seed=_selfplay_seed(args, generation),
            workers=args.workers,
            ray=args.ray_target,
            progress=args.progress,
        )
        parts = _window_parts(args, run_path, generation)
        new = len(parts[-1][-1])  # this generation's own positions, before the database's
        if args.positions:
            parts.append(self.positions_data(args.positions, args.search_weight, args.positions_deep_only)[1])
        data = tuple(np.concatenate(arrays) for arrays in zip(*parts))
        return generations.Games(data, len(data[-1]), new)

    def loss(self, data: tuple[np.ndarray, ...], rows: np.ndarray):
        import torch

        from checkers_agents.outcome_net import net as outcome_net

        black, white, kings, btm, target = data
        inputs = outcome_net.batch_inputs(black[rows], white[rows], kings[rows], btm[rows], self.args.patterns)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            self.net(*(x.to(self.device) for x in inputs)).reshape(-1), torch.from_numpy(target[rows]).to(self.device)
        )
        return loss, {"loss": loss}

    def write_net(self, net, path: Path) -> None:
        from checkers_agents.outcome_net import net as outcome_net

        outcome_net.save_tensors(path, outcome_net.tensors_of(net))

    def gate(self, trainer: generations.Generations, generation: int) -> int:
        """Generation ``generation`` replaces the incumbent where it wins its gate (or with no gate)."""
        args, state = self.args, trainer.state
        if state["gated"] >= generation:
            return state["incumbent"]
        if args.gate_games and _plays(trainer.run.path, state["incumbent"]):
            gate = _gate(args, trainer.run.path, generation, state["incumbent"])
            with trainer.stop.step():  # the gate's result and the incumbent it makes, saved together
                state["gates"].append(gate)
                trainer.writer.add_scalar("gate/score", gate["score"], generation)
                print(
                    f"generation {generation} against {_name(state['incumbent'])}: +{gate['wins']} ={gate['draws']} "
                    f"-{gate['losses']}, {100 * gate['score']:.1f} % ({'promoted' if gate['promoted'] else 'kept out'})",
                    file=sys.stderr,
                )
                if gate["promoted"]:
                    state["incumbent"] = generation
                state["gated"] = generation
                trainer.save()
        else:
            state["incumbent"], state["gated"] = generation, generation
            trainer.save()
        return state["incumbent"]

    def agent(self, weights: Path):
        """The net's alpha-beta as the evaluation games play it (``--eval-depth``, the database probed)."""
        from checkers_agents.alphabeta import AlphaBetaAgent

        args = self.args
        return AlphaBetaAgent(
            depth=args.eval_depth, eval="outcome-net", weights=str(weights), egdb=args.egdb_pieces, seed=args.seed
        )

    def point(self, state: dict) -> dict:
        return {"incumbent": state["incumbent"]}

    def summary(self, state: dict) -> dict:
        from .positions.examples import positions_summary

        summary = {"incumbent": state["incumbent"], "gates": state["gates"]}
        if self.args.positions:
            summary["positions"] = positions_summary(
                self.args.positions,
                self.positions_data(self.args.positions, self.args.search_weight, self.args.positions_deep_only)[0],
            )
        return summary

    def promote(self, run: scaffold.Run, summary: dict) -> Path:
        return promote(run, self.args, summary)


def train(args: Args, given: set[str] | None = None) -> dict:
    """Run (or resume) training; returns a summary (also printed as one JSON line)."""
    return generations.train(OutcomeNet(args), given)


def _generations(n: int) -> str:
    return f"{n} generation" + ("" if n == 1 else "s")


def _recipe(args: Args, summary: dict) -> str:
    """The card's words for the search target and the gate, where the run used them."""
    words = ""
    if args.init_weights:
        words += (
            f" Its first generation's games were played by, and its training went on from, the net {args.init_weights}."
        )
    if args.search.strip():
        words += f" It searches with {args.search.strip()}."
    if args.search_weight:
        words += f" Targets mix the result with the search's root value (weight {args.search_weight:g})."
    if args.target_lambda < 1.0:
        words += (
            f" The result reaches a position as the TD(lambda) return of the later positions' root values "
            f"(lambda {args.target_lambda:g})."
        )
    if "positions" in summary:
        words += (
            f" Each generation also trained on the {summary['positions']['distinct']} distinct quiet positions "
            f"of the database {summary['positions']['folder']}, each once with its mean label."
        )
    if args.gate_games:
        words += (
            f" A generation replaced the one before only with at least {100 * args.gate_score:g} % over "
            f"{args.gate_games} games at {args.gate_time:g} s per move; this is {_name(summary['incumbent'])}."
        )
    return words


def _blocks_words(args: Args) -> str:
    """The pattern inputs as a card describes them ("" for a squares net)."""
    if not args.patterns:
        return ""
    fed = f", feeding its first {args.pattern_units} units" if args.pattern_units else ""
    return f" and the 21 four-square blocks (pattern inputs{fed})"


def promote(run: scaffold.Run, args: Args, summary: dict) -> Path:
    """Write the net and a fresh card to ``zoo/<args.promote>``."""
    return scaffold.promote(
        args.promote,
        "alphabeta",
        {"eval": "outcome-net", "time": 0.5, "egdb": 5, **search_params(args.search)},
        (run.path / WEIGHTS).read_bytes(),
        f"A {args.hidden}-unit value net{f' with a {args.middle}-unit second layer' if args.middle else ''}"
        f"{f' ({args.phases} sets of later layers, one for each phase of the game by its piece count)' if args.phases > 1 else ''} over the "
        f"128 mover-frame inputs{_blocks_words(args)}, "
        "trained on the results of "
        f"{_generations(summary['generations'])} of the one alpha-beta's own self-play games ({args.games} games "
        f"each at depth {args.depth}, ended exactly by the {args.egdb_pieces}-piece endgame database), as that "
        "alpha-beta's evaluator at 0.5 s per move with the database probed." + _recipe(args, summary),
        {
            "command": run.command,
            "budget": f"{_generations(summary['generations'])} x {args.games} self-play games, {args.epochs} epochs each",
            "wall_time_s": summary["wall_s"],
            "run": run.name,
            "curve": summary["curve"],
            "gates": summary["gates"],
            "evaluations": summary.get("evaluations", {}),
            **({"positions": summary["positions"]} if "positions" in summary else {}),
        },
    )


main = scaffold.trainer_main(Args, train, TRAINER, __doc__)


if __name__ == "__main__":
    sys.exit(scaffold.script_main(main))
