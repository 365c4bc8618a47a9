//===- Runtime.h - loading and launching kernels ----------------*- C++ -*-===//
//
// Part of tilelang. The CUDA side of libtilelang: the driver is opened with
// dlopen on first use (no link-time CUDA dependency, so the library loads
// and compiles on machines without a GPU), PTX becomes a cubin through the
// driver's JIT linker, and kernels launch in the primary context of their
// device (the one torch shares), whichever device is current. Errors come
// back as Status values naming the driver call, its error name and the
// kernel; nothing throws or aborts.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_RUNTIME_H
#define TILELANG_RUNTIME_RUNTIME_H

#include "tilelang/Runtime/Occupancy.h"
#include "tilelang/Support/Export.h"
#include "tilelang/Support/TensorMapEncoding.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilelang::runtime {

/// Success, or a message saying what failed.
struct Status {
  bool ok = true;
  std::string message;

  static Status success() { return {}; }
  static Status error(std::string message) { return {false, std::move(message)}; }
};

/// What the runtime needs to know about the current device.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  int maxThreadsPerBlock = 0;
  /// Shared memory a block may use after opting in, in bytes.
  int maxSharedPerBlockOptin = 0;
  int maxGridDim[3] = {0, 0, 0};
  /// What bounds an SM's resident blocks (0 where the driver does not say).
  SMLimits sm;
  /// Peak SM and memory clocks (kHz) and the memory bus width (bits); 0
  /// where the driver does not report them.
  int clockRateKHz = 0, memoryClockRateKHz = 0, memoryBusWidthBits = 0;
};

/// Opens libcuda and initializes it; makes no context current (what needs
/// one makes its device's primary context current for the call). Cheap
/// after the first call.
TILELANG_API Status initialize();

/// The driver's CUDA version (e.g. 13000), or 0 without a driver.
TILELANG_API int driverVersion();

/// Properties of the device of the current context (cached per device).
TILELANG_API Status getCurrentDevice(DeviceInfo &info);

/// Properties of device `ordinal` (cached per device).
TILELANG_API Status getDevice(int ordinal, DeviceInfo &info);

/// How many devices the driver sees (read once per process).
TILELANG_API Status deviceCount(int &count);

/// The device of the calling thread's current context; 0 when none is
/// current (the device initialize() would choose).
TILELANG_API Status currentDevice(int &ordinal);

/// The device whose memory `address` lies in, or -1 when the driver does
/// not know the address (host memory, a plain int). With one device, 0
/// without asking the driver.
TILELANG_API Status deviceOfPointer(std::uint64_t address, int &ordinal);

/// Makes device `ordinal`'s primary context (retained once per process, as
/// torch does) current on the calling thread for the scope's lifetime,
/// pushing it only where another context, or none, is current, and pops
/// it at the end: the caller's current context is restored. `status()`
/// says whether the context could be made current.
class TILELANG_API DeviceScope {
public:
  explicit DeviceScope(int ordinal);
  ~DeviceScope();
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

  const Status &status() const { return result; }

private:
  Status result;
  bool pushed = false;
};

/// How linkPTX compiled a kernel.
struct LinkReport {
  /// The .minnctapersm the cubin was compiled for (blocks per SM whose
  /// registers must fit the register file at once); 0 when the PTX asks
  /// for none.
  int minBlocksPerSM = 0;
  /// JIT compilations it took: 1, or more with an occupancy search (the
  /// whole-program step's ptxas run included).
  int links = 0;
  /// The whole-program step (LinkOptions::wholeProgram): 1 when the cubin
  /// is ptxas's whole-program compile of the PTX without `.minnctapersm`
  /// (its blocks per SM are still minBlocksPerSM's), 0 when the step kept
  /// the linked cubin, -1 when it was off.
  int wholeProgram = -1;
  /// Why the whole-program step, to be tried, could not run (ptxas not
  /// found, its error, a cubin the driver does not load); empty where it
  /// ran or was not to be tried. The cubin is then the linked one, as
  /// where the step kept it.
  std::string wholeProgramProblem;
  /// Whether that problem may pass in another try (ptxas could not start
  /// or finish: no such binary, no temporary directory, the time limit):
  /// the caller should not cache the cubin then. A ptxas that refused the
  /// PTX, or a cubin the driver does not load, is the answer of that ptxas
  /// and driver, which the same pair repeats.
  bool wholeProgramMayPass = false;
};

/// How linkPTX links.
struct LinkOptions {
  /// Search for the most blocks per SM that do not spill (below).
  bool searchOccupancy = false;
  /// The dynamic shared memory a block of the kernel takes, which bounds
  /// how many blocks an SM can hold.
  long long sharedBytes = 0;
  /// The device to link for (and whose SM limits the search reads); -1:
  /// the current one.
  int device = -1;
  /// After the search, compile the PTX without its floor as a whole
  /// program with ptxas, where that may keep as many blocks with a better
  /// schedule (tryWholeProgram and keepWholeProgram in Occupancy.h;
  /// TILELANG_WHOLE_PROGRAM).
  bool wholeProgram = false;
  /// The ptxas that step runs; empty: findPtxas()'s. A caller that keys
  /// the cubin by a ptxas passes that one, so that key and run name the
  /// same binary.
  std::string ptxas;
};

/// Links `ptx` (holding kernel `name`) into a cubin for `options.device`
/// with the driver's JIT linker; its error log is in the message on failure.
///
/// With `options.searchOccupancy`, a kernel whose PTX asks for a minimum of
/// blocks per SM (`.minnctapersm`, which the lowering puts on kernels
/// without tensor-core products) and whose registers, as written, leave the
/// SM under three quarters full is also compiled for more blocks per SM, up
/// to what an SM holds (threads, blocks and shared memory), and the cubin
/// with the most that needs no local memory (spills no registers) is kept
/// (searchMinBlocksPerSM in Occupancy.h; docs/runtime.md, "Occupancy
/// search"). With `options.wholeProgram`, a kernel that links nothing and
/// whose kept count may do as well without the directive is then compiled
/// once more by ptxas (Ptxas.h) as a whole program without it, and that
/// cubin is kept where it fits and keeps exactly as many blocks; where
/// ptxas is missing, fails or its cubin does not load, the linked cubin
/// stays.
TILELANG_API Status linkPTX(const std::string &ptx, const std::string &name,
                            std::string &cubin, const LinkOptions &options,
                            LinkReport *report = nullptr);

/// Encodes into `map` (128 bytes, 64-byte aligned) the 2-D to 5-D tensor at
/// `base` with extents `shape` and element strides `strides` (outermost
/// first, the last stride 1) for `encoding`; elements outside the tensor
/// read as zero. An error names what the driver rejected.
TILELANG_API Status encodeTensorMap(void *map,
                                    const tilelang::TensorMapEncoding &encoding,
                                    std::uint64_t base,
                                    const std::vector<std::int64_t> &shape,
                                    const std::vector<std::int64_t> &strides);

/// A kernel loaded into the primary context of one device.
class TILELANG_API Kernel {
public:
  /// Loads `image` (a cubin, or PTX for the driver to compile) into device
  /// `device`'s primary context (-1: the current device) and finds `name`.
  /// `sharedBytes` above 48 KB raise the kernel's dynamic shared-memory
  /// limit.
  static Status loadImage(const std::string &image, const std::string &name,
                          long long sharedBytes, unsigned numWarps,
                          std::unique_ptr<Kernel> &kernel, int device = -1);

  /// linkPTX, then loadImage.
  static Status load(const std::string &ptx, const std::string &name,
                     long long sharedBytes, unsigned numWarps,
                     std::unique_ptr<Kernel> &kernel, int device = -1);

  /// Launches on `stream` (0 for the default stream; a stream of this
  /// kernel's device) with `params`, an array of pointers to each
  /// argument's value, as cuLaunchKernel takes. The kernel's context is
  /// made current for the call where another one is (then restored).
  Status launch(unsigned gridX, unsigned gridY, unsigned gridZ,
                std::uintptr_t stream, void **params) const;

  /// The device the kernel is loaded on.
  int getDevice() const { return device; }

  const std::string &getName() const { return name; }
  long long getSharedBytes() const { return sharedBytes; }
  unsigned getNumWarps() const { return numWarps; }
  /// Registers per thread and local-memory bytes, as the driver reports.
  int getRegisters() const { return registers; }
  int getLocalBytes() const { return localBytes; }

private:
  Kernel() = default;

  std::string name;
  long long sharedBytes = 0;
  unsigned numWarps = 4;
  int registers = 0, localBytes = 0;
  int device = 0;
  void *context = nullptr;
  void *module = nullptr;
  void *function = nullptr;
};

} // namespace tilelang::runtime

#endif // TILELANG_RUNTIME_RUNTIME_H
