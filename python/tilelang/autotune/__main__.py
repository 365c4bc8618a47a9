"""``python -m tilelang.autotune`` (also ``tilelang-autotune``): the
autotuning store's inspector.

    ls                      one line per entry
    show KERNEL             every config of the matching entries, best first
    export --format json|csv [-o FILE]
    clear [KERNEL] [--yes]  remove every entry, or those of one kernel (asks first
                            on a terminal; --yes to remove without asking)
    plot KERNEL -o FILE.png time per config, the best and the pruned configs
                            marked (needs matplotlib)

``--store PATH`` reads another store file than ``<cache dir>/autotune.json``
(it must exist). KERNEL is a kernel name or a prefix (6+ characters) of an
entry id.

``ls``, ``show``, ``export`` and ``plot`` only read: they take no lock and
create, move or repair nothing; a store that does not validate is an error
for them (the next sweep or ``clear`` moves it aside and rebuilds it). What
the store holds is printed with control characters escaped (text.py).
Failures are one line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import sys
import warnings
from typing import Dict, List, Optional, Tuple

from tilelang.autotune import store as _store
from tilelang.autotune.text import csv_cell, printable, table

PROG = "tilelang-autotune"


class CommandError(Exception):
    """A one-line reason the command cannot do what it was asked."""


def _key_text(entry: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in entry.get("key", {}).items()) or "-"


def _time_text(ms) -> str:
    return "-" if ms is None else f"{ms:.4f} ms"


def _sorted_records(entry: dict) -> List[dict]:
    order = {"ok": 0, "failed": 1, "pruned": 2}
    return sorted(entry["records"], key=lambda r: (order.get(r.get("status"), 3),
                                                   r.get("time_ms") if r.get("time_ms") is not None else 0.0,
                                                   r.get("config", "")))


def _select(entries: dict, kernel: Optional[str]) -> List[Tuple[str, dict]]:
    return [(eid, e) for eid, e in sorted(entries.items(), key=lambda item: (item[1].get("kernel", ""), item[0]))
            if kernel is None or _store.matches(e, eid, kernel)]


def _load(store: _store.Store, args) -> Dict[str, dict]:
    """The entries, read only; a store named by --store must exist."""
    if args.store is not None and not store.exists():
        raise CommandError(f"no autotuning store at {store.path}")
    return store.entries()


def cmd_ls(store: _store.Store, args) -> int:
    entries = _select(_load(store, args), None)
    if not entries:
        print(f"no entries in {printable(store.path)}")
        return 0
    rows = [("ENTRY", "KERNEL", "KEY", "DEVICE", "BEST CONFIG", "TIME", "ACHIEVED", "CONFIGS", "DATE")]
    for eid, e in entries:
        best = e.get("best") or {}
        rows.append((eid[:12], e.get("kernel", "?"), _key_text(e), e.get("device", "?"), best.get("config", "-"),
                     _time_text(best.get("time_ms")),
                     _store.achieved_text(e.get("work"), e.get("peak"), best.get("time_ms")) or "-",
                     str(len(e["records"])), e.get("updated", "?")[:19]))
    print("\n".join(table(rows)))
    return 0


def _entries_of(store: _store.Store, args) -> List[Tuple[str, dict]]:
    """The entries of `args.kernel`; says so on stderr when there are none."""
    entries = _select(_load(store, args), args.kernel)
    if not entries:
        _fail(f"no entry for {args.kernel!r} in {store.path}")
    return entries


def cmd_show(store: _store.Store, args) -> int:
    entries = _entries_of(store, args)
    if not entries:
        return 1
    for index, (eid, e) in enumerate(entries):
        if index:
            print()
        best = e.get("best") or {}
        print(printable(f"{e.get('kernel')}  entry {eid[:12]}"))
        print(printable(f"  key: {_key_text(e)}   dtypes: {', '.join(e.get('dtypes', [])) or '-'}"))
        compiler = e.get("compiler", {})
        print(printable(f"  device: {e.get('device')} ({e.get('arch')})   compiler: {compiler.get('version')} "
                        f"[{str(compiler.get('build_id', ''))[:12]}]   updated: {e.get('updated')}"))
        print(printable(f"  best: {best.get('config', '-')}  {_time_text(best.get('time_ms'))}"))
        if e.get("work"):
            work = ", ".join(f"{k} {e['work'][k]:.4g}" for k in ("flops", "bytes") if k in e["work"])
            peak = e.get("peak") or {}
            peaks = ", ".join(f"{peak[k]:.0f} {unit}" for k, unit in (("tflops", "TFLOP/s"), ("gbps", "GB/s"))
                              if peak.get(k))
            print(f"  work per call: {work}   device peak (estimated): {peaks or 'unknown'}")
        rows = [("", "CONFIG", "TIME", "ACHIEVED", "STATUS", "REASON")]
        for r in _sorted_records(e):
            mark = "*" if r.get("id") == best.get("id") else ""
            rows.append((mark, r.get("config", "?"), _time_text(r.get("time_ms")),
                         _store.achieved_text(e.get("work"), e.get("peak"), r.get("time_ms")),
                         r.get("status", "?"), r.get("reason") or ""))
        print("\n".join(table(rows, indent="  ")))
    return 0


CSV_FIELDS = ["entry", "kernel", "key", "dtypes", "device", "arch", "compiler", "build_id", "config", "kwargs",
              "num_warps", "num_stages", "maxnreg", "time_ms", "status", "reason", "timestamp", "best"]


def cmd_export(store: _store.Store, args) -> int:
    entries = dict(_select(_load(store, args), None))
    if args.format == "json":
        # ensure_ascii: control characters leave as \u001b, never raw.
        text = json.dumps({"format": _store.FORMAT, "entries": entries}, indent=1, sort_keys=True) + "\n"
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for eid, e in entries.items():
            best_id = (e.get("best") or {}).get("id")
            for r in _sorted_records(e):
                row = {"entry": eid, "kernel": e.get("kernel"), "key": json.dumps(e.get("key", {})),
                       "dtypes": " ".join(e.get("dtypes", [])), "device": e.get("device"),
                       "arch": e.get("arch"), "compiler": e.get("compiler", {}).get("version"),
                       "build_id": e.get("compiler", {}).get("build_id"), "config": r.get("config"),
                       "kwargs": json.dumps(r.get("kwargs", {}), sort_keys=True),
                       "num_warps": r.get("num_warps"), "num_stages": r.get("num_stages"),
                       "maxnreg": r.get("maxnreg"), "time_ms": r.get("time_ms"),
                       "status": r.get("status"), "reason": r.get("reason"),
                       "timestamp": r.get("timestamp"), "best": int(r.get("id") == best_id)}
                writer.writerow({name: csv_cell(value) for name, value in row.items()})
        text = buffer.getvalue()
    if args.output and args.output != "-":
        _write_file(args.output, lambda handle: handle.write(text))
        print(f"wrote {len(entries)} entries to {printable(args.output)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _write_file(path: str, write) -> None:
    """``write(handle)`` into the file at ``path``; CommandError if it fails."""
    try:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            write(handle)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None


def cmd_clear(store: _store.Store, args) -> int:
    what = f"of {args.kernel!r} " if args.kernel else ""
    if not args.yes and store.exists():
        try:
            count = str(len(_select(store.entries(), args.kernel)))
        except (_store.StoreError, OSError):
            count = "all"  # a store that does not validate: clear moves it aside
        if count != "0" and not _confirm(f"remove {count} entries {what}from {store.path}?"):
            print("nothing removed", file=sys.stderr)
            return 1
    removed = store.clear(args.kernel)
    print(printable(f"removed {removed} entries {what}from {store.path}"))
    return 0


def _confirm(question: str) -> bool:
    """Asks `question` on the terminal; CommandError when there is none."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise CommandError(f"clear would {question[:-1]}; pass --yes to do it without a terminal to ask on")
    sys.stderr.write(printable(question) + " [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def cmd_plot(store: _store.Store, args) -> int:
    entries = _entries_of(store, args)
    if not entries:
        return 1
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.patches
        import matplotlib.pyplot as plt

        # Labels come from the store: a '$' must not be read as mathtext.
        plt.rcParams["text.parse_math"] = False
    except ImportError:
        print("plot needs matplotlib, which is not installed (pip install matplotlib); "
              "'export --format csv' gives the same data", file=sys.stderr)
        return 2
    fig, axes = plt.subplots(len(entries), 1, figsize=(10, 1.8 + 0.35 * max(len(e["records"]) for _, e in entries)
                                                      * len(entries)), squeeze=False)
    colors = {"best": "tab:green", "ok": "tab:blue", "pruned": "tab:gray", "failed": "tab:red"}
    for ax, (eid, e) in zip(axes[:, 0], entries):
        records = _sorted_records(e)
        best_id = (e.get("best") or {}).get("id")
        times = [r["time_ms"] for r in records if r.get("time_ms") is not None]
        longest = max(times, default=1.0)
        labels, widths, kinds = [], [], []
        for r in records:
            kind = "best" if r.get("id") == best_id else r.get("status", "failed")
            kind = kind if kind in colors else "failed"
            labels.append(printable(r.get("config", "?")))
            widths.append(r["time_ms"] if r.get("time_ms") is not None else 0.0)
            kinds.append(kind)
        bars = ax.barh(labels, widths, color=[colors[k] for k in kinds])
        for bar, r, kind in zip(bars, records, kinds):
            # Configs without a time say why, where their bar would be.
            if kind in ("pruned", "failed"):
                reason = printable(r.get("reason") or "")
                text = f"{kind}: {reason[:80] + '...' if len(reason) > 80 else reason}"
                ax.text(longest * 0.01, bar.get_y() + bar.get_height() / 2, text, va="center", fontsize=7,
                        color=colors[kind])
            elif kind == "best":
                ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f"  best, {r['time_ms']:.4f} ms",
                        va="center", fontsize=8, color=colors["best"], fontweight="bold")
        handles = [matplotlib.patches.Patch(color=colors[k], label=label)
                   for k, label in (("best", "best"), ("ok", "timed"), ("pruned", "pruned"), ("failed", "failed"))
                   if k in kinds]
        ax.legend(handles=handles, loc="lower right", fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, longest * 1.25)
        ax.set_xlabel("time (ms)")
        # Two lines, so that long config labels leave the title room.
        ax.set_title(printable(f"{e.get('kernel')} [{_key_text(e)}]") + "\n" + printable(f"on {e.get('device')}"),
                     loc="left")
    fig.tight_layout()
    try:
        fig.savefig(args.output)
    except OSError as exc:
        raise CommandError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"wrote {printable(args.output)}", file=sys.stderr)
    return 0


def _store_help() -> str:
    """--store's help: the default file, as this environment names it."""
    try:
        default = _store.default_path()
    except Exception:  # noqa: BLE001 - help is shown whatever the cache's state
        default = None
    where = printable(default) if default else "none: the cache is off (TILELANG_CACHE=0)"
    return ("the store file (default: autotune.json in the kernel cache's directory, $TILELANG_CACHE_DIR or "
            f"~/.cache/tilelang; here {where})")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="tilelang-autotune", description="Inspect tilelang's autotuning store.")
    store_help = _store_help()
    parser.add_argument("--store", help=store_help)
    # --store also after the command.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", default=argparse.SUPPRESS, help=store_help)
    kernel_help = "a kernel name, or the first 6 or more characters of an entry id"
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                help="what to do (COMMAND --help describes each)")
    sub.add_parser("ls", parents=[common], help="one line per entry", description="One line per entry.")
    show = sub.add_parser("show", parents=[common], help="every config of one kernel's entries, best first",
                          description="Every config of the matching entries, best first.")
    show.add_argument("kernel", metavar="KERNEL", help=kernel_help)
    export = sub.add_parser("export", parents=[common], help="the whole store as JSON or CSV",
                            description="The whole store as JSON or as CSV (one row per config).")
    export.add_argument("--format", choices=("json", "csv"), default="json", help="output format (default: json)")
    export.add_argument("-o", "--output", help="file to write (default: stdout)")
    clear = sub.add_parser("clear", parents=[common], help="remove all entries, or one kernel's",
                           description="Remove every entry, or the matching ones. Asks first when run on a "
                                       "terminal; elsewhere it needs --yes.")
    clear.add_argument("kernel", nargs="?", metavar="KERNEL", help=kernel_help + " (default: every entry)")
    clear.add_argument("-y", "--yes", action="store_true", help="remove without asking")
    plot = sub.add_parser("plot", parents=[common], help="PNG of time per config",
                          description="A PNG of the time of each config of the matching entries: the best "
                                      "marked, pruned and failed configs listed with their reasons.")
    plot.add_argument("kernel", metavar="KERNEL", help=kernel_help)
    plot.add_argument("-o", "--output", required=True, help="the PNG file to write")
    args = parser.parse_args(argv)
    try:
        store = _store.Store(args.store)
    except ValueError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    commands = {"ls": cmd_ls, "show": cmd_show, "export": cmd_export, "clear": cmd_clear, "plot": cmd_plot}
    with contextlib.suppress(AttributeError, ValueError):
        # A terminal that cannot show a character gets its escape, not a traceback.
        sys.stdout.reconfigure(errors="backslashreplace")
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            code = commands[args.command](store, args)
            sys.stdout.flush()
            return code
        except _store.CorruptStore as exc:
            _fail(f"{exc}; 'clear' or the next sweep moves it aside and starts a new one")
        except (CommandError, _store.StoreError) as exc:
            _fail(str(exc))
        except BrokenPipeError:  # the reader went away (| head)
            _drop_stdout()
        except OSError as exc:
            _drop_stdout()
            where = f" ({exc.filename})" if exc.filename else ""
            _fail(f"{exc.strerror or exc}{where}")
        return 1


def _fail(message: str) -> None:
    print(f"{PROG}: {printable(message)}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (a corrupt store moved aside by clear) as one line."""
    text = str(message)
    _fail("warning: " + (text[len("tilelang: "):] if text.startswith("tilelang: ") else text))


def _drop_stdout() -> None:
    """After a write to stdout failed, what is still buffered would fail
    again at exit, with Python's "Exception ignored" report: the rest goes
    to /dev/null (only for the process's own stdout, not a test's capture)."""
    if sys.stdout is not sys.__stdout__:
        return
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
