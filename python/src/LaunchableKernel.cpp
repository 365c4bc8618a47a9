//===- LaunchableKernel.cpp - a loaded kernel and its launch --------------===//
//
// Part of tilelang. Implements LaunchableKernel.h: the device a launch
// runs on (asked of the driver only where it sees several devices), the
// kernel's module on that device, torch's stream there, and the driver
// call without the GIL.
//
//===----------------------------------------------------------------------===//

#include "LaunchableKernel.h"
#include "ArgumentPacking.h"
#include "TorchLink.h"

#include <chrono>

namespace tilelang::python {

namespace {

/// How many devices the driver sees (read once: it does not change while
/// the process runs).
int visibleDevices() {
  static const int count = [] {
    int devices = 0;
    runtime::Status status = runtime::deviceCount(devices);
    if (!status.ok)
      throw std::runtime_error(status.message);
    return devices;
  }();
  return count;
}

/// The device a launch runs on: the one its pointer arguments' memory is
/// on (addresses the driver does not know, such as host memory passed as
/// an int, say nothing), the current device where none says, and the
/// kernel's own device without asking anything on a host with one GPU. A
/// ValueError names the arguments when they are on different devices.
int launchDevice(const LaunchableKernel &kernel, const PackedLaunch &packed) {
  if (visibleDevices() <= 1)
    return kernel.kernel->getDevice();
  int chosen = -1;
  std::string seen;
  bool mixed = false;
  for (size_t i = 0; i < packed.pointerCount; ++i) {
    int device = -1;
    runtime::Status status =
        runtime::deviceOfPointer(packed.pointers[i].address, device);
    if (!status.ok)
      throw std::runtime_error(status.message);
    if (device < 0)
      continue;
    mixed |= chosen >= 0 && device != chosen;
    if (chosen < 0)
      chosen = device;
    seen += std::string(seen.empty() ? "" : ", ") +
            kernel.argumentName(packed.pointers[i].index) + " on cuda:" +
            std::to_string(device);
  }
  if (mixed)
    throw py::value_error("the tensors passed to kernel '" +
                          kernel.kernel->getName() +
                          "' are on different devices (" + seen +
                          "); a launch runs on one device: move them to one "
                          "(tensor.to(device))");
  if (chosen >= 0)
    return chosen;
  int current = 0;
  runtime::Status status = runtime::currentDevice(current);
  if (!status.ok)
    throw std::runtime_error(status.message);
  return current;
}

/// One cuLaunchKernel without the GIL (it blocks when the launch queue is
/// full); none for an empty grid.
runtime::Status launchReleased(const runtime::Kernel &kernel,
                               PackedLaunch &packed, std::uintptr_t stream) {
  if (packed.isEmptyGrid())
    return runtime::Status::success();
  PyThreadState *thread = PyEval_SaveThread();
  runtime::Status status = kernel.launch(packed.dims[0], packed.dims[1],
                                         packed.dims[2], stream, packed.params);
  PyEval_RestoreThread(thread);
  return status;
}

} // namespace

void launchWithKnownPointers(const LaunchableKernel &kernel, py::handle grid,
                             std::uintptr_t stream, py::handle *args,
                             size_t count, const std::uint64_t *knownPointers,
                             const std::bitset<kMaxArgs> &known) {
  PackedLaunch packed;
  packLaunch(kernel, grid, args, count, knownPointers, known, packed);
  int device = launchDevice(kernel, packed);
  const runtime::Kernel &loaded = kernel.onDevice(device);
  if (packed.isEmptyGrid())
    return;
  // torch's current stream of that device (of the current device, which
  // the bridge reads in C++, on a host with one GPU).
  if (stream == kDeviceStream)
    stream = currentStream(visibleDevices() > 1 ? device : -1);
  runtime::Status status = launchReleased(loaded, packed, stream);
  if (!status.ok)
    throw std::runtime_error(status.message);
}

void launchWithArgs(const LaunchableKernel &kernel, py::handle grid,
                    std::uintptr_t stream, py::handle *args, size_t count) {
  launchWithKnownPointers(kernel, grid, stream, args, count, nullptr, {});
}

double timeLaunches(const LaunchableKernel &kernel, py::handle grid,
                    std::uintptr_t stream, py::handle *args, size_t count,
                    size_t launches, bool releaseEach) {
  PackedLaunch packed;
  packLaunch(kernel, grid, args, count, nullptr, {}, packed);
  const runtime::Kernel &loaded =
      kernel.onDevice(launchDevice(kernel, packed));
  runtime::Status status;
  auto start = std::chrono::steady_clock::now();
  if (releaseEach) {
    // As kernel[grid] does: the GIL released around each launch.
    for (size_t i = 0; i < launches && status.ok; ++i)
      status = launchReleased(loaded, packed, stream);
  } else if (!packed.isEmptyGrid()) {
    py::gil_scoped_release release;
    for (size_t i = 0; i < launches && status.ok; ++i)
      status = loaded.launch(packed.dims[0], packed.dims[1], packed.dims[2],
                             stream, packed.params);
  }
  auto stop = std::chrono::steady_clock::now();
  if (!status.ok)
    throw std::runtime_error(status.message);
  return std::chrono::duration<double>(stop - start).count();
}

const runtime::Kernel &LaunchableKernel::onDevice(int device) const {
  if (device == kernel->getDevice())
    return *kernel;
  if (device < 0)
    throw py::value_error("no CUDA device " + std::to_string(device));
  if (otherDevices.size() <= size_t(device))
    otherDevices.resize(size_t(device) + 1);
  std::unique_ptr<runtime::Kernel> &slot = otherDevices[size_t(device)];
  if (!slot) {
    // Once per device: the module belongs to that device's context.
    runtime::Status status = runtime::Kernel::loadImage(
        image, kernel->getName(), kernel->getSharedBytes(),
        kernel->getNumWarps(), slot, device);
    if (!status.ok)
      throw std::runtime_error(status.message);
  }
  return *slot;
}

std::string LaunchableKernel::argumentName(size_t index) const {
  if (index < argNames.size())
    return "'" + argNames[index] + "'";
  return "argument " + std::to_string(index);
}

} // namespace tilelang::python
