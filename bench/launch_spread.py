"""The launch benchmark in several fresh processes: how much the per-launch
host time moves from one process to the next.

  python bench/launch_spread.py [--processes 8] [--out DIR]

Each process runs `bench/run.py --only launch` (tilelang's and Triton's
`kernel[(1,)](x, y, 64, BLOCK=64)` loops and the C++ floor under them, each
the median of 7 loops of 2000 launches). On the GPU host (a virtual machine)
the floor alone moved between 2.6 and 4.3 us from one process to the next
while staying steady within each, so one process's number is one sample of
a spread; this prints every process's row, then the median and the range
of each column. A measurement, not a test.
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
COLUMNS = [("tilelang", "1 block, 3 args", "tilelang"), ("Triton", "1 block, 3 args", "triton"),
           ("floor (C++ loop)", "C++ loop of cuLaunchKernel (floor)", "tilelang")]


def one_process(out: pathlib.Path):
    """{column: us} of one `run.py --only launch` process."""
    subprocess.run([sys.executable, str(HERE / "run.py"), "--only", "launch", "--out", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    rows = json.loads((out / "results.json").read_text())["rows"]
    found = {}
    for label, shape, impl in COLUMNS:
        for row in rows:
            if row["shape"] == shape and row["impl"] == impl:
                found[label] = row["us"]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--out", type=pathlib.Path, help="also write spread.json here")
    args = parser.parse_args()
    samples = []
    print("| process | " + " | ".join(label for label, _, _ in COLUMNS) + " |")
    print("| --- |" + " --- |" * len(COLUMNS))
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.processes):
            sample = one_process(pathlib.Path(folder) / str(index))
            samples.append(sample)
            print(f"| {index + 1} | " + " | ".join(f"{sample[label]:.2f} us" if label in sample else "-"
                                                   for label, _, _ in COLUMNS) + " |", flush=True)
    summary = {}
    for label, _, _ in COLUMNS:
        values = [sample[label] for sample in samples if label in sample]
        if values:
            summary[label] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    print("| median (range) | " + " | ".join(
        f"{summary[label]['median']:.2f} ({summary[label]['min']:.2f}-{summary[label]['max']:.2f}) us"
        if label in summary else "-" for label, _, _ in COLUMNS) + " |")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "spread.json").write_text(json.dumps({"processes": samples, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
