"""Checkpoints: one way to write a run's checkpoint and one to read it back, for every torch
trainer. Written atomically (:func:`checkers_env.files.write_atomic`, so a kill never leaves a
half-written file) and read without executing code (``torch.load(weights_only=True)``).

A checkpoint is a torch file of named entries: each of the parts given to
:func:`save_checkpoint` under its name (a net's or an optimizer's ``state_dict()``, a torch
``Generator``'s state, or a value torch saves as it is: a tensor, a number, text, lists and
dicts of them), and ``state``, the trainer's counters as JSON text.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from checkers_env.errors import WeightsError
from checkers_env.files import json_text, write_atomic

#: A run's torch checkpoint (what ``--resume`` reads), in its run folder.
CHECKPOINT = "checkpoint.pt"
#: The weights a run trains, in its run folder (what ``--promote`` copies into the zoo).
WEIGHTS = "weights.safetensors"


def save_checkpoint(path: Path, state: dict | None = None, **parts: Any) -> None:
    """Write a run's checkpoint to ``path``, atomically: the old one stays whole until the
    new one is.

    Args:
        path: the checkpoint file (``RUN/checkpoint.pt``).
        state: the trainer's counters (numbers, text, lists and dicts of them), kept as strict
            JSON (a float that is not finite becomes ``null``); None: none.
        **parts: what else the checkpoint holds, by name: a torch module or optimizer (its
            ``state_dict()``), a torch ``Generator`` (its ``get_state()``), or a value kept
            as it is (a tensor, a number, text, lists and dicts of them).
    """
    document = {name: _saved_form(part) for name, part in parts.items()}
    if state is not None:
        document["state"] = json_text(state)
    _write(path, document)


def load_checkpoint(path: Path, network: str = "this run's network", **parts: Any) -> dict:
    """Read a :func:`save_checkpoint` file without executing code and load each of ``parts``
    (a torch module, optimizer or ``Generator``) from the entry of its name.

    Args:
        path: the checkpoint file.
        network: what the checkpoint should be of, for the error of one that does not fit.
        **parts: what to load, by the names they were saved under.

    Returns:
        The trainer's state, with every entry of the file that is neither one of ``parts``
        nor the state beside it (the values :func:`save_checkpoint` kept as they are). A
        state saved as a dict rather than JSON text (an older run's) is read as well.

    Raises:
        WeightsError: the file is missing, truncated or corrupt, or does not fit the parts (a
            missing entry or a tensor of another shape): "does not match ``network``".
    """
    saved = _read(path)
    try:
        for name, part in parts.items():
            (part.set_state if hasattr(part, "set_state") else part.load_state_dict)(saved[name])
        state = saved.get("state", {})
        state = json.loads(state) if isinstance(state, str) else dict(state)
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as error:
        raise checkpoint_error(path, f"does not match {network}", error) from None
    beside = {name: value for name, value in saved.items() if name not in parts and name != "state"}
    return {**beside, **state}


def _write(path: Path, document: dict) -> None:
    import torch

    data = io.BytesIO()
    torch.save(document, data)
    write_atomic(path, data.getvalue())


def _read(path: Path) -> dict:
    """The entries of a checkpoint file, read without executing code.

    Raises:
        WeightsError: the file is missing, truncated or corrupt.
    """
    import torch

    data = read_checkpoint(path)
    try:
        return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")  # a GPU run resumes anywhere
    except Exception as error:  # torch raises several kinds for a damaged zip or pickle
        raise checkpoint_error(path, "is truncated or corrupt", error) from None


def _saved_form(part: Any) -> Any:
    """What a checkpoint keeps of ``part``: a generator's state, a module's or optimizer's
    state dict, else the value itself."""
    if hasattr(part, "get_state"):
        return part.get_state()
    if hasattr(part, "state_dict"):
        return part.state_dict()
    return part


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


def checkpoint_error(path: Path, fault: str, error: BaseException) -> WeightsError:
    """A :class:`WeightsError` naming a checkpoint, what is wrong with it, and the loader's
    own message on one line (torch and SB3 messages run over many)."""
    text = " ".join(str(error).split())[:300]
    return WeightsError(f"checkpoint {str(path)!r} {fault}: {text}")


__all__ = ["CHECKPOINT", "WEIGHTS", "checkpoint_error", "load_checkpoint", "read_checkpoint", "save_checkpoint"]
