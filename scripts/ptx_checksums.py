"""Checksums of the PTX of the bundled kernels, to show that a change leaves
the generated code alone.

Compiles, without a GPU and with the on-disk cache off (a fresh cache
directory, TILELANG_ALWAYS_COMPILE=1):
  - the tile-IR programs of test/Target/PTX (tilelang.compile_ir), at the
    options their RUN lines use by default (4 warps, 3 stages);
  - the tilelang.ops kernels at the configs bench/ops_static.py compiles
    (the configs launched untuned, at bench/ops.py's shapes);
  - every config of the parity corpus (bench/parity), tilelang's side, as
    `parity.py static` compiles it;
for sm_90a and sm_80, and prints one line per kernel: its name, the arch and
the SHA-256 of its PTX. `--write FILE` stores the lines, `--compare FILE`
prints the kernels whose PTX changed (or that appeared or went) and exits 1
when there is any.

  .venv/bin/python scripts/ptx_checksums.py --write /tmp/ptx-before.txt
  ... change the compiler, rebuild ...
  .venv/bin/python scripts/ptx_checksums.py --compare /tmp/ptx-before.txt
"""

import argparse
import hashlib
import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARCHES = ("sm_90a", "sm_80")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def tile_ir_programs():
    """(name, arch, ptx or error) for test/Target/PTX/*.mlir."""
    import tilelang

    for path in sorted((ROOT / "test" / "Target" / "PTX").glob("*.mlir")):
        for arch in ARCHES:
            try:
                ptx = tilelang.compile_ir(path.read_text(), arch=arch, source_name=str(path)).ptx
            except Exception as exc:  # noqa: BLE001 - a failure is recorded, as a change would be
                ptx = f"error: {type(exc).__name__}"
            yield f"tile-ir/{path.stem}", arch, ptx


def ops_kernels():
    """(name, arch, ptx) for bench/ops_static.py's cases."""
    import tilelang
    import tilelang.language as tl

    sys.path.insert(0, str(ROOT / "bench"))
    import ops_static

    kernels = ops_static.package.define(tilelang.jit, tl)
    for index, (operator, name, call_args, options) in enumerate(ops_static.cases()):
        for arch in ARCHES:
            try:
                ptx = kernels[name].warmup(*call_args, **options).to_ptx(arch).ptx
            except Exception as exc:  # noqa: BLE001
                ptx = f"error: {type(exc).__name__}"
            yield f"ops/{index}:{operator}", arch, ptx


def parity_corpus():
    """(name, arch, ptx) for every config of the parity corpus, tilelang's
    side, for each arch (parity.py static compiles sm_90a only)."""
    sys.path.insert(0, str(ROOT / "bench" / "parity"))
    import parity

    # The linked-resource search runs tilelang-compile and does not change
    # the PTX; it is not needed here.
    parity.linked_resources = lambda tile_ir, launch_options: None
    for name in parity.corpus_names():
        module = parity.load(name, "tilelang")
        for problem_index, problem in enumerate(parity.static_problems(module)):
            for index, config in enumerate(module.CONFIGS):
                for arch in ARCHES:
                    parity.ARCH = arch
                    try:
                        ptx = parity.compile_ptx(module, "tilelang", problem, config)["ptx"]
                    except Exception as exc:  # noqa: BLE001
                        ptx = f"error: {type(exc).__name__}"
                    yield f"parity/{name}/{problem_index}/{index}", arch, ptx


def checksums():
    lines = []
    for source in (tile_ir_programs, ops_kernels, parity_corpus):
        for name, arch, ptx in source():
            line = f"{name} {arch} {_digest(ptx)}"
            lines.append(line)
            print(line + (f" ({ptx})" if ptx.startswith("error: ") else ""), flush=True)
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", type=pathlib.Path, help="store the checksums in this file")
    group.add_argument("--compare", type=pathlib.Path, help="compare with checksums stored by --write")
    args = parser.parse_args(argv)
    # Every kernel compiled here, never read from a cache entry; the cache
    # folder (some hundred MB) goes when the checksums are taken.
    with tempfile.TemporaryDirectory(prefix="tilelang-ptx-checksums-") as cache:
        os.environ["TILELANG_CACHE_DIR"] = cache
        os.environ["TILELANG_ALWAYS_COMPILE"] = "1"
        lines = checksums()
    if args.write:
        args.write.write_text("\n".join(lines) + "\n")
        print(f"{len(lines)} checksums written to {args.write}")
        return 0
    if args.compare:
        before = dict(line.rsplit(" ", 1) for line in args.compare.read_text().splitlines() if line)
        after = dict(line.rsplit(" ", 1) for line in lines)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        for key in changed:
            print(f"changed: {key} ({before.get(key, 'absent')[:12]} -> {after.get(key, 'absent')[:12]})")
        print(f"{len(after)} kernels compared, {len(changed)} changed")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
