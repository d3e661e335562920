"""Checkpoints: written atomically (:func:`checkers_env.files.write_atomic`, so a kill never
leaves a half-written file) and read without executing code (``torch.load(weights_only=True)``)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from checkers_env.errors import WeightsError
from checkers_env.files import write_atomic

#: A run's torch checkpoint (what ``--resume`` reads), in its run folder.
CHECKPOINT = "checkpoint.pt"
#: The weights a run trains, in its run folder (what ``--promote`` copies into the zoo).
WEIGHTS = "weights.safetensors"


def read_checkpoint(path: Path) -> bytes:
    """The bytes of a run's checkpoint file.

    Raises:
        WeightsError: the file is missing or unreadable.
    """
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise WeightsError(f"checkpoint {str(path)!r} does not exist") from None
    except OSError as error:
        raise WeightsError(f"checkpoint {str(path)!r} cannot be read: {error}") from None


def save_torch_checkpoint(path: Path, document: dict) -> None:
    """Write ``document`` (tensors, numbers, strings, dicts of them) with ``torch.save``,
    atomically: the old checkpoint stays whole until the new one is."""
    import torch

    data = io.BytesIO()
    torch.save(document, data)
    write_atomic(path, data.getvalue())


def load_torch_checkpoint(path: Path, restore: Callable[[dict], Any], network: str = "this run's network") -> Any:
    """Read a :func:`save_torch_checkpoint` file without executing code
    (``weights_only=True``) and hand it to ``restore``; returns what ``restore`` returns.

    Raises:
        WeightsError: the file is missing, truncated or corrupt, or ``restore`` finds it
            does not fit (a missing key or a tensor of another shape): "does not match
            ``network``".
    """
    import torch

    data = read_checkpoint(path)
    try:
        saved = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")  # a GPU run resumes anywhere
    except Exception as error:  # torch raises several kinds for a damaged zip or pickle
        raise checkpoint_error(path, "is truncated or corrupt", error) from None
    try:
        return restore(saved)
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise checkpoint_error(path, f"does not match {network}", error) from None


def save_training_state(path: Path, state: dict, **modules) -> None:
    """The checkpoint of a torch trainer: the state dict of each of ``modules`` (a net, its
    optimizer) or a torch ``Generator``'s state, and the trainer's ``state`` (counters)."""
    document = {
        name: (module.get_state() if hasattr(module, "get_state") else module.state_dict())
        for name, module in modules.items()
    }
    save_torch_checkpoint(path, {**document, "state": dict(state)})


def load_training_state(path: Path, network: str = "this run's network", **modules) -> dict:
    """Load :func:`save_training_state`'s file into ``modules`` (given by the same names);
    returns the trainer's state.

    Raises:
        WeightsError: the file is missing, truncated, corrupt, or from another network.
    """

    def restore(saved: dict) -> dict:
        for name, module in modules.items():
            (module.set_state if hasattr(module, "set_state") else module.load_state_dict)(saved[name])
        return dict(saved["state"])

    return load_torch_checkpoint(path, restore, network)


def save_net_checkpoint(path: Path, net, optimizer, state: dict) -> None:
    """A generation trainer's checkpoint: a torch net, its optimizer, and ``state`` (plain
    numbers, text and lists of them) as JSON."""
    from checkers_env.files import json_text

    save_torch_checkpoint(
        path, {"net": net.state_dict(), "optimizer": optimizer.state_dict(), "state": json_text(state)}
    )


def load_net_checkpoint(path: Path, net, optimizer) -> dict:
    """Load :func:`save_net_checkpoint`'s file into ``net`` and ``optimizer``; returns the state.

    Raises:
        WeightsError: the file is missing, truncated, corrupt, or from another network.
    """
    import json

    def restore(saved: dict) -> dict:
        net.load_state_dict(saved["net"])
        optimizer.load_state_dict(saved["optimizer"])
        return json.loads(saved["state"])

    return load_torch_checkpoint(path, restore)


def checkpoint_error(path: Path, fault: str, error: BaseException) -> WeightsError:
    """A :class:`WeightsError` naming a checkpoint, what is wrong with it, and the loader's
    own message on one line (torch and SB3 messages run over many)."""
    text = " ".join(str(error).split())[:300]
    return WeightsError(f"checkpoint {str(path)!r} {fault}: {text}")


__all__ = [
    "CHECKPOINT",
    "WEIGHTS",
    "checkpoint_error",
    "load_net_checkpoint",
    "load_torch_checkpoint",
    "load_training_state",
    "read_checkpoint",
    "save_net_checkpoint",
    "save_torch_checkpoint",
    "save_training_state",
]
