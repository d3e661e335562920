"""The search's memory of positions (``alphabeta.transposition``): the leaf cache's slots."""

from __future__ import annotations

import pytest

from checkers_agents.alphabeta.transposition import cached_leaf, new_table, next_generation, store_leaf

HASH = 0x1234_5678_9ABC_DEF1


def test_a_leaf_value_is_found_for_its_hash_in_its_search_only():
    table = new_table(4, 256)
    assert cached_leaf(table, HASH, 3) == (False, 0.0)
    store_leaf(table, HASH, 3, -0.25)
    assert cached_leaf(table, HASH, 3) == (True, -0.25)
    assert cached_leaf(table, HASH, 4) == (False, 0.0)  # the next search: another net, maybe
    assert cached_leaf(table, HASH ^ (1 << 40), 3) == (False, 0.0)  # same slot, another key
    store_leaf(table, HASH + 256, 3, 0.5)  # the same slot: the last value stays
    assert cached_leaf(table, HASH, 3) == (False, 0.0)
    assert cached_leaf(table, HASH + 256, 3) == (True, 0.5)


def test_a_table_without_leaf_slots_keeps_nothing():
    table = new_table(4)
    store_leaf(table, HASH, 3, 0.5)
    assert table.leaves.shape[0] == 0
    assert cached_leaf(table, HASH, 3) == (False, 0.0)


def test_generations_wrap_around_with_both_memories_wiped():
    table = new_table(4, 256)
    table.entries[:] = 7
    store_leaf(table, HASH, 255, 0.5)
    assert next_generation(254, table) == 255 and cached_leaf(table, HASH, 255) == (True, 0.5)
    assert next_generation(255, table) == 1
    assert not table.entries.any() and not table.leaves.any()


@pytest.mark.parametrize("leaves", [8, 300])
def test_a_leaf_cache_too_small_or_not_a_power_of_two_is_refused(leaves):
    with pytest.raises(ValueError, match="power of two of at least 256"):
        new_table(4, leaves)
