"""``python -m tilelang``: the same as ``tilelang-ir`` (see tilelang.ir)."""

import sys

from tilelang.ir import main

sys.exit(main())
