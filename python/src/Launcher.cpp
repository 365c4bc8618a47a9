//===- Launcher.cpp - argument packing and the launch fast path -----------===//
//
// Part of tilelang. Implements Launcher.h. The fast path works on the
// CPython API directly: a launch that hits the key map costs a handful of
// attribute reads per tensor and the driver call, with no Python frames.
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"
#include "TorchBridge.h"

#include <structmember.h>

#include <algorithm>
#include <bitset>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace tilelang::python {

namespace {

constexpr size_t kMaxArgs = 64;

/// Interned attribute names, created once.
PyObject *internedName(const char *text) {
  PyObject *name = PyUnicode_InternFromString(text);
  if (!name)
    throw py::error_already_set();
  return name;
}

/// The attribute names the launcher reads on every call.
struct Names {
  PyObject *dataPtr = internedName("data_ptr");
  PyObject *dtype = internedName("dtype");
  PyObject *isCuda = internedName("is_cuda");
  PyObject *subscriptSlow = internedName("_subscript_slow");
  PyObject *base = internedName("base");
  PyObject *blockShape = internedName("block_shape");
  PyObject *shape = internedName("shape");
  PyObject *strides = internedName("strides");
  PyObject *padding = internedName("padding");
  PyObject *cudaArrayInterface = internedName("__cuda_array_interface__");
  /// Marks an error as the caller's: CALLERS_ERROR in tilelang/errors.py.
  PyObject *callersError = internedName("_tilelang_callers_error");
};
const Names &names() {
  static const Names interned;
  return interned;
}

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

//===----------------------------------------------------------------------===//
// torch
//===----------------------------------------------------------------------===//

/// What the launcher knows of torch: whether it is imported, the stream
/// query, and the C++ bridge of tilelang._C_torch when that is built for
/// this torch (TorchBridge.h). Used with the GIL held.
struct TorchLink {
  bool imported = false;
  bool cudaReady = false;
  PyObject *getRawStream = nullptr;
  PyObject *currentDevice = nullptr;
  const TorchBridgeApi *bridge = nullptr;
  std::string bridgeStatus = "torch is not imported";
  /// set_torch_bridge(False) turns a loaded bridge off (benchmarks).
  bool enabled = true;

  const TorchBridgeApi *activeBridge() const {
    return enabled ? bridge : nullptr;
  }
};

/// Why tilelang._C_torch cannot serve, or an empty string when it can (and
/// `bridge` is set). Never raises: any failure is a reason.
std::string loadBridge(const TorchBridgeApi *&bridge) {
  if (const char *knob = std::getenv("TILELANG_TORCH_BRIDGE")) {
    std::string value(knob);
    for (char &c : value)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    if (value == "0" || value == "false" || value == "no" || value == "off")
      return "off (TILELANG_TORCH_BRIDGE=" + std::string(knob) + ")";
  }
  const TorchBridgeApi *api = nullptr;
  std::string running;
  try {
    py::object module = py::module_::import("tilelang._C_torch");
    api = static_cast<const TorchBridgeApi *>(PyCapsule_GetPointer(
        py::object(module.attr("api")).ptr(), kTorchBridgeCapsule));
    if (!api)
      throw py::error_already_set();
    running = py::str(py::module_::import("torch").attr("__version__"));
  } catch (py::error_already_set &error) {
    return std::string("tilelang._C_torch is not available (") +
           error.what() + ")";
  }
  if (api->version != kTorchBridgeVersion)
    return "tilelang._C_torch is of another tilelang build (table version " +
           std::to_string(api->version) + ", expected " +
           std::to_string(kTorchBridgeVersion) + ")";
  if (running != api->torchVersion)
    return std::string("tilelang._C_torch was built for torch ") +
           api->torchVersion + ", this is torch " + running;
  bridge = api;
  return "";
}

/// The launcher's view of torch, brought up to date: until torch is
/// imported, one dictionary lookup per call (an interned name, not a string
/// made and hashed each time); once it is, the bridge is loaded once.
TorchLink &torchLink() {
  static TorchLink link;
  if (link.imported)
    return link;
  static PyObject *torchName = internedName("torch");
  PyObject *torch = PyDict_GetItem(PyImport_GetModuleDict(), torchName);
  if (!torch)
    return link;
  // A torch without the stream query raises here, and the next call tries
  // again: `link` changes only once it is complete.
  py::object native = py::reinterpret_borrow<py::object>(torch).attr("_C");
  link.getRawStream =
      py::object(native.attr("_cuda_getCurrentRawStream")).release().ptr();
  link.currentDevice = PyLong_FromLong(-1);
  link.imported = true;
  std::string why = loadBridge(link.bridge);
  link.bridgeStatus = why.empty() ? "active" : why;
  return link;
}

/// A torch tensor's data_ptr(), dtype and is_cuda through the bridge; false
/// when there is none or `value` is not a plain torch tensor.
bool readTorchTensor(PyObject *value, std::uint64_t &pointer,
                     PyObject *&dtype, bool &isCuda) {
  const TorchBridgeApi *bridge = torchLink().activeBridge();
  return bridge && bridge->readTensor(value, &pointer, &dtype, &isCuda);
}

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

template <typename T> void appendBytes(std::string &key, const T &value) {
  key.append(reinterpret_cast<const char *>(&value), sizeof(value));
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

/// A launch's grid and kernel parameters, packed: every scalar parameter in
/// an 8-byte slot (the driver reads each at its size), each TMA tensor map
/// in 128 bytes aligned to 64; `params` points at them in parameter order.
struct PackedLaunch {
  static constexpr size_t kMaxParams = 192;
  static constexpr size_t kMaxTensorMaps = 16;
  static constexpr size_t kTensorMapBytes = TensorMapEncoding::kBytes;

  unsigned dims[3] = {1, 1, 1};
  size_t paramCount = 0;
  size_t tensorMapCount = 0;
  /// The addresses of the pointer arguments (and descriptor bases), with
  /// their argument indices: they say which device the launch runs on.
  size_t pointerCount = 0;
  struct PointerArgument {
    size_t index;
    std::uint64_t address;
  } pointers[kMaxArgs];

  void notePointer(size_t index, std::uint64_t address) {
    if (address != 0 && pointerCount < kMaxArgs)
      pointers[pointerCount++] = {index, address};
  }
  std::uint64_t storage[kMaxParams];
  void *params[kMaxParams];
  alignas(TensorMapEncoding::kAlignment) unsigned char
      tensorMaps[kMaxTensorMaps][kTensorMapBytes];

  /// The next 8-byte parameter slot, zeroed.
  std::uint64_t &nextSlot() {
    if (paramCount == kMaxParams)
      throw py::value_error("kernels take at most " +
                            std::to_string(kMaxParams) + " parameters");
    storage[paramCount] = 0;
    params[paramCount] = &storage[paramCount];
    return storage[paramCount++];
  }

  /// The next tensor map parameter, zeroed.
  unsigned char *nextTensorMap() {
    if (tensorMapCount == kMaxTensorMaps)
      throw py::value_error("kernels take at most " +
                            std::to_string(kMaxTensorMaps) +
                            " tensor descriptors");
    if (paramCount == kMaxParams)
      throw py::value_error("kernels take at most " +
                            std::to_string(kMaxParams) + " parameters");
    unsigned char *map = tensorMaps[tensorMapCount++];
    std::memset(map, 0, kTensorMapBytes);
    params[paramCount++] = map;
    return map;
  }
};

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

/// Checks the argument count and grid and packs `args` by `kernel`'s
/// argument kinds; pointers marked `known` are taken from `knownPointers`.
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

/// Whether the grid has no block (a dimension of 0): the arguments are
/// checked and packed, but nothing is launched, as in Triton (inputs with
/// a batch of 0 rely on it).
bool isEmptyGrid(const PackedLaunch &packed) {
  return packed.dims[0] == 0 || packed.dims[1] == 0 || packed.dims[2] == 0;
}

/// One cuLaunchKernel without the GIL (it blocks when the launch queue is
/// full); none for an empty grid.
runtime::Status launchReleased(const runtime::Kernel &kernel,
                               PackedLaunch &packed, std::uintptr_t stream) {
  if (isEmptyGrid(packed))
    return runtime::Status::success();
  PyThreadState *thread = PyEval_SaveThread();
  runtime::Status status = kernel.launch(packed.dims[0], packed.dims[1],
                                         packed.dims[2], stream, packed.params);
  PyEval_RestoreThread(thread);
  return status;
}

void launchPacked(const LaunchableKernel &kernel, py::handle grid,
                  std::uintptr_t stream, py::handle *args, size_t count,
                  const std::uint64_t *knownPointers,
                  const std::bitset<kMaxArgs> &known) {
  PackedLaunch packed;
  packLaunch(kernel, grid, args, count, knownPointers, known, packed);
  int device = launchDevice(kernel, packed);
  const runtime::Kernel &loaded = kernel.onDevice(device);
  if (isEmptyGrid(packed))
    return;
  // torch's current stream of that device (of the current device, which
  // the bridge reads in C++, on a host with one GPU).
  if (stream == kDeviceStream)
    stream = currentStream(visibleDevices() > 1 ? device : -1);
  runtime::Status status = launchReleased(loaded, packed, stream);
  if (!status.ok)
    throw std::runtime_error(status.message);
}

} // namespace

void launchWithArgs(const LaunchableKernel &kernel, py::handle grid,
                    std::uintptr_t stream, py::handle *args, size_t count) {
  launchPacked(kernel, grid, stream, args, count, nullptr, {});
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
  } else if (!isEmptyGrid(packed)) {
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

std::uintptr_t currentStream(int device) {
  TorchLink &torch = torchLink();
  if (!torch.imported)
    return 0;
  if (!torch.cudaReady) {
    // torch.cuda.current_device() runs torch's lazy CUDA initialization.
    py::module_::import("torch").attr("cuda").attr("current_device")();
    torch.cudaReady = true;
  }
  std::uintptr_t value = 0;
  const TorchBridgeApi *bridge = torch.activeBridge();
  if (device < 0 && bridge && bridge->currentStream &&
      bridge->currentStream(&value))
    return value;
  // torch._C._cuda_getCurrentRawStream(-1): the current device's current
  // stream (c10's getCurrentCUDAStream reads -1 as the current device),
  // what torch.cuda.current_stream() finds without building a Stream; or
  // that of another device, by its ordinal (the bridge reads only the
  // current device's).
  py::object ordinal;
  if (device >= 0)
    ordinal = py::int_(device);
  PyObject *stream = PyObject_CallOneArg(
      torch.getRawStream, device >= 0 ? ordinal.ptr() : torch.currentDevice);
  if (!stream)
    throw py::error_already_set();
  value = PyLong_AsUnsignedLongLong(stream);
  Py_DECREF(stream);
  if (PyErr_Occurred())
    throw py::error_already_set();
  return value;
}

std::string torchBridgeStatus() {
  const TorchLink &torch = torchLink();
  if (torch.bridge && !torch.enabled)
    return "off (tilelang._C.set_torch_bridge(False))";
  return torch.bridgeStatus;
}

bool setTorchBridge(bool enabled) {
  TorchLink &torch = torchLink();
  bool previous = torch.enabled;
  torch.enabled = enabled;
  return previous;
}

//===----------------------------------------------------------------------===//
// Dispatcher
//===----------------------------------------------------------------------===//

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
    // ranges, and divisibility by 16.
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
      key += unsignedValue % 16 == 0 ? 'U' : 'u';
      return true;
    }
    char range = signedValue == 1                                   ? '1'
                 : signedValue >= INT32_MIN && signedValue <= INT32_MAX ? 'i'
                 : signedValue >= 0 && signedValue <= UINT32_MAX        ? 'I'
                                                                        : 'l';
    key += range;
    key += signedValue % 16 == 0 ? '0' : '_';
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
  // which extents are multiples of 16, and the strides modulo 16 (which
  // decide whether each is a multiple of 16 bytes, for any element size).
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
                             key += extent % 16 == 0 ? '0' : '_';
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
      launchPacked(kernel, dims, kDeviceStream, handles, argCount,
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

namespace {

/// Runs `body` (returning a new reference) for a CPython entry point: C++
/// and pybind11 exceptions become the Python error they stand for.
template <typename Body> PyObject *withPythonErrors(Body &&body) {
  try {
    return body();
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (py::builtin_exception &error) {
    error.set_error();
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  }
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// kernel[grid] in C: JITFunction's base type and the bound launch
//===----------------------------------------------------------------------===//

namespace {

/// `kernel[grid]`: a Dispatcher and a grid; calling it launches.
struct BoundLaunchObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  Dispatcher *dispatcher;
  PyObject *owner; // the Dispatcher's Python object
  PyObject *grid;
};

PyObject *callBoundLaunch(PyObject *self, PyObject *const *args,
                          size_t nargsf, PyObject *kwnames) {
  auto *bound = reinterpret_cast<BoundLaunchObject *>(self);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  return withPythonErrors([&]() -> PyObject * {
    if (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) {
      // The caller lets us use the slot before args: put the grid there.
      PyObject **vector = const_cast<PyObject **>(args) - 1;
      PyObject *saved = vector[0];
      vector[0] = bound->grid;
      PyObject *result = nullptr;
      try {
        result = bound->dispatcher->launchVector(vector, nargs + 1, kwnames);
      } catch (...) {
        vector[0] = saved;
        throw;
      }
      vector[0] = saved;
      return result;
    }
    std::vector<PyObject *> vector(total + 1);
    vector[0] = bound->grid;
    std::copy(args, args + total, vector.begin() + 1);
    return bound->dispatcher->launchVector(vector.data(), nargs + 1, kwnames);
  });
}

void deallocBoundLaunch(PyObject *self) {
  auto *bound = reinterpret_cast<BoundLaunchObject *>(self);
  Py_XDECREF(bound->owner);
  Py_XDECREF(bound->grid);
  PyTypeObject *type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyMemberDef boundLaunchMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET,
     offsetof(BoundLaunchObject, vectorcall), READONLY, nullptr},
    {"grid", T_OBJECT, offsetof(BoundLaunchObject, grid), READONLY,
     "The grid this launcher was subscripted with."},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot boundLaunchSlots[] = {
    {Py_tp_dealloc, reinterpret_cast<void *>(deallocBoundLaunch)},
    {Py_tp_call, reinterpret_cast<void *>(PyVectorcall_Call)},
    {Py_tp_members, boundLaunchMembers},
    {Py_tp_doc, const_cast<char *>(
                    "kernel[grid]: call it with the kernel's arguments.")},
    {0, nullptr}};

PyType_Spec boundLaunchSpec = {
    "tilelang._C.BoundLaunch", sizeof(BoundLaunchObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL, boundLaunchSlots};

PyTypeObject *boundLaunchType = nullptr;

/// The C part of a @jit function: `kernel[grid]` without a Python frame.
struct SubscriptableObject {
  PyObject_HEAD PyObject *owner; // a Dispatcher's Python object, or null
  Dispatcher *dispatcher;
};

PyObject *subscript(PyObject *self, PyObject *grid) {
  auto *object = reinterpret_cast<SubscriptableObject *>(self);
  if (!object->dispatcher)
    // First use (or no extension): the Python side makes the Dispatcher.
    return PyObject_CallMethodOneArg(self, names().subscriptSlow, grid);
  auto *bound = PyObject_New(BoundLaunchObject, boundLaunchType);
  if (!bound)
    return nullptr;
  bound->vectorcall = callBoundLaunch;
  bound->dispatcher = object->dispatcher;
  Py_INCREF(object->owner);
  bound->owner = object->owner;
  Py_INCREF(grid);
  bound->grid = grid;
  return reinterpret_cast<PyObject *>(bound);
}

PyObject *setDispatcher(PyObject *self, PyObject *dispatcher) {
  auto *object = reinterpret_cast<SubscriptableObject *>(self);
  try {
    Dispatcher *pointer = py::handle(dispatcher).cast<Dispatcher *>();
    Py_INCREF(dispatcher);
    Py_XSETREF(object->owner, dispatcher);
    object->dispatcher = pointer;
  } catch (py::cast_error &) {
    PyErr_SetString(PyExc_TypeError, "expected a tilelang._C.Dispatcher");
    return nullptr;
  }
  Py_RETURN_NONE;
}

void deallocSubscriptable(PyObject *self) {
  auto *object = reinterpret_cast<SubscriptableObject *>(self);
  Py_CLEAR(object->owner);
  PyTypeObject *type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyMethodDef subscriptableMethods[] = {
    {"_set_dispatcher", setDispatcher, METH_O,
     "Routes kernel[grid] to this Dispatcher from now on."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot subscriptableSlots[] = {
    {Py_mp_subscript, reinterpret_cast<void *>(subscript)},
    {Py_tp_dealloc, reinterpret_cast<void *>(deallocSubscriptable)},
    {Py_tp_methods, subscriptableMethods},
    {Py_tp_new, reinterpret_cast<void *>(PyType_GenericNew)},
    {Py_tp_doc, const_cast<char *>(
                    "Base of JITFunction: kernel[grid] implemented in C.")},
    {0, nullptr}};

PyType_Spec subscriptableSpec = {
    "tilelang._C.Subscriptable", sizeof(SubscriptableObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, subscriptableSlots};

} // namespace

void addLaunchTypes(py::module_ &module) {
  boundLaunchType =
      reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&boundLaunchSpec));
  if (!boundLaunchType)
    throw py::error_already_set();
  module.add_object("BoundLaunch",
                    py::handle(reinterpret_cast<PyObject *>(boundLaunchType)));
  PyObject *subscriptable = PyType_FromSpec(&subscriptableSpec);
  if (!subscriptable)
    throw py::error_already_set();
  module.add_object("Subscriptable", py::reinterpret_steal<py::object>(
                                         subscriptable));
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
