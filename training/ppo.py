"""Train a MaskablePPO (sb3-contrib) policy on ``Checkers-v0`` against a schedule of opponents.

    python -m training.ppo --total-timesteps 2000000          # or: checkers train ppo ...
    python -m training.ppo --resume runs/ppo-s0               # continue a killed run

Opponent schedule, chosen per episode: ``random`` for the first ``random_until`` of the
steps, then ``greedy``, then a self-play pool of frozen snapshots of the policy itself
(taken every ``snapshot_every`` steps, the last ``pool_size`` kept) mixed with ``greedy``
and ``random`` so the policy does not forget them. The learner's colour is drawn per
episode. Every ``eval_every`` steps the current policy plays ``eval_games`` league games
(colours swapped) against ``random`` and ``greedy``; the scores go to TensorBoard.

Checkpoints (every ``checkpoint_every`` steps, written to a temporary file and renamed):
``model.zip`` (SB3's format, for ``--resume``: it contains pickled objects, so resume only
your own runs) and ``policy.safetensors`` (the policy weights alone, loaded without
executing code by ``agents.ppo.PPOAgent`` and the zoo). ``--promote`` copies the final
weights to ``zoo/ppo/`` with a card.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, fields
from datetime import date
from pathlib import Path

import numpy as np

from checkers_env import Rules
from checkers_env.agent import BaseAgent, make_agent
from checkers_env.game import Game
from checkers_env.match import ballot_openings, play_game


@dataclass
class Args:
    """Arguments of a PPO run (each field is a command-line option)."""

    total_timesteps: int = 2_000_000
    """environment steps (hops) to train for"""
    n_envs: int = 8
    """single envs stepped together (DummyVecEnv: the opponents run in this process)"""
    n_steps: int = 256
    """steps per env per rollout"""
    batch_size: int = 512
    """minibatch size of the PPO update"""
    n_epochs: int = 4
    """PPO epochs per rollout"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.99
    """discount factor"""
    ent_coef: float = 0.01
    """entropy bonus"""
    net_arch: str = "256x256"
    """hidden layers of the policy and value nets"""
    reward: str = "win_loss"
    """'win_loss' or 'material' (the seed-000 shaping; see Checkers-v0)"""
    random_until: float = 0.1
    """fraction of the steps played against 'random' only"""
    greedy_until: float = 0.35
    """fraction of the steps after which the self-play pool starts (before: 'greedy')"""
    snapshot_every: int = 100_000
    """steps between frozen snapshots added to the self-play pool"""
    pool_size: int = 5
    """snapshots kept in the pool"""
    pool_greedy: float = 0.3
    """share of self-play-phase episodes played against 'greedy'"""
    pool_random: float = 0.1
    """share of self-play-phase episodes played against 'random'"""
    eval_every: int = 100_000
    """steps between evaluations against random and greedy (0: never)"""
    eval_games: int = 20
    """games per evaluation opponent (even: colours swapped)"""
    final_eval_games: int = 100
    """games per opponent in the evaluation at the end (even)"""
    checkpoint_every: int = 50_000
    """steps between checkpoints"""
    seed: int = 0
    """seed of everything"""
    out: str = "runs"
    """parent folder of the run folder ppo-s<seed>"""
    resume: str = ""
    """run folder to continue (its args.json is used; total_timesteps may be raised)"""
    promote: bool = False
    """write the final weights and a card to zoo/ppo/"""

    @property
    def run_dir(self) -> Path:
        return Path(self.resume) if self.resume else Path(self.out) / f"ppo-s{self.seed}"


def parse_args(argv: list[str] | None) -> Args:
    import argparse

    parser = argparse.ArgumentParser(prog="checkers train ppo", description=__doc__.split("\n\n")[0])
    docs = _field_docs()
    for f in fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, action="store_true", help=docs.get(f.name))
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(flag, type=kind, default=f.default, help=f"{docs.get(f.name)} (default {f.default})")
    namespace = parser.parse_args(argv)
    args = Args(**vars(namespace))
    if args.resume:
        saved_path = Path(args.resume) / "args.json"
        if not saved_path.is_file():
            parser.error(f"--resume {args.resume}: no args.json there (not a PPO run folder)")
        saved = json.loads(saved_path.read_text())
        saved.update(resume=args.resume, total_timesteps=max(args.total_timesteps, saved["total_timesteps"]),
                     promote=args.promote)
        args = Args(**saved)
    if args.eval_games % 2 or args.final_eval_games % 2:
        parser.error("--eval-games and --final-eval-games must be even (colour-swapped pairs)")
    return args


def _field_docs() -> dict[str, str]:
    """The docstring under each dataclass field (cleanrl-style help texts)."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(Args))
    docs, body = {}, tree.body[0].body
    for node, following in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(following, ast.Expr):
            docs[node.target.id] = following.value.value
    return docs


class OpponentPool(BaseAgent):
    """The env's opponent: at every episode (``reset``) one of its agents, drawn by weight."""

    kind = "pool"

    def __init__(self, seed: int | None = None):
        super().__init__(seed=seed)
        self.choices: list[tuple[BaseAgent, float]] = [(make_agent("random"), 1.0)]
        self.current = self.choices[0][0]

    def set_choices(self, choices: list[tuple[BaseAgent, float]]) -> None:
        self.choices = [(a, w) for a, w in choices if w > 0]

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        weights = np.array([w for _, w in self.choices], dtype=np.float64)
        index = int(self.rng.choice(len(self.choices), p=weights / weights.sum()))
        self.current = self.choices[index][0]
        self.current.reset(seed=int(self.rng.integers(0, 2**31 - 1)))

    def select_move(self, game: Game):
        return self.current.select_move(game)

    def __str__(self) -> str:
        return "pool"


def evaluate_policy(policy, opponents: list[str], games: int, seed: int) -> dict[str, float]:
    """Score (wins + draws / 2, per game) of a policy against each opponent: ``games // 2``
    ballot openings, each played with both colours."""
    from agents.ppo import PPOAgent

    me = PPOAgent.from_policy(policy)
    rng = np.random.default_rng(seed)
    openings = ballot_openings()
    scores = {}
    for spec in opponents:
        opponent = make_agent(spec)
        total = 0.0
        for g in range(games // 2):
            opening = openings[int(rng.integers(len(openings)))]
            for black, white in ((me, opponent), (opponent, me)):
                record = play_game(black, white, opening, Rules(), rng)
                total += record.score(str(me))
        scores[spec] = total / games
    return scores


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def save_policy_weights(policy, path: Path) -> None:
    """The policy's state dict as safetensors (atomic)."""
    from safetensors.torch import save

    state = {k: v.detach().cpu().contiguous() for k, v in policy.state_dict().items()}
    _atomic_write_bytes(path, save(state))


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def train(args: Args) -> Path:
    """Run (or resume) training; returns the run folder."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv
    from tqdm import tqdm

    from agents.ppo import PPOAgent

    run_dir = args.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
    state_path = run_dir / "state.json"
    state = json.loads(state_path.read_text()) if args.resume and state_path.exists() else {"snapshots": 0, "wall_time_s": 0.0}
    command = "python -m training.ppo " + " ".join(sys.argv[1:])
    if args.resume:
        state.setdefault("resumed_with", []).append(command)
    else:
        state["command"] = command

    pools = [OpponentPool(seed=args.seed * 1000 + i) for i in range(args.n_envs)]

    def make_env(i: int):
        def thunk():
            return Monitor(gym.make("Checkers-v0", opponent=pools[i], agent_color="random", reward=args.reward))

        return thunk

    vec_env = DummyVecEnv([make_env(i) for i in range(args.n_envs)])
    vec_env.seed(args.seed)
    model_path = run_dir / "model.zip"
    if args.resume and model_path.exists():
        model = MaskablePPO.load(model_path, env=vec_env, device="cpu", tensorboard_log=str(run_dir / "tb"))
    else:
        model = MaskablePPO(
            "MlpPolicy", vec_env, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
            learning_rate=args.learning_rate, gamma=args.gamma, ent_coef=args.ent_coef,
            policy_kwargs=dict(net_arch=dict(pi=_sizes(args.net_arch), vf=_sizes(args.net_arch))),
            seed=args.seed, device="cpu", tensorboard_log=str(run_dir / "tb"), verbose=0,
        )
    snapshots: list[PPOAgent] = []
    for path in sorted(run_dir.glob("snapshot-*.safetensors"))[-args.pool_size :]:
        snapshots.append(PPOAgent(weights=str(path), net_arch=args.net_arch, deterministic=False))
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

    class Schedule(BaseCallback):
        def __init__(self):
            super().__init__()
            self.bar = tqdm(total=args.total_timesteps, initial=model.num_timesteps, unit="step", desc="ppo", dynamic_ncols=True)
            self.last_snapshot = model.num_timesteps
            self.last_eval = model.num_timesteps
            self.last_checkpoint = model.num_timesteps
            self.phase = update_schedule(model.num_timesteps)

        def _on_step(self) -> bool:
            self.bar.update(args.n_envs)
            return True

        def _on_rollout_end(self) -> None:
            steps = model.num_timesteps
            if steps >= args.greedy_until * args.total_timesteps and steps - self.last_snapshot >= args.snapshot_every or (
                steps >= args.greedy_until * args.total_timesteps and not snapshots
            ):
                self.last_snapshot = steps
                state["snapshots"] += 1
                path = run_dir / f"snapshot-{state['snapshots']:04d}.safetensors"
                save_policy_weights(model.policy, path)
                snapshots.append(PPOAgent.from_policy(copy.deepcopy(model.policy), deterministic=False))
                del snapshots[: -args.pool_size]
            self.phase = update_schedule(steps)
            self.logger.record("schedule/phase_self_play", float(self.phase == "self-play"))
            self.logger.record("schedule/pool_snapshots", len(snapshots))
            if args.eval_every and steps - self.last_eval >= args.eval_every:
                self.last_eval = steps
                scores = evaluate_policy(model.policy, ["random", "greedy"], args.eval_games, seed=steps)
                for spec, score in scores.items():
                    self.logger.record(f"eval/score_vs_{spec}", score)
                self.bar.write(f"{steps} steps ({self.phase}): " + ", ".join(f"{k} {100 * v:.0f} %" for k, v in scores.items()))
            if steps - self.last_checkpoint >= args.checkpoint_every:
                self.last_checkpoint = steps
                checkpoint()
            self.bar.set_postfix(phase=self.phase, snapshots=len(snapshots))

    def checkpoint() -> None:
        tmp = run_dir / "model.tmp.zip"
        model.save(tmp)
        os.replace(tmp, model_path)
        save_policy_weights(model.policy, run_dir / "policy.safetensors")
        state["wall_time_s"] = wall_before + time.time() - started
        state["timesteps"] = model.num_timesteps
        _atomic_write_bytes(state_path, json.dumps(state, indent=2).encode())

    callback = Schedule()
    remaining = args.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=False, tb_log_name="ppo")
    callback.bar.close()
    checkpoint()
    final = evaluate_policy(model.policy, ["random", "greedy"], args.final_eval_games, seed=args.seed + 1)
    state["final_eval"] = final
    _atomic_write_bytes(state_path, json.dumps(state, indent=2).encode())
    print(f"trained {model.num_timesteps} steps in {state['wall_time_s'] / 60:.1f} min; "
          + ", ".join(f"vs {k}: {100 * v:.1f} %" for k, v in final.items()))
    if args.promote:
        promote(args, run_dir, state)
    return run_dir


def _sizes(net_arch: str) -> list[int]:
    from agents.ppo import parse_net_arch

    return parse_net_arch(net_arch)


def promote(args: Args, run_dir: Path, state: dict) -> Path:
    """Copy the final weights to ``zoo/ppo/`` and write its card."""
    from agents.zoo import zoo_dir

    target = zoo_dir() / "ppo"
    target.mkdir(parents=True, exist_ok=True)
    _atomic_write_bytes(target / "weights.safetensors", (run_dir / "policy.safetensors").read_bytes())
    card = {
        "name": "ppo",
        "kind": "ppo",
        "params": {"net_arch": args.net_arch, "deterministic": True},
        "weights": "weights.safetensors",
        "description": "MaskablePPO (sb3-contrib) on Checkers-v0, one hop per action, trained against "
        "random, then greedy, then a self-play pool of its own snapshots.",
        "training": {
            "command": " ; then ".join([state.get("command", "?"), *state.get("resumed_with", [])]),
            "budget": f"{args.total_timesteps} env steps",
            "wall_time_s": round(state["wall_time_s"]),
            "args": asdict(args),
            "final_eval": state.get("final_eval", {}),
        },
        "commit": _commit(),
        "date": date.today().isoformat(),
    }
    (target / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"promoted to {target}")
    return target


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
