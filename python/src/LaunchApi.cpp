//===- LaunchApi.cpp - tilelang._C's launcher for other extensions --------===//
//
// Part of tilelang. Implements the LaunchApi table of LaunchApi.h over
// LaunchableKernel (the kernel on a device) and the runtime's launch.
//
//===----------------------------------------------------------------------===//

#include "LaunchApi.h"
#include "LaunchableKernel.h"
#include "TorchLink.h"

#include <cstring>
#include <exception>

namespace tilelang::python {

namespace {

void writeMessage(const std::string &text, char *message, std::size_t size) {
  if (!message || !size)
    return;
  std::size_t length = std::min(text.size(), size - 1);
  std::memcpy(message, text.data(), length);
  message[length] = '\0';
}

const void *loadedKernel(PyObject *object, int device) {
  try {
    const LaunchableKernel &kernel =
        py::handle(object).cast<const LaunchableKernel &>();
    return &kernel.onDevice(device < 0 ? kernel.kernel->getDevice() : device);
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (py::cast_error &) {
    PyErr_SetString(PyExc_TypeError, "launch_api: not a tilelang._C.Kernel");
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  }
  return nullptr;
}

bool launch(const void *loaded, const unsigned dims[3], std::uintptr_t stream,
            void **params, char *message, std::size_t size) {
  if (dims[0] == 0 || dims[1] == 0 || dims[2] == 0)
    return true;
  runtime::Status status = static_cast<const runtime::Kernel *>(loaded)->launch(
      dims[0], dims[1], dims[2], stream, params);
  if (!status.ok)
    writeMessage(status.message, message, size);
  return status.ok;
}

bool streamOf(int device, std::uintptr_t *stream, char *message,
              std::size_t size) {
  py::gil_scoped_acquire gil;
  try {
    *stream = currentStream(device);
    return true;
  } catch (py::error_already_set &error) {
    writeMessage(error.what(), message, size);
  } catch (const std::exception &error) {
    writeMessage(error.what(), message, size);
  }
  return false;
}

const LaunchApi api = {kLaunchApiVersion, &loadedKernel, &launch, &streamOf};

} // namespace

PyObject *makeLaunchApiCapsule() {
  return PyCapsule_New(const_cast<LaunchApi *>(&api), kLaunchApiCapsule,
                       nullptr);
}

} // namespace tilelang::python
