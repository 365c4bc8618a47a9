//===- Dispatcher.cpp - the launch fast path of a @jit function -----------===//
//
// Part of tilelang. Implements Dispatcher.h on the CPython API directly: a
// launch that hits the key map costs a handful of attribute reads per
// tensor and the driver call, with no Python frames.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"
#include "InternedNames.h"
#include "LaunchableKernel.h"
#include "TorchLink.h"

#include <algorithm>
#include <bitset>

namespace tilelang::python {

namespace {

/// data_ptr() of a tensor-like object; false (no Python error set) when it
/// has none.
bool callDataPtr(PyObject *value, std::uint64_t &pointer) {
  PyObject *result = PyObject_CallMethodNoArgs(value, names().dataPtr);
  if (!result) {
    PyErr_Clear();
    return false;
  }
  pointer = PyLong_AsUnsignedLongLong(result);
  Py_DECREF(result);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

/// Claims a Dispatcher's key buffer for one launch, unless another launch
/// (further up the stack) holds it.
struct KeyBufferClaim {
  explicit KeyBufferClaim(bool &held) : held(held), claimed(!held) {
    held = true;
  }
  ~KeyBufferClaim() {
    if (claimed)
      held = false;
  }
  bool &held;
  const bool claimed;
};

/// Drops the traceback of the pending error if the slow path marked it as
/// the caller's (a bad argument or launch option): it then ends at the
/// caller's line, as the errors of Python's builtins do, instead of deep
/// inside tilelang. Other errors (tilelang's own bugs) keep their frames.
void dropFramesOfCallersError() {
#if PY_VERSION_HEX >= 0x030C0000
  PyObject *value = PyErr_GetRaisedException();
  if (value && PyObject_HasAttr(value, names().callersError))
    PyException_SetTraceback(value, Py_None);
  PyErr_SetRaisedException(value);
#else
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (value && PyObject_HasAttr(value, names().callersError)) {
    PyException_SetTraceback(value, Py_None);
    Py_CLEAR(traceback);
  }
  PyErr_Restore(type, value, traceback);
#endif
}

/// The divisibility class of an integer argument, as jit.py's
/// integer_divisibility() records it: '0' for 16 or more (0 included), '8',
/// '4', '2', and '_' for odd values. Negative values are read in two's
/// complement, which keeps their lowest set bit.
char integerClass(std::uint64_t value) {
  std::uint64_t lowestBit = value & (~value + 1);
  if (value == 0 || lowestBit >= 16)
    return '0';
  switch (lowestBit) {
  case 8:
    return '8';
  case 4:
    return '4';
  case 2:
    return '2';
  default:
    return '_';
  }
}

template <typename T> void appendBytes(std::string &key, const T &value) {
  key.append(reinterpret_cast<const char *>(&value), sizeof(value));
}

} // namespace

Dispatcher::Dispatcher(std::vector<std::string> params,
                       std::vector<std::string> constexprs,
                       py::tuple identityTypes, py::object slowPath)
    : params(std::move(params)), constexprNames(std::move(constexprs)),
      identityTypes(std::move(identityTypes)), slowPath(std::move(slowPath)) {
  for (const std::string &name : this->params)
    constexprPositions.push_back(
        std::find(constexprNames.begin(), constexprNames.end(), name) !=
        constexprNames.end());
}

bool Dispatcher::appendKind(std::string &key, py::handle handle,
                            std::uint64_t &pointer) {
  PyObject *value = handle.ptr();
  if (value == Py_True || value == Py_False) {
    key += 'b';
    return true;
  }
  if (value == Py_None) {
    key += 'n';
    return true;
  }
  if (PyLong_CheckExact(value)) {
    // The classes specialization distinguishes: 1, signed/unsigned 32/64-bit
    // ranges, and divisibility by 2, 4, 8 and 16 (integerClass).
    int overflow = 0;
    long long signedValue = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow < 0)
      return false;
    if (overflow > 0) {
      unsigned long long unsignedValue = PyLong_AsUnsignedLongLong(value);
      if (PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      key += 'U';
      key += integerClass(unsignedValue);
      return true;
    }
    char range = signedValue == 1                                   ? '1'
                 : signedValue >= INT32_MIN && signedValue <= INT32_MAX ? 'i'
                 : signedValue >= 0 && signedValue <= UINT32_MAX        ? 'I'
                                                                        : 'l';
    key += range;
    key += integerClass(static_cast<std::uint64_t>(signedValue));
    return true;
  }
  if (PyFloat_CheckExact(value)) {
    key += 'f';
    return true;
  }
  // A tensor: its dtype object (pinned, so its address stays unique), its
  // alignment class, and whether it lives on the GPU. A torch tensor is
  // read in C++ through the bridge when there is one (the same values
  // Python gives). Otherwise tensors are asked first: a failed attribute
  // lookup on a torch tensor costs about a microsecond, a launch's whole
  // budget.
  PyObject *torchDtype = nullptr;
  bool torchIsCuda = false;
  if (readTorchTensor(value, pointer, torchDtype, torchIsCuda)) {
    appendTensorKind(key, torchDtype, pointer, torchIsCuda ? 'g' : 'h');
    return true;
  }
  if (!callDataPtr(value, pointer)) {
    // A tensor descriptor: its base's kind, then what specialization reads.
    if (PyObject_HasAttr(value, names().blockShape))
      return appendDescriptorKind(key, value);
    return false;
  }
  PyObject *dtype = PyObject_GetAttr(value, names().dtype);
  if (!dtype) {
    PyErr_Clear();
    return false;
  }
  char device = '?';
  if (PyObject *isCuda = PyObject_GetAttr(value, names().isCuda)) {
    device = isCuda == Py_True ? 'g' : 'h';
    Py_DECREF(isCuda);
  } else {
    PyErr_Clear();
  }
  appendTensorKind(key, dtype, pointer, device);
  Py_DECREF(dtype);
  return true;
}

void Dispatcher::appendTensorKind(std::string &key, PyObject *dtype,
                                  std::uint64_t pointer, char device) {
  if (pinnedSet.insert(dtype).second)
    pinned.append(py::handle(dtype));
  key += 'p';
  appendBytes(key, reinterpret_cast<std::uintptr_t>(dtype));
  key += pointer % 16 == 0 ? '0' : '_';
  key += device;
}

/// Appends each item of the sequence attribute `name` of `object` through
/// `append`; false if it is missing or not a sequence of ints.
template <typename Append>
static bool appendIntSequence(PyObject *object, PyObject *name,
                              Append append) {
  PyObject *sequence = PyObject_GetAttr(object, name);
  if (!sequence) {
    PyErr_Clear();
    return false;
  }
  PyObject *fast = PySequence_Fast(sequence, "");
  Py_DECREF(sequence);
  if (!fast) {
    PyErr_Clear();
    return false;
  }
  bool ok = true;
  Py_ssize_t size = PySequence_Fast_GET_SIZE(fast);
  PyObject **items = PySequence_Fast_ITEMS(fast);
  for (Py_ssize_t i = 0; ok && i < size; ++i) {
    long long item = PyLong_AsLongLong(items[i]);
    ok = !(item == -1 && PyErr_Occurred());
    if (ok)
      append(item, i + 1 == size);
  }
  PyErr_Clear();
  Py_DECREF(fast);
  return ok;
}

/// Whether the descriptor `desc` has no `padding` or "zero" padding (the
/// only one kernels implement; the slow path reports the others).
static bool hasZeroPadding(PyObject *desc) {
  PyObject *padding = PyObject_GetAttr(desc, names().padding);
  if (!padding) {
    PyErr_Clear();
    return true;
  }
  bool zero = padding == Py_None ||
              (PyUnicode_Check(padding) &&
               PyUnicode_CompareWithASCIIString(padding, "zero") == 0);
  Py_DECREF(padding);
  return zero;
}

bool Dispatcher::appendDescriptorKind(std::string &key, PyObject *desc) {
  // As specialize() in jit.py: the base tensor's kind, the block shape,
  // each extent's divisibility class (integerClass, as for integers), and
  // the strides modulo 16 (which decide whether each is a multiple of 16
  // bytes, for any element size).
  key += 'D';
  PyObject *base = PyObject_GetAttr(desc, names().base);
  if (!base) {
    PyErr_Clear();
    return false;
  }
  std::uint64_t unused = 0;
  bool ok = appendKind(key, base, unused);
  Py_DECREF(base);
  return ok &&
         appendIntSequence(desc, names().blockShape,
                           [&](long long size, bool) {
                             appendBytes(key, std::int32_t(size));
                           }) &&
         (key += '|', true) &&
         appendIntSequence(desc, names().shape,
                           [&](long long extent, bool) {
                             key += integerClass(
                                 static_cast<std::uint64_t>(extent));
                           }) &&
         appendIntSequence(desc, names().strides,
                           [&](long long stride, bool last) {
                             // A last stride other than 1 is an error the
                             // slow path reports.
                             key += last ? (stride == 1 ? 'a' : '!')
                                         : char('a' + (stride & 15));
                           }) &&
         key.back() != '!' && hasZeroPadding(desc);
}

bool Dispatcher::appendValue(std::string &key, py::handle handle) {
  PyObject *value = handle.ptr();
  if (value == Py_True || value == Py_False || value == Py_None) {
    key += value == Py_True ? 'T' : value == Py_False ? 'F' : 'N';
    return true;
  }
  if (PyLong_CheckExact(value)) {
    int overflow = 0;
    long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow)
      return false;
    key += 'v';
    appendBytes(key, number);
    return true;
  }
  if (PyFloat_CheckExact(value)) {
    key += 'd';
    appendBytes(key, PyFloat_AS_DOUBLE(value));
    return true;
  }
  if (PyUnicode_CheckExact(value)) {
    Py_ssize_t size = 0;
    const char *text = PyUnicode_AsUTF8AndSize(value, &size);
    if (!text) {
      PyErr_Clear();
      return false;
    }
    key += 's';
    appendBytes(key, size);
    key.append(text, size);
    return true;
  }
  int identity = PyObject_IsInstance(value, identityTypes.ptr());
  if (identity != 1) {
    PyErr_Clear();
    return false;
  }
  if (pinnedSet.insert(value).second)
    pinned.append(handle);
  key += 'o';
  appendBytes(key, reinterpret_cast<std::uintptr_t>(value));
  return true;
}

py::object Dispatcher::resolveGrid(py::handle grid, py::handle constexprs,
                                   const Call &call) {
  // Anything but a callable is checked by gridDimensions.
  if (!PyCallable_Check(grid.ptr()))
    return py::reinterpret_borrow<py::object>(grid);
  // Triton's grid callables see every argument and constexpr by name.
  py::dict meta;
  for (size_t i = 0; i < call.count && i < params.size(); ++i)
    meta[py::str(params[i])] = call.args[i];
  for (size_t i = 0; i < call.keywordCount(); ++i)
    meta[PyTuple_GET_ITEM(call.kwnames, i)] = call.args[call.count + i];
  for (auto item : py::reinterpret_borrow<py::dict>(constexprs))
    meta[item.first] = item.second;
  return py::reinterpret_borrow<py::object>(grid)(meta);
}

unsigned char Dispatcher::keywordFlags(const std::string &name) {
  auto found = keywordCache.find(name);
  if (found != keywordCache.end())
    return found->second;
  unsigned char flags = 0;
  if (std::find(params.begin(), params.end(), name) != params.end())
    flags |= kParam;
  if (std::find(constexprNames.begin(), constexprNames.end(), name) !=
      constexprNames.end())
    flags |= kConstexpr;
  keywordCache.emplace(name, flags);
  return flags;
}

PyObject *Dispatcher::launchVector(PyObject *const *vector, size_t nargs,
                                   PyObject *kwnames) {
  if (nargs < 1)
    throw py::type_error("launch(grid, *args, **kwargs) needs a grid");
  Call call{vector + 1, nargs - 1, kwnames};
  size_t count = call.count;
  // Keying calls data_ptr() and the like, which may launch again.
  KeyBufferClaim claim(keyBufferClaimed);
  std::string ownKey;
  std::string &key = claim.claimed ? keyBuffer : ownKey;
  key.clear();
  std::uint64_t pointers[kMaxArgs];
  std::bitset<kMaxArgs> known;
  bool keyed = count <= kMaxArgs;
  for (size_t i = 0; keyed && i < count; ++i) {
    py::handle value = call.args[i];
    if (i < constexprPositions.size() && constexprPositions[i]) {
      keyed = appendValue(key, value);
      continue;
    }
    pointers[i] = 0;
    keyed = appendKind(key, value, pointers[i]);
    known[i] = keyed && pointers[i] != 0;
  }
  for (size_t i = 0; keyed && i < call.keywordCount(); ++i) {
    Py_ssize_t size = 0;
    const char *text =
        PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(kwnames, i), &size);
    if (!text) {
      PyErr_Clear();
      keyed = false;
      break;
    }
    std::string name(text, size);
    unsigned char flags = keywordFlags(name);
    key += '|';
    key += name;
    key += '=';
    std::uint64_t unused = 0;
    py::handle value = call.args[count + i];
    keyed = (!(flags & kParam) || (flags & kConstexpr))
                ? appendValue(key, value)
                : appendKind(key, value, unused);
  }
  py::handle grid = vector[0];
  if (keyed) {
    auto found = entries.find(key);
    if (found != entries.end()) {
      const Entry &entry = found->second;
      // Python may run from here on and clear or replace `entry`.
      py::object kernelObject = entry.kernelObject; // owns `kernel`
      const LaunchableKernel &kernel = *entry.kernel;
      py::object compiled = entry.compiled;
      py::object constexprs = entry.constexprs;
      py::handle handles[kMaxArgs];
      std::uint64_t entryPointers[kMaxArgs];
      std::bitset<kMaxArgs> entryKnown;
      size_t argCount = entry.sources.size();
      if (argCount > kMaxArgs)
        throw py::value_error("kernels take at most 64 arguments");
      for (size_t i = 0; i < argCount; ++i) {
        const Source &source = entry.sources[i];
        if (!source.isKeyword) {
          handles[i] = call.args[source.index];
          if (known[source.index]) {
            entryKnown[i] = true;
            entryPointers[i] = pointers[source.index];
          }
          continue;
        }
        PyObject *value = nullptr;
        for (size_t k = 0; k < call.keywordCount() && !value; ++k) {
          PyObject *name = PyTuple_GET_ITEM(kwnames, k);
          if (name == source.name.ptr() ||
              PyUnicode_Compare(name, source.name.ptr()) == 0)
            value = call.args[count + k];
        }
        if (!value)
          throw py::key_error("missing keyword argument '" +
                              std::string(source.name) + "'");
        handles[i] = value;
      }
      py::object dims = resolveGrid(grid, constexprs, call);
      launchWithKnownPointers(kernel, dims, kDeviceStream, handles, argCount,
                              entryPointers, entryKnown);
      return compiled.release().ptr();
    }
  }
  py::tuple rest(count);
  for (size_t i = 0; i < count; ++i)
    rest[i] = py::reinterpret_borrow<py::object>(call.args[i]);
  py::dict kwargs;
  for (size_t i = 0; i < call.keywordCount(); ++i)
    kwargs[PyTuple_GET_ITEM(kwnames, i)] = call.args[count + i];
  py::object keyObject =
      keyed ? py::object(py::bytes(key)) : py::object(py::none());
  PyObject *result =
      PyObject_CallFunctionObjArgs(slowPath.ptr(), grid.ptr(), rest.ptr(),
                                   kwargs.ptr(), keyObject.ptr(), nullptr);
  if (!result) {
    dropFramesOfCallersError();
    throw py::error_already_set();
  }
  return result;
}

py::object Dispatcher::launch(py::args args, py::kwargs kwargs) {
  // The same call through pybind11's calling convention (tests, tools).
  std::vector<PyObject *> vector;
  for (py::handle arg : args)
    vector.push_back(arg.ptr());
  py::tuple names(kwargs ? kwargs.size() : 0);
  size_t i = 0;
  if (kwargs) {
    for (auto item : kwargs) {
      names[i++] = item.first;
      vector.push_back(item.second.ptr());
    }
  }
  return py::reinterpret_steal<py::object>(
      launchVector(vector.data(), args.size(), names.empty() ? nullptr : names.ptr()));
}

void Dispatcher::insert(py::bytes key, py::object kernel, py::list sources,
                        py::object compiled, py::dict constexprs) {
  Entry entry;
  entry.kernel = kernel.cast<const LaunchableKernel *>();
  entry.kernelObject = std::move(kernel);
  for (py::handle source : sources) {
    if (PyLong_Check(source.ptr()))
      entry.sources.push_back({false, source.cast<size_t>(), py::str("")});
    else
      entry.sources.push_back({true, 0, py::str(source)});
  }
  entry.compiled = std::move(compiled);
  entry.constexprs = std::move(constexprs);
  entries[std::string(key)] = std::move(entry);
}

} // namespace tilelang::python
