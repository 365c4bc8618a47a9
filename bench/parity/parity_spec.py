"""What a corpus module may use to describe a launch's arguments to the
parity harness without torch: ``Descriptor`` for a tensor descriptor
argument. Pointers are written "*bf16" (a 16-byte aligned tensor), other
arguments are their Python values."""

from typing import NamedTuple, Tuple


class Descriptor(NamedTuple):
    """A TensorDescriptor argument: element type ("bf16"), block shape and
    the tensor's shape (its extents' divisibility is specialized on)."""

    dtype: str
    block: Tuple[int, ...]
    shape: Tuple[int, ...]
