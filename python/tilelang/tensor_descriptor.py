"""Host-side tensor descriptors: ``TensorDescriptor.from_tensor(x, [128, 64])``.

A tensor descriptor passed to a ``@tilelang.jit`` kernel describes a strided
tensor in GPU memory that the kernel reads and writes in whole blocks
(``desc.load([i, j])``, ``desc.store([i, j], block)``); elements outside the
tensor read as zero and are not written. The class follows Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``, whose instances kernels
accept as well.

The rules are those of Hopper's bulk tensor copy engine, which descriptor
copies use there: 1 to 5 dimensions, positive extents, the last one
contiguous (stride 1), a 16-byte aligned base, the other strides positive
multiples of 16 bytes, block
dimensions powers of two of at most 256 elements, and a last block
dimension of at least 16 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Sequence

_MAX_RANK = 5
_MAX_BLOCK = 256


def _element_size(base) -> int:
    size = getattr(base, "element_size", None)
    if callable(size):
        return int(size())
    itemsize = getattr(getattr(base, "dtype", None), "itemsize", None)
    if itemsize is None:
        raise TypeError(f"the base of a tensor descriptor must be a tensor, got {type(base).__name__}")
    return int(itemsize)


def check_descriptor(base, shape: Sequence[int], strides: Sequence[int], block_shape: Sequence[int],
                     padding: str = "zero") -> None:
    """Raises ValueError (or TypeError) unless the descriptor follows the rules above."""
    if not hasattr(base, "data_ptr"):
        raise TypeError(f"the base of a tensor descriptor must be a tensor, got {type(base).__name__}")
    rank = len(block_shape)
    if not 1 <= rank <= _MAX_RANK:
        raise ValueError(f"tensor descriptors have 1 to {_MAX_RANK} dimensions, got block_shape {list(block_shape)}")
    if len(shape) != rank or len(strides) != rank:
        raise ValueError(f"shape {list(shape)}, strides {list(strides)} and block_shape {list(block_shape)} "
                         "must have one entry per dimension")
    for dim, size in enumerate(block_shape):
        if not isinstance(size, int) or size <= 0 or size & (size - 1) or size > _MAX_BLOCK:
            raise ValueError(f"block_shape[{dim}] must be a power of two of at most {_MAX_BLOCK}, got {size}")
    for dim, extent in enumerate(shape):
        if not 0 < int(extent) < 2**31:
            raise ValueError(f"shape[{dim}] must be in [1, 2^31), got {extent}")
    if int(strides[-1]) != 1:
        raise ValueError(f"the last dimension of a tensor descriptor must be contiguous (stride 1), "
                         f"got strides {list(strides)}")
    elem = _element_size(base)
    for dim in range(rank - 1):
        if int(strides[dim]) <= 0:
            raise ValueError(f"strides[{dim}] must be positive, got {strides[dim]}")
        if int(strides[dim]) * elem % 16:
            raise ValueError(f"strides[{dim}] = {strides[dim]} elements is {int(strides[dim]) * elem} bytes, "
                             "not a multiple of 16")
    if block_shape[-1] * elem < 16:
        raise ValueError(f"the last block dimension must span at least 16 bytes: block_shape[-1] = "
                         f"{block_shape[-1]} elements of {elem} bytes")
    if base.data_ptr() % 16:
        raise ValueError("the base of a tensor descriptor must be 16-byte aligned")
    if padding not in ("zero", None):
        raise ValueError(f"padding {padding!r} is not supported (only 'zero')")


@dataclass
class TensorDescriptor:
    """A tensor ``base`` with extents ``shape`` and element ``strides``,
    read and written by kernels in blocks of ``block_shape``."""

    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        self.shape = [int(d) for d in self.shape]
        self.strides = [int(d) for d in self.strides]
        self.block_shape = [int(d) for d in self.block_shape]
        check_descriptor(self.base, self.shape, self.strides, self.block_shape, self.padding)

    @staticmethod
    def from_tensor(tensor, block_shape: Sequence[int], padding: str = "zero") -> "TensorDescriptor":
        """A descriptor of all of ``tensor`` (its shape and strides)."""
        return TensorDescriptor(tensor, list(tensor.shape), list(tensor.stride()), list(block_shape), padding)
