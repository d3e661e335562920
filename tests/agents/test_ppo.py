"""The PPO agent's weights: an SB3 zip holds pickled code and loads only when Python says so."""

from __future__ import annotations

import pytest

from checkers_env import UnknownAgentError, make_agent
from checkers_env.errors import WeightsError


@pytest.mark.parametrize("allow_files", [True, False])
def test_a_zip_is_not_unpickled_unless_trusted(pickle_payload, allow_files):
    model, marker = pickle_payload
    with pytest.raises((WeightsError, UnknownAgentError), match="trusted=True|may not name files"):
        make_agent(f"ppo:weights={model}", allow_files=allow_files)
    assert not marker.exists()


def test_trust_is_a_python_keyword_not_a_spec_value(pickle_payload):
    model, marker = pickle_payload
    for value in ("true", "True", "1", "yes"):
        with pytest.raises(UnknownAgentError, match="set in Python only"):
            make_agent(f"ppo:weights={model},trusted={value}")
    assert not marker.exists()


def test_the_payload_is_real_and_trusted_true_loads_it(pickle_payload):
    """The other tests' file does run code when unpickled: what they refuse is a real exploit."""
    pytest.importorskip("sb3_contrib")
    model, marker = pickle_payload
    with pytest.raises(WeightsError):  # it holds no policy after the payload
        make_agent(f"ppo:weights={model}", trusted=True)
    assert marker.exists()
