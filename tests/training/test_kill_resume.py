"""Every trainer, killed (SIGKILL) or interrupted (SIGINT, as Ctrl-C) at several moments and
resumed, finishes its run with files that agree with its saved state; interrupted, it finishes
with the weights and the state of a run never interrupted, bit for bit.

The moments are exact, not timed: the trainer runs in a child whose ``os.replace`` (the last
step of every atomic write, ``checkers_env.files.write_atomic``) signals the child right after
its N-th write into the run folder, or whose named function (an optimizer's ``step``, a game
kernel) signals it right after its N-th call. A run is killed after one write, its resume after
another, and a last resume must finish the budget.

Each child is a process of its own, forked from a server that has imported torch and the
trainers once (multiprocessing's forkserver: the server only imports, so every child starts
its own threads); a fresh interpreter spent about 4 of a child's 5 seconds importing them.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import uuid
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

#: The child: ``checkers`` itself, with a write counter and a call counter that signal it; run
#: by ``exec`` in a forked process, its parameters in its globals (``root``, ``log``,
#: ``folder``, ``argv``; ``after``: the write after which, ``call``: ``(module, attribute, n)``,
#: the n-th call after which, ``signum`` is sent ``times`` times; ``mark``: an environment
#: variable that the child's own children inherit).
CHILD = """
import importlib, os, signal, sys
os.chdir(root)
os.environ[mark] = "1"
out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
os.dup2(out, 1)
os.dup2(out, 2)
written = calls = 0
real_replace = os.replace

def stop():
    for _ in range(times):  # a second Ctrl-C comes after the handler has seen the first
        os.kill(os.getpid(), signum)

def replace(source, target, *args, **kwargs):
    global written
    real_replace(source, target, *args, **kwargs)
    if os.path.abspath(target).startswith(os.path.join(folder, "")):
        written += 1
        if written == after:
            stop()

os.replace = replace
if call:
    owner = importlib.import_module(call[0])
    *path, name = call[1].split(".")
    for part in path:
        owner = getattr(owner, part)
    real_call = getattr(owner, name)

    def counted(*args, **kwargs):
        global calls
        result = real_call(*args, **kwargs)
        calls += 1
        if calls == call[2]:
            stop()
        return result

    setattr(owner, name, counted)
from checkers_evaluation.cli import main
sys.exit(main(argv))
"""

#: What every child needs, imported once by the fork server.
PRELOAD = [
    "torch",
    "torch._dynamo",
    "stable_baselines3",
    "sb3_contrib",
    "checkers_evaluation.cli",
    *(
        f"checkers_training.{name}"
        for name in ("alphazero", "behaviour_cloning", "mcrd_net", "outcome_net", "ppo", "slow_fast", "td_minimax")
    ),
]


@pytest.fixture(scope="module")
def forks():
    """The fork server's context, its modules imported once for the module's tests."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _train(
    forks,
    trainer: str,
    argv: list[str],
    run: Path,
    kill_after: int | None,
    signum: int = signal.SIGKILL,
    call: tuple[str, str, int] | None = None,
    times: int = 1,
    mark: str = "CHECKERS_TEST_CHILD",
) -> int:
    log = run.with_name(f"{run.name}.log")  # every run of the folder, one after another
    log.parent.mkdir(parents=True, exist_ok=True)
    child = forks.Process(
        target=exec,
        args=(
            CHILD,
            {
                "root": str(ROOT),
                "log": str(log),
                "folder": str(run.resolve()),
                "after": kill_after or 0,
                "argv": ["train", trainer, *argv],
                "signum": signum,
                "call": call,
                "times": times,
                "mark": mark,
            },
        ),
    )
    child.start()
    child.join(300)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"checkers train {trainer} ran past 300 s:\n{log.read_text()[-2000:]}")
    if kill_after is None and call is None:
        assert child.exitcode == 0, log.read_text()[-2000:]
    return child.exitcode


def _kill_and_resume(forks, trainer: str, tmp_path: Path, options: list[str], kills: tuple[int, int]) -> Path:
    """Start the run, kill it after write ``kills[0]``; resume it, kill that after its write
    ``kills[1]``; resume it to the end. Returns the run folder."""
    runs = tmp_path / "runs"
    run = runs / trainer / "r"
    first = [*options, "--out", str(run), "--no-progress", "--no-tensorboard", "--eval-games", "0"]
    assert _train(forks, trainer, first, run, kills[0]) == -signal.SIGKILL, "the run ended before its kill"
    resume = ["--out", str(run), "--resume", "--no-progress", "--no-tensorboard"]
    assert _train(forks, trainer, resume, run, kills[1]) == -signal.SIGKILL, "the resume ended before its kill"
    _train(forks, trainer, resume, run, None)
    return run


def _checkpoint(path: Path) -> dict:
    return torch.load(path, weights_only=True)


def _same_tensors(module_state: dict, weights: Path, names: dict[str, str] | None = None) -> bool:
    from safetensors.torch import load_file

    saved = load_file(weights)
    for key, value in module_state.items():
        name = (names or {}).get(key, key)
        if name in saved and not torch.equal(saved[name], value):
            return False
    return True


#: A PPO run of 4 checkpoints of 256 steps (a rollout each): against random, then greedy, then
#: its snapshot pool (a snapshot at steps 512, 768 and 1024).
PPO_OPTIONS = [
    "--total-timesteps",
    "1024",
    "--n-envs",
    "2",
    "--n-steps",
    "128",
    "--batch-size",
    "64",
    "--n-epochs",
    "1",
    "--eval-every",
    "0",
    "--checkpoint-every",
    "256",
    "--net-arch",
    "8",
    "--random-until",
    "0.25",
    "--greedy-until",
    "0.5",
    "--snapshot-every",
    "256",
    "--final-eval-games",
    "0",
]


def test_ppo_killed_between_a_snapshot_and_its_checkpoint(tmp_path, forks):
    pytest.importorskip("sb3_contrib")
    # Writes: run.json, then per checkpoint checkpoint.pt, policy, state.json; snapshot 1 is
    # write 5, before the checkpoint that counts it. The resume's third write is a checkpoint.
    run = _kill_and_resume(forks, "ppo", tmp_path, PPO_OPTIONS, (5, 3))
    saved = _checkpoint(run / "checkpoint.pt")
    state = json.loads((run / "state.json").read_text())
    assert saved["num_timesteps"] == state["timesteps"] >= 1024
    assert {k: v for k, v in state.items() if k != "final_eval"} == json.loads(saved["state"])
    files = sorted(p.name for p in (run / "snapshots").iterdir())
    assert files == [f"snapshot-{n:04d}.safetensors" for n in range(1, state["snapshots"] + 1)]
    assert _same_tensors(saved["policy"], run / "policy.safetensors")


def test_ppo_killed_twice_resumes_to_the_weights_of_an_unbroken_run(tmp_path, forks, unbroken):
    pytest.importorskip("sb3_contrib")
    whole = _recorded(unbroken("ppo", PPO_OPTIONS))
    # Write 6 is the checkpoint of step 512, so the resume starts mid-run, with a snapshot in its
    # pool; its write 4 is snapshot 2, taken in the games of the next chunk, before its checkpoint.
    run = _kill_and_resume(forks, "ppo", tmp_path, PPO_OPTIONS, (6, 4))
    assert _differences(whole, _recorded(run)) == []


def test_ppo_resume_drops_the_snapshots_its_checkpoint_does_not_count(tmp_path):
    from checkers_env import WeightsError
    from checkers_training.ppo import agree_with_checkpoint, snapshot_path

    for number in (1, 2, 3):
        snapshot_path(tmp_path, number).parent.mkdir(exist_ok=True)
        snapshot_path(tmp_path, number).write_bytes(b"weights")
    agree_with_checkpoint(tmp_path, 2)
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == [
        "snapshot-0001.safetensors",
        "snapshot-0002.safetensors",
    ]
    snapshot_path(tmp_path, 1).unlink()
    with pytest.raises(WeightsError, match="counts 2 snapshots, but snapshot-0001.safetensors is missing"):
        agree_with_checkpoint(tmp_path, 2)


def test_td_minimax_killed_before_its_first_checkpoint_and_after_a_snapshot(tmp_path, forks):
    options = ["--games", "6", "--checkpoint-every", "2", "--hidden", "8", "--depth", "1"]
    # Write 1 is run.json (no checkpoint yet); the resume's write 3 is the snapshot of 2 games.
    run = _kill_and_resume(forks, "td-minimax", tmp_path, options, (1, 3))
    from safetensors import safe_open

    with safe_open(str(run / "checkpoint.safetensors"), "np") as handle:
        saved = json.loads(handle.metadata()["training_state"])
    assert saved["games"] == 6
    assert json.loads((run / "checkpoint.json").read_text()) == saved
    snapshots = sorted(int(p.stem.removeprefix("games_")) for p in (run / "snapshots").iterdir())
    assert snapshots and max(snapshots) <= saved["games"]


def _tiny_pdn(path: Path) -> Path:
    from checkers_env import Rules, make_agent
    from checkers_env.match import play_game

    games = []
    for seed in range(6):
        record = play_game(
            make_agent("greedy"), make_agent("random", seed=seed), "", Rules(max_plies=60), np.random.default_rng(seed)
        )
        games.append(record.to_game().to_pdn())
    path.write_text("\n\n".join(games) + "\n")
    return path


def test_bc_killed_between_its_checkpoint_and_its_weights(tmp_path, forks):
    data = _tiny_pdn(tmp_path / "games.pdn")
    options = ["--data", str(data), "--steps", "6", "--checkpoint-every", "2", "--batch-size", "16", "--hidden", "8"]
    # Writes: run.json, then checkpoint.pt and weights at each checkpoint.
    run = _kill_and_resume(forks, "bc", tmp_path, options, (2, 2))
    saved = _checkpoint(run / "checkpoint.pt")
    assert json.loads(saved["state"])["step"] == 6
    linears = [k for k in saved["policy"] if k.endswith("weight")]
    assert linears  # the weights file holds the same layers under its own names
    from safetensors.torch import load_file

    weights = load_file(run / "weights.safetensors")
    assert sorted(torch.cat([t.flatten() for t in weights.values()]).tolist()) == sorted(
        torch.cat([t.flatten() for t in saved["policy"].values()]).tolist()
    )


def test_mcrd_net_killed_between_its_checkpoint_and_its_weights(tmp_path, forks):
    from checkers_agents.mcrd.data import games_params, generate

    data = tmp_path / "data"
    generate(data, "interpolated", games_params(4, shard_size=2), seed=1, progress=False)
    options = ["--data", str(data), "--steps", "6", "--checkpoint-every", "2", "--batch-size", "16"]
    run = _kill_and_resume(forks, "mcrd-net", tmp_path, options, (2, 2))
    saved = _checkpoint(run / "checkpoint.pt")
    assert json.loads(saved["state"])["step"] == 6
    assert _same_tensors(saved["net"], run / "weights.safetensors")


def test_slow_fast_killed_between_its_weights_and_its_checkpoint(tmp_path, forks):
    options = [
        "--sets",
        "2",
        "--episodes-per-set",
        "2",
        "--tactical-games",
        "4",
        "--endgame-trees",
        "4",
        "--endgame-max-batches",
        "1",
        "--max-game-plies",
        "60",
        "--no-progress-plies",
        "30",
        "--subtree-depth",
        "2",
        "--buffer-capacity",
        "300",
        "--hidden",
        "16",
        "--batch-size",
        "32",
    ]
    # Writes: run.json, a checkpoint per episode, then the set's weights and its checkpoint:
    # write 4 is set 1's weights, before the checkpoint that ends the set.
    run = _kill_and_resume(forks, "slow-fast", tmp_path, options, (4, 3))
    saved = _checkpoint(run / "checkpoint.pt")
    assert saved["counters"]["set"] == 2 and saved["counters"]["episode"] == 0
    assert _same_tensors(saved["slow_net"], run / "weights.safetensors")


def test_outcome_net_killed_between_its_generation_files_and_its_checkpoint(tmp_path, forks):
    options = [
        "--generations",
        "2",
        "--games",
        "4",
        "--shard-size",
        "2",
        "--depth",
        "1",
        "--random-plies",
        "2",
        "--egdb-pieces",
        "0",
        "--hidden",
        "8",
        "--batch-size",
        "32",
        "--workers",
        "1",
        "--epochs",
        "1",
    ]
    run = _kill_and_resume(forks, "outcome-net", tmp_path, options, (6, 4))
    saved = _checkpoint(run / "checkpoint.pt")
    state = json.loads(saved["state"])
    assert state["generation"] == 2
    assert _same_tensors(saved["net"], run / "weights.safetensors")


ALPHAZERO_OPTIONS = [
    "--generations",
    "2",
    "--games",
    "4",
    "--shard-size",
    "2",
    "--simulations",
    "4",
    "--slots",
    "2",
    "--hidden",
    "8",
    "--middle",
    "8",
    "--batch-size",
    "32",
    "--workers",
    "1",
    "--epochs",
    "2",
]


@pytest.fixture(scope="module")
def alphazero_unbroken(tmp_path_factory, forks) -> dict:
    """The weights of the AlphaZero run never killed (once for the kills below)."""
    from safetensors.numpy import load_file

    whole = tmp_path_factory.mktemp("alphazero") / "whole"
    options = [*ALPHAZERO_OPTIONS, "--out", str(whole), "--no-progress", "--no-tensorboard", "--eval-games", "0"]
    _train(forks, "alphazero", options, whole, None)
    return load_file(whole / "weights.safetensors")


@pytest.mark.parametrize("kills", [(1, 3), (5, 4), (8, 2)])
def test_alphazero_killed_anywhere_resumes_to_the_weights_of_an_unbroken_run(
    tmp_path, kills, alphazero_unbroken, forks
):
    from safetensors.numpy import load_file

    run = _kill_and_resume(forks, "alphazero", tmp_path, ALPHAZERO_OPTIONS, kills)
    saved = _checkpoint(run / "checkpoint.pt")
    assert json.loads(saved["state"])["generation"] == 2
    assert _same_tensors(saved["net"], run / "weights.safetensors")
    resumed = load_file(run / "weights.safetensors")
    assert resumed.keys() == alphazero_unbroken.keys()
    assert all(np.array_equal(alphazero_unbroken[name], resumed[name]) for name in resumed)


# -- Ctrl-C ------------------------------------------------------------------------------------

#: Files whose values are times, not training: they differ between any two runs.
TIMES = {"wall_s", "wall_seconds", "wall_time_s", "selfplay_s", "train_s", "label_s"}


def _recorded(run: Path) -> dict:
    """What a run folder holds of its training: the tensors of its weights files and its
    checkpoint, and its state (JSON text read as values), without times and the session's
    options."""
    from safetensors.numpy import load_file

    def plain(value):
        if isinstance(value, torch.Tensor):
            return value.numpy()
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if k not in TIMES | {"args"}}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, str) and value[:1] in "{[":
            return plain(json.loads(value))
        return value

    files = {path.name: load_file(path) for path in run.glob("*.safetensors")}
    files.update({path.name: plain(_checkpoint(path)) for path in run.glob("checkpoint.pt")})
    files.update({path.name: plain(json.loads(path.read_text())) for path in run.glob("checkpoint.json")})
    return files


def _differences(whole, resumed, where: str = "") -> list[str]:
    """Where ``resumed`` differs from ``whole`` (with the largest difference of an array)."""
    if isinstance(whole, dict) and isinstance(resumed, dict):
        if whole.keys() != resumed.keys():
            return [f"{where}: keys {sorted(whole)} != {sorted(resumed)}"]
        return [d for key in whole for d in _differences(whole[key], resumed[key], f"{where}/{key}")]
    if isinstance(whole, list) and isinstance(resumed, list) and len(whole) == len(resumed):
        return [d for k, (a, b) in enumerate(zip(whole, resumed)) for d in _differences(a, b, f"{where}[{k}]")]
    if isinstance(whole, np.ndarray) and isinstance(resumed, np.ndarray) and whole.shape == resumed.shape:
        if np.array_equal(whole, resumed):
            return []
        if whole.dtype.kind == "f":
            return [f"{where}: largest difference {np.max(np.abs(whole - resumed)):.3g}"]
        return [f"{where}: differs"]
    both_nan = isinstance(whole, float) and isinstance(resumed, float) and np.isnan(whole) and np.isnan(resumed)
    if type(whole) is not type(resumed) or (whole != resumed and not both_nan):
        return [f"{where}: {whole!r} != {resumed!r}"]
    return []


@pytest.fixture(scope="module")
def tiny_pdn(tmp_path_factory) -> Path:
    return _tiny_pdn(tmp_path_factory.mktemp("pdn") / "games.pdn")


@pytest.fixture(scope="module")
def mcrd_data(tmp_path_factory) -> Path:
    from checkers_agents.mcrd.data import games_params, generate

    data = tmp_path_factory.mktemp("mcrd") / "data"
    generate(data, "interpolated", games_params(4, shard_size=2), seed=1, progress=False)
    return data


def _options(trainer: str, tiny_pdn: Path, mcrd_data: Path) -> list[str]:
    return {
        "bc": [
            "--data",
            str(tiny_pdn),
            "--steps",
            "6",
            "--checkpoint-every",
            "2",
            "--batch-size",
            "16",
            "--hidden",
            "8",
        ],
        "mcrd-net": ["--data", str(mcrd_data), "--steps", "6", "--checkpoint-every", "2", "--batch-size", "16"],
        "td-minimax": ["--games", "6", "--checkpoint-every", "2", "--hidden", "8", "--depth", "1"],
        "slow-fast": [
            "--sets",
            "2",
            "--episodes-per-set",
            "2",
            "--tactical-games",
            "4",
            "--endgame-trees",
            "4",
            "--endgame-max-batches",
            "1",
            "--max-game-plies",
            "60",
            "--no-progress-plies",
            "30",
            "--subtree-depth",
            "2",
            "--buffer-capacity",
            "300",
            "--hidden",
            "16",
            "--batch-size",
            "32",
        ],
        "alphazero": ALPHAZERO_OPTIONS,
        "ppo": PPO_OPTIONS,
        "outcome-net": [
            "--generations",
            "2",
            "--games",
            "4",
            "--shard-size",
            "2",
            "--depth",
            "1",
            "--random-plies",
            "2",
            "--egdb-pieces",
            "0",
            "--hidden",
            "8",
            "--batch-size",
            "32",
            "--workers",
            "1",
            "--epochs",
            "2",
        ],
    }[trainer]


SESSION_OPTIONS = ["--no-progress", "--no-tensorboard"]


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory, forks, tiny_pdn, mcrd_data):
    """``unbroken(trainer, options) -> run folder``: the run never interrupted, made once."""
    made: dict[tuple, Path] = {}

    def run(trainer: str, options: list[str]) -> Path:
        key = (trainer, *options)
        if key not in made:
            folder = tmp_path_factory.mktemp(trainer) / "r"  # the same name as the interrupted run's
            _train(
                forks, trainer, ["--eval-games", "0", *options, "--out", str(folder), *SESSION_OPTIONS], folder, None
            )
            made[key] = folder
        return made[key]

    return run


#: Evaluation games every 2 games, so that a Ctrl-C can come between an evaluation and its record.
TD_EVALUATIONS = ["--eval-every", "2", "--eval-games", "2", "--eval-opponents", "random"]

#: Where a Ctrl-C lands: ``(trainer, (module, function, n), Ctrl-Cs, more options)``: right
#: after the n-th call of the function: after a minibatch was drawn and its gradients taken,
#: after the optimizer stepped (the step not yet counted), after a game changed the weights
#: (its random state not yet kept), after evaluation games (their scores not yet recorded), in
#: an epoch or an episode between two checkpoints, in a PPO update of the rollouts after a
#: checkpoint, or right after a checkpoint's first file; twice: the second breaks into the step
#: the first let finish.
INTERRUPTS = [
    ("bc", ("torch", "Tensor.backward", 3), 1, []),
    ("bc", ("torch.optim", "Adam.step", 5), 1, []),
    ("bc", ("torch.optim", "Adam.step", 3), 2, []),
    ("mcrd-net", ("torch.optim", "Adam.step", 3), 1, []),
    ("td-minimax", ("checkers_agents.td_minimax.learn", "play_training_game", 3), 1, []),
    ("td-minimax", ("checkers_training.scaffold", "evaluate", 1), 1, TD_EVALUATIONS),
    ("slow-fast", ("torch.optim", "SGD.step", 3), 1, []),
    ("alphazero", ("torch.optim", "AdamW.step", 3), 1, []),
    ("alphazero", ("torch.optim", "AdamW.step", 25), 1, []),
    ("outcome-net", ("torch.optim", "Adam.step", 3), 1, []),
    ("ppo", ("torch.optim", "Adam.step", 6), 1, []),
    ("ppo", ("checkers_training.scaffold", "save_checkpoint", 2), 1, []),
]


@pytest.mark.parametrize(
    ("trainer", "call", "times", "more"),
    INTERRUPTS,
    ids=[f"{t}-{c[1]}-{c[2]}{'-twice' if n > 1 else ''}" for t, c, n, _ in INTERRUPTS],
)
def test_interrupted_and_resumed_runs_end_as_the_unbroken_run(
    trainer, call, times, more, tmp_path, forks, unbroken, tiny_pdn, mcrd_data
):
    if trainer == "ppo":
        pytest.importorskip("sb3_contrib")
    options = [*_options(trainer, tiny_pdn, mcrd_data), *more]
    whole = _recorded(unbroken(trainer, options))
    run = tmp_path / "r"
    first = ["--eval-games", "0", *options, "--out", str(run), *SESSION_OPTIONS]
    log = run.with_name("r.log")
    assert _train(forks, trainer, first, run, None, signal.SIGINT, call, times) == 130, log.read_text()[-2000:]
    assert "interrupted" in log.read_text()
    _train(forks, trainer, ["--out", str(run), "--resume", *SESSION_OPTIONS], run, None)
    assert _differences(whole, _recorded(run)) == []


def _processes_with(mark: str) -> list[int]:
    """The processes whose environment holds ``mark`` (those a child started inherit it)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"{mark}=1".encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:  # ended, or not ours
            pass
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads the processes' environments in /proc")
def test_interrupted_in_self_play_with_workers_leaves_no_worker_and_resumes_exactly(tmp_path, forks, unbroken):
    whole = _recorded(unbroken("alphazero", ALPHAZERO_OPTIONS))
    options = list(ALPHAZERO_OPTIONS)
    options[options.index("--workers") + 1] = "2"
    run, mark = tmp_path / "r", f"CHECKERS_TEST_CHILD_{uuid.uuid4().hex}"
    first = ["--eval-games", "0", *options, "--out", str(run), *SESSION_OPTIONS]
    # Right after the first shard is written, while the other worker plays the second.
    shard_written = ("checkers_env.shards", "write_atomic", 1)
    assert _train(forks, "alphazero", first, run, None, signal.SIGINT, shard_written, mark=mark) == 130
    assert _processes_with(mark) == []
    saved = json.loads(_checkpoint(run / "checkpoint.pt")["state"])  # saved: self-play changes no state
    assert (saved["generation"], saved["epoch"], saved["steps"]) == (0, 0, 0)
    _train(forks, "alphazero", ["--out", str(run), "--resume", *SESSION_OPTIONS], run, None)
    assert _differences(whole, _recorded(run)) == []
