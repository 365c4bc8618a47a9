"""tilelang.knobs: how the environment's values read. The knobs that are on
by default (TILELANG_CACHE, TILELANG_OCCUPANCY_SEARCH, TILELANG_OPS_AUTOTUNE,
TILELANG_OPS_NATIVE_AUTOGRAD, TILELANG_WHOLE_PROGRAM) turn off with 0, false, no or off in any case
and with spaces around, and stay on for anything else; the ones that are
off by default (TILELANG_DEBUG...) turn on with 1, true, yes or on."""

import pytest

from tilelang import knobs

ON_BY_DEFAULT = {"TILELANG_CACHE": knobs.cache_enabled, "TILELANG_OCCUPANCY_SEARCH": knobs.occupancy_search,
                 "TILELANG_OPS_AUTOTUNE": knobs.ops_autotune,
                 "TILELANG_OPS_NATIVE_AUTOGRAD": knobs.ops_native_autograd,
                 "TILELANG_WHOLE_PROGRAM": knobs.whole_program}
OFF_BY_DEFAULT = {"TILELANG_DEBUG": knobs.debug, "TILELANG_ALWAYS_COMPILE": knobs.always_compile,
                  "TILELANG_PRINT_AUTOTUNING": knobs.print_autotuning}


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


def test_the_whole_program_step_is_requested_only_when_set_on(monkeypatch):
    # On by default, the step is skipped quietly where no ptxas is found;
    # set on, it is asked for (and warns where it cannot run).
    monkeypatch.delenv("TILELANG_WHOLE_PROGRAM", raising=False)
    assert knobs.whole_program() and not knobs.whole_program_requested()
    monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", "yes")
    assert knobs.whole_program() and knobs.whole_program_requested()
    monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", "0")
    assert not knobs.whole_program() and not knobs.whole_program_requested()
