//===- LaunchTypes.cpp - kernel[grid] as CPython types --------------------===//
//
// Part of tilelang. Implements LaunchTypes.h with CPython's heap types
// (PyType_FromSpec): a subscript and a call cost no Python frame, and C++
// errors become the Python errors they stand for at the type's edge.
//
//===----------------------------------------------------------------------===//

#include "LaunchTypes.h"
#include "Dispatcher.h"
#include "InternedNames.h"

#include <structmember.h>

#include <algorithm>
#include <vector>

namespace tilelang::python {

namespace py = pybind11;

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

//===----------------------------------------------------------------------===//
// kernel[grid] in C: JITFunction's base type and the bound launch
//===----------------------------------------------------------------------===//

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
  if (dispatcher == Py_None) {
    // Back to the Python side's first use (a first launch that failed).
    object->dispatcher = nullptr;
    Py_CLEAR(object->owner);
    Py_RETURN_NONE;
  }
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
     "Routes kernel[grid] to this Dispatcher from now on (None: back to "
     "_subscript_slow)."},
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

} // namespace tilelang::python
