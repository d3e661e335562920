"""Train the TD-trained minimax net (td-minimax) by self-play, as TD-Gammon was trained:
alpha-beta (depth 2 by default) with the net at its leaves picks every move, and after each
move the net learns to score the position before it as it scores the chosen one (temporal-difference
learning); after each game it learns the result.

    checkers train td-minimax                               # the zoo recipe: 500,000 games
    checkers train td-minimax --games 20000 --curriculum    # the original design's curriculum
    checkers train td-minimax --out runs/td-minimax/seed0__20261122T033436 --resume

The same net plays both sides; each turn the side to move chooses its move by alpha-beta
(depth 2) with the net at the leaves and takes one backpropagation step from the current
position towards the net's output for the chosen position seen from the same player
(in-game rate 0.005); each game ends with two corrections (after-game rate 0.01): the
winner's view towards {1, 0}, the loser's towards {0, 1}, both towards {0, 0} on a draw.
``agents/td_minimax/__init__.py`` documents every mechanism and adaptation; the game itself
is one numba kernel (``checkers_agents.td_minimax.learn.play_training_game``).

Every game starts with ``--random-plies 10`` random plies (not learnt from). Without them
the deterministic self-play repeats a handful of games: 97-99.9 % of them end drawn, the
net learns nothing about winning and ends rated below ``random``; the zoo's net was trained
with 10. ``--random-plies 0`` is the plain self-play of the design document the agent was
built from (``docs/design.md``).

The run folder (``checkers_training.scaffold`` describes the layout and the shared options) holds:

- ``checkpoint.safetensors``: the weights, with the training state in its metadata (the
  file ``--resume`` continues from; state and weights are one atomic write);
- ``checkpoint.json``: the same training state, readable (games done, generator state,
  totals, evaluations, wall time);
- ``snapshots/games_<N>.safetensors``: the weights at every checkpoint;
- ``run.json`` and the TensorBoard scalars.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from checkers_agents.td_minimax.net import Net, read_metadata
from checkers_env.errors import WeightsError
from checkers_env.files import json_text
from checkers_training import scaffold
from checkers_training.scaffold import BUDGET, MAX_WIDTH, arg

TRAINER = "td-minimax"
NEEDS: tuple[str, ...] = ()  # torch only for TensorBoard (start_run checks it)
CHECKPOINT = "checkpoint.safetensors"
STATE = "checkpoint.json"
STATE_VERSION = 2


@dataclass
class Args(scaffold.RunArgs):
    """Options of the TD-minimax trainer."""

    games: int = arg(500_000, low=0, on_resume=BUDGET)
    """total self-play games"""
    depth: int = arg(2, low=1, high=40)
    """search depth in plies (single moves) during self-play"""
    quiescence: bool = True
    """search on through captures at the leaves, so the net scores only quiet positions (a
    checkers adaptation; --no-quiescence: a plain fixed-depth search, as originally designed)"""
    lr_game: float = arg(0.005, low=0.0)
    """in-game learning rate (one step per move towards the chosen position's outputs)"""
    lr_end: float = arg(0.01, low=0.0)
    """after-game learning rate (the two final corrections)"""
    hidden: int = arg(40, low=1, high=MAX_WIDTH)
    """hidden units of the net"""
    init_scale: float = arg(0.1, low=0.0)
    """initial weights are uniform in [-init-scale, init-scale], biases 0"""
    curriculum: bool = False
    """a curriculum from the original design: during the first --curriculum-fraction of the
    games only wins by capturing every piece count; a win by blockade is scored as a draw"""
    curriculum_fraction: float = arg(0.5, low=0.0, high=1.0)
    """share of the games (of the first session's --games) played under the curriculum's first phase"""
    epsilon: float = arg(0.0, low=0.0, high=1.0)
    """exploration: probability of a uniformly random move (not learnt from)"""
    random_plies: int = arg(10, low=0)
    """exploration: the first N plies of every game are random and not learnt from (with 0
    the self-play draws almost every game and learns nothing)"""
    max_plies: int = arg(400, low=1)
    """a game longer than this is a draw (the suite's Rules.max_plies)"""
    no_progress_plies: int = arg(80, low=1)
    """draw after this many plies without a capture or a man move (Rules.no_progress_plies)"""
    repetition: int = arg(3, low=2)
    """draw when a position occurs this many times (Rules.repetition)"""
    checkpoint_every: int = arg(10_000, low=1)
    """games between checkpoints"""
    log_every: int = arg(1_000, low=1)
    """games between TensorBoard points"""
    eval_every: int = arg(25_000, low=0)
    """games between evaluations (0: only at the end; --eval-games 0: none)"""


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """``(options, names of the options given)`` of a ``checkers train td-minimax`` command line."""
    return scaffold.parse_args(Args, argv, TRAINER, __doc__)


# -- training state ---------------------------------------------------------------------------


@dataclass
class TrainingState:
    """What a checkpoint stores besides the weights."""

    run_name: str
    args: dict
    games: int = 0
    rng: int = 0
    wall_seconds: float = 0.0
    curriculum_games: int = 0
    totals: dict = field(
        default_factory=lambda: {
            "black_wins": 0,
            "white_wins": 0,
            "draws": 0,
            "blockade_wins": 0,
            "wins_scored_as_draws": 0,
            "plies": 0,
            "steps": 0,
            "nodes": 0,
            "loss_sum": 0.0,
        }
    )
    evaluations: list = field(default_factory=list)
    version: int = STATE_VERSION

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def snapshot_path(run_path: Path, games: int) -> Path:
    """The snapshot of the weights after ``games`` games."""
    return run_path / "snapshots" / f"games_{games:08d}.safetensors"


def save_checkpoint(run_path: Path, net: Net, state: TrainingState, snapshot: bool = True) -> Path:
    """A snapshot of the weights, then weights + state in one atomic safetensors write (what
    a resume trusts: written last, so every file it counts is there), then the readable JSON
    copy; returns the checkpoint's path."""
    document = state.to_json()
    if snapshot:
        net.save(snapshot_path(run_path, state.games), metadata={"games": str(state.games)})
    path = run_path / CHECKPOINT
    scaffold.write_atomic(path, net.file_bytes({"training_state": json_text(document), "games": str(state.games)}))
    scaffold.write_json_atomic(run_path / STATE, document)
    return path


def agree_with_checkpoint(run_path: Path, state: TrainingState) -> None:
    """Make a resumed run's files agree with its checkpoint: the JSON copy of the state is
    rewritten, and the snapshots taken after the checkpoint (a kill came before the next
    one) are removed."""
    scaffold.write_json_atomic(run_path / STATE, state.to_json())
    for path in (run_path / "snapshots").glob("games_*.safetensors"):
        games = path.stem.removeprefix("games_")
        if games.isdigit() and int(games) > state.games:
            path.unlink()


def load_checkpoint(run_path: str | Path) -> tuple[Net, TrainingState]:
    """The net and the training state of a run's checkpoint.

    The state comes from the weights file's metadata, written in the same atomic write as
    the weights, so the two always match.

    Raises:
        WeightsError: the checkpoint is missing, truncated, corrupt, or not a td-minimax
            checkpoint of this version.
    """
    path = Path(run_path) / CHECKPOINT
    net = Net.load(path)
    meta = read_metadata(path)
    if "training_state" not in meta:
        raise WeightsError(f"{str(path)!r} holds td-minimax weights but no training state (not a checkpoint)")
    try:
        document = json.loads(meta["training_state"])
        if document.get("version") != STATE_VERSION:
            raise WeightsError(f"{str(path)!r}: checkpoint version {document.get('version')} is not {STATE_VERSION}")
        return net, TrainingState(**document)
    except (json.JSONDecodeError, TypeError, AttributeError) as error:
        raise WeightsError(f"{str(path)!r}: the training state in its metadata is corrupt: {error}") from None


# -- the run ----------------------------------------------------------------------------------


def train(args: Args, given: set[str] | None = None) -> TrainingState:
    """Run (or resume) a training run; returns its final state.

    ``args`` and ``given`` (the options given on the command line) are those of
    :func:`checkers_training.scaffold.start_run`.
    """
    from checkers_agents.td_minimax import TDMinimaxAgent
    from checkers_agents.td_minimax.learn import (
        BLACK_WON,
        R_BLOCKADE,
        R_COUNTED_AS_DRAW,
        R_NODES,
        R_PLIES,
        R_STEPS,
        R_WINNER,
        RESULT_FIELDS,
        WHITE_WON,
        play_training_game,
        training_game,
    )
    from checkers_env.movegen import seed_state

    run, args = scaffold.start_run(TRAINER, args, given, needs=NEEDS)
    run_path = run.path
    # A run killed before its first checkpoint has none: it starts again, as it was.
    if run.resumed and (run_path / CHECKPOINT).exists():
        net, state = load_checkpoint(run_path)
        state.args = dataclasses.asdict(args)
        agree_with_checkpoint(run_path, state)
        print(f"resuming {run.name} at {state.games} games from {run_path}", flush=True)
    else:
        net = Net.initial(args.seed, hidden=args.hidden, scale=args.init_scale)
        state = TrainingState(
            run_name=run.name,
            args=dataclasses.asdict(args),
            rng=int(seed_state(args.seed, 0)),
            # Fixed at the start, so that raising --games on --resume keeps the phases.
            curriculum_games=int(round(args.curriculum_fraction * args.games)) if args.curriculum else 0,
        )
        save_checkpoint(run_path, net, state)

    writer = scaffold.tensorboard(run, args.tensorboard, state.games)
    opponents = scaffold.opponent_specs(args.eval_opponents)
    curriculum_games = state.curriculum_games
    result = np.zeros(RESULT_FIELDS, dtype=np.int64)
    w1, b1, w2, b2 = net.arrays
    rng = state.rng
    totals = state.totals

    bar = None
    if args.progress:
        from tqdm import tqdm

        bar = tqdm(total=args.games, initial=state.games, unit="game", dynamic_ncols=True, smoothing=0.05)
    window = {
        "games": 0,
        "black": 0,
        "white": 0,
        "draws": 0,
        "blockades": 0,
        "plies": 0,
        "steps": 0,
        "loss": 0.0,
        "nodes": 0,
        "started": time.perf_counter(),
    }
    last_tick = time.perf_counter()
    bar_pending = 0
    last_eval = state.evaluations[-1]["games"] if state.evaluations else -1

    def flush_window() -> None:
        """TensorBoard points and the bar's figures for the games since the last flush
        (the loss is the mean squared error of the in-game steps: the running loss)."""
        games = window["games"]
        if not games:
            return
        seconds = time.perf_counter() - window["started"]
        loss = window["loss"] / max(window["steps"], 1)
        step = state.games
        writer.add_scalar("train/loss_in_game", loss, step)
        writer.add_scalar("train/black_win_share", window["black"] / games, step)
        writer.add_scalar("train/white_win_share", window["white"] / games, step)
        writer.add_scalar("train/draw_share", window["draws"] / games, step)
        writer.add_scalar("train/blockade_win_share", window["blockades"] / games, step)
        writer.add_scalar("train/plies_per_game", window["plies"] / games, step)
        writer.add_scalar("speed/games_per_s", games / seconds, step)
        writer.add_scalar("speed/search_nodes_per_s", window["nodes"] / seconds, step)
        writer.add_scalar("train/curriculum_phase", 1.0 if state.games < curriculum_games else 2.0, step)
        if bar is not None:
            bar.set_postfix(
                win=f"{(window['black'] + window['white']) / games:.2f}",
                draw=f"{window['draws'] / games:.2f}",
                loss=f"{loss:.2e}",
                plies=f"{window['plies'] / games:.0f}",
            )
        for key in window:
            window[key] = 0 if key != "loss" else 0.0
        window["started"] = time.perf_counter()

    def run_evaluation() -> None:
        nonlocal last_eval
        if not opponents or args.eval_games <= 0 or last_eval == state.games:
            return
        last_eval = state.games
        began = time.perf_counter()
        player = TDMinimaxAgent.from_net(net, depth=args.depth, quiescence=args.quiescence, seed=args.seed)
        scores = scaffold.evaluate(player, opponents, args.eval_games, seed=args.seed * 1_000_003 + state.games)
        for spec, score in scores.items():
            writer.add_scalar(f"eval/score_vs_{spec}", score["score"], state.games)
        state.evaluations.append({"games": state.games, "results": scores})
        message = (
            f"eval at {state.games} games ({time.perf_counter() - began:.0f} s): {scaffold.evaluation_line(scores)}"
        )
        (bar.write if bar is not None else print)(message)
        window["started"] += time.perf_counter() - began  # keep evaluations out of games/s

    def count_game(loss: float) -> None:
        """The totals, the window and the bar, after a game."""
        nonlocal bar_pending
        winner = result[R_WINNER]
        if winner == BLACK_WON:
            totals["black_wins"] += 1
            window["black"] += 1
        elif winner == WHITE_WON:
            totals["white_wins"] += 1
            window["white"] += 1
        else:
            totals["draws"] += 1
            window["draws"] += 1
        totals["blockade_wins"] += int(result[R_BLOCKADE])
        totals["wins_scored_as_draws"] += int(result[R_COUNTED_AS_DRAW])
        totals["plies"] += int(result[R_PLIES])
        totals["steps"] += int(result[R_STEPS])
        totals["nodes"] += int(result[R_NODES])
        totals["loss_sum"] += loss
        window["games"] += 1
        window["blockades"] += int(result[R_BLOCKADE])
        window["plies"] += int(result[R_PLIES])
        window["steps"] += int(result[R_STEPS])
        window["nodes"] += int(result[R_NODES])
        window["loss"] += loss
        bar_pending += 1
        if bar is not None and bar_pending >= 50:
            bar.update(bar_pending)
            bar_pending = 0

    def checkpoint() -> None:
        nonlocal last_tick
        now = time.perf_counter()
        state.wall_seconds += now - last_tick
        last_tick = now
        state.rng = int(rng)
        save_checkpoint(run_path, net, state)

    interrupted = False
    try:
        with scaffold.saved_on_stop(checkpoint) as stop:
            while True:
                # An evaluation due here: after its game, or on a resume that a stop during
                # it cut short (the evaluations recorded are those of an unbroken run).
                if args.eval_every and state.games and state.games % args.eval_every == 0 and last_eval != state.games:
                    run_evaluation()
                    checkpoint()  # keep the evaluation in the state
                if state.games >= args.games:
                    break
                with stop.step():  # the weights, the generator and the counters move together
                    blockade_counts = state.games >= curriculum_games
                    rng, loss = play_training_game(
                        w1,
                        b1,
                        w2,
                        b2,
                        training_game(
                            args.depth,
                            args.quiescence,
                            args.lr_game,
                            args.lr_end,
                            blockade_counts,
                            args.epsilon,
                            args.random_plies,
                            args.max_plies,
                            args.no_progress_plies,
                            args.repetition,
                        ),
                        rng,
                        result,
                    )
                    state.games += 1
                    count_game(float(loss))
                    if state.games % args.log_every == 0:
                        flush_window()
                    if state.games % args.checkpoint_every == 0:
                        checkpoint()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.update(bar_pending)
            bar.close()
    flush_window()
    if not interrupted:  # a stop saved where the state was whole (checkers_training.interrupts)
        if state.games:
            run_evaluation()  # the final net, unless just evaluated
        checkpoint()
    writer.close()
    played = max(state.games, 1)
    print(
        f"{'interrupted' if interrupted else 'done'}: {state.games} games in {state.wall_seconds:.0f} s of training "
        f"(black {totals['black_wins'] / played:.3f}, white {totals['white_wins'] / played:.3f}, "
        f"draws {totals['draws'] / played:.3f}; {totals['plies'] / played:.1f} plies/game); "
        f"checkpoint {run_path / CHECKPOINT}",
        flush=True,
    )
    if args.promote and not interrupted:
        promote(run, net, state, args)
    if interrupted:
        raise SystemExit(130)
    return state


def promote(run: scaffold.Run, net: Net, state: TrainingState, args: Args) -> Path:
    """Write the net and a fresh card to ``zoo/<args.promote>``."""
    description = (
        f"The TD-trained minimax net, a TD-Gammon-style learner: alpha-beta (depth {args.depth}{', quiescence' if args.quiescence else ''}) over "
        f"complete moves with a 128-{args.hidden}-2 sigmoid net at the leaves, trained by TD self-play "
        f"for {state.games} games"
        + (f" ({args.random_plies} random opening plies)" if args.random_plies else "")
        + (" with the curriculum" if args.curriculum else "")
        + "."
    )
    folder = scaffold.promote(
        args.promote,
        "td-minimax",
        {"depth": args.depth, "quiescence": args.quiescence},
        net.file_bytes({"games": str(state.games), "run": run.name}),
        description,
        {
            "command": run.command,
            "budget": f"{state.games} self-play games",
            "wall_time_s": round(state.wall_seconds, 1),
            "run": run.name,
            "args": state.args,
            "totals": state.totals,
            "evaluations": state.evaluations,
        },
    )
    print(f"promoted to {folder}", flush=True)
    return folder


main = scaffold.trainer_main(Args, train, TRAINER, __doc__)


if __name__ == "__main__":
    sys.exit(scaffold.script_main(main))
