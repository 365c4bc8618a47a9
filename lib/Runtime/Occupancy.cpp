//===- Occupancy.cpp - blocks per SM a kernel is compiled for -------------===//
//
// Part of tilelang. Implements Occupancy.h: reading and rewriting a PTX
// entry's performance directives, the SM limits that bound resident blocks,
// and the search over blocks per SM, with the trial compiler left to the
// caller.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Runtime/Occupancy.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace tilelang::runtime {

EntryDirectives readEntryDirectives(const std::string &ptx,
                                    const std::string &name) {
  EntryDirectives result;
  size_t entry = ptx.find(".entry " + name + "(");
  size_t close = entry == std::string::npos ? entry : ptx.find(')', entry);
  size_t body = close == std::string::npos ? close : ptx.find('{', close);
  if (body == std::string::npos)
    return result;
  result.bodyBegin = body;
  // The integers after `directive` (and a blank) within the directives,
  // with the span of the first one's digits; empty when it is absent.
  auto values = [&](const std::string &directive, size_t &firstBegin,
                    size_t &firstEnd) {
    std::vector<int> found;
    size_t at = ptx.find(directive, close);
    if (at >= body || (ptx[at + directive.size()] != ' ' &&
                       ptx[at + directive.size()] != '\t'))
      return found;
    size_t cursor = at + directive.size();
    while (true) {
      cursor = ptx.find_first_not_of(" \t,", cursor);
      if (cursor >= body || ptx[cursor] < '0' || ptx[cursor] > '9')
        return found;
      size_t end = ptx.find_first_not_of("0123456789", cursor);
      if (found.empty())
        firstBegin = cursor, firstEnd = end;
      found.push_back(std::atoi(ptx.c_str() + cursor));
      cursor = end;
    }
  };
  size_t unusedBegin = 0, unusedEnd = 0;
  std::vector<int> threads = values(".maxntid", unusedBegin, unusedEnd);
  if (!threads.empty()) {
    result.threadsPerBlock = 1;
    for (int extent : threads)
      result.threadsPerBlock *= extent;
  }
  size_t begin = std::string::npos, end = 0;
  std::vector<int> minBlocks = values(".minnctapersm", begin, end);
  if (!minBlocks.empty()) {
    result.minBlocksPerSM = minBlocks.front();
    result.minBlocksBegin = begin;
    result.minBlocksEnd = end;
  }
  result.capsRegisters = !values(".maxnreg", unusedBegin, unusedEnd).empty();
  return result;
}

std::string withMinBlocksPerSM(const std::string &ptx,
                               const EntryDirectives &directives,
                               int blocks) {
  if (directives.minBlocksBegin == std::string::npos)
    return ptx.substr(0, directives.bodyBegin) + ".minnctapersm " +
           std::to_string(blocks) + "\n" + ptx.substr(directives.bodyBegin);
  return ptx.substr(0, directives.minBlocksBegin) + std::to_string(blocks) +
         ptx.substr(directives.minBlocksEnd);
}

std::string withoutMinBlocksPerSM(const std::string &ptx,
                                  const EntryDirectives &directives) {
  if (directives.minBlocksBegin == std::string::npos)
    return ptx;
  size_t begin = ptx.rfind(".minnctapersm", directives.minBlocksBegin);
  return ptx.substr(0, begin) + ptx.substr(directives.minBlocksEnd);
}

bool linksNothing(const std::string &ptx) {
  // A declaration reads `.extern .func`, possibly after a visibility.
  return ptx.find(".extern .func") == std::string::npos &&
         ptx.find(".extern\t.func") == std::string::npos;
}

std::string ptxTarget(const std::string &ptx) {
  size_t at = ptx.find("\n.target ");
  if (at == std::string::npos)
    return "";
  size_t begin = at + std::string("\n.target ").size();
  size_t end = ptx.find_first_of(" ,\t\r\n", begin);
  return ptx.substr(begin, end == std::string::npos ? end : end - begin);
}

SMLimits smLimitsOfArch(const std::string &arch) {
  // CUDA C Programming Guide, "Technical Specifications per Compute
  // Capability" (shared memory per SM as a block may use it: 164, 100 and
  // 228 KB), and the 1 KB the driver reserves per block since sm_80.
  if (arch == "sm_80")
    return {2048, 32, 167936, 1024, 65536};
  if (arch == "sm_86")
    return {1536, 16, 102400, 1024, 65536};
  if (arch == "sm_89")
    return {1536, 24, 102400, 1024, 65536};
  if (arch == "sm_90" || arch == "sm_90a")
    return {2048, 32, 233472, 1024, 65536};
  return {};
}

int residentBlockLimit(const SMLimits &limits, int threadsPerBlock,
                       long long sharedBytes) {
  if (limits.maxThreadsPerSM <= 0 || limits.maxBlocksPerSM <= 0 ||
      threadsPerBlock <= 0)
    return 0;
  long long limit = std::min(limits.maxThreadsPerSM / threadsPerBlock,
                             limits.maxBlocksPerSM);
  long long perBlock = sharedBytes + limits.reservedSharedPerBlock;
  if (perBlock > 0 && limits.maxSharedPerSM > 0)
    limit = std::min(limit, limits.maxSharedPerSM / perBlock);
  return int(limit);
}

int blocksWithRegisters(const SMLimits &limits, int threadsPerBlock,
                        int registers) {
  int warps = (threadsPerBlock + 31) / 32;
  if (limits.registersPerSM <= 0 || warps <= 0 || registers <= 0)
    return 0;
  // Registers are handed out per warp in units of 256, from the register
  // file of one of the SM's four sub-partitions.
  int perWarp = (registers * 32 + 255) / 256 * 256;
  int residentWarps = limits.registersPerSM / 4 / perWarp * 4;
  return residentWarps / warps;
}

/// The most blocks in (0, spilling) that Fit, by bisection (assuming that
/// a kernel spilling at some count spills at every larger one); 0 when
/// none does, -1 when a trial fails. `leastLocal` (which starts as
/// `spilling`, of `spillingLocal` bytes) becomes the count tried that
/// needs the least local memory, the most blocks among equals.
static int
mostBlocksBelow(int spilling, long long spillingLocal, int &leastLocal,
                const std::function<OccupancyTrial(int)> &tryBlocks) {
  int low = 0, high = spilling; // `high` spills; `low` fits (0: none known).
  leastLocal = spilling;
  long long least = spillingLocal;
  while (high - low > 1) {
    int middle = low + (high - low) / 2;
    OccupancyTrial trial = tryBlocks(middle);
    if (trial.outcome == OccupancyTrial::Failed)
      return -1;
    if (trial.outcome == OccupancyTrial::Spills && trial.localBytes < least) {
      least = trial.localBytes;
      leastLocal = middle;
    }
    (trial.outcome == OccupancyTrial::Fits ? low : high) = middle;
  }
  return low;
}

int searchMinBlocksPerSM(int base, int top, const SMLimits &limits,
                         int threadsPerBlock,
                         const std::function<OccupancyTrial(int)> &tryBlocks) {
  OccupancyTrial first = tryBlocks(base);
  if (first.outcome == OccupancyTrial::Failed)
    return base;
  // The lowering's floor asks for more blocks than the kernel's registers
  // allow: fewer blocks without local memory beat more that spill. Where
  // every count spills (a row too wide for even 255 registers), the
  // bisection goes down to one block; the least local memory wins, as a
  // spilled value is reloaded at every use (a 2-warp row of 12288 fp16:
  // 1192 bytes at 8 blocks of 128 registers, 608 at 4 of 255).
  if (first.outcome == OccupancyTrial::Spills) {
    int leastLocal = base;
    int fits = mostBlocksBelow(base, first.localBytes, leastLocal, tryBlocks);
    if (fits < 0)
      return base;
    return fits > 0 ? fits : leastLocal;
  }
  if (top <= base)
    return base;
  // What the PTX as written already reaches; worth improving only below
  // three quarters of the SM's threads, and only by counts above it.
  int reached = std::max(
      base, blocksWithRegisters(limits, threadsPerBlock, first.registers));
  if (reached >= top ||
      4LL * reached * threadsPerBlock >= 3LL * limits.maxThreadsPerSM)
    return base;
  OccupancyTrial atTop = tryBlocks(top);
  if (atTop.outcome == OccupancyTrial::Fits)
    return top;
  if (atTop.outcome == OccupancyTrial::Failed)
    return base;
  int low = reached, high = top; // `high` spills; `low` is reached.
  while (high - low > 1) {
    int middle = low + (high - low) / 2;
    OccupancyTrial trial = tryBlocks(middle);
    if (trial.outcome == OccupancyTrial::Failed)
      return base;
    (trial.outcome == OccupancyTrial::Fits ? low : high) = middle;
  }
  return low > reached ? low : base;
}

int residentBlocks(const SMLimits &limits, int top, int threadsPerBlock,
                   const OccupancyTrial &trial) {
  return std::min(
      top, blocksWithRegisters(limits, threadsPerBlock, trial.registers));
}

bool tryWholeProgram(const SMLimits &limits, int top, int threadsPerBlock,
                     int kept, const OccupancyTrial &linked) {
  // Blocks of 8 warps, at most 3 resident: the long rows where the floor's
  // budget bunched the loads (docs/runtime.md).
  int resident = residentBlocks(limits, top, threadsPerBlock, linked);
  return kept > 0 && linked.outcome == OccupancyTrial::Fits &&
         threadsPerBlock == 256 && resident > 0 && resident <= 3;
}

bool keepWholeProgram(const SMLimits &limits, int top, int threadsPerBlock,
                      int kept, const OccupancyTrial &linked,
                      const OccupancyTrial &unbound) {
  return tryWholeProgram(limits, top, threadsPerBlock, kept, linked) &&
         unbound.outcome == OccupancyTrial::Fits &&
         residentBlocks(limits, top, threadsPerBlock, unbound) ==
             residentBlocks(limits, top, threadsPerBlock, linked);
}

} // namespace tilelang::runtime
