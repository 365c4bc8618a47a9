//===- Export.h - the symbols libtilelang exports ---------------*- C++ -*-===//
//
// Part of tilelang. TILELANG_API marks the functions and classes of the
// compiler's and the runtime's public headers: libtilelang is built with
// hidden visibility, so only these are in its dynamic symbol table.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_SUPPORT_EXPORT_H
#define TILELANG_SUPPORT_EXPORT_H

#if defined(_WIN32)
#define TILELANG_API __declspec(dllexport)
#else
#define TILELANG_API __attribute__((visibility("default")))
#endif

#endif // TILELANG_SUPPORT_EXPORT_H
