"""The inspector's manners (issue 22): `clear` asks before removing on a
terminal and needs --yes elsewhere; every argument has help; `| head`
ends quietly; the plot marks the best config and lists the pruned ones
with their reasons; a sweep's progress is redrawn only on a terminal."""

import argparse
import json
import os
import pathlib
import pty
import select
import subprocess
import sys

import pytest

import tilelang
from tilelang.autotune import __main__ as cli
from tilelang.autotune import core, progress
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))


@pytest.fixture
def filled(tmp_path, monkeypatch):
    """A store of 12 entries of row_sum, each with timed and pruned configs."""
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    monkeypatch.setattr(core.Autotuner, "_launch", lambda self, grid, config, args, kwargs: None)
    space = [tilelang.Config({"BLOCK": 64}), tilelang.Config({"BLOCK": 256}), tilelang.Config({"BLOCK": 3}),
             tilelang.Config({"BLOCK": 128}, num_warps=64)]
    kernel = tilelang.autotune(configs=space, key=["n"], do_bench=K.FakeTimer())(K.row_sum)
    for n in range(1, 13):
        kernel[(1,)](K.FakeTensor([n]), K.FakeTensor([1]), n)
    return tmp_path / "cache" / "autotune.json"


def entries(store):
    return json.loads(store.read_text())["entries"]


def run(*argv, **options):
    return subprocess.run([sys.executable, "-m", "tilelang.autotune", *map(str, argv)], capture_output=True,
                          text=True, timeout=120, **options)


def test_clear_without_a_terminal_needs_yes(filled):
    before = filled.read_bytes()
    result = run("clear", "--store", filled, stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (f"tilelang-autotune: clear would remove 12 entries from {filled}; pass --yes "
                                     f"to do it without a terminal to ask on")
    assert filled.read_bytes() == before
    assert "removed 12 entries" in run("clear", "--yes", "--store", filled).stdout
    assert entries(filled) == {}


def _on_a_terminal(argv, answer):
    """Runs the inspector with its stdin and stderr on a pseudo-terminal,
    answers the prompt with `answer`; returns (exit code, stdout, what
    the terminal showed)."""
    main, child = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tilelang.autotune", *map(str, argv)], stdin=child,
                               stderr=child, stdout=subprocess.PIPE, text=True)
    os.close(child)
    shown = b""
    while b"[y/N]" not in shown:
        ready, _, _ = select.select([main], [], [], 60)
        assert ready, f"no prompt; the terminal showed {shown!r}"
        shown += os.read(main, 1024)
    os.write(main, answer.encode() + b"\n")
    out, _ = process.communicate(timeout=60)
    try:
        while select.select([main], [], [], 0.5)[0]:
            shown += os.read(main, 1024)
    except OSError:  # the child closed the terminal
        pass
    os.close(main)
    return process.returncode, out, shown.decode(errors="replace")


def test_clear_asks_on_a_terminal(filled):
    name = next(iter(entries(filled)))[:8]
    code, out, shown = _on_a_terminal(["clear", name, "--store", filled], "n")
    assert code == 1 and out == "" and "nothing removed" in shown
    assert f"remove 1 entries of '{name}' from {filled}? [y/N]" in shown
    assert len(entries(filled)) == 12
    code, out, shown = _on_a_terminal(["clear", name, "--store", filled], "y")
    assert code == 0 and "removed 1 entries" in out and len(entries(filled)) == 11


def _parsers():
    """The inspector's parser and its subcommands' parsers."""
    captured = {}

    def parse_args(self, argv=None, namespace=None):
        captured["parser"] = self
        raise SystemExit(0)

    original = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = parse_args
    try:
        with pytest.raises(SystemExit):
            cli.main(["ls"])
    finally:
        argparse.ArgumentParser.parse_args = original
    parser = captured["parser"]
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [parser] + list(subparsers.choices.values())


def test_every_argument_has_help():
    parsers = _parsers()
    assert len(parsers) == 6
    for parser in parsers:
        for action in parser._actions:
            assert action.help and action.help != argparse.SUPPRESS, (parser.prog, action.dest)


def test_the_store_help_names_the_default_file(tmp_path, monkeypatch):
    # Not "<cache dir>/autotune.json": the file this environment would read.
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "here"))
    for parser in _parsers():
        store = next(a for a in parser._actions if a.dest == "store")
        assert store.help.endswith(f"here {tmp_path / 'here' / 'autotune.json'})"), (parser.prog, store.help)
    monkeypatch.setenv("TILELANG_CACHE", "0")
    assert cli._store_help().endswith("here none: the cache is off (TILELANG_CACHE=0))")


def test_a_reader_that_goes_away_ends_quietly(filled):
    for command in (["show", "row_sum"], ["export"], ["ls"]):
        shell = f"{sys.executable} -m tilelang.autotune {' '.join(command)} --store {filled} | head -1"
        result = subprocess.run(["bash", "-c", f"set -o pipefail; {shell}"], capture_output=True, text=True,
                                timeout=120)
        assert len(result.stdout.splitlines()) == 1
        assert result.stderr == "", (command, result.stderr)


def test_plot_marks_the_best_and_the_pruned(filled, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    plt.close("all")
    name = next(iter(entries(filled)))[:8]
    assert cli.main(["--store", str(filled), "plot", name, "-o", str(tmp_path / "p.png")]) == 0
    (figure,) = [plt.figure(n) for n in plt.get_fignums()]
    (ax,) = figure.axes
    texts = [t.get_text() for t in ax.texts]
    assert [t for t in texts if "best" in t] == ["  best, 1.0003 ms"]
    pruned = sorted(t for t in texts if t.startswith("pruned: "))
    assert len(pruned) == 2
    assert "64 warps = 2048 threads per block" in pruned[0] and "compilation failed" in pruned[1]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["best", "timed", "pruned"]
    colors = {matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches}
    assert matplotlib.colors.to_hex("tab:green") in colors
    plt.close("all")


class _Stream:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_progress_redraws_only_on_a_terminal(monkeypatch):
    log = _Stream(tty=False)
    monkeypatch.setattr(sys, "stderr", log)
    bar = progress.progress(3, "autotune k")
    for _ in range(3):
        bar.update(1)
    bar.close()
    assert "\r" not in log.text and log.text.startswith("autotune k: 3/3 configs in ")
    assert log.text.count("\n") == 1
    terminal = _Stream(tty=True)
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain bar
    bar = progress.progress(3, "autotune k")
    bar.update(2)
    bar.close()
    assert terminal.text.count("\r") == 2 and terminal.text.endswith("2/3\n")
