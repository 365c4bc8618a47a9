"""tilelang.knobs: how the environment's values read. The knobs that are on
by default (TILELANG_CACHE, TILELANG_OCCUPANCY_SEARCH, TILELANG_OPS_AUTOTUNE,
TILELANG_OPS_NATIVE_AUTOGRAD, TILELANG_TORCH_BRIDGE, TILELANG_WHOLE_PROGRAM) turn off with 0, false, no or off in any case
and with spaces around; the ones that are off by default (TILELANG_DEBUG...)
turn on with 1, true, yes or on. Unset or empty leaves the default, and so
does any other value, with a warning naming the variable (once per value)."""

import warnings

import pytest

from tilelang import knobs


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees the warnings of its own malformed values."""
    monkeypatch.setattr(knobs, "_WARNED", set(), raising=False)


def read_quietly(read):
    """read(), failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read()


def read_warned(read, name, value, default):
    """read(), which must warn once that name=value is read as its default."""
    with pytest.warns(RuntimeWarning) as seen:
        result = read()
    assert len(seen) == 1
    assert f"{name}={value!r} is not one of 1, true, yes, on, 0, false, no, off; read as " \
           f"{'on' if default else 'off'}, its default" in str(seen[0].message)
    return result

ON_BY_DEFAULT = {"TILELANG_CACHE": knobs.cache_enabled, "TILELANG_OCCUPANCY_SEARCH": knobs.occupancy_search,
                 "TILELANG_OPS_AUTOTUNE": knobs.ops_autotune,
                 "TILELANG_OPS_NATIVE_AUTOGRAD": knobs.ops_native_autograd,
                 "TILELANG_TORCH_BRIDGE": knobs.torch_bridge, "TILELANG_WHOLE_PROGRAM": knobs.whole_program}
OFF_BY_DEFAULT = {"TILELANG_DEBUG": knobs.debug, "TILELANG_ALWAYS_COMPILE": knobs.always_compile,
                  "TILELANG_INTERPRET": knobs.interpret,
                  "TILELANG_PRINT_AUTOTUNING": knobs.print_autotuning}


@pytest.mark.parametrize("name", sorted(ON_BY_DEFAULT))
def test_knobs_on_by_default(name, monkeypatch):
    read = ON_BY_DEFAULT[name]
    monkeypatch.delenv(name, raising=False)
    assert read_quietly(read) is True
    for value in ("0", "false", "No", " OFF "):
        monkeypatch.setenv(name, value)
        assert read_quietly(read) is False, value
    for value in ("1", "yes", "", " On "):
        monkeypatch.setenv(name, value)
        assert read_quietly(read) is True, value
    for value in ("2", "disable"):
        monkeypatch.setenv(name, value)
        assert read_warned(read, name, value, True) is True, value
        assert read_quietly(read) is True, value  # warned once per value


@pytest.mark.parametrize("name", sorted(OFF_BY_DEFAULT))
def test_knobs_off_by_default(name, monkeypatch):
    read = OFF_BY_DEFAULT[name]
    monkeypatch.delenv(name, raising=False)
    assert read_quietly(read) is False
    for value in ("1", "true", "Yes", " ON "):
        monkeypatch.setenv(name, value)
        assert read_quietly(read) is True, value
    for value in ("0", "off", ""):
        monkeypatch.setenv(name, value)
        assert read_quietly(read) is False, value
    for value in ("2", "enable"):
        monkeypatch.setenv(name, value)
        assert read_warned(read, name, value, False) is False, value
        assert read_quietly(read) is False, value


def test_the_whole_program_step_is_requested_only_when_set_on(monkeypatch):
    # On by default, the step is skipped quietly where no ptxas is found;
    # set on, it is asked for (and warns where it cannot run).
    monkeypatch.delenv("TILELANG_WHOLE_PROGRAM", raising=False)
    assert knobs.whole_program() and not knobs.whole_program_requested()
    monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", "yes")
    assert knobs.whole_program() and knobs.whole_program_requested()
    monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", "0")
    assert not knobs.whole_program() and not knobs.whole_program_requested()
    # A malformed value reads as the default (on, not asked for), and only
    # whole_program warns of it, as "on".
    monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", "always")
    assert read_quietly(knobs.whole_program_requested) is False
    assert read_warned(knobs.whole_program, "TILELANG_WHOLE_PROGRAM", "always", True) is True
