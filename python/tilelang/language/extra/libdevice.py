"""``triton.language.extra.libdevice``'s place: the CUDA libdevice functions
(``tilelang.language.extra.cuda.libdevice``)."""

from tilelang.language.extra.cuda.libdevice import *  # noqa: F401,F403
from tilelang.language.extra.cuda.libdevice import __all__  # noqa: F401
