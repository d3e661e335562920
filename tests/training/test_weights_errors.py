"""One ``WeightsError`` (a ``CheckersError``) from every loader of weights and checkpoints,
for a missing, truncated, corrupt or mismatched file, naming the file and the fault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkers_env import CheckersError, WeightsError


def td_net_file(path: Path) -> None:
    from checkers_agents.td_minimax import Net

    Net.initial(1).save(path)


def slow_fast_file(path: Path, hidden=(8,)) -> None:
    from checkers_agents.slow_fast import ValueNet, save_weights

    save_weights(ValueNet(hidden), path)


def ppo_file(path: Path, net_arch: str = "16x16") -> None:
    from checkers_agents.ppo import build_policy
    from checkers_training.ppo import save_policy_weights

    save_policy_weights(build_policy(net_arch), path)


def load_td_net(path: Path):
    from checkers_agents.td_minimax import Net

    return Net.load(path)


def load_slow_fast(path: Path):
    from checkers_agents.slow_fast import load_weights

    return load_weights(path)


def load_ppo(path: Path):
    pytest.importorskip("sb3_contrib")
    from checkers_agents.ppo import load_policy

    return load_policy(str(path), "16x16")


def load_slow_fast_checkpoint(path: Path):
    from checkers_training.slow_fast import Args, SlowFastLearner

    SlowFastLearner(Args(hidden="8")).load_checkpoint(path)


def slow_fast_checkpoint(path: Path, hidden: str = "8") -> None:
    from checkers_training.slow_fast import Args, SlowFastLearner

    SlowFastLearner(Args(hidden=hidden, buffer_capacity=10)).save_checkpoint(path)


def load_td_checkpoint(path: Path):
    from checkers_training.td_minimax import load_checkpoint

    return load_checkpoint(path.parent)


def td_checkpoint(path: Path) -> None:
    from checkers_agents.td_minimax import Net
    from checkers_training.td_minimax import TrainingState, save_checkpoint

    save_checkpoint(path.parent, Net.initial(1), TrainingState(run_name="r", args={}), snapshot=False)


LOADERS = {
    # name: (write a good file, load, file name, write a mismatched file)
    "td-minimax net": (td_net_file, load_td_net, "w.safetensors", slow_fast_file),
    "slow-fast net": (slow_fast_file, load_slow_fast, "w.safetensors", td_net_file),
    "ppo policy": (ppo_file, load_ppo, "w.safetensors", lambda p: ppo_file(p, "32x32")),
    "td-minimax checkpoint": (td_checkpoint, load_td_checkpoint, "checkpoint.safetensors", td_net_file),
    "slow-fast checkpoint": (
        slow_fast_checkpoint,
        load_slow_fast_checkpoint,
        "checkpoint.pt",
        lambda p: slow_fast_checkpoint(p, "4,4"),
    ),
}


@pytest.fixture(params=sorted(LOADERS))
def loader(request):
    return LOADERS[request.param]


def test_a_good_file_loads(tmp_path, loader):
    write, load, name, _ = loader
    write(tmp_path / name)
    load(tmp_path / name)


def test_missing(tmp_path, loader):
    _, load, name, _ = loader
    with pytest.raises(WeightsError, match="does not exist") as error:
        load(tmp_path / name)
    assert str(tmp_path / name) in str(error.value)


def test_truncated(tmp_path, loader):
    write, load, name, _ = loader
    write(tmp_path / name)
    data = (tmp_path / name).read_bytes()
    (tmp_path / name).write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightsError) as error:
        load(tmp_path / name)
    assert str(tmp_path / name) in str(error.value)


def test_corrupt(tmp_path, loader):
    _, load, name, _ = loader
    (tmp_path / name).write_bytes(b"\x00\x01 this is no weights file" * 10)
    with pytest.raises(WeightsError) as error:
        load(tmp_path / name)
    assert str(tmp_path / name) in str(error.value)


def test_mismatched(tmp_path, loader):
    _, load, name, write_other = loader
    write_other(tmp_path / name)
    with pytest.raises(WeightsError) as error:
        load(tmp_path / name)
    assert str(tmp_path / name) in str(error.value)


def test_one_weights_error_under_checkers_error():
    from checkers_agents import slow_fast, td_minimax

    assert issubclass(WeightsError, CheckersError)
    assert td_minimax.WeightsError is slow_fast.WeightsError is WeightsError


def test_ppo_checkpoint(tmp_path):
    pytest.importorskip("sb3_contrib")
    import torch

    from checkers_training.ppo import load_checkpoint

    path = tmp_path / "checkpoint.pt"
    with pytest.raises(WeightsError, match="does not exist"):
        load_checkpoint(path, None)
    for data in (b"PK\x03\x04 truncated", b"garbage" * 20):
        path.write_bytes(data)
        with pytest.raises(WeightsError, match="checkpoint.pt' is truncated or corrupt"):
            load_checkpoint(path, None)
    torch.save({"state": {}}, path)  # a torch file, but no policy in it
    with pytest.raises(WeightsError, match="checkpoint.pt' does not match this run's MaskablePPO policy"):
        load_checkpoint(path, None)


def zoo_entry(zoo: Path, kind: str, write, params=None) -> None:
    folder = zoo / "entry"
    folder.mkdir(parents=True)
    card = {
        "name": "entry",
        "kind": kind,
        "params": params or {},
        "weights": "weights.safetensors",
        "description": "d",
        "commit": "c",
        "date": "2026-01-01",
    }
    (folder / "card.json").write_text(json.dumps(card))
    if write:
        write(folder / "weights.safetensors")


@pytest.mark.parametrize(
    ("kind", "write", "fault"),
    [
        ("td-minimax", None, "does not exist"),
        ("td-minimax", lambda p: p.write_bytes(b"garbage" * 10), "corrupt"),
        ("td-minimax", lambda p: (td_net_file(p), p.write_bytes(p.read_bytes()[:100])), "corrupt"),
        ("td-minimax", slow_fast_file, "not a td-minimax net"),
        ("slow-fast", td_net_file, "not slow-fast weights"),
    ],
)
def test_zoo_card_weights(tmp_path, monkeypatch, kind, write, fault):
    from checkers_env import make_agent

    monkeypatch.setenv("CHECKERS_ZOO", str(tmp_path))
    zoo_entry(tmp_path, kind, write)
    with pytest.raises(WeightsError, match=fault) as error:
        make_agent("zoo:entry")
    # A missing file is named by the entry (the zoo's own path stays out of messages a
    # server may show); a file that is there is named by its path by the weights reader.
    named = "zoo entry 'entry': weights file 'weights.safetensors'" if write is None else str(tmp_path / "entry")
    assert named in str(error.value)
