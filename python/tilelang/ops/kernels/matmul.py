"""Matrix products in tilelang's language (the same source runs under
Triton): through pointers with any strides, with a fused bias/activation
epilogue, and through tensor descriptors; below `define`, the host helpers
that launch them."""


def define(jit, tl):
    """The matmul kernels decorated with `jit`, using language module `tl`."""

    @jit
    def grouped_tile_of(pid, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                        GROUP_SIZE_M: tl.constexpr):
        # Tile `pid` (row, column of tiles) of an M x N product in grouped
        # ordering: consecutive tile ids walk down a column of GROUP_SIZE_M
        # row-tiles before moving to the next column of tiles, so the tiles
        # computed at the same time share rows of A and columns of B in L2.
        tiles_m = tl.cdiv(M, BLOCK_SIZE_M)
        tiles_n = tl.cdiv(N, BLOCK_SIZE_N)
        tiles_per_group = GROUP_SIZE_M * tiles_n
        group = pid // tiles_per_group
        group_first_m = group * GROUP_SIZE_M
        group_rows = min(tiles_m - group_first_m, GROUP_SIZE_M)  # the last group may be shorter
        pid_in_group = pid % tiles_per_group
        pid_m = group_first_m + pid_in_group % group_rows
        pid_n = pid_in_group // group_rows
        return pid_m, pid_n

    @jit
    def grouped_tile(M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                     GROUP_SIZE_M: tl.constexpr):
        # This program's tile, one tile per program (grouped_tile_of).
        return grouped_tile_of(tl.program_id(axis=0), M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)

    @jit
    def tile_operands(pid, a_ptr, b_ptr, M, N, stride_am, stride_ak, stride_bk, stride_bn,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr, OFFSETS_64: tl.constexpr = False):
        # Tile `pid` (grouped_tile_of), BLOCK_SIZE_M x BLOCK_SIZE_N, of A (M x K) @ B (K x N):
        # its row and column indices, which of them are in bounds, the K
        # offsets of one step and the pointers of the first step's blocks of A
        # and B. Any strides: transposed or padded operands need no copy.
        # OFFSETS_64: an operand spans 2**31 elements or more, where
        # rows * stride_am (cols * stride_bn) would wrap in 32 bits; the
        # tile's first row (column) then moves the base pointer in 64 bits
        # and the offsets within the tile stay small 32-bit tensors.
        pid_m, pid_n = grouped_tile_of(pid, M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)
        rows = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        cols = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        ks = tl.arange(0, BLOCK_SIZE_K)
        if OFFSETS_64:
            a_ptr += (pid_m * BLOCK_SIZE_M).to(tl.int64) * stride_am
            b_ptr += (pid_n * BLOCK_SIZE_N).to(tl.int64) * stride_bn
            a_tile = a_ptr + tl.arange(0, BLOCK_SIZE_M)[:, None] * stride_am + ks[None, :] * stride_ak
            b_tile = b_ptr + ks[:, None] * stride_bk + tl.arange(0, BLOCK_SIZE_N)[None, :] * stride_bn
        else:
            a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
            b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
        row_ok = rows[:, None] < M
        col_ok = cols[None, :] < N
        return rows, cols, ks, a_tile, b_tile, row_ok, col_ok

    @jit
    def matmul_tile(a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                    GROUP_SIZE_M: tl.constexpr):
        # This program's tile of A @ B (tile_operands), with its row and column
        # indices and which of them are in bounds.
        rows, cols, ks, a_tile, b_tile, row_ok, col_ok = tile_operands(
            tl.program_id(axis=0), a_ptr, b_ptr, M, N, stride_am, stride_ak, stride_bk, stride_bn,
            BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M)

        # Integer operands (int8) accumulate exactly in int32, floating-point
        # ones in fp32.
        acc_dtype = tl.int32 if a_ptr.dtype.element_ty == tl.int8 else tl.float32
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=acc_dtype)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            k_left = K - k * BLOCK_SIZE_K  # masked-off elements of the last K step load as 0
            a = tl.load(a_tile, mask=row_ok & (ks[None, :] < k_left), other=0.0)
            b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok, other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=acc_dtype)  # Triton wants out_dtype=int32 for int8
            a_tile += BLOCK_SIZE_K * stride_ak
            b_tile += BLOCK_SIZE_K * stride_bk
        return acc, rows, cols, row_ok, col_ok

    @jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr):
        # C (M x N) = A (M x K) @ B (K x N), one BLOCK_SIZE_M x BLOCK_SIZE_N tile of
        # C per program; the store converts to C's element type.
        acc, rows, cols, row_ok, col_ok = matmul_tile(
            a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
            BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M)
        c = acc.to(c_ptr.dtype.element_ty)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, c, mask=row_ok & col_ok)

    @jit
    def matmul_bias_relu_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                                stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                                BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
        # C = relu(A @ B + bias[None, :]) with a fused epilogue: the bias add, the
        # relu and the cast are ordinary tile ops on the fp32 accumulator
        # (floating-point operands).
        acc, rows, cols, row_ok, col_ok = matmul_tile(
            a_ptr, b_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
            BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M)
        bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc = acc + bias[None, :]
        acc = tl.maximum(acc, 0.0)
        c = acc.to(c_ptr.dtype.element_ty)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, c, mask=row_ok & col_ok)

    @jit
    def matmul_descriptor_kernel(a_desc, b_desc, c_desc, M, N, K,
                                 BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                                 BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
        # C = A @ B through tensor descriptors (blocks BLOCK_SIZE_M x BLOCK_SIZE_K
        # of A, BLOCK_SIZE_K x BLOCK_SIZE_N of B, BLOCK_SIZE_M x BLOCK_SIZE_N of
        # C): the descriptors bound the blocks, so there are no masks; elements
        # past the edges read as zero and are not written.
        pid_m, pid_n = grouped_tile(M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)
        acc_dtype = tl.int32 if a_desc.dtype == tl.int8 else tl.float32
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=acc_dtype)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
            b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
            acc = tl.dot(a, b, acc, out_dtype=acc_dtype)
        c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(c_desc.dtype))

    @jit
    def epilogue_tile(pid, a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                      BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                      EVEN_K: tl.constexpr, K_GROUP: tl.constexpr, OFFSETS_64: tl.constexpr):
        # Tile `pid` of matmul_epilogue_kernel: its K loop, epilogue and store.
        rows, cols, ks, a_tile, b_tile, row_ok, col_ok = tile_operands(
            pid, a_ptr, b_ptr, M, N, stride_am, stride_ak, stride_bk, stride_bn,
            BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, OFFSETS_64)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        if K_GROUP and not EVEN_K:
            k_groups = ks // K_GROUP * K_GROUP
            for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
                k_left = K - k * BLOCK_SIZE_K
                a = tl.load(a_tile, mask=row_ok & (k_groups[None, :] < k_left), other=0.0)
                b = tl.load(b_tile, mask=(k_groups[:, None] < k_left) & col_ok, other=0.0)
                acc = tl.dot(a, b, acc)
                a_tile += BLOCK_SIZE_K * stride_ak
                b_tile += BLOCK_SIZE_K * stride_bk
        else:
            for k in range(0, K // BLOCK_SIZE_K):
                a = tl.load(a_tile, mask=row_ok, other=0.0)
                b = tl.load(b_tile, mask=col_ok, other=0.0)
                acc = tl.dot(a, b, acc)
                a_tile += BLOCK_SIZE_K * stride_ak
                b_tile += BLOCK_SIZE_K * stride_bk
            if not EVEN_K:
                k_left = K % BLOCK_SIZE_K
                a = tl.load(a_tile, mask=row_ok & (ks[None, :] < k_left), other=0.0)
                b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok, other=0.0)
                acc = tl.dot(a, b, acc)
        if HAS_BIAS:
            bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
            acc = acc + bias[None, :]
        if ACTIVATION == "relu":
            acc = tl.maximum(acc, 0.0)
        elif ACTIVATION == "gelu":
            # x/2 + x/2 erf(x/sqrt(2)): the sum is one fma, where the
            # spelled-out 0.5 x (1 + erf) costs a multiply more per element;
            # the epilogue runs while the tensor cores idle, and at a short K
            # it is a large part of a tile's time.
            half = 0.5 * acc
            acc = half + half * tl.erf(acc * 0.7071067811865476)
        elif ACTIVATION == "silu":
            acc = acc * tl.sigmoid(acc)
        c = acc.to(c_ptr.dtype.element_ty)
        if OFFSETS_64:
            c_rows = rows.to(tl.int64)
        else:
            c_rows = rows
        tl.store(c_ptr + c_rows[:, None] * stride_cm + cols[None, :] * stride_cn, c, mask=row_ok & col_ok)

    @jit
    def matmul_epilogue_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                               stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                               HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
                               BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                               BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                               EVEN_K: tl.constexpr = False, K_GROUP: tl.constexpr = 0,
                               STRIDES_OF_8: tl.constexpr = 0, OFFSETS_64: tl.constexpr = False,
                               PERSISTENT: tl.constexpr = 0):
        # C = act(A @ B + bias[None, :]) for tilelang.ops.matmul: the bias
        # (HAS_BIAS) and the activation (ACTIVATION: "none", "relu", "gelu"
        # (the erf form) or "silu") are applied to the fp32 accumulator
        # before the one store. The K loop runs over whole K blocks with
        # row and column masks only, which are constant along K, so that
        # the loads stay wide (16-byte copies) whatever K is; a K that
        # BLOCK_SIZE_K does not divide (EVEN_K false) gets one more, masked
        # step after the loop (where K does divide, that step loads nothing).
        # K_GROUP (K a multiple of it, K_GROUP elements being 16 bytes):
        # the last, partial block stays in the loop instead, under a K mask
        # that compares whole groups of K_GROUP elements; constant over each
        # 16-byte run of a row, it keeps the copies 16 bytes wide (the runs
        # past K read as zero), so the loop's copies and waits are those of
        # an even K and no step after it waits for loads of its own.
        # STRIDES_OF_8: a bit for each stride the caller promises is a
        # multiple of 8 elements (1: stride_am, 2: stride_ak, 4: stride_bk,
        # 8: stride_bn). A run-time stride is otherwise known as a multiple
        # of 16 or not at all, and rows 1000 elements apart (2000 bytes,
        # 16-byte aligned) would cost the operand its 16-byte copies.
        # OFFSETS_64: A, B or C spans 2**31 elements or more (a 32768 x
        # 128256 product); their row offsets are then computed in 64 bits
        # (tile_operands, the store), which 32 bits would wrap.
        # PERSISTENT: 0, one tile per program (a grid of every tile); else
        # programs per multiprocessor: the grid is min(tiles, PERSISTENT x
        # multiprocessors) (matmul_programs) and each program loops over
        # tiles pid, pid + programs, ... in the same grouped order, so that
        # no program waits to be launched behind another's epilogue and the
        # last round of tiles is spread over every program.
        if STRIDES_OF_8 & 1:
            stride_am = tl.multiple_of(stride_am, 8)
        if STRIDES_OF_8 & 2:
            stride_ak = tl.multiple_of(stride_ak, 8)
        if STRIDES_OF_8 & 4:
            stride_bk = tl.multiple_of(stride_bk, 8)
        if STRIDES_OF_8 & 8:
            stride_bn = tl.multiple_of(stride_bn, 8)
        if PERSISTENT:
            tiles = tl.cdiv(M, BLOCK_SIZE_M) * tl.cdiv(N, BLOCK_SIZE_N)
            for pid in range(tl.program_id(axis=0), tiles, tl.num_programs(axis=0)):
                epilogue_tile(pid, a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                              stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                              HAS_BIAS, ACTIVATION, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M,
                              EVEN_K, K_GROUP, OFFSETS_64)
        else:
            epilogue_tile(tl.program_id(axis=0), a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                          stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                          HAS_BIAS, ACTIVATION, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M,
                          EVEN_K, K_GROUP, OFFSETS_64)

    return {"grouped_tile_of": grouped_tile_of, "grouped_tile": grouped_tile, "tile_operands": tile_operands,
            "matmul_tile": matmul_tile, "epilogue_tile": epilogue_tile,
            "matmul_kernel": matmul_kernel, "matmul_bias_relu_kernel": matmul_bias_relu_kernel,
            "matmul_epilogue_kernel": matmul_epilogue_kernel, "matmul_descriptor_kernel": matmul_descriptor_kernel}


# The launch options of a matmul: the kernel's four constexprs and the
# num_warps/num_stages launch options, as one dict (the keyword arguments of
# the launch). A tilelang.Config or triton.Config works too (see
# matmul_launch_options), so that an autotuned config can replace it.
MATMUL_DEFAULT_CONFIG = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8,
                         "num_warps": 4, "num_stages": 3}


def matmul_launch_options(config=None):
    """The launch keywords of `config`: a dict such as MATMUL_DEFAULT_CONFIG
    (keys it lacks keep their default), or a Config object of tilelang's or
    Triton's autotuner (its kwargs plus num_warps and num_stages)."""
    options = dict(MATMUL_DEFAULT_CONFIG)
    if config is None:
        return options
    if isinstance(config, dict):
        options.update(config)
    else:
        options.update(config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)
    return options


def matmul_grid(m, n, options):
    """The 1-D grid of matmul_kernel: one program per tile of C."""
    tiles_m = -(-m // options["BLOCK_SIZE_M"])
    tiles_n = -(-n // options["BLOCK_SIZE_N"])
    return (tiles_m * tiles_n,)


def matmul_args(a, b, out, bias=None):
    """The run-time arguments of matmul_kernel (with `bias`, of
    matmul_bias_relu_kernel) for C = A @ B into `out`, in order."""
    m, k = a.shape
    n = b.shape[1]
    operands = (a, b) if bias is None else (a, b, bias)
    return (*operands, out, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            out.stride(0), out.stride(1))


def matmul(a, b, kernel, config=None, out=None, out_dtype=None, bias=None):
    """C = A @ B with `kernel` (define(...)["matmul_kernel"], tilelang's or
    Triton's); with `bias`, `kernel` is define(...)["matmul_bias_relu_kernel"]
    and C = relu(A @ B + bias). A (M x K) and B (K x N) are 2-D CUDA tensors of
    one dtype, with any strides. C is `out` (any strides, M x N) or a new
    tensor of `out_dtype`, which defaults to A's dtype (int32 for int8
    operands). `config`: see matmul_launch_options. Returns C."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} do not multiply")
    if a.dtype != b.dtype:
        raise ValueError(f"matmul: operands of different dtypes ({a.dtype}, {b.dtype})")
    m, n = a.shape[0], b.shape[1]
    if out is None:
        import torch

        if out_dtype is None:
            out_dtype = torch.int32 if a.dtype == torch.int8 else a.dtype
        out = torch.empty((m, n), device=a.device, dtype=out_dtype)
    elif tuple(out.shape) != (m, n):
        raise ValueError(f"matmul: out has shape {tuple(out.shape)}, expected {(m, n)}")
    options = matmul_launch_options(config)
    kernel[matmul_grid(m, n, options)](*matmul_args(a, b, out, bias), **options)
    return out


def matmul_with_descriptors(a, b, kernel, descriptor_class, config=None, out=None):
    """C = A @ B with `kernel` (define(...)["matmul_descriptor_kernel"]) and
    the host TensorDescriptor class of the same compiler (tilelang's or
    Triton's). A, B and C have contiguous rows (stride 1 in the last
    dimension). Returns C (`out`, or a new tensor of A's dtype)."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} do not multiply")
    m, k = a.shape
    n = b.shape[1]
    if out is None:
        import torch

        out = torch.empty((m, n), device=a.device, dtype=torch.int32 if a.dtype == torch.int8 else a.dtype)
    options = matmul_launch_options(config)
    bm, bn, bk = options["BLOCK_SIZE_M"], options["BLOCK_SIZE_N"], options["BLOCK_SIZE_K"]
    a_desc = descriptor_class.from_tensor(a, [bm, bk])
    b_desc = descriptor_class.from_tensor(b, [bk, bn])
    c_desc = descriptor_class.from_tensor(out, [bm, bn])
    kernel[matmul_grid(m, n, options)](a_desc, b_desc, c_desc, m, n, k, **options)
    return out

