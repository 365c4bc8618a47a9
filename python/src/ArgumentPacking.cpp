//===- ArgumentPacking.cpp - arguments as kernel parameters ---------------===//
//
// Part of tilelang. Implements ArgumentPacking.h with the CPython API
// directly: the common cases (exact ints, tuples of ints, torch tensors
// through the bridge) take no pybind11 conversion and no Python call.
//
//===----------------------------------------------------------------------===//

#include "ArgumentPacking.h"
#include "InternedNames.h"
#include "TorchLink.h"

#include <algorithm>

namespace tilelang::python {

namespace {

/// The name of `value`'s type, for messages.
std::string typeName(PyObject *value) { return Py_TYPE(value)->tp_name; }

/// `value` (an int) as an address, or a ValueError saying that argument
/// `index` has no address in [0, 2**64) (`source` says where it came from).
std::uint64_t checkedAddress(PyObject *value, size_t index,
                             const char *source) {
  std::uint64_t address = PyLong_AsUnsignedLongLong(value);
  if (!PyErr_Occurred())
    return address;
  PyErr_Clear();
  throw py::value_error("argument " + std::to_string(index) +
                        " has the address " + std::string(py::str(value)) +
                        source + "; an address is in [0, 2**64)");
}

/// The address argument `index` (a tensor, an array, an int or None)
/// points at. The checks are the slow path's (jit.py), whose errors name
/// the parameter; these name the index (Kernel.launch is not specialized).
std::uint64_t pointerOf(py::handle arg, size_t index) {
  PyObject *value = arg.ptr();
  if (PyLong_Check(value))
    return checkedAddress(value, index, "");
  std::uint64_t pointer = 0;
  PyObject *dtype = nullptr;
  bool isCuda = false;
  if (readTorchTensor(value, pointer, dtype, isCuda))
    return pointer;
  if (PyObject *method = PyObject_GetAttr(value, names().dataPtr)) {
    // An error of data_ptr() itself (torch's, for a tensor without
    // storage) is the one to raise.
    py::object result =
        py::reinterpret_steal<py::object>(PyObject_CallNoArgs(method));
    Py_DECREF(method);
    if (!result)
      throw py::error_already_set();
    if (!PyLong_Check(result.ptr()))
      throw py::type_error("data_ptr() of argument " + std::to_string(index) +
                           " returned a " + typeName(result.ptr()) +
                           ", not an int");
    return checkedAddress(result.ptr(), index, " (data_ptr())");
  }
  PyErr_Clear();
  if (PyObject *interface =
          PyObject_GetAttr(value, names().cudaArrayInterface)) {
    py::object owner = py::reinterpret_steal<py::object>(interface);
    py::object address = py::tuple(owner["data"])[0];
    if (!PyLong_Check(address.ptr()))
      throw py::type_error("argument " + std::to_string(index) +
                           " has an address of type " +
                           typeName(address.ptr()) +
                           " (__cuda_array_interface__['data'][0]); it "
                           "must be an int");
    return checkedAddress(address.ptr(), index,
                          " (__cuda_array_interface__['data'][0])");
  }
  PyErr_Clear();
  if (arg.is_none())
    return 0;
  throw py::type_error("argument " + std::to_string(index) +
                       " must be a tensor (data_ptr() or "
                       "__cuda_array_interface__) or an address, got " +
                       typeName(value));
}

/// The most blocks a grid has along x, y and z (CUDA's limits).
constexpr long long kGridLimits[3] = {2147483647LL, 65535, 65535};

/// Grid dimensions from a 1- to 3-tuple (or list) of ints, or an int.
void gridDimensions(py::handle grid, unsigned dims[3]) {
  // The common case without pybind11: a tuple of small positive ints.
  if (PyTuple_CheckExact(grid.ptr())) {
    Py_ssize_t size = PyTuple_GET_SIZE(grid.ptr());
    bool fast = size >= 1 && size <= 3;
    for (Py_ssize_t i = 0; fast && i < size; ++i) {
      PyObject *item = PyTuple_GET_ITEM(grid.ptr(), i);
      long value = PyLong_CheckExact(item) ? PyLong_AsLong(item) : -1;
      fast = value >= 1 && value <= kGridLimits[i];
      dims[i] = unsigned(value);
    }
    if (fast)
      return;
    PyErr_Clear(); // and let the general path below say what is wrong
    dims[0] = dims[1] = dims[2] = 1;
  }
  auto typeError = [&] {
    return py::type_error(
        "grid must be an int or a tuple of 1 to 3 ints, got " +
        std::string(py::str(py::repr(grid))));
  };
  // Ints and anything with __index__ (numpy, torch scalars).
  bool single = PyIndex_Check(grid.ptr());
  if (!single && !PyTuple_Check(grid.ptr()) && !PyList_Check(grid.ptr()))
    throw typeError();
  py::tuple tuple = single
                        ? py::make_tuple(grid)
                        : py::tuple(py::reinterpret_borrow<py::object>(grid));
  if (tuple.size() < 1 || tuple.size() > 3)
    throw py::value_error("grid must have 1 to 3 dimensions, got " +
                          std::to_string(tuple.size()));
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (!PyIndex_Check(tuple[i].ptr()))
      throw typeError();
    py::object index =
        py::reinterpret_steal<py::object>(PyNumber_Index(tuple[i].ptr()));
    if (!index)
      throw py::error_already_set();
    // Beyond 64 bits is out of range as well.
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    // 0 is allowed: an empty grid launches nothing (as Triton's).
    if (overflow || value < 0 || value > kGridLimits[i])
      throw py::value_error("grid dimension " + std::to_string(i) + " is " +
                            std::string(py::str(index)) +
                            "; it must be in [0, " +
                            std::to_string(kGridLimits[i]) + "]");
    dims[i] = unsigned(value);
  }
}

/// What a scalar of kind `kind` must be, for messages.
std::string describeKind(char kind) {
  switch (kind) {
  case 'i':
    return "an int in [-2**31, 2**31) (i32)";
  case 'I':
    return "an int in [0, 2**32) (u32)";
  case 'l':
    return "an int in [-2**63, 2**63) (i64)";
  case 'L':
    return "an int in [0, 2**64) (u64)";
  case 'f':
    return "a float (fp32)";
  case 'd':
    return "a float (fp64)";
  case 'b':
    return "a bool (i1)";
  default:
    return std::string("a value of kind '") + kind + "'";
  }
}

/// Packs a scalar argument of kind `kind` through pybind11's conversions.
void packConverted(char kind, py::handle arg, std::uint64_t &slot) {
  switch (kind) {
  case 'i': {
    std::int32_t value = arg.cast<std::int32_t>();
    std::memcpy(&slot, &value, sizeof(value));
    return;
  }
  case 'I': {
    std::uint32_t value = arg.cast<std::uint32_t>();
    std::memcpy(&slot, &value, sizeof(value));
    return;
  }
  case 'l': {
    std::int64_t value = arg.cast<std::int64_t>();
    std::memcpy(&slot, &value, sizeof(value));
    return;
  }
  case 'L':
    slot = arg.cast<std::uint64_t>();
    return;
  case 'f': {
    float value = arg.cast<float>();
    std::memcpy(&slot, &value, sizeof(value));
    return;
  }
  case 'd': {
    double value = arg.cast<double>();
    std::memcpy(&slot, &value, sizeof(value));
    return;
  }
  case 'b': {
    std::uint8_t value = arg.cast<bool>() ? 1 : 0;
    std::memcpy(&slot, &value, sizeof(value));
    return;
  }
  default:
    throw py::value_error(std::string("unknown argument kind '") + kind + "'");
  }
}

/// Packs one argument of kind `kind` into an 8-byte slot.
void packScalar(char kind, py::handle arg, size_t index, std::uint64_t &slot) {
  slot = 0;
  // Exact ints for 32-bit slots without pybind11's caster (range-checked).
  if ((kind == 'i' || kind == 'l') && PyLong_CheckExact(arg.ptr())) {
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(arg.ptr(), &overflow);
    if (!overflow && !(value == -1 && PyErr_Occurred()) &&
        (kind == 'l' || (value >= INT32_MIN && value <= INT32_MAX))) {
      if (kind == 'i') {
        std::int32_t narrow = std::int32_t(value);
        std::memcpy(&slot, &narrow, sizeof(narrow));
      } else {
        std::memcpy(&slot, &value, sizeof(value));
      }
      return;
    }
    PyErr_Clear();
  }
  if (kind == 'p') {
    slot = pointerOf(arg, index);
    return;
  }
  try {
    packConverted(kind, arg, slot);
  } catch (py::cast_error &) {
    // What pybind11 could not convert: the wrong type, or an int out of
    // the parameter's range.
    PyErr_Clear();
    throw py::type_error("argument " + std::to_string(index) + " must be " +
                         describeKind(kind) + ", got " +
                         (PyLong_Check(arg.ptr()) ? std::string(py::str(arg))
                                                  : typeName(arg.ptr())));
  }
}

/// Up to five integers of a tensor descriptor (its extents or strides).
struct DescriptorInts {
  std::int64_t values[5] = {};
  size_t size = 0;
  const std::int64_t *begin() const { return values; }
  const std::int64_t *end() const { return values + size; }
  bool operator==(const std::vector<std::int64_t> &other) const {
    return std::equal(begin(), end(), other.begin(), other.end());
  }
};

/// The sequence attribute `name` (`field` in messages) of descriptor
/// argument `index`, which must hold `rank` integers.
DescriptorInts descriptorInts(PyObject *desc, PyObject *name,
                              const char *field, size_t rank, size_t index) {
  auto wrongRank = [&](size_t size) {
    return py::value_error("the tensor descriptor passed as argument " +
                           std::to_string(index) + " has " +
                           std::to_string(size) + " " + field +
                           "; the kernel was compiled for rank " +
                           std::to_string(rank));
  };
  py::object sequence =
      py::reinterpret_steal<py::object>(PyObject_GetAttr(desc, name));
  if (!sequence)
    throw py::error_already_set();
  py::object fast = py::reinterpret_steal<py::object>(
      PySequence_Fast(sequence.ptr(), "tensor descriptor sizes"));
  if (!fast)
    throw py::error_already_set();
  size_t size = size_t(PySequence_Fast_GET_SIZE(fast.ptr()));
  if (size != rank || size > 5)
    throw wrongRank(size);
  DescriptorInts ints;
  PyObject **items = PySequence_Fast_ITEMS(fast.ptr());
  for (size_t i = 0; i < size; ++i)
    ints.values[i] = py::handle(items[i]).cast<std::int64_t>();
  ints.size = size;
  return ints;
}

/// Fills `map` with the tensor map of (base, shape, strides) for
/// descriptor argument `ordinal` of `kernel`, if the kernel copies it in
/// bulk: from the last launch's encoding when the tensor is the same.
void fillTensorMap(const LaunchableKernel &kernel, size_t ordinal,
                   unsigned char *map, std::uint64_t base,
                   const DescriptorInts &shape,
                   const DescriptorInts &strides) {
  if (ordinal >= kernel.tensorMaps.size() || !kernel.tensorMaps[ordinal])
    return;
  if (kernel.encodedMaps.size() < kernel.tensorMaps.size())
    kernel.encodedMaps.resize(kernel.tensorMaps.size());
  auto &cached = kernel.encodedMaps[ordinal];
  if (!cached || cached->base != base || !(shape == cached->shape) ||
      !(strides == cached->strides)) {
    LaunchableKernel::EncodedTensorMap encoded;
    encoded.base = base;
    encoded.shape.assign(shape.begin(), shape.end());
    encoded.strides.assign(strides.begin(), strides.end());
    runtime::Status status =
        runtime::encodeTensorMap(encoded.bytes, *kernel.tensorMaps[ordinal],
                                 base, encoded.shape, encoded.strides);
    if (!status.ok)
      throw py::value_error(status.message);
    cached = std::move(encoded);
  }
  std::memcpy(map, cached->bytes, sizeof(cached->bytes));
}

/// Packs a tensor descriptor of rank `rank` (an object with base, shape,
/// strides: tilelang's or Triton's TensorDescriptor), the kernel's
/// descriptor argument `ordinal`, as the parameters the compiler gives it:
/// tensor map, base, extents (i32), leading strides (i64). The tensor map
/// is encoded when the kernel copies the descriptor's blocks in bulk, and
/// left zero otherwise.
void packDescriptor(const LaunchableKernel &kernel, size_t ordinal,
                    size_t rank, py::handle handle, size_t index,
                    PackedLaunch &packed) {
  PyObject *desc = handle.ptr();
  py::object base =
      py::reinterpret_steal<py::object>(PyObject_GetAttr(desc, names().base));
  if (!base || !PyObject_HasAttr(desc, names().blockShape)) {
    PyErr_Clear();
    throw py::type_error("argument " + std::to_string(index) +
                         " must be a TensorDescriptor, got " +
                         std::string(Py_TYPE(desc)->tp_name));
  }
  unsigned char *map = packed.nextTensorMap();
  std::uint64_t address = pointerOf(base, index);
  packed.notePointer(index, address);
  if (address % 16 != 0)
    throw py::value_error("the base of the tensor descriptor passed as "
                          "argument " +
                          std::to_string(index) +
                          " is not 16-byte aligned");
  packed.nextSlot() = address;
  DescriptorInts shape =
      descriptorInts(desc, names().shape, "extents", rank, index);
  for (std::int64_t extent : shape) {
    if (extent < 0 || extent > INT32_MAX)
      throw py::value_error("a tensor descriptor extent must be in [0, 2^31), "
                            "got " +
                            std::to_string(extent));
    std::int32_t narrow = std::int32_t(extent);
    std::memcpy(&packed.nextSlot(), &narrow, sizeof(narrow));
  }
  DescriptorInts strides =
      descriptorInts(desc, names().strides, "strides", rank, index);
  for (size_t dim = 0; dim + 1 < rank; ++dim)
    std::memcpy(&packed.nextSlot(), &strides.values[dim],
                sizeof(std::int64_t));
  fillTensorMap(kernel, ordinal, map, address, shape, strides);
}

} // namespace

void packLaunch(const LaunchableKernel &kernel, py::handle grid,
                py::handle *args, size_t count,
                const std::uint64_t *knownPointers,
                const std::bitset<kMaxArgs> &known, PackedLaunch &packed) {
  const std::string &kinds = kernel.argKinds;
  if (count != kinds.size())
    throw py::type_error("kernel '" + kernel.kernel->getName() + "' takes " +
                         std::to_string(kinds.size()) + " arguments, got " +
                         std::to_string(count));
  if (count > kMaxArgs)
    throw py::value_error("kernels take at most 64 arguments");
  gridDimensions(grid, packed.dims);
  size_t descriptors = 0;
  for (size_t i = 0; i < count; ++i) {
    char kind = kinds[i];
    if (kind >= '1' && kind <= '5')
      packDescriptor(kernel, descriptors++, size_t(kind - '0'), args[i], i,
                     packed);
    else if (known[i] && kind == 'p')
      packed.nextSlot() = knownPointers[i];
    else
      packScalar(kind, args[i], i, packed.nextSlot());
    if (kind == 'p')
      packed.notePointer(i, packed.storage[packed.paramCount - 1]);
  }
}

} // namespace tilelang::python
