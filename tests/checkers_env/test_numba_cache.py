"""The numba cache folder is keyed on the sources of the core and of every package that
registers agent kinds, found through the entry points rather than named by the core."""

from checkers_env import _numba_cache
from checkers_env.agent import ENTRY_POINT_GROUP


def test_the_cache_key_covers_the_core_and_the_registered_agent_packages(monkeypatch):
    assert _numba_cache._packages()[0] == "checkers_env"
    assert "checkers_agents" in _numba_cache._packages()


def test_the_group_the_cache_reads_is_the_agents_group(monkeypatch):
    from importlib import metadata

    seen = []
    real = metadata.entry_points

    def spy(**kwargs):
        seen.append(kwargs.get("group"))
        return real(**kwargs)

    monkeypatch.setattr(metadata, "entry_points", spy)
    _numba_cache._packages()
    assert seen == [ENTRY_POINT_GROUP]


def test_an_edit_of_any_keyed_source_changes_the_folder(tmp_path, monkeypatch):
    import numba

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    package = tmp_path / "plugin_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(_numba_cache, "_packages", lambda: ["checkers_env", "plugin_pkg"])
    _numba_cache.configure_numba_cache()
    first = numba.config.CACHE_DIR
    (package / "__init__.py").write_text("X = 2\n")
    _numba_cache.configure_numba_cache()
    assert first != numba.config.CACHE_DIR
    assert first.startswith(str(tmp_path / "checkers-suite" / "numba-"))
