from typing import NamedTuple

import numpy as np
import pytest

from checkers_agents.search_parts.bundles import zeroed


class Pair(NamedTuple):
    counts: np.ndarray
    grid: np.ndarray
    flags: np.ndarray


def test_zeroed_gives_each_field_its_shape_and_type():
    pair = zeroed(Pair, (3, "i8"), ((3, 4), "f4 ?"))
    assert (pair.counts.shape, pair.counts.dtype) == ((3,), np.int64)
    assert (pair.grid.shape, pair.grid.dtype) == ((3, 4), np.float32)
    assert (pair.flags.shape, pair.flags.dtype) == ((3, 4), np.bool_)
    assert not any(array.any() for array in pair)


def test_zeroed_refuses_a_type_list_of_the_wrong_length():
    with pytest.raises(ValueError, match="Pair has 3 fields, the types name 2"):
        zeroed(Pair, (3, "i8 f4"))
