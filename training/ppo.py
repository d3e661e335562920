"""Train a MaskablePPO policy (sb3-contrib's PPO with illegal actions masked out) on
Checkers-v0, one hop per action: first against random, then greedy, then a pool of frozen
snapshots of itself.

    checkers train ppo --total-timesteps 2000000
    checkers train ppo --out runs/ppo/seed0__20261122T101500 --resume      # continue a killed run

Opponent schedule, chosen per episode: ``random`` for the first ``--random-until`` of the
steps, then ``greedy``, then a self-play pool of frozen snapshots of the policy itself
(taken every ``--snapshot-every`` steps, the last ``--pool-size`` kept) mixed with
``greedy`` and ``random`` so the policy does not forget them. The learner's colour is drawn
per episode. Every ``--eval-every`` steps the current policy plays the evaluation games;
the scores go to TensorBoard. The schedule's fractions are of ``--total-timesteps``: raising
it on ``--resume`` stretches the rest of the schedule.

The run folder (``checkers_training.scaffold`` describes the layout and the shared options) holds,
written atomically at every checkpoint: ``checkpoint.pt`` (what ``--resume`` continues from:
the policy's and the optimizer's tensors, the step counters and the run's state, read with
``torch.load(weights_only=True)``, so it never executes code; the model is rebuilt from the
run's options), ``policy.safetensors`` (the policy weights alone, loaded by
``checkers_agents.ppo.PPOAgent`` and the zoo), ``state.json`` (steps, snapshots, wall time,
evaluations: a readable copy of the checkpoint's state), ``snapshots/`` (the self-play pool:
only this run's own snapshots) and ``tb/`` (TensorBoard).

A checkpoint writes its files first and ``checkpoint.pt`` last: a run killed or stopped by
Ctrl-C at any moment resumes from its last checkpoint, and the snapshots taken after it,
which that checkpoint does not count, are removed (the resumed run takes them again).

A resumed run ends with the weights of the same run never stopped, bit for bit. The run
trains in chunks of whole rollouts, at least ``--checkpoint-every`` steps each, with a
checkpoint at the end of each; every chunk starts from what its checkpoint holds and nothing
else: its generators (torch's, numpy's, the envs' and through them the opponents') are
seeded from ``--seed`` and the chunk's first step, and its games start afresh. So an unbroken
run does at every checkpoint just what a resumed one does, and the checkpoint need not hold
the games in progress or the generators' states, which SB3 does not save. The cost: the
games in progress at a checkpoint are dropped, a few per ``--checkpoint-every`` steps.
"""

from __future__ import annotations

import copy
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from checkers_agents.opponent_pool import OpponentPool
from checkers_env.agent import make_agent
from checkers_env.errors import WeightsError
from checkers_training import scaffold
from checkers_training.checkpoints import CHECKPOINT
from checkers_training.scaffold import BUDGET, MAX_BATCH, MAX_WIDTH, arg

TRAINER = "ppo"
NEEDS = ("torch", "stable_baselines3", "sb3_contrib", "safetensors")
#: SB3's zip of runs written before ``checkpoint.pt``: it holds pickles, so it is never loaded.
OLD_MODEL = "model.zip"
POLICY = "policy.safetensors"
STATE = "state.json"


@dataclass
class Args(scaffold.RunArgs):
    """Options of the PPO trainer."""

    total_timesteps: int = arg(2_000_000, low=1, on_resume=BUDGET)
    """environment steps (hops) to train for"""
    n_envs: int = arg(8, low=1, high=256)
    """single envs stepped together (DummyVecEnv: the opponents run in this process)"""
    n_steps: int = arg(256, low=1, high=16384)
    """steps per env per rollout"""
    batch_size: int = arg(512, low=2, high=MAX_BATCH)
    """minibatch size of the PPO update"""
    n_epochs: int = arg(4, low=1)
    """PPO epochs per rollout"""
    learning_rate: float = arg(3e-4, low=0.0)
    """Adam learning rate"""
    gamma: float = arg(0.99, low=0.0, high=1.0)
    """discount factor"""
    ent_coef: float = arg(0.01, low=0.0)
    """entropy bonus"""
    net_arch: str = arg("256x256", metavar="SIZES")
    """hidden layers of the policy and value nets, joined by x"""
    reward: str = arg("win_loss", choices=("win_loss", "material"))
    """win_loss (+1/0/-1 at the end), or material (a small reward for material won each move;
    see Checkers-v0)"""
    random_until: float = arg(0.1, low=0.0, high=1.0)
    """fraction of the steps played against random only"""
    greedy_until: float = arg(0.35, low=0.0, high=1.0)
    """fraction of the steps after which the self-play pool starts (before: greedy)"""
    snapshot_every: int = arg(100_000, low=1)
    """steps between frozen snapshots added to the self-play pool"""
    pool_size: int = arg(5, low=1, high=100)
    """snapshots kept in the pool"""
    pool_greedy: float = arg(0.3, low=0.0, high=1.0)
    """share of self-play-phase episodes played against greedy"""
    pool_random: float = arg(0.1, low=0.0, high=1.0)
    """share of self-play-phase episodes played against random"""
    eval_every: int = arg(100_000, low=0)
    """steps between evaluations (0: only the final one)"""
    final_eval_games: int = arg(100, low=0)
    """games per evaluation opponent in the evaluation at the end (even)"""
    checkpoint_every: int = arg(50_000, low=1)
    """steps between checkpoints"""

    def check(self) -> list[tuple[str, str]]:
        problems = super().check()
        from checkers_agents.ppo import parse_net_arch

        try:
            if max(parse_net_arch(self.net_arch)) > MAX_WIDTH:
                problems.append(("net_arch", f"layers may have at most {MAX_WIDTH} units, got {self.net_arch!r}"))
        except ValueError as error:
            problems.append(("net_arch", str(error)))
        if self.n_envs * self.n_steps > 2**20:
            problems.append(
                (
                    "n_steps",
                    f"--n-envs x --n-steps is the rollout, at most {2**20} steps, got {self.n_envs * self.n_steps}",
                )
            )
        if self.final_eval_games % 2:
            problems.append(("final_eval_games", f"must be even (colour-swapped pairs), got {self.final_eval_games}"))
        if self.greedy_until < self.random_until:
            problems.append(
                ("greedy_until", f"must be at least --random-until ({self.random_until}), got {self.greedy_until}")
            )
        if self.pool_greedy + self.pool_random > 1.0:
            problems.append(("pool_random", "--pool-greedy and --pool-random add up to more than 1"))
        return problems


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """``(options, names of the options given)`` of a ``checkers train ppo`` command line."""
    return scaffold.parse_args(Args, argv, TRAINER, __doc__)


def evaluate_policy(policy, opponents: list[str], games: int, seed: int) -> dict[str, dict]:
    """The evaluation games of a live policy (see :func:`checkers_training.scaffold.evaluate`)."""
    from checkers_agents.ppo import PPOAgent

    return scaffold.evaluate(PPOAgent.from_policy(policy), opponents, games, seed)


def save_policy_weights(policy, path: Path) -> None:
    """The policy's state dict as safetensors (atomic)."""
    scaffold.write_atomic(path, policy_bytes(policy))


def policy_bytes(policy) -> bytes:
    """The policy's state dict as a safetensors file."""
    from safetensors.torch import save

    return save({k: v.detach().cpu().contiguous() for k, v in policy.state_dict().items()})


def snapshot_path(run_dir: Path, number: int) -> Path:
    """The file of the run's self-play snapshot ``number`` (1, 2, ...)."""
    return run_dir / "snapshots" / f"snapshot-{number:04d}.safetensors"


def snapshots_on_disk(run_dir: Path) -> list[int]:
    """The numbers of the snapshot files in a run folder, in order."""
    numbers = []
    for path in (run_dir / "snapshots").glob("snapshot-*.safetensors"):
        suffix = path.stem.removeprefix("snapshot-")
        if suffix.isdigit():
            numbers.append(int(suffix))
    return sorted(numbers)


def agree_with_checkpoint(run_dir: Path, snapshots: int) -> None:
    """Make the snapshot files agree with a checkpoint that counts ``snapshots``: remove those
    taken after it (a kill came before the next checkpoint), and refuse a run that lost some.

    Raises:
        WeightsError: a snapshot the checkpoint counts is missing.
    """
    on_disk = snapshots_on_disk(run_dir)
    missing = sorted(set(range(1, snapshots + 1)) - set(on_disk))
    if missing:
        raise WeightsError(
            f"ppo run {str(run_dir)!r}: its checkpoint counts {snapshots} snapshots, but "
            f"{snapshot_path(run_dir, missing[0]).name} is missing"
        )
    for number in on_disk:
        if number > snapshots:
            snapshot_path(run_dir, number).unlink()


def load_checkpoint(path: Path, model) -> dict:
    """Load a run's ``checkpoint.pt`` into ``model`` (built from the run's options) without
    executing code; returns the run's state (``timesteps``, ``snapshots``, ...).

    Raises:
        WeightsError: the file is missing, truncated or corrupt, or does not fit the model.
    """
    network = "this run's MaskablePPO policy"
    state = scaffold.load_checkpoint(path, network)  # every entry: the file is read before the model is touched
    try:
        policy, optimizer = state.pop("policy"), state.pop("optimizer")
        timesteps, updates = int(state.pop("num_timesteps")), int(state.pop("n_updates"))
        model.policy.load_state_dict(policy)
        model.policy.optimizer.load_state_dict(optimizer)
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise scaffold.checkpoint_error(path, f"does not match {network}", error) from None
    model.num_timesteps, model._n_updates = timesteps, updates
    state.setdefault("evaluations", [])
    state.setdefault("last_snapshot", model.num_timesteps)  # older runs counted from the resume
    state.setdefault("last_eval", model.num_timesteps)
    return state


def train(args: Args, given: set[str] | None = None) -> Path:
    """Run (or resume) training; returns the run folder.

    ``args`` and ``given`` (the options given on the command line) are those of
    :func:`checkers_training.scaffold.start_run`.
    """
    scaffold.check_dependencies(TRAINER, NEEDS, args.tensorboard)
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.utils import configure_logger
    from stable_baselines3.common.vec_env import DummyVecEnv
    from tqdm import tqdm

    from checkers_agents.ppo import PPOAgent

    if args.resume and (Path(args.out) / OLD_MODEL).exists() and not (Path(args.out) / CHECKPOINT).exists():
        raise scaffold.TrainingError(
            f"--out {args.out!r} --resume: this run was saved as {OLD_MODEL} (SB3's format, which holds pickles "
            "and is never loaded); start a new run"
        )
    run, args = scaffold.start_run(TRAINER, args, given, needs=NEEDS)
    run_dir = run.path
    opponents = scaffold.opponent_specs(args.eval_opponents)
    state_path = run_dir / STATE
    checkpoint_path = run_dir / CHECKPOINT
    resuming = run.resumed and checkpoint_path.exists()  # a run killed before its first checkpoint starts again
    # last_snapshot and last_eval: the steps of the last snapshot and evaluation.
    state: dict[str, Any] = {"snapshots": 0, "last_snapshot": 0, "last_eval": 0, "wall_time_s": 0.0, "evaluations": []}
    tb_dir = str(run_dir / "tb") if args.tensorboard else None

    pools = [OpponentPool(seed=args.seed * 1000 + i) for i in range(args.n_envs)]

    def make_env(i: int):
        def thunk():
            return Monitor(gym.make("Checkers-v0", opponent=pools[i], agent_color="random", reward=args.reward))

        return thunk

    vec_env = DummyVecEnv([make_env(i) for i in range(args.n_envs)])  # seeded per chunk (learn_chunk)
    # The model is built from the run's options; a resume loads its tensors and counters.
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        policy_kwargs=dict(net_arch=dict(pi=_sizes(args.net_arch), vf=_sizes(args.net_arch))),
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    if resuming:
        state = load_checkpoint(checkpoint_path, model)
        save_policy_weights(model.policy, run_dir / POLICY)  # a kill may have come after the checkpoint
        scaffold.write_json_atomic(state_path, state)
    # The snapshots are those the checkpoint counts (only this run's: a run folder never
    # holds another run's); later ones belong to the session a kill cut short.
    agree_with_checkpoint(run_dir, state["snapshots"])
    snapshots: list[PPOAgent] = []
    for number in range(max(1, state["snapshots"] - args.pool_size + 1), state["snapshots"] + 1):
        snapshots.append(
            PPOAgent(weights=str(snapshot_path(run_dir, number)), net_arch=args.net_arch, deterministic=False)
        )
    random_agent, greedy_agent = make_agent("random"), make_agent("greedy")

    def update_schedule(steps: int) -> str:
        progress = steps / args.total_timesteps
        if progress < args.random_until:
            choices, phase = [(random_agent, 1.0)], "random"
        elif progress < args.greedy_until or not snapshots:
            choices, phase = [(greedy_agent, 1.0)], "greedy"
        else:
            rest = max(0.0, 1.0 - args.pool_greedy - args.pool_random)
            choices = [(greedy_agent, args.pool_greedy), (random_agent, args.pool_random)]
            choices += [(s, rest / len(snapshots)) for s in snapshots]
            phase = "self-play"
        for pool in pools:
            pool.set_choices(choices)
        return phase

    started = time.time()
    wall_before = state["wall_time_s"]
    rollout = args.n_envs * args.n_steps
    chunk = -(-args.checkpoint_every // rollout) * rollout  # whole rollouts, at least --checkpoint-every steps

    class Schedule(BaseCallback):
        def __init__(self):
            super().__init__()
            self.bar = tqdm(
                total=args.total_timesteps,
                initial=model.num_timesteps,
                unit="step",
                desc="ppo",
                dynamic_ncols=True,
                disable=not args.progress,
            )
            self.phase = update_schedule(model.num_timesteps)

        def _on_step(self) -> bool:
            self.bar.update(args.n_envs)
            return True

        def _on_rollout_end(self) -> None:
            steps = model.num_timesteps
            pool_started = steps >= args.greedy_until * args.total_timesteps
            if pool_started and (steps - state["last_snapshot"] >= args.snapshot_every or not snapshots):
                state["last_snapshot"] = steps
                state["snapshots"] += 1
                path = snapshot_path(run_dir, state["snapshots"])
                save_policy_weights(model.policy, path)
                snapshots.append(PPOAgent.from_policy(copy.deepcopy(model.policy), deterministic=False))
                del snapshots[: -args.pool_size]
            self.phase = update_schedule(steps)
            self.logger.record("schedule/phase_self_play", float(self.phase == "self-play"))
            self.logger.record("schedule/pool_snapshots", len(snapshots))
            if args.eval_every and args.eval_games and steps - state["last_eval"] >= args.eval_every:
                state["last_eval"] = steps
                results = evaluate_policy(model.policy, opponents, args.eval_games, seed=args.seed * 1_000_003 + steps)
                for spec, result in results.items():
                    self.logger.record(f"eval/score_vs_{spec}", result["score"])
                state["evaluations"].append({"timesteps": steps, "results": results})
                self.bar.write(f"{steps} steps ({self.phase}): {scaffold.evaluation_line(results)}")
            self.bar.set_postfix(phase=self.phase, snapshots=len(snapshots))

    def checkpoint() -> None:
        # The snapshots are on disk already; checkpoint.pt, written last, is what a resume
        # trusts; policy.safetensors and state.json follow from it.
        state["wall_time_s"] = wall_before + time.time() - started
        state["timesteps"] = model.num_timesteps
        policy = model.policy
        counters = {"num_timesteps": model.num_timesteps, "n_updates": model._n_updates}
        scaffold.save_checkpoint(checkpoint_path, state, policy=policy, optimizer=policy.optimizer, **counters)
        save_policy_weights(model.policy, run_dir / POLICY)
        scaffold.write_json_atomic(state_path, state)

    def learn_chunk() -> None:
        # The chunk starts from its checkpoint alone (see the module): its generators seeded
        # from the run's seed and its first step, its games afresh (learn() resets the envs
        # when it has no last observation). learn() counts its schedules' progress per call,
        # which changes nothing here: the learning rate and the clip range are constants.
        steps = model.num_timesteps
        model.set_random_seed(chunk_seed(args.seed, steps))
        model._last_obs = None
        model.learn(min(chunk, args.total_timesteps - steps), callback=callback, reset_num_timesteps=False)

    callback = Schedule()
    # One writer for every chunk; without TensorBoard a logger with no outputs, where SB3's
    # default would leave an empty folder in the system's temporary directory.
    model.set_logger(configure_logger(0, tb_dir, "ppo", reset_num_timesteps=False) if tb_dir else Logger(None, []))
    # A chunk is whole only at its end, where its checkpoint is written: a stop inside it
    # resumes from the checkpoint before it.
    with scaffold.saved_on_stop(checkpoint) as stop:
        while model.num_timesteps < args.total_timesteps:
            with stop.unsaved():
                learn_chunk()
            checkpoint()
    callback.bar.close()
    model.logger.close()
    final = evaluate_policy(model.policy, opponents, args.final_eval_games, seed=args.seed + 1)
    state["final_eval"] = final
    scaffold.write_json_atomic(state_path, state)
    print(
        f"trained {model.num_timesteps} steps in {state['wall_time_s'] / 60:.1f} min; {scaffold.evaluation_line(final)}"
    )
    if args.promote:
        promote(run, args, state)
    return run_dir


def chunk_seed(seed: int, steps: int) -> int:
    """The seed of the run's (``--seed``) chunk that starts at step ``steps``."""
    return int(np.random.SeedSequence((seed, steps)).generate_state(1)[0])


def _sizes(net_arch: str) -> list[int]:
    from checkers_agents.ppo import parse_net_arch

    return parse_net_arch(net_arch)


def promote(run: scaffold.Run, args: Args, state: dict) -> Path:
    """Write the final policy and a fresh card to ``zoo/<args.promote>``."""
    folder = scaffold.promote(
        args.promote,
        "ppo",
        {"net_arch": args.net_arch, "deterministic": True},
        scaffold.read_checkpoint(run.path / POLICY),
        "MaskablePPO (sb3-contrib) on Checkers-v0, one hop per action, trained against "
        "random, then greedy, then a self-play pool of its own snapshots.",
        {
            "command": run.command,
            "budget": f"{state['timesteps']} env steps",
            "wall_time_s": round(state["wall_time_s"]),
            "run": run.name,
            "args": run.record["args"],
            "evaluations": state.get("evaluations", []),
            "final_eval": state.get("final_eval", {}),
        },
    )
    print(f"promoted to {folder}")
    return folder


main = scaffold.trainer_main(Args, train, TRAINER, __doc__)


if __name__ == "__main__":
    sys.exit(scaffold.script_main(main))
