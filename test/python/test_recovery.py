"""A compilation recovered from a crash or from running out of memory frees
what it allocated, and the process compiles on (issue 20, item 3).

A recovery returns to the library's entry point without unwinding the
compilation's frames; the session (MLIR context, module, LLVM state) lives
outside them and is freed afterwards. Running out of memory used to throw
std::bad_alloc through LLVM and MLIR, built without exceptions: a
MemoryError at best, with the recovery state left behind, an abort at
worst."""

import json
import re
import subprocess
import sys
import textwrap

import tilelang


VECTOR_ADD = """func.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %px = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %py = tile.addptr %ys, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %px : tensor<128x!tile.ptr<f32>>
  %w = arith.addf %v, %v : tensor<128xf32>
  tile.store %py, %w : tensor<128x!tile.ptr<f32>>
  return
}
"""


def run_child(script, timeout=300):
    child = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                           timeout=timeout)
    assert child.returncode == 0, f"exit {child.returncode}:\n{child.stderr[-3000:]}"
    return json.loads(child.stdout.splitlines()[-1])


def test_recovered_crashes_free_their_session():
    """Each recovered crash used to keep its MLIR context (about half a
    megabyte): 200 of them grew the process by 100 MB."""
    report = run_child(f"""
        import json, re, tilelang

        def rss_mb():
            return int(re.search(r"VmRSS:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024

        def crash(times):
            for _ in range(times):
                try:
                    tilelang.ir.run_pipeline({VECTOR_ADD!r}, "test-crash")
                except tilelang.CompilationError as err:
                    assert "internal compiler error" in str(err), str(err)

        crash(20)  # first-use allocations settle
        before = rss_mb()
        crash(200)
        print(json.dumps({{"growth_mb": rss_mb() - before,
                           "recovered": tilelang.ir.compiler_statistics()["recovered_crashes"]}}))
    """)
    assert report["recovered"] == 220
    assert report["growth_mb"] < 20, report


def test_recovered_pass_frees_its_pass_manager():
    """A pass that crashes mid-work (test-crash, a test pass no pipeline
    names) is recovered; its pass manager and the pass object, with what the
    object holds, are freed with the session (they lived in the abandoned
    frame: 200 crashes holding 1 MB each in the pass object grew the process
    by 200 MB). What the crashed frames themselves held (the pass's locals,
    analyses cached during the run, IR attached to nothing) cannot be freed:
    the growth is bounded by it (docs/building.md, "Crash recovery"). The
    process then compiles a kernel as before."""
    report = run_child(f"""
        import json, re, tilelang

        def rss_mb():
            return int(re.search(r"VmRSS:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024

        SOURCE = "func.func @f(%a: i32) -> i32 {{\\n  return %a : i32\\n}}\\n"

        def crash(times, options):
            messages = set()
            for _ in range(times):
                try:
                    tilelang.ir.run_pipeline(SOURCE, "test-crash{{" + options + "}}")
                    raise AssertionError("test-crash did not crash")
                except tilelang.CompilationError as err:
                    messages.add(str(err))
            return sorted(messages)

        crash(10, "kind=segfault object-kb=1024")  # first-use allocations settle
        before = rss_mb()
        messages = crash(200, "kind=segfault object-kb=1024")
        messages += crash(200, "kind=fatal-error object-kb=1024")
        after_object = rss_mb()
        crash(100, "kind=segfault frame-kb=256")
        after_frame = rss_mb()
        ptx = tilelang.compile_ir({VECTOR_ADD!r}).ptx
        print(json.dumps({{"object_growth_mb": after_object - before, "frame_growth_mb": after_frame - after_object,
                           "messages": messages, "compiled": ".entry add" in ptx,
                           "recovered": tilelang.ir.compiler_statistics()["recovered_crashes"]}}))
    """)
    assert report["messages"] == [
        "<compiler>: error: internal compiler error: the compiler crashed "
        "(please report it with the input that caused it)",
        "<compiler>: error: internal compiler error: test-crash: a fatal error on purpose "
        "(please report it with the input that caused it)"], report
    assert report["recovered"] == 510, report
    assert report["object_growth_mb"] < 20, report
    # 100 crashed frames holding 256 KB each: 25 MB, and little more.
    assert report["frame_growth_mb"] < 25 + 10, report
    assert report["compiled"], report


def test_running_out_of_memory_is_an_ordinary_error():
    """Under an address-space limit, a compilation that needs more memory
    fails with a diagnostic; the process then compiles again, and fails the
    same way again instead of dying."""
    report = run_child("""
        import json, re, resource, tilelang

        def chain(n):
            lines = ["func.func @chain(%x: !tile.ptr<f32>) {",
                     "  %r = tile.make_range 0 to 128 : tensor<128xi32>",
                     "  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>",
                     "  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>",
                     "  %v0 = tile.load %p : tensor<128x!tile.ptr<f32>>"]
            lines += [f"  %v{i + 1} = arith.mulf %v{i}, %v{i} : tensor<128xf32>" for i in range(n)]
            lines += [f"  tile.store %p, %v{n} : tensor<128x!tile.ptr<f32>>", "  return", "}"]
            return "\\n".join(lines)

        small, big = chain(4), chain(200_000)  # the big one needs about 400 MB more
        tilelang.compile_ir(small)
        size = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
        limit = size + (256 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        outcomes = []
        for text in (big, small, big, small):
            try:
                tilelang.compile_ir(text)
                outcomes.append("ok")
            except tilelang.CompilationError as err:
                outcomes.append(str(err))
            except MemoryError:
                outcomes.append("MemoryError")
        print(json.dumps(outcomes))
    """)
    # Where memory runs out decides the message: an allocation through
    # operator new or LLVM's allocators is reported as such; MLIR creates ops
    # with a malloc it does not check, and running out there is a recovered
    # crash. Both are diagnostics, and the process compiles on.
    out_of_memory = "<compiler>: error: the compiler ran out of memory"
    crashed = "<compiler>: error: internal compiler error: the compiler crashed"
    assert report[0].startswith(out_of_memory), report
    assert report[1] == "ok", report
    assert report[2].startswith((out_of_memory, crashed)), report
    assert report[3] == "ok", report
