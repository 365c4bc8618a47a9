"""The store fault injector (issue 20, item 6): stores truncated, overwritten,
spliced, edited, made hostile or replaced by special files and links
(store_faults.py), then every inspector command and the tuner's load path
run on each. Every command ends with output or one line on stderr, never an
exception, a hang (30 s) or a raw control character; read-only commands
change nothing; writers change nothing but the store's own folder, rebuild
what does not validate and leave special files alone; nothing outside the
store's folder changes.

The seed is printed and replayed with TILELANG_FUZZ_SEED=<seed>; CI runs a
fast slice (100 faults in-process, 6 through the real command), and

    TILELANG_FUZZ_STORE_FAULTS=1000 .venv/bin/python -m pytest test/python/autotune/test_store_fuzz.py

is the long run (1,000 in-process, 50 through the command; about a minute).
"""

import contextlib
import hashlib
import io
import json
import os
import pathlib
import random
import shutil
import signal
import stat
import subprocess
import sys
import traceback
import unicodedata
import warnings

import pytest

import tilelang
from tilelang.autotune import __main__ as cli
from tilelang.autotune import core, schema
from tilelang_testing import load_module

HERE = pathlib.Path(__file__).parent
K = load_module("autotune_kernels", HERE / "autotune_kernels.py")
F = load_module("store_faults", HERE / "store_faults.py")

COUNT = int(os.environ.get("TILELANG_FUZZ_STORE_FAULTS", "100"))
SUBPROCESS_COUNT = max(6, COUNT // 20)  # a process each costs some 0.1 s
SPACE = [tilelang.Config({"BLOCK": 64}), tilelang.Config({"BLOCK": 256}), tilelang.Config({"BLOCK": 3}),
         tilelang.Config({"BLOCK": 128}, num_warps=64)]
PREFIX = "tilelang-autotune: "


@pytest.fixture(scope="module")
def seed():
    value = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2 ** 32)))
    print(f"store fuzz seed: {value} (replay with TILELANG_FUZZ_SEED={value})")
    return value


@pytest.fixture
def fake_gpu(monkeypatch):
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    launches = []
    monkeypatch.setattr(core.Autotuner, "_launch", lambda self, grid, config, args, kwargs: launches.append(grid))
    return launches


def tune(path):
    kernel = tilelang.autotune(configs=SPACE, key=["n"], do_bench=K.FakeTimer(),
                               work=lambda nargs: {"bytes": 64.0})(K.row_sum)
    kernel.store_path = path
    kernel[(1,)](K.FakeTensor([8]), K.FakeTensor([1]), 8)
    return schema.entry_id(core.kernel_identity(K.row_sum), {"n": 8}, ["x_ptr:fp32", "y_ptr:fp32"],
                           K.FAKE_DEVICE["name"], core.compiler_identity())


@pytest.fixture
def base(fake_gpu, tmp_path):
    """A valid store: the tuner's entry (ok, pruned and failed records, work
    and peaks) and two more."""
    path = tmp_path / "base.json"
    tune(str(path))
    data = json.loads(path.read_text())
    data["entries"].update([K.store_entry("other", times=(2.0, 1.5)), K.store_entry("third", key={"n": "s"})])
    return json.dumps(data, indent=1).encode()


def hostile(base: bytes):
    """A valid store whose free text (and device, compiler, re-keyed) is hostile."""
    def make(rng):
        data = json.loads(base)
        entries = {}
        for entry in data["entries"].values():
            pick = lambda: rng.choice(F.HOSTILE_TEXT)  # noqa: E731
            entry.update(kernel=pick(), updated=pick(), arch=pick(), device=pick())
            entry["compiler"]["version"] = pick()
            for record in entry["records"]:
                record.update(config=pick(), timestamp=pick())
                if record["status"] != "ok":
                    record["reason"] = pick()
            entry["best"]["config"] = pick()
            entries[schema.entry_id(entry["kernel_hash"], entry["key"], entry["dtypes"], entry["device"],
                                    entry["compiler"])] = entry
        data["entries"] = entries
        return json.dumps(data).encode()
    return make


def faults(seed, base, count, offset=0):
    for index in range(offset, offset + count):
        rng = random.Random(seed * 1_000_003 + index)
        yield index, F.make_fault(rng, base, hostile(base))


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so nothing under test takes it."""


@contextlib.contextmanager
def deadline(seconds=30):
    def expire(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def make_case(root: pathlib.Path, fault, base: bytes) -> pathlib.Path:
    (root / "store").mkdir(parents=True)
    (root / "out").mkdir()
    F.make_outside(str(root), base)
    fault.apply(str(root))
    return root


def snapshot(root: pathlib.Path, skip=("out",)):
    """Every name under root, links not followed: type, inode, and contents
    (small regular files) or size and mtime (large ones)."""
    seen = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.relpath(os.path.join(folder, d), root) not in skip]
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            what = (stat.S_IFMT(info.st_mode), info.st_ino)
            if stat.S_ISREG(info.st_mode):
                if info.st_size <= 1 << 20:
                    with open(path, "rb") as handle:
                        what += (hashlib.sha256(handle.read()).hexdigest(),)
                else:
                    what += (info.st_size, info.st_mtime_ns)
            elif stat.S_ISLNK(info.st_mode):
                what += (os.readlink(path),)
            seen[os.path.relpath(path, root)] = what
    return seen


def raw_controls(text: str):
    return sorted({repr(ch) for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp",
                                                                                         "Cs")})


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def valid(path: pathlib.Path) -> bool:
    """The specification, independent of how the store reads: a regular
    file (links followed) of JSON that schema.validate accepts."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or os.stat(path).st_size > 64 << 20:
            return False
        schema.validate(json.loads(path.read_bytes().decode("utf-8")))
        return True
    except (OSError, ValueError, RecursionError):
        return False


def check_inspector(root: pathlib.Path, store: pathlib.Path):
    """Problems found running every command on the case; [] if none."""
    problems = []
    was_valid = valid(store)
    before = snapshot(root)
    codes = {}
    commands = {"ls": ["ls"], "show": ["show", "row_sum"], "show id": ["show", "0123456789"],
                "export": ["export"], "csv": ["export", "--format", "csv"],
                "export -o": ["export", "-o", str(root / "out" / "x.json")],
                "plot": ["plot", "row_sum", "-o", str(root / "out" / "p.png")]}
    for name, argv in commands.items():
        try:
            code, out, err = run_cli(argv + ["--store", str(store)])
        except Exception:  # noqa: BLE001 - that is what is looked for
            problems.append(f"{name}: raised\n{traceback.format_exc()}")
            continue
        codes[name] = code
        lines = err.splitlines()
        if code not in ((0, 1, 2) if name == "plot" else (0, 1)):
            problems.append(f"{name}: exit {code}")
        if code != 0 and (len(lines) != 1 or out or not (lines[0].startswith(PREFIX) or code == 2)):
            problems.append(f"{name}: exit {code} with stdout {out[:200]!r} and stderr {err[:400]!r}")
        if raw_controls(out + err):
            problems.append(f"{name}: raw {raw_controls(out + err)} printed")
        if snapshot(root) != before:
            problems.append(f"{name}: changed {sorted(set(snapshot(root).items()) ^ set(before.items()))[:4]}")
            before = snapshot(root)
        if name == "export" and code == 0 and json.loads(out) != json.loads(store.read_bytes()):
            problems.append("export: not the store's contents")
    if codes.get("ls") != (0 if was_valid else 1) or codes.get("export") != codes.get("ls"):
        problems.append(f"valid={was_valid} but ls exit {codes.get('ls')}, export exit {codes.get('export')}")
    return problems


def check_clear(root: pathlib.Path, store: pathlib.Path, fault):
    problems = []
    was_valid, before = valid(store), snapshot(root)
    try:
        code, out, err = run_cli(["clear", "row_sum", "--yes", "--store", str(store)])
    except Exception:  # noqa: BLE001
        return [f"clear: raised\n{traceback.format_exc()}"]
    after = snapshot(root)
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    allowed = {"store/autotune.json", "store/autotune.json.lock"}
    if code == 0:
        if "store/autotune.json" in changed and (not valid(store) or any(
                e["kernel"] == "row_sum" for e in json.loads(store.read_bytes())["entries"].values())):
            problems.append("clear: the store left does not validate, or still holds row_sum")
        backups = {name for name in changed if name.startswith("store/autotune.json.corrupt-")}
        if not was_valid and fault.regular and os.path.lexists(str(store)) and len(backups) != 1:
            problems.append(f"clear: a store that did not validate was not moved aside once ({backups})")
        allowed |= backups
        if raw_controls(out + err) or len(err.splitlines()) > 1:
            problems.append(f"clear: stderr {err[:400]!r}")
    else:
        lines = err.splitlines()
        if code != 1 or len(lines) != 1 or not lines[0].startswith(PREFIX) or raw_controls(err):
            problems.append(f"clear: exit {code}, stderr {err[:400]!r}")
        if changed:
            problems.append(f"clear failed but changed {sorted(changed)}")
    if changed - allowed:
        problems.append(f"clear changed {sorted(changed - allowed)}")
    return problems


def check_tuner(root: pathlib.Path, store: pathlib.Path, fault, launches):
    problems = []
    was_valid, before = valid(store), snapshot(root)
    count = len(launches)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eid = tune(str(store))
    except Exception:  # noqa: BLE001
        return [f"tuner: raised\n{traceback.format_exc()}"]
    if len(launches) != count + 1:
        problems.append("tuner: did not launch")
    for warning in caught:
        if warning.category is not RuntimeWarning or "\n" in str(warning.message):
            problems.append(f"tuner: warning {warning.category.__name__}: {str(warning.message)[:300]!r}")
    after = snapshot(root)
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    outside = {name for name in changed if not name.startswith("store/")}
    if outside:
        problems.append(f"tuner changed {sorted(outside)} outside the store's folder")
    leftovers = [name for name in after if name.startswith("store/.autotune-")]
    if leftovers:
        problems.append(f"tuner left {leftovers}")
    if not fault.regular and fault.description not in ("dangling link",):
        if changed:
            problems.append(f"tuner changed {sorted(changed)} for a store that is a {fault.description}")
    elif not valid(store) or eid not in json.loads(store.read_bytes())["entries"]:
        problems.append("tuner: the store left does not validate or lacks the tuned entry")
    backups = [name for name in changed if name.startswith("store/autotune.json.corrupt-")]
    if fault.regular and not was_valid and len(backups) != 1:
        problems.append(f"tuner: a store that did not validate was not moved aside once ({backups})")
    if was_valid and backups:
        problems.append("tuner: moved a valid store aside")
    return problems


def report(seed, failures):
    shown = "\n\n".join(failures[:5])
    return f"{len(failures)} faults failed (seed {seed}, replay with TILELANG_FUZZ_SEED={seed}):\n{shown}"


def test_store_faults(seed, base, fake_gpu, tmp_path):
    failures, kinds, outcomes = [], {}, {}
    for index, fault in faults(seed, base, COUNT):
        kinds[fault.kind] = kinds.get(fault.kind, 0) + 1
        problems = []
        try:
            with deadline():
                root = make_case(tmp_path / f"{index}-read", fault, base)
                outcome = "valid" if valid(root / "store" / "autotune.json") else \
                    "corrupt" if fault.regular else "not a file"
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
                problems += check_inspector(root, root / "store" / "autotune.json")
                problems += check_clear(root, root / "store" / "autotune.json", fault)
                root = make_case(tmp_path / f"{index}-tune", fault, base)
                problems += check_tuner(root, root / "store" / "autotune.json", fault, fake_gpu)
        except Hang as exc:
            problems.append(str(exc))
        except Exception:  # noqa: BLE001 - the checks met a state the commands should not have left
            problems.append(f"checks raised\n{traceback.format_exc()}")
        if problems:
            failures.append(f"fault {index} ({fault.kind}: {fault.description}):\n  " + "\n  ".join(problems))
        else:  # a failing case's folders stay for a look; thousands of passing ones would slow pytest's cleanup
            for case in tmp_path.glob(f"{index}-*"):
                shutil.rmtree(case)
    print(f"store faults by kind: {kinds}; stores {outcomes}")
    assert not failures, report(seed, failures)


def test_the_real_command_under_store_faults(seed, base, tmp_path):
    """A slice through `python -m tilelang.autotune`: exit status, one line,
    no traceback and nothing reported at exit, in a process of its own."""
    failures = []
    for index, fault in faults(seed, base, SUBPROCESS_COUNT, offset=COUNT):
        root = make_case(tmp_path / str(index), fault, base)
        for argv in (["ls"], ["export", "--format", "csv"], ["clear"]):
            where = f"fault {index} ({fault.kind}: {fault.description}), {argv}"
            try:
                result = subprocess.run([sys.executable, "-m", "tilelang.autotune", *argv, "--store",
                                         str(root / "store" / "autotune.json")], capture_output=True, text=True,
                                        timeout=60)
            except subprocess.TimeoutExpired:
                failures.append(f"{where}: still running after 60 s")
                continue
            lines = result.stderr.splitlines()
            if result.returncode not in (0, 1) or "Traceback" in result.stderr \
                    or "Exception ignored" in result.stderr or (result.returncode == 1 and len(lines) != 1):
                failures.append(f"{where}: exit {result.returncode}\n{result.stderr[-1500:]}")
        if not failures:
            shutil.rmtree(root)
    assert not failures, report(seed, failures)
