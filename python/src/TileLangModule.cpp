//===- TileLangModule.cpp - the tilelang._C extension ---------------------===//
//
// Part of tilelang. Exposes libtilelang's API (include/tilelang/Compiler/
// Compiler.h) to Python. Deliberately thin: Python-side conveniences and
// error formatting live in python/tilelang.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"
#include "tilelang/Runtime/Runtime.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;

namespace {

/// Raises a Python RuntimeError for a failed runtime call.
void throwIfFailed(const tilelang::runtime::Status &status) {
  if (!status.ok)
    throw std::runtime_error(status.message);
}

/// A loaded kernel plus how to pack each argument, decided once at load:
/// 'p' pointer (an int, or an object with data_ptr() or
/// __cuda_array_interface__), 'i'/'I' 32-bit and 'l'/'L' 64-bit signed/
/// unsigned integers, 'f' float, 'd' double, 'b' bool.
struct LaunchableKernel {
  std::unique_ptr<tilelang::runtime::Kernel> kernel;
  std::string argKinds;
};

std::uint64_t pointerOf(const py::handle &arg, size_t index) {
  if (py::isinstance<py::int_>(arg))
    return arg.cast<std::uint64_t>();
  if (py::hasattr(arg, "data_ptr"))
    return arg.attr("data_ptr")().cast<std::uint64_t>();
  if (py::hasattr(arg, "__cuda_array_interface__")) {
    py::dict interface = arg.attr("__cuda_array_interface__");
    return py::tuple(interface["data"])[0].cast<std::uint64_t>();
  }
  if (arg.is_none())
    return 0;
  throw py::type_error("argument " + std::to_string(index) +
                       " must be a tensor (data_ptr() or "
                       "__cuda_array_interface__) or an address, got " +
                       std::string(py::str(arg.get_type().attr("__name__"))));
}

void launch(const LaunchableKernel &self, const py::tuple &grid,
            std::uintptr_t stream, const py::args &args) {
  const std::string &kinds = self.argKinds;
  if (args.size() != kinds.size())
    throw py::type_error("kernel '" + self.kernel->getName() + "' takes " +
                         std::to_string(kinds.size()) + " arguments, got " +
                         std::to_string(args.size()));
  unsigned dims[3] = {1, 1, 1};
  if (grid.size() < 1 || grid.size() > 3)
    throw py::value_error("grid must have 1 to 3 dimensions, got " +
                          std::to_string(grid.size()));
  static const long long limits[3] = {2147483647LL, 65535, 65535};
  for (size_t i = 0; i < grid.size(); ++i) {
    long long value = grid[i].cast<long long>();
    if (value < 1 || value > limits[i])
      throw py::value_error("grid dimension " + std::to_string(i) + " is " +
                            std::to_string(value) + "; it must be in [1, " +
                            std::to_string(limits[i]) + "]");
    dims[i] = unsigned(value);
  }
  // Every argument in an 8-byte slot; the driver reads each at its size.
  std::uint64_t storage[64];
  void *params[64];
  if (kinds.size() > 64)
    throw py::value_error("kernels take at most 64 arguments");
  for (size_t i = 0; i < kinds.size(); ++i) {
    py::handle arg = args[i];
    std::uint64_t &slot = storage[i];
    slot = 0;
    switch (kinds[i]) {
    case 'p':
      slot = pointerOf(arg, i);
      break;
    case 'i': {
      std::int32_t value = arg.cast<std::int32_t>();
      std::memcpy(&slot, &value, sizeof(value));
      break;
    }
    case 'I': {
      std::uint32_t value = arg.cast<std::uint32_t>();
      std::memcpy(&slot, &value, sizeof(value));
      break;
    }
    case 'l': {
      std::int64_t value = arg.cast<std::int64_t>();
      std::memcpy(&slot, &value, sizeof(value));
      break;
    }
    case 'L':
      slot = arg.cast<std::uint64_t>();
      break;
    case 'f': {
      float value = arg.cast<float>();
      std::memcpy(&slot, &value, sizeof(value));
      break;
    }
    case 'd': {
      double value = arg.cast<double>();
      std::memcpy(&slot, &value, sizeof(value));
      break;
    }
    case 'b': {
      std::uint8_t value = arg.cast<bool>() ? 1 : 0;
      std::memcpy(&slot, &value, sizeof(value));
      break;
    }
    default:
      throw py::value_error(std::string("unknown argument kind '") +
                            kinds[i] + "'");
    }
    params[i] = &slot;
  }
  tilelang::runtime::Status status;
  {
    py::gil_scoped_release release;
    status = self.kernel->launch(dims[0], dims[1], dims[2], stream, params);
  }
  throwIfFailed(status);
}

} // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "tilelang compiler library binding";

  py::enum_<tilelang::Severity>(m, "Severity")
      .value("ERROR", tilelang::Severity::Error)
      .value("WARNING", tilelang::Severity::Warning)
      .value("NOTE", tilelang::Severity::Note)
      .value("REMARK", tilelang::Severity::Remark);

  py::class_<tilelang::Diagnostic>(m, "Diagnostic")
      .def_readonly("severity", &tilelang::Diagnostic::severity)
      .def_readonly("file", &tilelang::Diagnostic::file)
      .def_readonly("line", &tilelang::Diagnostic::line)
      .def_readonly("column", &tilelang::Diagnostic::column)
      .def_readonly("message", &tilelang::Diagnostic::message)
      .def("__str__", &tilelang::Diagnostic::str)
      .def("__repr__", [](const tilelang::Diagnostic &diagnostic) {
        return "<Diagnostic " + diagnostic.str() + ">";
      });

  py::class_<tilelang::PipelineResult>(m, "PipelineResult")
      .def_readonly("success", &tilelang::PipelineResult::success)
      .def_readonly("output", &tilelang::PipelineResult::output)
      .def_readonly("diagnostics", &tilelang::PipelineResult::diagnostics);

  m.def(
      "run_pipeline",
      [](const std::string &source, const std::string &pipeline,
         const std::string &sourceName, bool generic, bool locations) {
        tilelang::PipelineOptions options;
        options.pipeline = pipeline;
        options.sourceName = sourceName;
        options.printGenericForm = generic;
        options.printLocations = locations;
        py::gil_scoped_release release;
        return tilelang::runPipeline(source, options);
      },
      py::arg("source"), py::arg("pipeline") = "",
      py::arg("source_name") = "<tile-ir>", py::arg("generic") = false,
      py::arg("locations") = false,
      "Parse and verify tile IR, run a pass pipeline, print the result.");

  py::class_<tilelang::Stage>(m, "Stage")
      .def_readonly("name", &tilelang::Stage::name)
      .def_readonly("ir", &tilelang::Stage::ir);

  py::class_<tilelang::CompileResult>(m, "CompileResult")
      .def_readonly("success", &tilelang::CompileResult::success)
      .def_readonly("ptx", &tilelang::CompileResult::ptx)
      .def_readonly("kernel_name", &tilelang::CompileResult::kernelName)
      .def_readonly("shared_bytes", &tilelang::CompileResult::sharedBytes)
      .def_readonly("num_warps", &tilelang::CompileResult::numWarps)
      .def_readonly("arch", &tilelang::CompileResult::arch)
      .def_readonly("stages", &tilelang::CompileResult::stages)
      .def_readonly("diagnostics", &tilelang::CompileResult::diagnostics);

  m.def(
      "compile",
      [](const std::string &source, const std::string &arch,
         unsigned numWarps, unsigned numStages, const std::string &sourceName,
         bool keepStages) {
        tilelang::CompileOptions options;
        options.arch = arch;
        options.numWarps = numWarps;
        options.numStages = numStages;
        options.sourceName = sourceName;
        options.keepStages = keepStages;
        py::gil_scoped_release release;
        return tilelang::compile(source, options);
      },
      py::arg("source"), py::arg("arch") = "sm_90a", py::arg("num_warps") = 4,
      py::arg("num_stages") = 3, py::arg("source_name") = "<tile-ir>",
      py::arg("keep_stages") = false,
      "Compile one tile-IR kernel to PTX.");

  py::class_<LaunchableKernel>(m, "Kernel")
      .def_static(
          "load",
          [](const std::string &ptx, const std::string &name,
             long long sharedBytes, unsigned numWarps,
             const std::string &argKinds) {
            auto result = std::make_unique<LaunchableKernel>();
            throwIfFailed(tilelang::runtime::Kernel::load(
                ptx, name, sharedBytes, numWarps, result->kernel));
            result->argKinds = argKinds;
            return result;
          },
          py::arg("ptx"), py::arg("name"), py::arg("shared_bytes"),
          py::arg("num_warps"), py::arg("arg_kinds"),
          "Link PTX, load it into the current context and find the kernel.")
      .def("launch", &launch, py::arg("grid"), py::arg("stream"),
           "launch(grid, stream, *args): grid is a 1- to 3-tuple.")
      .def_property_readonly("name",
                             [](const LaunchableKernel &k) {
                               return k.kernel->getName();
                             })
      .def_property_readonly("registers",
                             [](const LaunchableKernel &k) {
                               return k.kernel->getRegisters();
                             })
      .def_property_readonly("local_bytes", [](const LaunchableKernel &k) {
        return k.kernel->getLocalBytes();
      });

  m.def("driver_version", &tilelang::runtime::driverVersion,
        "The CUDA driver's version, 0 without a driver.");
  m.def(
      "device_info",
      [] {
        tilelang::runtime::DeviceInfo info;
        throwIfFailed(tilelang::runtime::getCurrentDevice(info));
        py::dict result;
        result["ordinal"] = info.ordinal;
        result["name"] = info.name;
        result["capability"] = py::make_tuple(info.computeMajor,
                                              info.computeMinor);
        result["multiprocessors"] = info.multiprocessors;
        result["max_threads_per_block"] = info.maxThreadsPerBlock;
        result["max_shared_per_block"] = info.maxSharedPerBlockOptin;
        result["max_grid"] = py::make_tuple(
            info.maxGridDim[0], info.maxGridDim[1], info.maxGridDim[2]);
        return result;
      },
      "Properties of the current device (initializes the driver).");

  m.def("version", &tilelang::getVersion, "The compiler library's version.");
}
