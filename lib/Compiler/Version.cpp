//===- Version.cpp - the compiler library's identity ----------------------===//
//
// Part of tilelang. The version string and the build ID that tell two
// compiler libraries apart (include/tilelang/Compiler/Compiler.h).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"

#include "llvm/Config/llvm-config.h"

#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

namespace tilelang {

std::string getVersion() {
  return TILELANG_VERSION_STRING " (LLVM " LLVM_VERSION_STRING ")";
}

namespace {

struct BuildIdSearch {
  const void *base; // load address of this library
  std::string id;
};

/// dl_iterate_phdr callback: reads NT_GNU_BUILD_ID from the PT_NOTE
/// segments of the object loaded at `search->base`.
int findBuildId(struct dl_phdr_info *info, size_t, void *data) {
  auto *search = static_cast<BuildIdSearch *>(data);
  if (reinterpret_cast<const void *>(info->dlpi_addr) != search->base)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &header = info->dlpi_phdr[i];
    if (header.p_type != PT_NOTE)
      continue;
    const char *note =
        reinterpret_cast<const char *>(info->dlpi_addr + header.p_vaddr);
    const char *end = note + header.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const auto *entry = reinterpret_cast<const ElfW(Nhdr) *>(note);
      const char *name = note + sizeof(ElfW(Nhdr));
      const char *desc = name + ((entry->n_namesz + 3) & ~3u);
      if (entry->n_type == NT_GNU_BUILD_ID && entry->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned j = 0; j < entry->n_descsz; ++j) {
          unsigned char byte = static_cast<unsigned char>(desc[j]);
          search->id += digits[byte >> 4];
          search->id += digits[byte & 15];
        }
        return 1;
      }
      note = desc + ((entry->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

} // namespace

std::string getBuildId() {
  static const std::string id = [] {
    Dl_info self;
    if (!dladdr(reinterpret_cast<void *>(&getBuildId), &self))
      return std::string();
    // dlpi_addr is the load bias; for a shared library it equals the base.
    BuildIdSearch search{self.dli_fbase, ""};
    dl_iterate_phdr(findBuildId, &search);
    return search.id;
  }();
  return id;
}

} // namespace tilelang
