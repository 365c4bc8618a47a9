"""``tl.extra``: as ``triton.language.extra``, the vendor libraries;
``libdevice`` is the CUDA one (``tl.extra.cuda.libdevice``)."""

from tilelang.language.extra import cuda  # noqa: F401
from tilelang.language.extra.cuda import libdevice  # noqa: F401
