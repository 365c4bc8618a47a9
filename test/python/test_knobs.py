"""tilelang.knobs: how the environment's values read. The knobs that are on
by default (TILELANG_CACHE, TILELANG_OCCUPANCY_SEARCH, TILELANG_OPS_AUTOTUNE,
TILELANG_OPS_NATIVE_AUTOGRAD) turn off with 0, false, no or off in any case
and with spaces around, and stay on for anything else; the ones that are
off by default (TILELANG_DEBUG...) turn on with 1, true, yes or on."""

import pytest

from tilelang import knobs

ON_BY_DEFAULT = {"TILELANG_CACHE": knobs.cache_enabled, "TILELANG_OCCUPANCY_SEARCH": knobs.occupancy_search,
                 "TILELANG_OPS_AUTOTUNE": knobs.ops_autotune,
                 "TILELANG_OPS_NATIVE_AUTOGRAD": knobs.ops_native_autograd}
OFF_BY_DEFAULT = {"TILELANG_DEBUG": knobs.debug, "TILELANG_ALWAYS_COMPILE": knobs.always_compile,
                  "TILELANG_PRINT_AUTOTUNING": knobs.print_autotuning, "TILELANG_WHOLE_PROGRAM": knobs.whole_program}


@pytest.mark.parametrize("name", sorted(ON_BY_DEFAULT))
def test_knobs_on_by_default(name, monkeypatch):
    read = ON_BY_DEFAULT[name]
    monkeypatch.delenv(name, raising=False)
    assert read() is True
    for value in ("0", "false", "No", " OFF "):
        monkeypatch.setenv(name, value)
        assert read() is False, value
    for value in ("1", "yes", "", "2"):
        monkeypatch.setenv(name, value)
        assert read() is True, value


@pytest.mark.parametrize("name", sorted(OFF_BY_DEFAULT))
def test_knobs_off_by_default(name, monkeypatch):
    read = OFF_BY_DEFAULT[name]
    monkeypatch.delenv(name, raising=False)
    assert read() is False
    for value in ("1", "true", "Yes", " ON "):
        monkeypatch.setenv(name, value)
        assert read() is True, value
    for value in ("0", "off", "", "2"):
        monkeypatch.setenv(name, value)
        assert read() is False, value
