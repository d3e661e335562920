"""Spec strings that came from someone else: parameters that name files are refused by their
declared type (``FilePath``), ``PythonOnly`` ones are never set by a spec, zoo names are
plain names, and nothing is opened or built before the refusal."""

from __future__ import annotations

import inspect
import os

import pytest

from checkers_env import UnknownAgentError, make_agent
from checkers_env.agent import (
    BaseAgent,
    FilePath,
    NamesFile,
    PythonOnly,
    agent_kinds,
    agent_parameters,
    check_spec,
    file_path_or,
    format_spec,
    parse_spec,
    register_agent,
)

#: Every file-naming parameter of the suite's kinds, with a value that names a file.
FILE_SPECS = [
    "ppo:weights=/root/.ssh/id_rsa",
    "bc:weights=policy.safetensors",
    "td-minimax:weights=../../etc/passwd",
    "slow-fast:weights=/tmp/net.safetensors",
    "alphazero:weights=/tmp/az.safetensors",
    "alphabeta:eval=td-minimax,weights=/tmp/x.safetensors",
    "alphabeta:egdb=4,egdb_folder=/tmp",
    "egdb:pieces=4,folder=/var",
    "mcrd:guide=/tmp/guide.safetensors",
    "mcrd:guide=zoo",  # a relative file named "zoo": only zoo:NAME is a zoo entry here
    "ppo:weights=",
    "egdb:folder=C:\\Windows",
]
#: Values of those parameters that name no file: allowed everywhere.
WORD_SPECS = [
    "td-minimax:weights=untrained",
    "td-minimax:weights=zoo",
    "slow-fast:weights=untrained",
    "alphazero:weights=untrained",
    "alphabeta:eval=td-minimax,weights=zoo",
    "alphabeta:eval=mcrd-net,weights=untrained",
    "mcrd:guide=untrained",
    "mcrd:guide=zoo:td-minimax",
    "alphabeta:weights=none",
]


@pytest.mark.parametrize("spec", FILE_SPECS)
def test_a_spec_from_elsewhere_names_no_file(spec):
    with pytest.raises(UnknownAgentError, match="names a file or folder") as caught:
        check_spec(spec, allow_files=False)
    value = spec.rsplit("=", 1)[1]
    assert not value or f"={value}" not in str(caught.value) and (len(value) < 4 or value not in str(caught.value))
    with pytest.raises(UnknownAgentError, match="names a file or folder"):
        make_agent(spec, allow_files=False)


@pytest.mark.parametrize("spec", WORD_SPECS)
def test_words_that_name_no_file_are_allowed(spec):
    assert check_spec(spec, allow_files=False).startswith(spec.split(":")[0])


def test_every_file_parameter_of_the_suite_is_declared():
    """The kinds' parameters whose documentation speaks of a file or folder carry the type."""
    declared, loaded = {}, set()
    for kind in sorted(agent_kinds()):
        try:
            parameters = agent_parameters(kind)
        except ImportError:  # a kind whose extra is missing here
            continue
        loaded.add(kind)
        for name, parameter in parameters.items():
            marks = getattr(parameter.annotation, "__metadata__", None) or [
                mark
                for arg in getattr(parameter.annotation, "__args__", ())
                for mark in getattr(arg, "__metadata__", ())
            ]
            if any(isinstance(mark, NamesFile) for mark in marks):
                declared.setdefault(kind, set()).add(name)
    expected = {
        "alphabeta": {"weights", "egdb_folder", "book_file"},
        "alphazero": {"weights", "egdb_folder"},
        "bc": {"weights"},
        "egdb": {"folder"},
        "engine": {"cmd"},
        "mcrd": {"guide"},
        "ppo": {"weights"},
        "slow-fast": {"weights"},
        "td-minimax": {"weights"},
    }
    assert declared == {kind: names for kind, names in expected.items() if kind in loaded}
    assert {"alphabeta", "egdb", "mcrd", "td-minimax", "bc"} <= loaded


class _Opener(BaseAgent):
    """A kind whose file parameter has a name no list would know; it records being built."""

    kind = "opener-test"
    built: list = []

    def __init__(self, banana: FilePath | None = None, label: str = "", level: int = 1, seed: int | None = None):
        super().__init__(seed=seed)
        _Opener.built.append((banana, label))
        self.banana, self.label, self.level = banana, label, level


class _Trusting(BaseAgent):
    kind = "trusting-test"

    def __init__(self, weights: file_path_or("fresh") = "fresh", *, trusted: PythonOnly[bool] = False):
        super().__init__()
        self.weights, self.opened = weights, trusted


@pytest.fixture
def test_kinds():
    register_agent(_Opener.kind, _Opener)
    register_agent(_Trusting.kind, _Trusting)
    _Opener.built.clear()
    yield
    agent_kinds().pop(_Opener.kind)
    agent_kinds().pop(_Trusting.kind)


def test_the_decision_comes_from_the_declared_type_not_the_name(test_kinds, tmp_path):
    with pytest.raises(UnknownAgentError, match="banana= names a file"):
        make_agent(f"opener-test:banana={tmp_path}", allow_files=False)
    assert _Opener.built == []  # refused before the agent was built
    # A plain str parameter is a plain value, whatever it holds; trusted callers may name files.
    assert make_agent("opener-test:label=/etc/passwd", allow_files=False).label == "/etc/passwd"
    assert make_agent(f"opener-test:banana={tmp_path}").banana == str(tmp_path)
    assert make_agent("trusting-test:weights=fresh", allow_files=False).weights == "fresh"


def test_a_named_pipe_is_refused_without_being_opened(test_kinds, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it for reading would block until someone writes
    for spec in (f"opener-test:banana={fifo}", f"td-minimax:weights={fifo}", f"egdb:folder={fifo}"):
        with pytest.raises(UnknownAgentError, match="names a file"):
            make_agent(spec, allow_files=False)
    assert _Opener.built == []


def test_python_only_parameters_are_never_set_by_a_spec(test_kinds):
    for allow_files in (True, False):
        with pytest.raises(UnknownAgentError, match="set in Python only"):
            make_agent("trusting-test:trusted=true", allow_files=allow_files)
    assert make_agent("trusting-test", allow_files=False, trusted=True).opened is True
    assert str(make_agent("trusting-test", trusted=True)) == "trusting-test"  # a spec cannot carry trust


def _unreadable(place: NotImportedAnywhere = "here", level: int = 1):  # noqa: F821 - the point of the test
    return _Opener(label=str(place), level=level)


def test_a_parameter_whose_type_cannot_be_read_is_refused_when_files_are_not_allowed(test_kinds):
    register_agent("unreadable-test", _unreadable)
    try:
        with pytest.raises(UnknownAgentError, match="cannot be read"):
            make_agent("unreadable-test:place=/etc", allow_files=False)
        assert make_agent("unreadable-test:place=/etc").label == "/etc"  # trusted: as before
    finally:
        agent_kinds().pop("unreadable-test")


def test_types_still_convert_values(test_kinds):
    assert make_agent("opener-test:level=3").level == 3
    with pytest.raises(UnknownAgentError, match="not a whole number"):
        make_agent("opener-test:level=three")
    assert inspect.signature(_Opener).parameters["banana"].annotation  # annotations stay strings for readers


@pytest.mark.parametrize(
    "name",
    [
        "../../x",
        "..",
        "../zoo/td-minimax",
        "/etc",
        "td-minimax/../ppo",
        "a/b",
        ".hidden",
        "~root",
        "td minimax",
        "x\\..\\y",
    ],
)
@pytest.mark.parametrize("allow_files", [True, False])
def test_zoo_names_are_plain_names_in_every_mode(name, allow_files):
    with pytest.raises(UnknownAgentError, match="plain name"):
        make_agent(f"zoo:{name}", allow_files=allow_files)
    with pytest.raises(UnknownAgentError, match="plain name"):
        make_agent(f"mcrd:guide=zoo:{name}", allow_files=allow_files)


def test_zoo_errors_name_the_entry_not_the_zoos_path():
    from checkers_agents.zoo import zoo_dir

    with pytest.raises(UnknownAgentError) as caught:
        make_agent("zoo:no-such-entry", allow_files=False)
    assert str(zoo_dir()) not in str(caught.value) and "no zoo entry 'no-such-entry'" in str(caught.value)


def test_check_spec_tidies_without_building():
    assert check_spec("alphabeta: depth = 2 , seed = 1") == "alphabeta:depth=2,seed=1"
    assert check_spec("zoo:td-minimax, depth=3") == "zoo:td-minimax,depth=3"
    # The kind and a zoo entry's name are trimmed like the values.
    assert check_spec(" alphabeta : depth = 2 ") == "alphabeta:depth=2"
    assert check_spec(" zoo : td-minimax , depth=3") == "zoo:td-minimax,depth=3"
    assert str(make_agent(" alphabeta : depth = 2 ")) == "alphabeta:depth=2"
    with pytest.raises(UnknownAgentError, match="no parameter 'weights'"):
        check_spec("zoo:td-minimax,weights=/tmp/x", allow_files=True)
    with pytest.raises(UnknownAgentError, match="set in Python only"):
        check_spec("zoo:td-minimax,agents_dirs=/tmp")


class _Opening(BaseAgent):
    """A kind whose spec names its opening first, as the zoo names its entry."""

    kind = "opening-test"
    positional = "opening"

    def __init__(self, opening: str, depth: int = 1, seed: int | None = None):
        super().__init__(seed=seed)
        self.opening, self.depth = opening, depth


@pytest.fixture
def opening_kind():
    register_agent(_Opening.kind, _Opening)
    yield _Opening.kind
    agent_kinds().pop(_Opening.kind)


def test_a_kind_may_take_its_first_item_bare(opening_kind):
    """No kind is special to the parser: a factory's ``positional`` attribute says which
    parameter the first, bare item is (the zoo's ``entry``)."""
    assert parse_spec("opening-test:9-14, depth=3") == ("opening-test", {"opening": "9-14", "depth": "3"})
    agent = make_agent("opening-test:11-15,depth=2")
    assert (agent.opening, agent.depth) == ("11-15", 2)
    assert check_spec("opening-test: 11-15 , depth = 2") == "opening-test:11-15,depth=2"
    assert parse_spec("zoo:td-minimax,depth=3") == ("zoo", {"entry": "td-minimax", "depth": "3"})
    assert parse_spec("alphabeta:depth=3") == ("alphabeta", {"depth": "3"})  # no positional: key=value only


@pytest.mark.parametrize(
    "spec, message",
    [
        ("opening-test:", "'opening-test:' needs its opening first"),
        ("opening-test:,depth=2", "'opening-test:' needs its opening first"),
        ("zoo:", "'zoo:' needs its entry first"),
        ("zoo: ,depth=2", "'zoo:' needs its entry first"),
        ("opening-test:11-15,opening=9-14", "parameter 'opening' is given twice"),
        ("opening-test:11-15,depth", "'depth' is not key=value"),
    ],
)
def test_a_missing_or_repeated_bare_item_is_named(opening_kind, spec, message):
    with pytest.raises(UnknownAgentError, match=message):
        parse_spec(spec)


@pytest.mark.parametrize(
    "spec",
    ["random", "alphabeta:depth=2,eval=material", "zoo:td-minimax", "zoo:mcrd,time=0.5", "opening-test:11-15,depth=2"],
)
def test_format_spec_gives_back_what_parse_spec_read(opening_kind, spec):
    assert format_spec(*parse_spec(spec)) == spec
