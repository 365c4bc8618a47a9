//===- ParserGuard.h - input MLIR's parser would crash on -------*- C++ -*-===//
//
// Part of tilelang. MLIR 22's attribute parser crashes on a dense array of
// `index` elements (`array<index: 1, 0>`: it asks the element type for a bit
// width it does not have). The library and tilelang-opt look for that
// construct before MLIR parses, and refuse it with a located error instead
// of recovering from the crash.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_SUPPORT_PARSERGUARD_H
#define TILELANG_SUPPORT_PARSERGUARD_H

#include "llvm/ADT/StringRef.h"

#include <cctype>
#include <optional>
#include <utility>

namespace tilelang {

/// What the guard says of a refused construct.
inline constexpr const char *kIndexDenseArrayMessage =
    "dense arrays of 'index' elements are not supported (MLIR's parser "
    "cannot read them): use i64 or i32 elements";

/// The 1-based line and column of the first `array<index:` in `source`
/// outside comments and string literals, if any.
inline std::optional<std::pair<unsigned, unsigned>>
findIndexDenseArray(llvm::StringRef source) {
  unsigned line = 1, column = 1;
  auto skipSpaces = [&](size_t at) {
    while (at < source.size() && std::isspace(static_cast<unsigned char>(source[at])))
      ++at;
    return at;
  };
  for (size_t at = 0; at < source.size();) {
    char c = source[at];
    if (source.substr(at).starts_with("//")) {
      size_t end = source.find('\n', at);
      at = end == llvm::StringRef::npos ? source.size() : end;
      continue;
    }
    if (c == '"') {
      // A string literal, escapes included; it may not span lines.
      size_t end = at + 1;
      while (end < source.size() && source[end] != '"' && source[end] != '\n')
        end += source[end] == '\\' ? 2 : 1;
      column += (std::min(end + 1, source.size())) - at;
      at = std::min(end + 1, source.size());
      continue;
    }
    if (source.substr(at).starts_with("array")) {
      size_t next = skipSpaces(at + 5);
      if (next < source.size() && source[next] == '<') {
        next = skipSpaces(next + 1);
        if (source.substr(next).starts_with("index")) {
          next = skipSpaces(next + 5);
          if (next < source.size() && source[next] == ':')
            return std::make_pair(line, column);
        }
      }
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++at;
  }
  return std::nullopt;
}

} // namespace tilelang

#endif // TILELANG_SUPPORT_PARSERGUARD_H
