#===- TileLangStaticLLVM.cmake - link LLVM statically ----------*- cmake -*-===#
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB=ON, so every imported MLIR target
# names the shared `LLVM` library in its INTERFACE_LINK_LIBRARIES. A tilelang
# binary must run where no LLVM is installed (the GPU host), and static LLVM
# archives must never meet libLLVM.so in one process (duplicate cl::opt
# registrations abort at start-up). This module rewrites every imported MLIR
# target to depend on LLVM's static component archives instead.
#
#===----------------------------------------------------------------------===#

# LLVM's own CMake functions (add_llvm_executable, llvm_add_library) link
# libLLVM.so into every target while this is on.
set(LLVM_LINK_LLVM_DYLIB OFF)

# The components tilelang's compiler reaches, now or through the NVPTX backend.
# Archive semantics pull in only the objects that are referenced, so listing a
# component costs link time, never size.
llvm_map_components_to_libnames(TILELANG_LLVM_STATIC_LIBS
  Core Support Demangle BinaryFormat TargetParser Remarks BitstreamReader
  AsmParser IRReader BitReader BitWriter Linker TransformUtils Analysis
  ScalarOpts InstCombine IPO Vectorize Passes Target MC MCParser CodeGen
  SelectionDAG AsmPrinter FrontendOpenMP FrontendOffloading
  NVPTXCodeGen NVPTXDesc NVPTXInfo)

foreach(target IN LISTS MLIR_EXPORTED_TARGETS)
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    continue()
  endif()
  list(FIND libs LLVM position)
  if(position EQUAL -1)
    continue()
  endif()
  list(REMOVE_ITEM libs LLVM)
  list(APPEND libs ${TILELANG_LLVM_STATIC_LIBS})
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
endforeach()
