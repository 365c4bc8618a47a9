//===- TorchLink.cpp - what the launcher knows of torch -------------------===//
//
// Part of tilelang. Implements TorchLink.h: finding torch once it is
// imported, loading the tilelang._C_torch bridge for it (or saying why
// not), and torch's current stream for a launch.
//
//===----------------------------------------------------------------------===//

#include "TorchLink.h"
#include "InternedNames.h"

#include <pybind11/pybind11.h>

#include <cstdlib>

namespace tilelang::python {

namespace py = pybind11;

TorchLink theTorchLink;

namespace {

/// Why tilelang._C_torch cannot serve, or an empty string when it can (and
/// `bridge` is set). Never raises: any failure is a reason.
std::string loadBridge(const TorchBridgeApi *&bridge) {
  // The knob is read by tilelang.knobs, as every switch is (one reading of
  // its values, and a warning for a malformed one).
  try {
    if (!py::module_::import("tilelang.knobs")
             .attr("torch_bridge")()
             .cast<bool>())
      return "off (TILELANG_TORCH_BRIDGE=" +
             std::string(std::getenv("TILELANG_TORCH_BRIDGE")) + ")";
  } catch (py::error_already_set &error) {
    return std::string("TILELANG_TORCH_BRIDGE could not be read (") +
           error.what() + ")";
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

} // namespace

TorchLink &connectTorch() {
  TorchLink &link = theTorchLink;
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

} // namespace tilelang::python
