#===- TileLangLinker.cmake - lld and section garbage collection -*- cmake -*-===#
#
# Links with LLVM 22's lld (fast on a 2-core machine) and lets it drop unused
# sections. The linker is found through `-B`, which makes gcc look for
# `ld.lld` in LLVM's bin directory instead of the older one on PATH.
#
#===----------------------------------------------------------------------===#

set(TILELANG_LLD "${TILELANG_LLVM_ROOT}/bin/ld.lld")
if(EXISTS "${TILELANG_LLD}")
  set(TILELANG_LINK_FLAGS "-B${TILELANG_LLVM_ROOT}/bin" "-fuse-ld=lld")
else()
  message(WARNING "ld.lld not found at ${TILELANG_LLD}; linking with the default linker")
  set(TILELANG_LINK_FLAGS "")
endif()
add_link_options(${TILELANG_LINK_FLAGS} "-Wl,--gc-sections")

# tilelang_make_self_contained(<target>)
#   Strips <target> and keeps the symbols of static archives (LLVM, MLIR, the
#   dialect libraries) out of its dynamic symbol table: only what the target's
#   own sources export with TILELANG_API stays visible.
function(tilelang_make_self_contained target)
  # The build ID (a hash of the contents) names the compiler in cache keys.
  target_link_options(${target} PRIVATE "-Wl,--exclude-libs,ALL" "-s" "-Wl,--build-id=sha1")
endfunction()
