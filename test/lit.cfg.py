# -*- Python -*- lit configuration of the tilelang test suite.
#
# Tests are .mlir files run through tilelang-opt and checked with LLVM 22's
# FileCheck; the LLVM 22 tools come first on PATH so that no older FileCheck
# or `not` on the machine is picked up.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TILELANG"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilelang_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "python"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tilelang_tools_dir, append_path=True)

llvm_config.add_tool_substitutions(
    ["tilelang-opt", "tilelang-compile"],
    [config.tilelang_tools_dir, config.llvm_tools_dir],
)

# ptxas validates generated PTX where the CUDA toolkit is installed; tests
# guard those RUN lines with %if ptxas, so they still run without it.
def find_ptxas():
    candidates = [os.environ.get("TILELANG_PTXAS", "")]
    candidates += [os.path.join(d, "ptxas") for d in os.environ.get("PATH", "").split(os.pathsep)]
    candidates.append("/usr/local/cuda/bin/ptxas")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None

ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    lit_config.note(f"validating PTX with {ptxas}")
else:
    lit_config.note("ptxas not found: PTX is not validated")
