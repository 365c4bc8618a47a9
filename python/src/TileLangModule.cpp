//===- TileLangModule.cpp - the tilelang._C extension ---------------------===//
//
// Part of tilelang. Exposes libtilelang's API (include/tilelang/Compiler/
// Compiler.h) to Python. Deliberately thin: Python-side conveniences and
// error formatting live in python/tilelang.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

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

  m.def("version", &tilelang::getVersion, "The compiler library's version.");
}
