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

  m.def("version", &tilelang::getVersion, "The compiler library's version.");
}
