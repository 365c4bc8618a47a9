//===- PTXPeephole.cpp - Rewrites of the emitted PTX for ptxas ------------===//
//
// Part of tilelang. Line-local rewrites of the NVPTX backend's output that
// steer ptxas (see PTXPeephole.h for each rewrite and why).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Target/PTXPeephole.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace tilelang {

namespace {

/// Whether `text` is a virtual register name of `prefix` (`%rd12`, `%r7`).
bool isRegister(llvm::StringRef text, llvm::StringRef prefix) {
  return text.consume_front(prefix) && !text.empty() &&
         llvm::all_of(text, llvm::isDigit);
}

/// The two-instruction spelling of `line` when it is exactly
/// `mul.wide.s32 %rdD, %rS, C;` with C in {2, 4, 8, 16}, else "".
std::string splitLine(llvm::StringRef line) {
  llvm::StringRef body = line.trim();
  if (!body.consume_front("mul.wide.s32") || !body.consume_back(";"))
    return "";
  llvm::SmallVector<llvm::StringRef, 3> operands;
  body.split(operands, ',');
  if (operands.size() != 3)
    return "";
  llvm::StringRef result = operands[0].trim(), source = operands[1].trim();
  unsigned scale = 0;
  if (!isRegister(result, "%rd") || !isRegister(source, "%r") ||
      operands[2].trim().getAsInteger(10, scale))
    return "";
  if (scale < 2 || scale > 16 || !llvm::isPowerOf2_32(scale))
    return "";
  unsigned shift = llvm::Log2_32(scale);
  llvm::StringRef indent =
      line.take_while([](char c) { return c == '\t' || c == ' '; });
  return (indent + "cvt.s64.s32 \t" + result + ", " + source + ";\n" + indent +
          "shl.b64 \t" + result + ", " + result + ", " + std::to_string(shift) +
          ";")
      .str();
}

} // namespace

std::string splitScaledWideMultiplies(llvm::StringRef ptx) {
  if (!ptx.contains("wgmma.mma_async"))
    return ptx.str();
  std::string out;
  out.reserve(ptx.size() + ptx.size() / 64);
  while (!ptx.empty()) {
    auto [line, rest] = ptx.split('\n');
    bool lastLine = rest.empty() && !ptx.ends_with("\n");
    std::string split = line.contains("mul.wide.s32") ? splitLine(line) : "";
    out += split.empty() ? line.str() : split;
    if (!lastLine)
      out += '\n';
    ptx = rest;
  }
  return out;
}

} // namespace tilelang
