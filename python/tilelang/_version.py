"""tilelang's version: the one place it is written. pyproject.toml reads it
(scikit-build-core's regex provider) for the distribution, CMakeLists.txt
for the compiler library (tilelang._C.version(), `tilelang-compile
--version`), and tilelang.__version__ is this."""

__version__ = "0.1.0"
