//===- Launcher.h - argument packing and the launch fast path ---*- C++ -*-===//
//
// Part of tilelang. A LaunchableKernel is a loaded kernel plus how to pack
// each of its arguments, decided once per specialization. A Dispatcher is
// the per-@jit-function fast path of `kernel[grid](...)`: it reduces the
// call's arguments to a key of their kinds (dtype and alignment of
// tensors, value classes of integers, values of constexprs) and, when a
// kernel is registered under that key, packs and launches without running
// any Python. Unknown keys go to the Python slow path, which specializes,
// compiles and registers the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_LAUNCHER_H
#define TILELANG_PYTHON_LAUNCHER_H

#include "tilelang/Runtime/Runtime.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tilelang::python {

namespace py = pybind11;

/// A loaded kernel and its argument kinds: 'p' pointer (an int, or an
/// object with data_ptr() or __cuda_array_interface__), 'i'/'I' 32-bit and
/// 'l'/'L' 64-bit signed/unsigned integers, 'f' float, 'd' double, 'b' bool,
/// '1' to '5' a tensor descriptor of that rank (several kernel parameters).
///
/// A launch runs on the device its pointer arguments live on: `kernel` is
/// loaded on the device that was current when the image was loaded, and
/// the image is loaded again, once, into each other device a launch goes
/// to (`onDevice`).
struct LaunchableKernel {
  std::unique_ptr<runtime::Kernel> kernel;
  std::string argKinds;
  /// The parameter names, by argument (for messages; may be empty).
  std::vector<std::string> argNames;
  /// The loaded image, to load into other devices.
  std::string image;

  /// The kernel loaded on `device`, loading it there first if it is not
  /// (called with the GIL held, which serializes the loading).
  const runtime::Kernel &onDevice(int device) const;

  /// The name of argument `index`, quoted, for messages.
  std::string argumentName(size_t index) const;

  /// Loaded on devices other than `kernel`'s, by ordinal.
  mutable std::vector<std::unique_ptr<runtime::Kernel>> otherDevices;
  /// Per tensor descriptor argument (in order), how its tensor map is
  /// encoded for the kernel's bulk copies; none: the map stays zero.
  std::vector<std::optional<TensorMapEncoding>> tensorMaps;

  /// The last tensor map encoded for each descriptor argument and what it
  /// was encoded from: a launch with the same tensor copies it instead of
  /// calling the driver. (Used with the GIL held.)
  struct EncodedTensorMap {
    std::uint64_t base = 0;
    std::vector<std::int64_t> shape, strides;
    alignas(TensorMapEncoding::kAlignment) unsigned char
        bytes[TensorMapEncoding::kBytes];
  };
  mutable std::vector<std::optional<EncodedTensorMap>> encodedMaps;
};

/// The stream argument meaning "torch's current stream on the device the
/// launch runs on" (the default stream without torch).
constexpr std::uintptr_t kDeviceStream = ~std::uintptr_t(0);

/// Launches `kernel` on `stream` (or kDeviceStream) with `args` (one per
/// argument kind), on the device of its pointer arguments.
void launchWithArgs(const LaunchableKernel &kernel, py::handle grid,
                    std::uintptr_t stream, py::handle *args, size_t count);

/// Packs `args` once and calls cuLaunchKernel `launches` times from C++;
/// returns the seconds it took (the driver's share of a launch, for
/// benchmarks). With `releaseEach`, the GIL is released around each launch
/// (as kernel[grid] does) rather than once around the loop.
double timeLaunches(const LaunchableKernel &kernel, py::handle grid,
                    std::uintptr_t stream, py::handle *args, size_t count,
                    size_t launches, bool releaseEach = false);

/// The launch fast path of one @jit function.
class Dispatcher {
public:
  /// `params` are the function's parameter names, `constexprs` the names of
  /// its constexpr parameters; `identityTypes` are types whose instances
  /// are keyed by identity (tl.dtype, JITFunction: long-lived objects);
  /// `slowPath(grid, args, kwargs, key)` handles unknown keys (key is None
  /// when the arguments cannot be keyed).
  Dispatcher(std::vector<std::string> params,
             std::vector<std::string> constexprs, py::tuple identityTypes,
             py::object slowPath);

  /// `kernel[grid](*args, **kwargs)`: returns the CompiledKernel.
  py::object launch(py::args args, py::kwargs kwargs);

  /// The same with CPython's vectorcall convention: `vector[0]` is the
  /// grid, then `nargs - 1` positional arguments, then the values of the
  /// keywords named in `kwnames` (a tuple, or null). Returns a new reference.
  PyObject *launchVector(PyObject *const *vector, size_t nargs,
                         PyObject *kwnames);

  /// Registers what a key launches: the kernel, where each of its
  /// arguments comes from (an int index into the positional arguments or a
  /// keyword name), the CompiledKernel to return, and the constexpr values
  /// a callable grid sees.
  void insert(py::bytes key, py::object kernel, py::list sources,
              py::object compiled, py::dict constexprs);

  size_t size() const { return entries.size(); }
  void clear() { entries.clear(); }

private:
  struct Source {
    bool isKeyword;
    size_t index;
    py::str name;
  };
  /// One call's arguments, as vectorcall passes them.
  struct Call {
    PyObject *const *args; // positional, then keyword values
    size_t count;          // positional ones
    PyObject *kwnames;     // tuple of keyword names, or null
    size_t keywordCount() const {
      return kwnames ? size_t(PyTuple_GET_SIZE(kwnames)) : 0;
    }
  };
  static constexpr unsigned char kParam = 1, kConstexpr = 2;

  /// What a key launches. A launch that found it holds its own references
  /// to the kernel and the CompiledKernel: Python that runs during the
  /// launch (a grid callable, data_ptr(), torch's stream query) may clear
  /// or replace the entry.
  struct Entry {
    py::object kernelObject; // owns *kernel
    const LaunchableKernel *kernel;
    std::vector<Source> sources;
    py::object compiled;
    py::dict constexprs;
  };

  /// Appends the key of one argument; false when it cannot be keyed.
  bool appendKind(std::string &key, py::handle value, std::uint64_t &pointer);
  bool appendValue(std::string &key, py::handle value);
  /// Appends a tensor's key: its dtype object (pinned), its pointer's
  /// 16-byte alignment and `device` ('g' GPU, 'h' host, '?' unknown).
  void appendTensorKind(std::string &key, PyObject *dtype,
                        std::uint64_t pointer, char device);
  /// The key of a tensor descriptor argument; false if it cannot be keyed.
  bool appendDescriptorKind(std::string &key, PyObject *desc);
  /// The grid, or what a grid callable returns given the call's arguments
  /// and the kernel's `constexprs` by name.
  py::object resolveGrid(py::handle grid, py::handle constexprs,
                         const Call &call);
  /// Whether a keyword names a parameter and a constexpr (cached by name).
  unsigned char keywordFlags(const std::string &name);

  std::vector<std::string> params;
  std::vector<bool> constexprPositions;
  std::vector<std::string> constexprNames;
  py::tuple identityTypes;
  py::object slowPath;
  std::unordered_map<std::string, Entry> entries;
  /// dtype and identity-keyed objects seen in keys, kept alive so that
  /// their addresses stay unique.
  py::list pinned;
  std::unordered_set<PyObject *> pinnedSet;
  std::unordered_map<std::string, unsigned char> keywordCache;
  /// Reused between calls, to avoid an allocation per launch, and claimed
  /// by one launch at a time: a launch from Python that runs while another
  /// builds its key (a data_ptr() that launches) keys into a string of its
  /// own.
  std::string keyBuffer;
  bool keyBufferClaimed = false;
};

/// Adds `Subscriptable` (JITFunction's C base: `kernel[grid]` without a
/// Python frame, once `_set_dispatcher` was called; before that it calls
/// the instance's `_subscript_slow(grid)`) and `BoundLaunch` (what
/// `kernel[grid]` returns: a vectorcall object that launches) to `module`.
void addLaunchTypes(py::module_ &module);

/// The stream to launch on: torch's current stream when torch is loaded
/// (on `device`, -1 for torch's current device), else the default stream.
std::uintptr_t currentStream(int device = -1);

/// Whether the launcher reads torch tensors and streams through
/// tilelang._C_torch: "active", or why not ("torch is not imported", the
/// import error, a torch version mismatch, TILELANG_TORCH_BRIDGE=0).
std::string torchBridgeStatus();

/// Turns a loaded bridge on or off for this process (to time launches
/// both ways in one process); returns the previous setting.
bool setTorchBridge(bool enabled);

} // namespace tilelang::python

#endif // TILELANG_PYTHON_LAUNCHER_H
