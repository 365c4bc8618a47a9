"""The bundled kernels' tuning spaces, under the name the benchmark and the
tests have used: they live in the package (tilelang.ops.spaces), where
tilelang.ops tunes the kernels over them."""

import tilelang.ops.spaces as _spaces

globals().update({name: value for name, value in vars(_spaces).items() if not name.startswith("__")})
