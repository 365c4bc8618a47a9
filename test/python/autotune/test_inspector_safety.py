"""The inspector on stores and outputs it did not expect (issue 20, item 5):
read-only commands change nothing, special files are refused without being
opened, unwritable outputs and full disks are one-line errors, and what a
store holds reaches a terminal or a spreadsheet escaped."""

import csv
import errno
import io
import json
import os
import pathlib
import stat
import subprocess
import sys

import pytest

from tilelang.autotune import __main__ as cli
from tilelang.autotune import schema, store as store_mod
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
READ_ONLY = [["ls"], ["show", "k"], ["export"], ["export", "--format", "csv"], ["plot", "k", "-o", "unused.png"]]
COMMANDS = READ_ONLY + [["clear", "--yes"]]


def write_store(path, *entries):
    path.write_text(json.dumps({"format": store_mod.FORMAT, "entries": dict(entries)}))
    return path


@pytest.fixture
def store(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    return write_store(folder / "autotune.json", K.store_entry("k", times=(1.5, 1.25)),
                       K.store_entry("k", key={"n": 16}))


def inspector(*argv, stdout=subprocess.PIPE, cwd=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "tilelang.autotune", *map(str, argv)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout, cwd=cwd)


def one_line_error(result, *phrases):
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tilelang-autotune: "), result.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


def listing(folder):
    return {p.name: (p.stat().st_ino, p.read_bytes() if p.is_file() else None) for p in folder.iterdir()}


# -- read-only commands change nothing -----------------------------------------------------


@pytest.mark.parametrize("command", READ_ONLY, ids=lambda c: "-".join(c[:2]))
def test_read_only_commands_take_no_lock(store, command, tmp_path):
    before = listing(store.parent)
    result = inspector(*command, "--store", store, cwd=tmp_path)
    assert result.returncode in (0, 2), result.stderr  # plot: 2 without matplotlib
    assert listing(store.parent) == before  # no autotune.json.lock


@pytest.mark.parametrize("command", READ_ONLY, ids=lambda c: "-".join(c[:2]))
def test_read_only_commands_neither_move_nor_repair_a_corrupt_store(store, command, tmp_path):
    store.write_text('{"format": "tilelang-autotune-1", "entries": {"abc": ')
    before = listing(store.parent)
    line = one_line_error(inspector(*command, "--store", store, cwd=tmp_path), "is corrupt")
    assert str(store) in line
    assert listing(store.parent) == before  # no rename, no lock, no new store


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_a_device_as_store_is_refused_and_left_alone(tmp_path, command):
    """As root, --store /dev/null renamed the system's /dev/null; this is a
    null device of the test's own."""
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    inode = node.stat().st_ino
    one_line_error(inspector(*command, "--store", node, cwd=tmp_path), "is a character device")
    assert stat.S_ISCHR(node.stat().st_mode) and node.stat().st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_a_fifo_store_is_a_one_line_error_not_a_hang(tmp_path, command):
    fifo = tmp_path / "autotune.json"
    os.mkfifo(fifo)
    one_line_error(inspector(*command, "--store", fifo, cwd=tmp_path, timeout=60), "is a FIFO")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["autotune.json"]


@pytest.mark.parametrize("command", READ_ONLY, ids=lambda c: "-".join(c[:2]))
def test_store_option_on_a_missing_file_is_an_error(tmp_path, command):
    missing = tmp_path / "nope" / "autotune.json"
    one_line_error(inspector(*command, "--store", missing, cwd=tmp_path), "no autotuning store at", str(missing))
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["show", "nope"], ["plot", "nope", "-o", "unused.png"]],
                         ids=lambda c: c[0])
def test_no_matching_entry_is_a_one_line_error(store, command, tmp_path):
    one_line_error(inspector(*command, "--store", store, cwd=tmp_path), "no entry for 'nope' in")


def test_clear_on_a_missing_store_creates_nothing(tmp_path):
    result = inspector("clear", "--store", tmp_path / "autotune.json")
    assert result.returncode == 0 and "removed 0 entries" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_clear_moves_a_corrupt_store_aside_with_a_one_line_warning(store):
    store.write_text("{")
    result = inspector("clear", "--yes", "--store", store)
    assert result.returncode == 0 and "removed 0 entries" in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tilelang-autotune: warning: ") and "is corrupt" in lines[0]
    assert len(list(store.parent.glob("autotune.json.corrupt-*"))) == 1
    assert store_mod.Store(str(store)).entries() == {}


# -- outputs that cannot be written ----------------------------------------------------------


def test_export_to_a_directory_is_a_one_line_error(store, tmp_path):
    one_line_error(inspector("export", "--store", store, "-o", tmp_path), f"cannot write {tmp_path}",
                   "Is a directory")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["ls"], ["show", "k"], ["export"], ["export", "--format", "csv"]],
                         ids=lambda c: "-".join(c[:2]))
def test_a_full_disk_under_stdout_is_a_one_line_error(store, command):
    with open("/dev/full", "w") as full:
        one_line_error(inspector(*command, "--store", store, stdout=full), "No space left on device")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_export_to_a_full_disk_is_a_one_line_error(store):
    one_line_error(inspector("export", "--store", store, "-o", "/dev/full"), "cannot write /dev/full",
                   "No space left on device")


def test_clear_on_a_full_disk_is_a_one_line_error_and_keeps_the_store(store, monkeypatch, capsys):
    before = store.read_bytes()

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    assert cli.main(["--store", str(store), "clear", "--yes"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tilelang-autotune: No space left on device"]
    assert store.read_bytes() == before
    assert sorted(p.name for p in store.parent.iterdir()) == ["autotune.json", "autotune.json.lock"]


# -- what the store holds, escaped -------------------------------------------------------------

HOSTILE = "\x1b]0;owned\x07\x1b[2J"  # retitles the terminal, clears the screen


@pytest.fixture
def hostile_store(tmp_path):
    eid, entry = K.store_entry(f"k{HOSTILE}", device=f"GPU\u202e\ud800{HOSTILE}")
    entry["records"].append({**entry["records"][0], "status": "failed", "time_ms": None,
                             "reason": f"=HYPERLINK(\"http://x\"){HOSTILE}\nsecond line, \"quoted\""})
    entry["records"][-1]["kwargs"] = {"BLOCK": 7}
    entry["records"][-1]["id"] = schema.config_ident({"BLOCK": 7}, 4, 3)
    entry["records"][-1]["config"] = "-BLOCK: 7"
    entry["records"].sort(key=lambda r: r["id"])
    return write_store(tmp_path / "autotune.json", (eid, entry))


@pytest.mark.parametrize("command", ["ls", "show"])
def test_terminal_escapes_in_the_store_are_not_printed_raw(hostile_store, command):
    (eid,) = json.loads(hostile_store.read_text())["entries"]
    result = inspector(*([command, eid[:8]] if command == "show" else [command]), "--store", hostile_store)
    assert result.returncode == 0, result.stderr
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in result.stdout
    assert "k\\x1b]0;owned\\x07\\x1b[2J" in result.stdout and "GPU\\u202e\\ud800" in result.stdout
    if command == "show":  # the reason's newline does not break its row
        (row,) = [line for line in result.stdout.splitlines() if "HYPERLINK" in line]
        assert row.endswith('\\x0asecond line, "quoted"')


def test_csv_cells_are_quoted_escaped_and_never_formulas(hostile_store):
    result = inspector("export", "--format", "csv", "--store", hostile_store)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 2
    failed = next(r for r in rows if r["status"] == "failed")
    assert failed["reason"].startswith("'=HYPERLINK(\"http://x\")\\x1b]0;owned")
    assert failed["reason"].endswith('\\x0asecond line, "quoted"')
    assert failed["config"] == "'-BLOCK: 7"
    ok = next(r for r in rows if r["status"] == "ok")
    assert ok["time_ms"] == "1.0" and ok["kernel"].startswith("k\\x1b")


def test_json_export_keeps_the_contents_and_escapes_them(hostile_store):
    result = inspector("export", "--store", hostile_store)
    assert result.returncode == 0, result.stderr
    assert result.stdout.isascii()
    assert json.loads(result.stdout) == json.loads(hostile_store.read_text())
