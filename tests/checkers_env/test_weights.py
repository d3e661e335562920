"""The one weights reader: every way a file can be wrong is one WeightsError naming the file."""

import doctest
import os

import numpy as np
import pytest

from checkers_env import weights
from checkers_env.errors import WeightsError
from checkers_env.weights import read_weights, write_weights


def shapes(width):
    return {"w": (2, width), "b": (2,)}


def read(path):
    return read_weights(path, "tiny", metadata={"kind": "tiny", "format": "1"}, sizes=("width",), shapes=shapes)


def test_the_docstring_example_runs():
    assert doctest.testmod(weights).failed == 0


def test_round_trip(tmp_path):
    path = tmp_path / "w.safetensors"
    write_weights(
        path, {"w": np.arange(6.0).reshape(2, 3), "b": np.zeros(2)}, {"kind": "tiny", "format": "1", "width": 3}
    )
    tensors, metadata, sizes = read(path)
    assert sizes == (3,) and metadata["width"] == "3"
    assert tensors["w"].dtype == np.float32 and tensors["w"].tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize(
    "tensors, metadata, fault",
    [
        (
            {"w": np.ones((2, 3)), "b": np.zeros(2)},
            {"kind": "other", "format": "1", "width": "3"},
            "is not tiny weights that this version reads .metadata kind 'other'",
        ),
        (
            {"w": np.ones((2, 3)), "b": np.zeros(2)},
            {"kind": "tiny", "format": "2", "width": "3"},
            "metadata format '2', expected '1'",
        ),
        (
            {"w": np.ones((2, 3)), "b": np.zeros(2)},
            {"kind": "tiny", "format": "1"},
            "lacks the tiny sizes .metadata width",
        ),
        (
            {"w": np.ones((2, 3)), "b": np.zeros(2)},
            {"kind": "tiny", "format": "1", "width": "x"},
            "lacks the tiny sizes",
        ),
        (
            {"w": np.ones((2, 4)), "b": np.zeros(2)},
            {"kind": "tiny", "format": "1", "width": "3"},
            r"does not fit the tiny shapes for width=3: tensors b \[2\], w \[2, 4\]; expected w \[2, 3\], b \[2\]",
        ),
        ({"w": np.ones((2, 3))}, {"kind": "tiny", "format": "1", "width": "3"}, "does not fit the tiny shapes"),
        ({"w": np.full((2, 3), np.nan), "b": np.zeros(2)}, {"kind": "tiny", "format": "1", "width": "3"}, "non-finite"),
    ],
)
def test_a_file_of_the_wrong_kind_format_sizes_or_values(tmp_path, tensors, metadata, fault):
    path = tmp_path / "w.safetensors"
    write_weights(path, tensors, metadata)
    with pytest.raises(WeightsError, match=fault) as error:
        read(path)
    assert str(path) in str(error.value) and "\n" not in str(error.value)


def test_missing_folder_and_corrupt_files(tmp_path):
    with pytest.raises(WeightsError, match="tiny weights file .*nothing.safetensors' does not exist"):
        read(tmp_path / "nothing.safetensors")
    with pytest.raises(WeightsError, match="is a folder, not a file"):
        read(tmp_path)
    for data in (b"", b"\x00" * 20, b"\xff" * 8 + b"{}", b"garbage that is not safetensors"):
        path = tmp_path / "bad.safetensors"
        path.write_bytes(data)
        with pytest.raises(WeightsError, match="bad.safetensors' is corrupt or not a safetensors file"):
            read(path)


@pytest.mark.timeout(30)  # reading a named pipe would wait for a writer for ever
def test_a_named_pipe_or_an_empty_path_is_refused_by_name(tmp_path):
    pipe = tmp_path / "pipe.safetensors"
    os.mkfifo(pipe)
    with pytest.raises(
        WeightsError, match=r"tiny weights file '.*pipe.safetensors' is a named pipe \(FIFO\), not a regular file"
    ):
        read(pipe)
    with pytest.raises(WeightsError, match="^no tiny weights file given: the path is empty$"):
        read("")
