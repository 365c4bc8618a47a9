//===- Dispatcher.h - the launch fast path of a @jit function ---*- C++ -*-===//
//
// Part of tilelang. A Dispatcher is the per-@jit-function fast path of
// `kernel[grid](...)`: it reduces the call's arguments to a key of their
// kinds (dtype and alignment of tensors, value classes of integers, values
// of constexprs) and, when a kernel is registered under that key, packs
// and launches without running any Python. Unknown keys go to the Python
// slow path, which specializes, compiles and registers the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_DISPATCHER_H
#define TILELANG_PYTHON_DISPATCHER_H

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tilelang::python {

namespace py = pybind11;

struct LaunchableKernel;

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

} // namespace tilelang::python

#endif // TILELANG_PYTHON_DISPATCHER_H
