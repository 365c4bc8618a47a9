//===- Runtime.cpp - loading and launching kernels ------------------------===//
//
// Part of tilelang. Opens the CUDA driver with dlopen, declares the few
// driver types and entry points it uses (so the build needs no CUDA
// headers), links PTX into cubins, loads modules and launches kernels, each
// in the primary context of its device.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Runtime/Runtime.h"
#include "tilelang/Runtime/Occupancy.h"
#include "tilelang/Runtime/Ptxas.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <vector>

namespace tilelang::runtime {

namespace {

// The driver API subset, with the values of cuda.h.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUlinkState = void *;

constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
constexpr int CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
constexpr int CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106;
constexpr int CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111;
constexpr int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
constexpr int CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_JIT_INPUT_PTX = 1;
constexpr int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
// cuTensorMapEncodeTiled's enums (cuda.h).
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_32B = 1;
constexpr int CU_TENSOR_MAP_SWIZZLE_64B = 2;
constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;

/// Entry points resolved from libcuda.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext *);
  CUresult (*cuPointerGetAttribute)(void *, int, std::uint64_t);
  CUresult (*cuLinkCreate)(unsigned, int *, void **, CUlinkState *);
  CUresult (*cuLinkAddData)(CUlinkState, int, void *, size_t, const char *,
                            unsigned, int *, void **);
  CUresult (*cuLinkComplete)(CUlinkState, void **, size_t *);
  CUresult (*cuLinkDestroy)(CUlinkState);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  /// Only for the occupancy search's trial modules (loaded kernels stay).
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  /// CUDA 12 and later; null on older drivers (bulk copies then fail with
  /// a clear error at launch).
  CUresult (*cuTensorMapEncodeTiled)(void *, int, std::uint32_t, void *,
                                     const std::uint64_t *,
                                     const std::uint64_t *,
                                     const std::uint32_t *,
                                     const std::uint32_t *, int, int, int,
                                     int);
};

Driver driver;
Status openStatus = Status::error("not initialized");
std::once_flag openOnce;
/// The devices the driver sees, read once when it is opened.
int devices = 0;

/// Resolves one symbol (preferring the _v2 entry points cuda.h maps to).
template <typename Fn>
bool resolve(void *library, Fn &slot, const char *name,
             const char *v2 = nullptr) {
  void *symbol = v2 ? dlsym(library, v2) : nullptr;
  if (!symbol)
    symbol = dlsym(library, name);
  slot = reinterpret_cast<Fn>(symbol);
  return symbol != nullptr;
}

Status openDriver() {
  // TILELANG_LIBCUDA names another driver library: one outside the loader's
  // path, or the recording stand-in the CPU tests launch through.
  const char *override = std::getenv("TILELANG_LIBCUDA");
  std::string path = override && *override ? override : "libcuda.so.1";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return Status::error("the CUDA driver (" + path +
                         ") could not be "
                         "loaded: " +
                         std::string(dlerror()) +
                         "; compiling to PTX works without it, launching "
                         "kernels needs an NVIDIA GPU and its driver");
  bool ok = resolve(library, driver.cuInit, "cuInit") &&
            resolve(library, driver.cuDriverGetVersion, "cuDriverGetVersion") &&
            resolve(library, driver.cuGetErrorName, "cuGetErrorName") &&
            resolve(library, driver.cuGetErrorString, "cuGetErrorString") &&
            resolve(library, driver.cuDeviceGet, "cuDeviceGet") &&
            resolve(library, driver.cuDeviceGetCount, "cuDeviceGetCount") &&
            resolve(library, driver.cuDeviceGetName, "cuDeviceGetName") &&
            resolve(library, driver.cuDeviceGetAttribute,
                    "cuDeviceGetAttribute") &&
            resolve(library, driver.cuDevicePrimaryCtxRetain,
                    "cuDevicePrimaryCtxRetain") &&
            resolve(library, driver.cuCtxGetCurrent, "cuCtxGetCurrent") &&
            resolve(library, driver.cuCtxSetCurrent, "cuCtxSetCurrent") &&
            resolve(library, driver.cuCtxGetDevice, "cuCtxGetDevice") &&
            resolve(library, driver.cuCtxPushCurrent, "cuCtxPushCurrent",
                    "cuCtxPushCurrent_v2") &&
            resolve(library, driver.cuCtxPopCurrent, "cuCtxPopCurrent",
                    "cuCtxPopCurrent_v2") &&
            resolve(library, driver.cuPointerGetAttribute,
                    "cuPointerGetAttribute") &&
            resolve(library, driver.cuLinkCreate, "cuLinkCreate",
                    "cuLinkCreate_v2") &&
            resolve(library, driver.cuLinkAddData, "cuLinkAddData",
                    "cuLinkAddData_v2") &&
            resolve(library, driver.cuLinkComplete, "cuLinkComplete") &&
            resolve(library, driver.cuLinkDestroy, "cuLinkDestroy") &&
            resolve(library, driver.cuModuleLoadData, "cuModuleLoadData") &&
            resolve(library, driver.cuModuleGetFunction,
                    "cuModuleGetFunction") &&
            resolve(library, driver.cuFuncSetAttribute, "cuFuncSetAttribute") &&
            resolve(library, driver.cuFuncGetAttribute, "cuFuncGetAttribute") &&
            resolve(library, driver.cuLaunchKernel, "cuLaunchKernel");
  if (!ok)
    return Status::error(path + " lacks a driver API entry point this "
                         "runtime needs; the driver is too old");
  resolve(library, driver.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  resolve(library, driver.cuModuleUnload, "cuModuleUnload");
  return Status::success();
}

/// "cuCall failed: CUDA_ERROR_NAME (description)".
Status check(CUresult result, const char *call, const std::string &what = "") {
  if (result == 0)
    return Status::success();
  const char *name = nullptr, *text = nullptr;
  driver.cuGetErrorName(result, &name);
  driver.cuGetErrorString(result, &text);
  std::string message = std::string(call) + " failed";
  if (!what.empty())
    message += " for " + what;
  message += ": " + std::string(name ? name : "CUDA_ERROR_UNKNOWN");
  if (text)
    message += " (" + std::string(text) + ")";
  return Status::error(message);
}

#define TILELANG_TRY(expression)                                               \
  do {                                                                         \
    Status status = (expression);                                              \
    if (!status.ok)                                                            \
      return status;                                                           \
  } while (false)

/// Device `ordinal`'s primary context, retained the first time it is asked
/// for and kept for the process (torch keeps it too; the driver frees it
/// at exit). Called once the driver is open.
Status primaryContext(int ordinal, CUcontext &context) {
  static std::mutex mutex;
  static std::map<int, CUcontext> retained;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = retained.find(ordinal);
  if (found != retained.end()) {
    context = found->second;
    return Status::success();
  }
  if (ordinal < 0 || ordinal >= devices)
    return Status::error("there is no CUDA device " + std::to_string(ordinal) +
                         " (the driver sees " + std::to_string(devices) +
                         ")");
  CUdevice device;
  TILELANG_TRY(check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet"));
  TILELANG_TRY(check(driver.cuDevicePrimaryCtxRetain(&context, device),
                     "cuDevicePrimaryCtxRetain"));
  retained[ordinal] = context;
  return Status::success();
}

} // namespace

Status initialize() {
  std::call_once(openOnce, [] {
    openStatus = openDriver();
    if (openStatus.ok)
      openStatus = check(driver.cuInit(0), "cuInit");
    if (openStatus.ok)
      openStatus =
          check(driver.cuDeviceGetCount(&devices), "cuDeviceGetCount");
  });
  // No context is made current here: what needs one (linking, loading,
  // launching) makes its device's primary context current for the call
  // (DeviceScope, Kernel::launch) and restores the caller's.
  return openStatus;
}

Status deviceCount(int &count) {
  count = 0;
  TILELANG_TRY(initialize());
  count = devices;
  return Status::success();
}

Status currentDevice(int &ordinal) {
  ordinal = 0;
  TILELANG_TRY(initialize());
  CUcontext context = nullptr;
  TILELANG_TRY(check(driver.cuCtxGetCurrent(&context), "cuCtxGetCurrent"));
  if (!context)
    return Status::success();
  return check(driver.cuCtxGetDevice(&ordinal), "cuCtxGetDevice");
}

Status deviceOfPointer(std::uint64_t address, int &ordinal) {
  ordinal = -1;
  TILELANG_TRY(initialize());
  if (devices <= 1) {
    ordinal = 0;
    return Status::success();
  }
  int device = -1;
  // An address the driver does not know (host memory, an int made up by
  // the caller) says nothing about the device: not an error.
  if (driver.cuPointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   address) == 0)
    ordinal = device;
  return Status::success();
}

DeviceScope::DeviceScope(int ordinal) {
  result = initialize();
  if (!result.ok)
    return;
  // -1: the current device, or device 0 where no context is current (a
  // thread torch never used), whose context is then made current here.
  if (ordinal < 0) {
    result = currentDevice(ordinal);
    if (!result.ok)
      return;
  }
  CUcontext wanted = nullptr, current = nullptr;
  result = primaryContext(ordinal, wanted);
  if (!result.ok)
    return;
  result = check(driver.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (!result.ok || current == wanted)
    return;
  result = check(driver.cuCtxPushCurrent(wanted), "cuCtxPushCurrent");
  pushed = result.ok;
}

DeviceScope::~DeviceScope() {
  if (!pushed)
    return;
  CUcontext popped = nullptr;
  driver.cuCtxPopCurrent(&popped);
}

int driverVersion() {
  if (!initialize().ok)
    return 0;
  int version = 0;
  driver.cuDriverGetVersion(&version);
  return version;
}

Status getCurrentDevice(DeviceInfo &info) {
  int device = 0;
  TILELANG_TRY(currentDevice(device));
  return getDevice(device, info);
}

Status getDevice(int ordinal, DeviceInfo &info) {
  TILELANG_TRY(initialize());
  if (ordinal < 0 || ordinal >= devices)
    return Status::error("there is no CUDA device " + std::to_string(ordinal) +
                         " (the driver sees " + std::to_string(devices) +
                         ")");
  CUdevice device;
  TILELANG_TRY(check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet"));
  static std::mutex mutex;
  static std::map<int, DeviceInfo> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(ordinal);
  if (it != cache.end()) {
    info = it->second;
    return Status::success();
  }
  DeviceInfo result;
  result.ordinal = ordinal;
  char name[256] = {0};
  driver.cuDeviceGetName(name, sizeof(name), device);
  result.name = name;
  auto attribute = [&](int which, int &value) {
    return check(driver.cuDeviceGetAttribute(&value, which, device),
                 "cuDeviceGetAttribute");
  };
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         result.computeMajor));
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         result.computeMinor));
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                         result.multiprocessors));
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                         result.maxThreadsPerBlock));
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                         result.maxSharedPerBlockOptin));
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                         result.maxGridDim[0]));
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                         result.maxGridDim[1]));
  TILELANG_TRY(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
                         result.maxGridDim[2]));
  // Only the occupancy search reads these; 0 (no search) if not reported.
  driver.cuDeviceGetAttribute(
      &result.sm.maxThreadsPerSM,
      CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device);
  driver.cuDeviceGetAttribute(&result.sm.maxBlocksPerSM,
                              CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                              device);
  driver.cuDeviceGetAttribute(
      &result.sm.maxSharedPerSM,
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, device);
  driver.cuDeviceGetAttribute(
      &result.sm.reservedSharedPerBlock,
      CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, device);
  driver.cuDeviceGetAttribute(
      &result.sm.registersPerSM,
      CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, device);
  // Clocks and bus width only estimate peaks (autotuning reports); a
  // driver that no longer reports one leaves it 0.
  driver.cuDeviceGetAttribute(&result.clockRateKHz,
                              CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device);
  driver.cuDeviceGetAttribute(&result.memoryClockRateKHz,
                              CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, device);
  driver.cuDeviceGetAttribute(&result.memoryBusWidthBits,
                              CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
                              device);
  cache[ordinal] = result;
  info = result;
  return Status::success();
}

namespace {

/// One JIT compilation of `ptx` into `cubin`.
Status linkOnce(const std::string &ptx, const std::string &name,
                std::string &cubin) {
  std::string what = "kernel '" + name + "'";
  // Link with logs captured, so that JIT errors reach the user.
  std::vector<char> infoLog(16384, 0), errorLog(16384, 0);
  int options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {infoLog.data(),
                    reinterpret_cast<void *>(uintptr_t(infoLog.size())),
                    errorLog.data(),
                    reinterpret_cast<void *>(uintptr_t(errorLog.size()))};
  CUlinkState link = nullptr;
  TILELANG_TRY(check(driver.cuLinkCreate(4, options, values, &link),
                     "cuLinkCreate", what));
  Status linked =
      check(driver.cuLinkAddData(link, CU_JIT_INPUT_PTX,
                                 const_cast<char *>(ptx.c_str()),
                                 ptx.size() + 1, name.c_str(), 0, nullptr,
                                 nullptr),
            "cuLinkAddData", what);
  void *image = nullptr;
  size_t imageSize = 0;
  if (linked.ok)
    linked = check(driver.cuLinkComplete(link, &image, &imageSize),
                   "cuLinkComplete", what);
  // The image belongs to the link state: copy it out before destroying it.
  if (linked.ok)
    cubin.assign(static_cast<const char *>(image), imageSize);
  driver.cuLinkDestroy(link);
  if (!linked.ok && errorLog[0])
    linked.message += "\nJIT log:\n" + std::string(errorLog.data());
  return linked;
}

/// The local-memory bytes per thread and the registers of kernel `name` in
/// `cubin` (a trial module, loaded and unloaded here); false when they
/// cannot be read.
bool readResources(const std::string &cubin, const std::string &name,
                   int &localBytes, int &registers) {
  CUmodule module = nullptr;
  if (driver.cuModuleLoadData(&module, cubin.data()) != 0)
    return false;
  CUfunction function = nullptr;
  bool read =
      driver.cuModuleGetFunction(&function, module, name.c_str()) == 0 &&
      driver.cuFuncGetAttribute(&localBytes,
                                CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                                function) == 0 &&
      driver.cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                function) == 0;
  driver.cuModuleUnload(module);
  return read;
}

/// `trial` (Fits or Spills) from the resources of kernel `name` in
/// `cubin`; left Failed when they cannot be read.
bool readResources(const std::string &cubin, const std::string &name,
                   OccupancyTrial &trial) {
  int localBytes = -1;
  if (!readResources(cubin, name, localBytes, trial.registers))
    return false;
  trial.outcome =
      localBytes == 0 ? OccupancyTrial::Fits : OccupancyTrial::Spills;
  trial.localBytes = localBytes;
  return true;
}

/// The occupancy search's whole-program step (LinkOptions::wholeProgram):
/// where tryWholeProgram allows it for the `kept` count whose cubin
/// (`cubin`, of resources `linked`) the search chose, and the PTX links
/// nothing, ptxas compiles the PTX without `.minnctapersm` as a whole
/// program; its cubin replaces `cubin` where keepWholeProgram holds. Any
/// failure (no ptxas, its error, a cubin the driver does not load) keeps
/// `cubin`: the step is an optimization, not a requirement; it is said in
/// `result.wholeProgramProblem`, as the cubin is not the step's answer.
/// `given` is LinkOptions::ptxas.
void compileWholeProgram(const std::string &ptx, const std::string &name,
                         const EntryDirectives &directives,
                         const SMLimits &limits, int top, int kept,
                         const OccupancyTrial &linked, const std::string &given,
                         std::string &cubin, LinkReport &result) {
  std::string arch = ptxTarget(ptx);
  if (!tryWholeProgram(limits, top, directives.threadsPerBlock, kept, linked) ||
      !linksNothing(ptx) || arch.empty())
    return;
  std::string ptxas = given.empty() ? findPtxas() : given;
  if (ptxas.empty()) {
    result.wholeProgramProblem = "no ptxas found ($TILELANG_PTXAS, "
                                 "$CUDA_HOME/bin, $PATH, /usr/local/cuda/bin)";
    result.wholeProgramMayPass = true;
    return;
  }
  ++result.links;
  std::string image, log;
  bool rejected = false;
  if (!compileWithPtxas(ptxas, withoutMinBlocksPerSM(ptx, directives), arch,
                        /*verbose=*/false, image, log, &rejected)) {
    // Its first line says what went wrong.
    result.wholeProgramProblem = log.substr(0, log.find('\n'));
    if (result.wholeProgramProblem.empty())
      result.wholeProgramProblem = ptxas + " failed";
    result.wholeProgramMayPass = !rejected;
    return;
  }
  OccupancyTrial unbound;
  if (!readResources(image, name, unbound)) {
    result.wholeProgramProblem =
        "the driver does not load the cubin of " + ptxas;
    return;
  }
  if (!keepWholeProgram(limits, top, directives.threadsPerBlock, kept, linked,
                        unbound))
    return;
  cubin = std::move(image);
  result.wholeProgram = 1;
}

} // namespace

Status linkPTX(const std::string &ptx, const std::string &name,
               std::string &cubin, const LinkOptions &options,
               LinkReport *report) {
  // Linking and the trial modules need a context: the device's.
  DeviceScope scope(options.device);
  TILELANG_TRY(scope.status());
  LinkReport local;
  LinkReport &result = report ? *report : local;
  result = LinkReport();
  EntryDirectives directives = readEntryDirectives(ptx, name);
  int base = directives.minBlocksPerSM;
  result.minBlocksPerSM = base;
  DeviceInfo device;
  SMLimits limits;
  // A register cap is the user's choice; every other kernel is searched,
  // from what its PTX asks for (tensor-core kernels ask for nothing).
  if (options.searchOccupancy && !directives.capsRegisters &&
      driver.cuModuleUnload &&
      (options.device < 0 ? getCurrentDevice(device)
                          : getDevice(options.device, device))
          .ok)
    limits = device.sm;
  int top = residentBlockLimit(limits, directives.threadsPerBlock,
                               options.sharedBytes);
  if (options.wholeProgram)
    result.wholeProgram = 0;
  if (top <= base) {
    result.links = 1;
    TILELANG_TRY(linkOnce(ptx, name, cubin));
    // Limits are read only where trial modules can be unloaded.
    if (options.wholeProgram && base > 0 && limits.registersPerSM > 0) {
      OccupancyTrial linked;
      if (readResources(cubin, name, linked))
        compileWholeProgram(ptx, name, directives, limits, top, base, linked,
                            options.ptxas, cubin, result);
    }
    return Status::success();
  }
  // Each trial is linked and loaded into a throw-away module for its local
  // memory and registers. The PTX as written is the first trial: its image
  // is kept (the answer unless another count wins), and its link error, if
  // any, is the one reported; of the others those that fit or spill are
  // kept (where every count spills, the one with the least local memory
  // wins).
  std::map<int, std::string> images;
  std::map<int, OccupancyTrial> trials;
  Status asWritten;
  result.minBlocksPerSM = searchMinBlocksPerSM(
      base, top, limits, directives.threadsPerBlock, [&](int blocks) {
        ++result.links;
        std::string image;
        Status linked =
            linkOnce(blocks == base
                         ? ptx
                         : withMinBlocksPerSM(ptx, directives, blocks),
                     name, image);
        OccupancyTrial trial;
        if (!linked.ok) {
          if (blocks == base)
            asWritten = linked;
          return trial; // Failed
        }
        readResources(image, name, trial);
        if (blocks == base || trial.outcome != OccupancyTrial::Failed)
          images[blocks] = std::move(image);
        trials[blocks] = trial;
        return trial;
      });
  if (!asWritten.ok)
    return asWritten;
  // The search answers the base or a count it linked: both kept.
  cubin = std::move(images[result.minBlocksPerSM]);
  if (options.wholeProgram)
    compileWholeProgram(ptx, name, directives, limits, top,
                        result.minBlocksPerSM, trials[result.minBlocksPerSM],
                        options.ptxas, cubin, result);
  return Status::success();
}

Status Kernel::loadImage(const std::string &image, const std::string &name,
                         long long sharedBytes, unsigned numWarps,
                         std::unique_ptr<Kernel> &kernel, int ordinal) {
  if (ordinal < 0)
    TILELANG_TRY(currentDevice(ordinal));
  // The module belongs to the context it is loaded in: the device's
  // primary context, whichever is current.
  DeviceScope scope(ordinal);
  TILELANG_TRY(scope.status());
  std::string what = "kernel '" + name + "'";
  std::unique_ptr<Kernel> result(new Kernel());
  result->device = ordinal;
  TILELANG_TRY(check(driver.cuCtxGetCurrent(&result->context),
                     "cuCtxGetCurrent"));
  TILELANG_TRY(check(driver.cuModuleLoadData(&result->module, image.data()),
                     "cuModuleLoadData", what));
  TILELANG_TRY(check(driver.cuModuleGetFunction(&result->function,
                                                result->module, name.c_str()),
                     "cuModuleGetFunction", what));
  if (sharedBytes > 48 * 1024) {
    // The driver would only say "invalid argument".
    DeviceInfo device;
    TILELANG_TRY(runtime::getDevice(ordinal, device));
    if (sharedBytes > device.maxSharedPerBlockOptin)
      return Status::error(
          what + " needs " + std::to_string(sharedBytes) +
          " bytes of shared memory, over the " +
          std::to_string(device.maxSharedPerBlockOptin) + " that " +
          device.name +
          " allows per block (use smaller blocks or fewer num_stages)");
  }
  if (sharedBytes > 48 * 1024)
    TILELANG_TRY(check(driver.cuFuncSetAttribute(
                           result->function,
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           int(sharedBytes)),
                       "cuFuncSetAttribute", what));
  driver.cuFuncGetAttribute(&result->registers, CU_FUNC_ATTRIBUTE_NUM_REGS,
                            result->function);
  driver.cuFuncGetAttribute(&result->localBytes,
                            CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                            result->function);
  result->name = name;
  result->sharedBytes = sharedBytes;
  result->numWarps = numWarps;
  kernel = std::move(result);
  return Status::success();
}

Status Kernel::load(const std::string &ptx, const std::string &name,
                    long long sharedBytes, unsigned numWarps,
                    std::unique_ptr<Kernel> &kernel, int ordinal) {
  std::string cubin;
  LinkOptions options;
  options.device = ordinal;
  TILELANG_TRY(linkPTX(ptx, name, cubin, options));
  return loadImage(cubin, name, sharedBytes, numWarps, kernel, ordinal);
}

Status Kernel::launch(unsigned gridX, unsigned gridY, unsigned gridZ,
                      std::uintptr_t stream, void **params) const {
  // A function launches in the context its module was loaded in: push it
  // where the thread has another one (or none) current, pop it after. The
  // common case (torch made this device current) costs one query.
  CUcontext current = nullptr;
  driver.cuCtxGetCurrent(&current);
  bool push = current != context;
  if (push)
    TILELANG_TRY(check(driver.cuCtxPushCurrent(context), "cuCtxPushCurrent",
                       "kernel '" + name + "'"));
  CUresult result = driver.cuLaunchKernel(
      function, gridX, gridY, gridZ, numWarps * 32, 1, 1, unsigned(sharedBytes),
      reinterpret_cast<CUstream>(stream), params, nullptr);
  if (push) {
    CUcontext popped = nullptr;
    driver.cuCtxPopCurrent(&popped);
  }
  // The kernel's name only goes into a message when there is one.
  return result == 0 ? Status::success()
                     : check(result, "cuLaunchKernel", "kernel '" + name + "'");
}

Status encodeTensorMap(void *map, const tilelang::TensorMapEncoding &encoding,
                       std::uint64_t base,
                       const std::vector<std::int64_t> &shape,
                       const std::vector<std::int64_t> &strides) {
  TILELANG_TRY(initialize());
  if (!driver.cuTensorMapEncodeTiled)
    return Status::error("this CUDA driver has no cuTensorMapEncodeTiled "
                         "(CUDA 12 or later is needed for bulk tensor "
                         "copies)");
  size_t rank = shape.size();
  int dataType = encoding.elementType == "bf16"
                     ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                     : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if ((encoding.elementType != "bf16" && encoding.elementType != "f16") ||
      rank < 2 || rank > 5 || strides.size() != rank ||
      encoding.box.size() != rank)
    return Status::error("cannot encode a tensor map of rank " +
                         std::to_string(rank) + " for " +
                         encoding.elementType + " elements");
  // The driver takes dimensions innermost first, and the strides of every
  // dimension but the innermost in bytes.
  std::uint64_t dims[5], byteStrides[4];
  std::uint32_t box[5], elementStrides[5];
  for (size_t i = 0; i < rank; ++i) {
    size_t dim = rank - 1 - i;
    if (shape[dim] < 1)
      return Status::error("a tensor descriptor read by bulk copies needs "
                           "positive extents, got " +
                           std::to_string(shape[dim]) + " in dimension " +
                           std::to_string(dim));
    dims[i] = std::uint64_t(shape[dim]);
    box[i] = std::uint32_t(encoding.box[dim]);
    elementStrides[i] = 1;
    if (i > 0)
      byteStrides[i - 1] = std::uint64_t(strides[dim]) * 2;
  }
  int swizzle = encoding.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                : encoding.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                : encoding.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                         : CU_TENSOR_MAP_SWIZZLE_NONE;
  // L2 promotion (docs/runtime.md, "Tensor maps"): 256 bytes where the base
  // and every row pitch are multiples of 256, so that each box row's
  // promotion stays within its row (the next K block of it); 128 bytes, one
  // box row of the copies, otherwise (a 2000-byte pitch puts most rows
  // across two lines, and 256 fetches blocks of the neighbouring rows).
  bool pitchesOf256 = base % 256 == 0;
  for (size_t i = 0; i + 1 < rank; ++i)
    pitchesOf256 = pitchesOf256 && byteStrides[i] % 256 == 0;
  return check(driver.cuTensorMapEncodeTiled(
                   map, dataType, std::uint32_t(rank),
                   reinterpret_cast<void *>(base), dims, byteStrides, box,
                   elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                   pitchesOf256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                : CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               "cuTensorMapEncodeTiled", "a tensor descriptor");
}

} // namespace tilelang::runtime
