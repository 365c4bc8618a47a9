"""``tilelang.autotune``: Triton-compatible autotuning with results that
persist (see docs/autotune.md).

``@tilelang.autotune(configs=[tilelang.Config({...}, num_warps=, num_stages=)],
key=[...])`` stacked on ``@tilelang.jit``; ``@tilelang.heuristics``. This
module is itself callable (``tilelang.autotune(...)`` is the decorator), and
``python -m tilelang.autotune`` is the store's inspector.
"""

import sys
import types

from tilelang.autotune.core import Autotuner, Config, Heuristics, autotune, heuristics, stats
from tilelang.autotune.store import Store

__all__ = ["Autotuner", "Config", "Heuristics", "Store", "autotune", "heuristics", "stats"]


class _CallableModule(types.ModuleType):
    """Lets ``tilelang.autotune`` be both this package and the decorator."""

    def __call__(self, *args, **kwargs):
        return autotune(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
