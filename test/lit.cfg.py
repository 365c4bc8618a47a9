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
    ["tilelang-opt"], [config.tilelang_tools_dir, config.llvm_tools_dir]
)
