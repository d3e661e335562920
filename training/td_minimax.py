"""Self-play TD training of the seed-002 minimax net: ``python -m training.td_minimax``.

    python -m training.td_minimax --games 500000 --seed 1
    python -m training.td_minimax --resume runs/td_minimax__1__1732240000    # continue a run
    python -m training.td_minimax --games 20000 --curriculum                 # seed's curriculum

The same net plays both sides; each turn the side to move chooses its move by alpha-beta
(depth 2) with the net at the leaves and takes one backpropagation step from the current
position towards the net's output for the chosen position seen from the same player
(in-game rate 0.005); each game ends with two corrections (after-game rate 0.01): the
winner's view towards {1, 0}, the loser's towards {0, 1}, both towards {0, 0} on a draw.
``agents/td_minimax/__init__.py`` documents every mechanism and adaptation; the game itself
is one numba kernel (``agents.td_minimax.learn.play_training_game``).

A run writes into ``runs/<run name>/``:

- ``checkpoint.safetensors``: the weights, with the training state in its metadata (the
  file the run resumes from; its state and weights are written together, atomically);
- ``checkpoint.json``: the same training state, readable (games done, generator state,
  arguments, totals, wall time);
- ``snapshots/games_<N>.safetensors``: the weights at every checkpoint;
- TensorBoard scalars (``tensorboard --logdir runs``).

Every file is written to a temporary name and renamed, so killing the run at any moment
leaves the previous checkpoint intact; ``--resume`` continues from the last one with the
games counter, the generator state and the TensorBoard step where they were.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime
import inspect
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.td_minimax.net import Net, atomic_write_json, read_metadata

REPO_ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = "checkpoint.safetensors"
STATE = "checkpoint.json"
STATE_VERSION = 1


@dataclass
class Args:
    """Options of the TD-minimax trainer (every field is a ``--kebab-case`` flag)."""

    games: int = 500_000
    """total self-play games; a resumed run continues up to this total"""
    seed: int = 1
    """seed of the initial weights and of the self-play generator (tie breaks, exploration)"""
    exp_name: str = "td_minimax"
    """experiment name; the run is called <exp-name>__<seed>__<unix time>"""
    run_dir: str = "runs"
    """folder that holds the runs"""
    depth: int = 2
    """search depth in plies during self-play (the seed's 2)"""
    quiescence: bool = True
    """search on through captures at the leaves (a checkers adaptation; --no-quiescence is the
    seed's plain fixed-depth search)"""
    lr_game: float = 0.005
    """in-game learning rate (one step per move towards the chosen position's outputs)"""
    lr_end: float = 0.01
    """after-game learning rate (the two final corrections)"""
    hidden: int = 40
    """hidden units (the seed's 40)"""
    init_scale: float = 0.1
    """initial weights are uniform in [-init-scale, init-scale], biases 0"""
    curriculum: bool = False
    """the seed's curriculum: during the first --curriculum-fraction of the games only wins by
    capturing every piece count; a win by blockade is scored as a draw"""
    curriculum_fraction: float = 0.5
    """share of the games (of --games) played under the curriculum's first phase"""
    epsilon: float = 0.0
    """exploration (not in the seed): probability of a uniformly random move; not learnt from"""
    random_plies: int = 0
    """exploration (not in the seed): the first N plies of every game are random; not learnt from"""
    max_plies: int = 400
    """a game longer than this is a draw (the suite's Rules.max_plies)"""
    no_progress_plies: int = 80
    """draw after this many plies without a capture or a man move (Rules.no_progress_plies)"""
    repetition: int = 3
    """draw when a position occurs this many times (Rules.repetition)"""
    checkpoint_every: int = 10_000
    """games between checkpoints"""
    log_every: int = 1_000
    """games between TensorBoard points"""
    eval_every: int = 25_000
    """games between evaluation matches (0: none)"""
    eval_games: int = 20
    """games per evaluation opponent (colours alternate, openings from the 3-move ballot)"""
    eval_opponents: str = "greedy;alphabeta:depth=2"
    """agent specs to evaluate against, separated by semicolons (specs contain commas)"""
    resume: str | None = None
    """run folder (or its checkpoint.safetensors) to continue; its arguments are kept except
    those given on this command line"""
    promote: str | None = None
    """when training ends, copy the weights and a card.json into this zoo folder"""
    progress: bool = True
    """show a tqdm progress bar"""
    tensorboard: bool = True
    """write TensorBoard scalars"""


# -- command line ---------------------------------------------------------------------------


def field_docs(cls) -> dict[str, str]:
    """The docstring under each field of a dataclass (cleanrl style), read from its source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body
    docs = {}
    for node, following in zip(body, body[1:]):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def _flag_type(annotation: str):
    base = annotation.replace(" | None", "").strip()
    return {"int": int, "float": float, "str": str}.get(base, str)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m training.td_minimax",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    docs = field_docs(Args)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        help_text = docs.get(f.name, "")
        # Defaults are SUPPRESSed so that the given flags are known (they override a resumed
        # run's arguments); the help still shows the dataclass default.
        if f.type in ("bool", bool):
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                help=f"{help_text} (default: {f.default})",
            )
        else:
            parser.add_argument(
                flag, type=_flag_type(str(f.type)), default=argparse.SUPPRESS, metavar=f.name.upper(),
                help=f"{help_text} (default: {f.default})",
            )
    parser.formatter_class = argparse.HelpFormatter
    return parser


def parse_args(argv: list[str] | None = None) -> tuple[Args, dict]:
    """``(Args, the options given explicitly)``."""
    given = vars(build_parser().parse_args(argv))
    return Args(**given), given


def validate(args: Args) -> None:
    problems = []
    if args.games < 0:
        problems.append(f"--games must be >= 0, got {args.games}")
    if not 1 <= args.depth <= 40:
        problems.append(f"--depth must be from 1 to 40, got {args.depth}")
    if args.hidden < 1:
        problems.append(f"--hidden must be >= 1, got {args.hidden}")
    if not 0.0 <= args.epsilon <= 1.0:
        problems.append(f"--epsilon must be in [0, 1], got {args.epsilon}")
    if not 0.0 <= args.curriculum_fraction <= 1.0:
        problems.append(f"--curriculum-fraction must be in [0, 1], got {args.curriculum_fraction}")
    for name in ("checkpoint_every", "log_every"):
        if getattr(args, name) < 1:
            problems.append(f"--{name.replace('_', '-')} must be >= 1")
    if problems:
        raise SystemExit("error: " + "; ".join(problems))


# -- training state ---------------------------------------------------------------------------


@dataclass
class TrainingState:
    """What a checkpoint stores besides the weights."""

    run_name: str
    args: dict
    games: int = 0
    rng: int = 0
    wall_seconds: float = 0.0
    totals: dict = field(default_factory=lambda: {
        "black_wins": 0, "white_wins": 0, "draws": 0, "blockade_wins": 0,
        "wins_scored_as_draws": 0, "plies": 0, "steps": 0, "nodes": 0, "loss_sum": 0.0,
    })
    evaluations: list = field(default_factory=list)
    version: int = STATE_VERSION
    started: str = ""
    command: str = ""

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def save_checkpoint(run_path: Path, net: Net, state: TrainingState, snapshot: bool = True) -> Path:
    """Weights + state in one atomic safetensors write, then the readable JSON copy, then a
    snapshot of the weights; returns the checkpoint's path."""
    document = state.to_json()
    path = run_path / CHECKPOINT
    net.save(path, metadata={"training_state": json.dumps(document), "games": str(state.games)})
    atomic_write_json(run_path / STATE, document)
    if snapshot:
        net.save(run_path / "snapshots" / f"games_{state.games:08d}.safetensors", metadata={"games": str(state.games)})
    return path


def load_checkpoint(where: str | os.PathLike) -> tuple[Path, Net, TrainingState]:
    """The run folder, the net and the state of a checkpoint (a run folder or its file).

    The state comes from the weights file's metadata, written in the same atomic write as
    the weights, so the two always match.
    """
    path = Path(where)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.exists():
        raise SystemExit(f"error: --resume {str(where)!r}: no checkpoint at {str(path)!r}")
    net = Net.load(path)
    meta = read_metadata(path)
    if "training_state" not in meta:
        raise SystemExit(f"error: {str(path)!r} holds weights but no training state (not a checkpoint)")
    document = json.loads(meta["training_state"])
    if document.get("version") != STATE_VERSION:
        raise SystemExit(f"error: {str(path)!r}: checkpoint version {document.get('version')} is not {STATE_VERSION}")
    return path.parent, net, TrainingState(**document)


# -- evaluation -------------------------------------------------------------------------------


def ballot() -> list[str]:
    from importlib import resources

    text = resources.files("checkers_env").joinpath("data/ballots_3move.txt").read_text()
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def evaluate(
    net: Net, opponents: list[str], games: int, depth: int, seed: int, quiescence: bool = True
) -> dict[str, dict]:
    """Score of the net (searching at ``depth``) against each opponent: ``games`` games
    each, colours alternating, each opening of the 3-move ballot played with both colours.

    Returns ``{spec: {"score": points / games, "wins", "draws", "losses"}}``; an opponent
    that cannot be built (a kind not installed yet) maps to ``{"error": message}``.
    """
    from agents.td_minimax import TDMinimaxAgent
    from checkers_env import BLACK, Game, Rules, make_agent

    openings = ballot()
    rng = np.random.default_rng(seed)
    results: dict[str, dict] = {}
    for spec in opponents:
        try:
            opponent = make_agent(spec, seed=seed)
        except ValueError as error:
            results[spec] = {"error": str(error)}
            continue
        player = TDMinimaxAgent.from_net(net, depth=depth, quiescence=quiescence, seed=seed)
        wins = draws = losses = 0
        order = rng.permutation(len(openings))
        for g in range(games):
            game = Game(rules=Rules())
            for move in openings[order[(g // 2) % len(openings)]].split():
                game.play(move)
            ours = BLACK if g % 2 == 0 else BLACK.opponent
            player.reset(seed + g)
            opponent.reset(seed + g)
            while not game.is_over():
                agent = player if game.board.turn == ours else opponent
                game.play(agent.select_move(game))
            if game.winner is None:
                draws += 1
            elif game.winner == ours:
                wins += 1
            else:
                losses += 1
        results[spec] = {
            "score": (wins + 0.5 * draws) / max(games, 1), "wins": wins, "draws": draws, "losses": losses,
        }
    return results


# -- the run ----------------------------------------------------------------------------------


def _git_commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)
    except OSError:
        return None
    return done.stdout.strip() or None


class _NullWriter:
    def add_scalar(self, *args, **kwargs):
        pass

    def close(self):
        pass


def _writer(args: Args, run_path: Path, purge_step: int | None):
    if not args.tensorboard:
        return _NullWriter()
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print("warning: TensorBoard needs torch and tensorboard (pip install -e '.[train]'); not logging", file=sys.stderr)
        return _NullWriter()
    return SummaryWriter(str(run_path), purge_step=purge_step)


def train(args: Args, given: dict | None = None, command: str = "") -> TrainingState:
    """Run (or resume) a training run; returns its final state.

    Args:
        args: the options.
        given: the options given explicitly (they override a resumed run's saved ones).
        command: the command line, recorded in the state and the zoo card.
    """
    from agents.td_minimax.learn import (
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
    )
    from checkers_env.kernels import seed_state

    given = dict(given or {})
    if args.resume:
        run_path, net, state = load_checkpoint(args.resume)
        saved = dict(state.args)
        saved.update({k: v for k, v in given.items() if k != "resume"})
        saved["resume"] = None
        args = Args(**saved)
        state.args = dataclasses.asdict(args)
        if command:
            state.command = (state.command + " && " if state.command else "") + command
        print(f"resuming {state.run_name} at {state.games} games from {run_path}", flush=True)
    else:
        run_name = f"{args.exp_name}__{args.seed}__{int(time.time())}"
        run_path = Path(args.run_dir) / run_name
        run_path.mkdir(parents=True, exist_ok=False)
        net = Net.initial(args.seed, hidden=args.hidden, scale=args.init_scale)
        state = TrainingState(
            run_name=run_name,
            args=dataclasses.asdict(args),
            rng=int(seed_state(args.seed, 0)),
            started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            command=command,
        )
        save_checkpoint(run_path, net, state)
    validate(args)

    writer = _writer(args, run_path, purge_step=state.games if state.games else None)
    opponents = [s.strip() for s in args.eval_opponents.split(";") if s.strip()]
    curriculum_games = int(round(args.curriculum_fraction * args.games)) if args.curriculum else 0
    result = np.zeros(RESULT_FIELDS, dtype=np.int64)
    w1, b1, w2, b2 = net.arrays
    rng = state.rng
    totals = state.totals

    bar = None
    if args.progress:
        from tqdm import tqdm

        bar = tqdm(total=args.games, initial=state.games, unit="game", dynamic_ncols=True, smoothing=0.05)
    window = {"games": 0, "black": 0, "white": 0, "draws": 0, "blockades": 0, "plies": 0, "steps": 0,
              "loss": 0.0, "nodes": 0, "started": time.perf_counter()}
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
        scores = evaluate(
            net, opponents, args.eval_games, args.depth, seed=args.seed * 1_000_003 + state.games,
            quiescence=args.quiescence,
        )
        for spec, score in scores.items():
            if "score" in score:
                writer.add_scalar(f"eval/score_vs_{spec}", score["score"], state.games)
        state.evaluations.append({"games": state.games, "results": scores})
        text = ", ".join(
            f"{spec}: {s['score']:.2f} (+{s['wins']} ={s['draws']} -{s['losses']})" if "score" in s
            else f"{spec}: skipped ({s['error'].splitlines()[0][:80]})"
            for spec, s in scores.items()
        )
        message = f"eval at {state.games} games ({time.perf_counter() - began:.0f} s): {text}"
        (bar.write if bar is not None else print)(message)
        window["started"] += time.perf_counter() - began  # keep evaluations out of games/s

    def checkpoint() -> None:
        nonlocal last_tick
        now = time.perf_counter()
        state.wall_seconds += now - last_tick
        last_tick = now
        state.rng = int(rng)
        save_checkpoint(run_path, net, state)

    interrupted = False
    try:
        while state.games < args.games:
            blockade_counts = state.games >= curriculum_games
            rng, loss = play_training_game(
                w1, b1, w2, b2, args.depth, args.quiescence, args.lr_game, args.lr_end, blockade_counts,
                args.epsilon, args.random_plies, args.max_plies, args.no_progress_plies,
                args.repetition, rng, result,
            )
            state.games += 1
            winner = result[R_WINNER]
            counted_draw = result[R_COUNTED_AS_DRAW]
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
            totals["wins_scored_as_draws"] += int(counted_draw)
            totals["plies"] += int(result[R_PLIES])
            totals["steps"] += int(result[R_STEPS])
            totals["nodes"] += int(result[R_NODES])
            totals["loss_sum"] += float(loss)
            window["games"] += 1
            window["blockades"] += int(result[R_BLOCKADE])
            window["plies"] += int(result[R_PLIES])
            window["steps"] += int(result[R_STEPS])
            window["nodes"] += int(result[R_NODES])
            window["loss"] += float(loss)
            bar_pending += 1
            if bar is not None and bar_pending >= 50:
                bar.update(bar_pending)
                bar_pending = 0
            if state.games % args.log_every == 0:
                flush_window()
            if state.games % args.checkpoint_every == 0:
                checkpoint()
            if args.eval_every and state.games % args.eval_every == 0:
                run_evaluation()
                checkpoint()  # keep the evaluation in the state
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.update(bar_pending)
            bar.close()
    flush_window()
    if not interrupted and args.eval_every and state.games:
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
        promote(run_path, net, state, Path(args.promote))
    if interrupted:
        raise SystemExit(130)
    return state


def promote(run_path: Path, net: Net, state: TrainingState, zoo_path: Path) -> None:
    """Copy the weights into a zoo folder with a ``card.json`` in the zoo's card format
    (``agents/zoo.py``); a card already there keeps its other fields (its ``league``)."""
    net.save(zoo_path / "weights.safetensors", metadata={"games": str(state.games), "run": state.run_name})
    card_path = zoo_path / "card.json"
    card = json.loads(card_path.read_text()) if card_path.exists() else {}
    args = state.args
    card.update({
        "name": zoo_path.name,
        "kind": "td-minimax",
        "params": {"depth": args["depth"], "quiescence": args["quiescence"]},
        "weights": "weights.safetensors",
        "description": (
            f"Seed 002: alpha-beta (depth {args['depth']}"
            f"{', quiescence' if args['quiescence'] else ''}) over complete moves with a "
            f"128-{args['hidden']}-2 sigmoid net at the leaves, trained by TD self-play for "
            f"{state.games} games"
            + (f" ({args['random_plies']} random opening plies)" if args["random_plies"] else "")
            + (" with the curriculum" if args["curriculum"] else "")
            + "."
        ),
        "training": {
            "command": state.command or f"python -m training.td_minimax --games {args['games']} --seed {args['seed']}",
            "args": args,
            "games": state.games,
            "wall_seconds": round(state.wall_seconds, 1),
            "run": state.run_name,
            "totals": state.totals,
            "evaluations": state.evaluations,
        },
        "commit": _git_commit() or "unknown",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    })
    atomic_write_json(card_path, card)
    print(f"promoted to {zoo_path}", flush=True)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
        command = "python -m training.td_minimax"
    else:
        command = "checkers train td-minimax"
    args, given = parse_args(argv)
    if not args.resume:
        validate(args)
    # A plain `kill` stops the run as Ctrl-C does: the last state is checkpointed.
    signal.signal(signal.SIGTERM, _interrupt)
    train(args, given, command=" ".join([command, *map(shlex.quote, argv)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
