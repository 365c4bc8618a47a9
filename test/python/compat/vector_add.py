"""Element-wise addition, one block of BLOCK_SIZE elements per program,
the tail masked: the form of Triton's first tutorial (vector addition)."""

CASES = [dict(name="98432", n=98432), dict(name="1003", n=1003)]


def define(jit, tl):
    @jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        block_start = pid * BLOCK_SIZE
        offsets = block_start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(output_ptr + offsets, x + y, mask=mask)

    return {"add_kernel": add_kernel}


COMPILE = {"add_kernel": ("*fp32,*fp32,*fp32,i32", dict(BLOCK_SIZE=1024), {})}


def inputs(case, device):
    import torch

    return dict(x=torch.rand(case["n"], device=device), y=torch.rand(case["n"], device=device))


def launch(k, inp, case):
    import torch

    x, y = inp["x"], inp["y"]
    output = torch.empty_like(x)
    n = output.numel()
    k["add_kernel"][(cdiv(n, 1024),)](x, y, output, n, BLOCK_SIZE=1024)
    return output


def cdiv(a, b):
    return (a + b - 1) // b


def reference(inp, case):
    return inp["x"].double() + inp["y"].double()


TOLERANCE = dict(rtol=1e-6, atol=1e-6)
