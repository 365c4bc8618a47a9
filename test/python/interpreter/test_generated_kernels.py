"""The frontend fuzzer's generated tensor kernels (kernel_gen.py) run in
the interpreter without an error: every op the generator uses is
implemented and every access stays in bounds. Their values are compared
with the compiled kernels' on the GPU host
(test/python/gpu/test_interpreter_differential.py); the scalar family is
checked against its Python models in test_interpreter_launch.py."""

import os
import random

from differential import interpret, inputs, kernel_gen, load, usable


def test_generated_tensor_kernels_run(tmp_path):
    seed = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2**32)))
    print(f"interpreter tensor-kernel seed: {seed} (replay with TILELANG_FUZZ_SEED={seed})")
    ran = 0
    for index in range(300):
        case = kernel_gen.generate(seed, index)
        if case.family != "tensor" or not usable(case):
            continue
        data = inputs(case, seed, index)
        out = interpret(case, load(tmp_path, case, seed, index), data)
        assert out["y"].shape == data["arrays"]["y"].shape
        ran += 1
    assert ran > 50
