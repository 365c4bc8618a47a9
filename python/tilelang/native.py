"""The compiled extension, ``tilelang._C``, loaded on first use.

Everything that reaches libtilelang (``tilelang.ir``, the cache, the
launch options' limits and defaults) asks for the extension here, so that
a missing build gives one message saying how to build it, and importing
``tilelang`` itself works without it.
"""


def extension():
    """The compiled extension, with a clear message when it is missing."""
    try:
        from tilelang import _C
    except ImportError as exc:  # pragma: no cover - exercised only when unbuilt
        raise ImportError(
            "tilelang's compiled extension (tilelang._C) could not be loaded: "
            f"{exc}. Build and install the package with `bash scripts/setup.sh` "
            "(or `pip install .`), or on a host without LLVM build the "
            "extension against a prebuilt libtilelang (see docs/building.md)."
        ) from exc
    return _C
