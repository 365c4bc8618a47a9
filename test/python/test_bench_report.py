"""bench/report.py's tables, on the CPU: one column per implementation, the
tilelang / Triton ratio on the same source, and for attention a second
ratio against Triton's tutorial-form kernel (issue 19's yardstick) only
where such rows exist."""

from tilelang_testing import REPO_ROOT, load_module

report = load_module("bench_report", REPO_ROOT / "bench" / "report.py")


def _row(kernel, impl, ms, **extra):
    return dict(kernel=kernel, shape="s", impl=impl, ms=ms, **{"TFLOP/s": round(1000 / ms, 1)}, **extra)


def test_attention_rows_get_a_ratio_against_the_tutorial_form():
    rows = [_row("attention", "tilelang", 1.0, config="128x64 w8 s3"), _row("attention", "triton", 1.25),
            _row("attention", "triton-tutorial", 0.8, config="128x128 w8 s3"),
            _row("matmul", "tilelang", 2.0), _row("matmul", "triton", 1.0)]
    text = report.markdown({"rows": rows})
    attention, matmul = text.split("## attention")[1].split("## matmul")
    header = "| shape | tilelang | Triton | Triton, tutorial form | tilelang / Triton | " \
             "tilelang / Triton, tutorial form |"
    assert header in attention
    assert attention.count("| s |") == 1 and attention.rstrip().splitlines()[-1].endswith("| 0.80 | 1.25 |")
    assert "(128x128 w8 s3)" in attention
    assert "tutorial" not in matmul.split("`tilelang / Triton`")[0]
    assert "| 2.00 |" in matmul


def test_missing_implementations_give_no_ratio():
    text = report.markdown({"rows": [_row("attention", "tilelang", 1.0), _row("attention", "triton-tutorial", 2.0)]})
    assert text.split("## attention")[1].splitlines()[4].endswith("| n/a | 0.50 |")
