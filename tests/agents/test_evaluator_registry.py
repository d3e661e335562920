"""Learned evaluators register through an entry-point group, as agent kinds do."""

from importlib.metadata import EntryPoint

import pytest

from checkers_agents import alphabeta
from checkers_agents.alphabeta import HAND_WRITTEN, evaluator_names, evaluator_registry, make_evaluator
from checkers_agents.search_parts.evaluators import MATERIAL
from checkers_env import Game, make_agent
from checkers_env.errors import UnknownAgentError


def material_loader(weights, seed):
    """A plug-in evaluator for the test: the material points, whatever the weights."""
    assert weights == "zoo" and seed == 3
    return MATERIAL


def test_the_suite_registers_its_four_nets_after_the_hand_written_evaluations():
    assert evaluator_names() == ["material", "positional", "mcrd-net", "outcome-net", "slow-fast", "td-minimax"]


def test_unknown_names_and_weights_for_hand_written_evaluations_are_refused():
    with pytest.raises(UnknownAgentError, match="eval must be one of material, positional, mcrd-net"):
        make_evaluator("nonsense")
    with pytest.raises(UnknownAgentError, match="eval=material takes no weights"):
        make_evaluator("material", weights="x.safetensors")


def test_a_package_of_the_users_adds_an_evaluator_by_entry_point(monkeypatch):
    entry = EntryPoint("plug-in", f"{__name__}:material_loader", alphabeta.EVALUATOR_GROUP)
    monkeypatch.setattr(evaluator_registry, "_loaders", {"plug-in": entry})
    assert evaluator_names() == [*HAND_WRITTEN, "plug-in"]
    assert make_evaluator("plug-in", seed=3) is MATERIAL
    agent = make_agent("alphabeta:eval=plug-in,depth=2,seed=3")
    assert agent.select_move(Game()) in Game().legal_moves()


def test_register_evaluator_at_run_time(monkeypatch):
    monkeypatch.setattr(evaluator_registry, "_loaders", None)
    alphabeta.register_evaluator("plug-in", material_loader)
    assert evaluator_names()[-1] == "td-minimax" and "plug-in" in evaluator_names()
    assert make_evaluator("plug-in", seed=3) is MATERIAL
    with pytest.raises(ValueError, match="'material' is a hand-written"):
        alphabeta.register_evaluator("material", material_loader)
