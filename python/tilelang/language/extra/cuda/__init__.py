"""``tl.extra.cuda``: NVIDIA's libraries; ``libdevice`` is the math library."""

from tilelang.language.extra.cuda import libdevice  # noqa: F401
