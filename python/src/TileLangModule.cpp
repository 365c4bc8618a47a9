//===- TileLangModule.cpp - the tilelang._C extension ---------------------===//
//
// Part of tilelang. Exposes libtilelang's API (include/tilelang/Compiler/
// Compiler.h) to Python. Deliberately thin: Python-side conveniences and
// error formatting live in python/tilelang.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"
#include "tilelang/Runtime/Cache.h"
#include "tilelang/Runtime/Ptxas.h"
#include "tilelang/Runtime/Runtime.h"

#include "ArgumentPacking.h"
#include "Dispatcher.h"
#include "LaunchApi.h"
#include "LaunchTypes.h"
#include "LaunchableKernel.h"
#include "TorchLink.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

namespace py = pybind11;

namespace {

/// Raises a Python RuntimeError for a failed runtime call.
void throwIfFailed(const tilelang::runtime::Status &status) {
  if (!status.ok)
    throw std::runtime_error(status.message);
}

using tilelang::python::Dispatcher;
using tilelang::python::LaunchableKernel;

/// `Kernel.launch(grid, stream, *args)`: the launch without a Dispatcher;
/// a stream of None is torch's current stream on the launch's device.
void launchKernel(const LaunchableKernel &self, py::handle grid,
                  py::object stream, const py::args &args) {
  std::vector<py::handle> handles(args.begin(), args.end());
  tilelang::python::launchWithArgs(
      self, grid,
      stream.is_none() ? tilelang::python::kDeviceStream
                       : stream.cast<std::uintptr_t>(),
      handles.data(), handles.size());
}

/// Loads a kernel image (cubin or PTX) and records its argument kinds.
/// The tensor map encodings of CompiledIR.tensor_maps (dicts with
/// descriptor, element, box and swizzle), by descriptor argument.
std::vector<std::optional<tilelang::TensorMapEncoding>>
tensorMapsFrom(py::handle maps) {
  std::vector<std::optional<tilelang::TensorMapEncoding>> result;
  if (maps.is_none())
    return result;
  for (py::handle item : maps) {
    py::dict entry = py::reinterpret_borrow<py::dict>(item);
    tilelang::TensorMapEncoding encoding;
    encoding.descriptor = entry["descriptor"].cast<unsigned>();
    encoding.elementType = entry["element"].cast<std::string>();
    encoding.box = entry["box"].cast<std::vector<unsigned>>();
    encoding.swizzle = entry["swizzle"].cast<unsigned>();
    if (result.size() <= encoding.descriptor)
      result.resize(encoding.descriptor + 1);
    result[encoding.descriptor] = std::move(encoding);
  }
  return result;
}

py::list tensorMapsToPython(const std::vector<tilelang::TensorMapEncoding> &maps) {
  py::list result;
  for (const tilelang::TensorMapEncoding &encoding : maps) {
    py::dict entry;
    entry["descriptor"] = encoding.descriptor;
    entry["element"] = encoding.elementType;
    entry["box"] = py::cast(encoding.box);
    entry["swizzle"] = encoding.swizzle;
    result.append(entry);
  }
  return result;
}

/// Loads a kernel (a cubin, or PTX linked first with `link`) into device
/// `device` (-1: the current one), keeping the image for the other devices
/// a launch may go to.
std::unique_ptr<LaunchableKernel>
loadKernel(const std::string &image, const std::string &name,
           long long sharedBytes, unsigned numWarps,
           const std::string &argKinds, bool link, py::handle tensorMaps,
           int device, std::vector<std::string> argNames) {
  auto result = std::make_unique<LaunchableKernel>();
  result->tensorMaps = tensorMapsFrom(tensorMaps);
  if (link) {
    tilelang::runtime::LinkOptions options;
    options.device = device;
    throwIfFailed(
        tilelang::runtime::linkPTX(image, name, result->image, options));
  } else {
    result->image = image;
  }
  throwIfFailed(tilelang::runtime::Kernel::loadImage(
      result->image, name, sharedBytes, numWarps, result->kernel, device));
  result->argKinds = argKinds;
  result->argNames = std::move(argNames);
  return result;
}

/// Binds DiskCache: lookup returns ("hit"|"miss"|"corrupt"|"untrusted"|
/// "refused", files, fields, reason) with file contents as bytes.
void bindCache(py::module_ &m) {
  using tilelang::runtime::CacheLookup;
  using tilelang::runtime::DiskCache;
  py::class_<DiskCache>(m, "DiskCache")
      .def(py::init<std::string>(), py::arg("directory"))
      .def_static("default_directory", &DiskCache::defaultDirectory)
      .def_static("hash_key", &DiskCache::hashKey, py::arg("parts"),
                  "Hex SHA-256 of length-prefixed parts.")
      .def_property_readonly("directory", &DiskCache::getDirectory)
      .def("entry_path", &DiskCache::entryPath, py::arg("key"))
      .def(
          "lookup",
          [](const DiskCache &cache, const std::string &key,
             std::optional<std::vector<std::string>> only) {
            tilelang::runtime::CacheFiles files;
            std::string fields, reason;
            CacheLookup found;
            {
              py::gil_scoped_release release;
              found = cache.lookup(key, files, fields, reason,
                                   only ? &*only : nullptr);
            }
            py::dict contents;
            for (const auto &[name, data] : files)
              contents[py::str(name)] = py::bytes(data);
            const char *state = found == CacheLookup::Hit         ? "hit"
                                : found == CacheLookup::Miss      ? "miss"
                                : found == CacheLookup::Corrupt   ? "corrupt"
                                : found == CacheLookup::Untrusted ? "untrusted"
                                                                  : "refused";
            return py::make_tuple(state, contents, fields, reason);
          },
          py::arg("key"), py::arg("only") = py::none(),
          "only: the names of the files to read (default: all of them).")
      .def(
          "publish",
          [](const DiskCache &cache, const std::string &key, py::dict files,
             const std::string &fields, bool replace) {
            tilelang::runtime::CacheFiles contents;
            for (auto item : files)
              contents[item.first.cast<std::string>()] =
                  item.second.cast<std::string>();
            tilelang::runtime::Status status;
            {
              py::gil_scoped_release release;
              status = cache.publish(key, contents, fields, replace);
            }
            throwIfFailed(status);
          },
          py::arg("key"), py::arg("files"), py::arg("fields") = "",
          py::arg("replace") = false)
      .def("discard", &DiskCache::discard, py::arg("key"),
           py::call_guard<py::gil_scoped_release>(),
           "Remove entry `key` (one found unusable).")
      .def("sweep", &DiskCache::sweep,
           py::arg("max_age_seconds") = DiskCache::kStaleSeconds,
           py::call_guard<py::gil_scoped_release>(),
           "Remove staging and discarded directories older than "
           "max_age_seconds; returns how many.")
      .def_property_readonly_static(
          "stale_seconds", [](py::object) { return DiskCache::kStaleSeconds; });
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
      .def_property_readonly("tensor_maps",
                             [](const tilelang::CompileResult &result) {
                               return tensorMapsToPython(result.tensorMaps);
                             })
      .def_readonly("diagnostics", &tilelang::CompileResult::diagnostics);

  // The defaults of compile's options are CompileOptions' own, here and in
  // Python (tilelang.options.CompileOptions reads compile_defaults).
  const tilelang::CompileOptions kDefaults;
  m.def(
      "compile",
      [](const std::string &source, const std::string &arch,
         unsigned numWarps, unsigned numStages, const std::string &sourceName,
         bool keepStages, unsigned maxRegisters) {
        tilelang::CompileOptions options;
        options.arch = arch;
        options.numWarps = numWarps;
        options.numStages = numStages;
        options.maxRegisters = maxRegisters;
        options.sourceName = sourceName;
        options.keepStages = keepStages;
        py::gil_scoped_release release;
        return tilelang::compile(source, options);
      },
      py::arg("source"), py::arg("arch") = kDefaults.arch,
      py::arg("num_warps") = kDefaults.numWarps,
      py::arg("num_stages") = kDefaults.numStages,
      py::arg("source_name") = kDefaults.sourceName,
      py::arg("keep_stages") = kDefaults.keepStages,
      py::arg("max_registers") = kDefaults.maxRegisters,
      "Compile one tile-IR kernel to PTX (max_registers: PTX .maxnreg, 0 "
      "for none).");

  // The launch options' limits, for Python to check the options where a
  // user gives them (python/tilelang/options.py).
  py::dict limits;
  limits["max_warps"] = tilelang::CompileOptions::kMaxWarps;
  limits["min_maxnreg"] = tilelang::CompileOptions::kMinMaxRegisters;
  limits["max_maxnreg"] = tilelang::CompileOptions::kMaxMaxRegisters;
  limits["max_stages"] =
      std::numeric_limits<decltype(tilelang::CompileOptions::numStages)>::max();
  m.attr("launch_option_limits") = limits;
  py::dict defaults;
  defaults["arch"] = kDefaults.arch;
  defaults["num_warps"] = kDefaults.numWarps;
  defaults["num_stages"] = kDefaults.numStages;
  defaults["max_registers"] = kDefaults.maxRegisters;
  m.attr("compile_defaults") = defaults;

  py::class_<tilelang::WrittenArguments>(m, "WrittenArguments")
      .def_readonly("success", &tilelang::WrittenArguments::success)
      .def_readonly("may_write", &tilelang::WrittenArguments::mayWrite)
      .def_readonly("diagnostics", &tilelang::WrittenArguments::diagnostics);

  m.def(
      "find_written_arguments",
      [](const std::string &source, const std::string &sourceName) {
        py::gil_scoped_release release;
        return tilelang::findWrittenArguments(source, sourceName);
      },
      py::arg("source"), py::arg("source_name") = "<tile-ir>",
      "Per argument of the kernel in tile IR `source`, whether it may write "
      "memory through it.");

  py::class_<LaunchableKernel>(m, "Kernel")
      .def_static(
          "load",
          [](const std::string &ptx, const std::string &name,
             long long sharedBytes, unsigned numWarps,
             const std::string &argKinds, py::handle tensorMaps, int device,
             std::vector<std::string> argNames) {
            return loadKernel(ptx, name, sharedBytes, numWarps, argKinds,
                              /*link=*/true, tensorMaps, device,
                              std::move(argNames));
          },
          py::arg("ptx"), py::arg("name"), py::arg("shared_bytes"),
          py::arg("num_warps"), py::arg("arg_kinds"),
          py::arg("tensor_maps") = py::none(), py::arg("device") = -1,
          py::arg("arg_names") = std::vector<std::string>(),
          "Link PTX, load it into device `device`'s primary context (-1: the "
          "current device) and find the kernel; launches on other devices "
          "load it there too.")
      .def_static(
          "load_image",
          [](py::bytes image, const std::string &name, long long sharedBytes,
             unsigned numWarps, const std::string &argKinds,
             py::handle tensorMaps, int device,
             std::vector<std::string> argNames) {
            return loadKernel(std::string(image), name, sharedBytes, numWarps,
                              argKinds, /*link=*/false, tensorMaps, device,
                              std::move(argNames));
          },
          py::arg("image"), py::arg("name"), py::arg("shared_bytes"),
          py::arg("num_warps"), py::arg("arg_kinds"),
          py::arg("tensor_maps") = py::none(), py::arg("device") = -1,
          py::arg("arg_names") = std::vector<std::string>(),
          "Load a cubin into device `device`'s primary context (-1: the "
          "current device) and find the kernel; launches on other devices "
          "load it there too.")
      .def("launch", &launchKernel, py::arg("grid"), py::arg("stream"),
           "launch(grid, stream, *args): grid is an int or a 1- to 3-tuple; "
           "the launch runs on the device of the pointer arguments, on "
           "`stream` (None: torch's current stream of that device).")
      .def(
          "time_launches",
          [](const LaunchableKernel &self, py::handle grid,
             std::uintptr_t stream, size_t launches, const py::args &args,
             const py::kwargs &kwargs) {
            std::vector<py::handle> handles(args.begin(), args.end());
            bool releaseEach =
                kwargs.contains("release_gil_each") &&
                py::bool_(kwargs["release_gil_each"]);
            return tilelang::python::timeLaunches(
                self, grid, stream, handles.data(), handles.size(), launches,
                releaseEach);
          },
          py::arg("grid"), py::arg("stream"), py::arg("launches"),
          "time_launches(grid, stream, launches, *args, release_gil_each="
          "False): seconds for `launches` back-to-back cuLaunchKernel calls "
          "from C++ (args packed once): the floor under kernel[grid](...)'s "
          "cost.")
      .def(
          "pack_parameters",
          [](const LaunchableKernel &self, py::handle grid,
             const py::args &args) {
            std::vector<py::handle> handles(args.begin(), args.end());
            tilelang::python::PackedLaunch packed;
            tilelang::python::packLaunch(self, grid, handles.data(),
                                         handles.size(), nullptr, {}, packed);
            // Slots of 8 bytes, one per argument, are what a caller can
            // fill in again; a tensor map is encoded per tensor.
            if (packed.tensorMapCount)
              throw py::value_error("pack_parameters: kernel '" +
                                    self.kernel->getName() +
                                    "' takes tensor descriptors");
            return py::make_tuple(
                py::make_tuple(packed.dims[0], packed.dims[1], packed.dims[2]),
                py::bytes(reinterpret_cast<const char *>(packed.storage),
                          packed.paramCount * sizeof(std::uint64_t)));
          },
          py::arg("grid"),
          "pack_parameters(grid, *args) -> (dims, bytes): the grid and the "
          "8-byte parameter slots (one per argument) a launch with these "
          "arguments passes to the driver, for C++ callers that launch "
          "through tilelang._C.launch_api with some slots filled in again "
          "(tilelang._C_torch's autograd nodes).")
      .def_property_readonly("name",
                             [](const LaunchableKernel &k) {
                               return k.kernel->getName();
                             })
      .def_property_readonly("registers",
                             [](const LaunchableKernel &k) {
                               return k.kernel->getRegisters();
                             })
      .def_property_readonly("local_bytes",
                             [](const LaunchableKernel &k) {
                               return k.kernel->getLocalBytes();
                             })
      .def_property_readonly(
          "devices",
          [](const LaunchableKernel &k) {
            std::vector<int> devices{k.kernel->getDevice()};
            for (size_t d = 0; d < k.otherDevices.size(); ++d)
              if (k.otherDevices[d])
                devices.push_back(int(d));
            std::sort(devices.begin(), devices.end());
            return devices;
          },
          "The devices the kernel is loaded on (one module each).");

  py::class_<Dispatcher>(m, "Dispatcher")
      .def(py::init<std::vector<std::string>, std::vector<std::string>,
                    py::tuple, py::object>(),
           py::arg("params"), py::arg("constexprs"), py::arg("identity_types"),
           py::arg("slow_path"))
      .def("launch", &Dispatcher::launch,
           "launch(grid, *args, **kwargs): the fast path of kernel[grid]().")
      .def("insert", &Dispatcher::insert, py::arg("key"), py::arg("kernel"),
           py::arg("sources"), py::arg("compiled"), py::arg("constexprs"))
      .def("__len__", &Dispatcher::size)
      .def("clear", &Dispatcher::clear);

  m.def(
      "link_ptx",
      [](const std::string &ptx, const std::string &name) {
        std::string cubin;
        tilelang::runtime::Status status;
        {
          py::gil_scoped_release release;
          status = tilelang::runtime::linkPTX(ptx, name, cubin, {});
        }
        throwIfFailed(status);
        return py::bytes(cubin);
      },
      py::arg("ptx"), py::arg("name"),
      "Link PTX into a cubin for the current device (driver JIT).");
  m.def(
      "link_kernel",
      [](const std::string &ptx, const std::string &name, bool searchOccupancy,
         long long sharedBytes, int device, bool wholeProgram,
         const std::string &ptxas) {
        std::string cubin;
        tilelang::runtime::LinkReport report;
        tilelang::runtime::LinkOptions options;
        options.searchOccupancy = searchOccupancy;
        options.sharedBytes = sharedBytes;
        options.device = device;
        options.wholeProgram = wholeProgram;
        options.ptxas = ptxas;
        tilelang::runtime::Status status;
        {
          py::gil_scoped_release release;
          status =
              tilelang::runtime::linkPTX(ptx, name, cubin, options, &report);
        }
        throwIfFailed(status);
        py::dict info;
        info["min_blocks_per_sm"] = report.minBlocksPerSM;
        info["links"] = report.links;
        if (report.wholeProgram >= 0)
          info["whole_program"] = report.wholeProgram;
        if (!report.wholeProgramProblem.empty()) {
          info["whole_program_problem"] = report.wholeProgramProblem;
          info["whole_program_may_pass"] = report.wholeProgramMayPass;
        }
        return py::make_tuple(py::bytes(cubin), info);
      },
      py::arg("ptx"), py::arg("name"), py::arg("search_occupancy") = true,
      py::arg("shared_bytes") = 0, py::arg("device") = -1,
      py::arg("whole_program") = false, py::arg("ptxas") = "",
      "link_kernel(ptx, name, search_occupancy=True, shared_bytes=0, "
      "device=-1, whole_program=False, ptxas='') -> (cubin, info): link_ptx "
      "on device `device` (-1: the current one) with the occupancy search "
      "(see docs/runtime.md; whole_program: its whole-program step, with "
      "ptxas, or the one find_ptxas() names where empty) for a kernel "
      "taking shared_bytes of dynamic shared memory; info has "
      "min_blocks_per_sm (the .minnctapersm compiled for, 0 if none), links "
      "(compilations it took) and, with whole_program, whole_program (1 "
      "where the cubin is ptxas's whole-program compile without the "
      "directive, else 0), and where the step could not run "
      "whole_program_problem (why) and whole_program_may_pass (whether "
      "another try may do better: then the cubin is not to be cached).");
  m.def("current_stream", &tilelang::python::currentStream,
        py::arg("device") = -1,
        "torch's current CUDA stream on `device` (-1: torch's current "
        "device; a raw handle), or 0 without torch.");
  m.def("torch_bridge_status", &tilelang::python::torchBridgeStatus,
        "How the launcher reads torch tensors: 'active' (in C++, through "
        "tilelang._C_torch) or why it asks Python (docs/runtime.md).");
  m.def(
      "connect_torch",
      [] { return tilelang::python::torchLink().imported; },
      "Connects the launcher to torch now where torch is imported (its "
      "stream query and tilelang._C_torch, which a launch would otherwise "
      "load first); returns whether torch is imported.");
  m.def("set_torch_bridge", &tilelang::python::setTorchBridge,
        py::arg("enabled"),
        "Turns the torch bridge on or off for this process (benchmarks "
        "time launches both ways); returns the previous setting.");
  bindCache(m);
  tilelang::python::addLaunchTypes(m);
  m.attr("launch_api") = py::reinterpret_steal<py::object>(
      tilelang::python::makeLaunchApiCapsule());

  m.def(
      "find_ptxas",
      []() -> py::object {
        std::string path = tilelang::runtime::findPtxas();
        if (path.empty())
          return py::none();
        return py::str(path);
      },
      "The ptxas binary the whole-program step would run (TILELANG_PTXAS, "
      "CUDA_HOME/bin, PATH, /usr/local/cuda/bin), or None.");
  m.def("driver_version", &tilelang::runtime::driverVersion,
        "The CUDA driver's version, 0 without a driver.");
  m.def(
      "device_info",
      [](int device) {
        tilelang::runtime::DeviceInfo info;
        throwIfFailed(device < 0
                          ? tilelang::runtime::getCurrentDevice(info)
                          : tilelang::runtime::getDevice(device, info));
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
        result["clock_khz"] = info.clockRateKHz;
        result["memory_clock_khz"] = info.memoryClockRateKHz;
        result["memory_bus_bits"] = info.memoryBusWidthBits;
        return result;
      },
      py::arg("device") = -1,
      "Properties of device `device` (-1: the current one; initializes the "
      "driver).");
  m.def(
      "device_count",
      [] {
        int count = 0;
        throwIfFailed(tilelang::runtime::deviceCount(count));
        return count;
      },
      "How many CUDA devices the driver sees (initializes the driver).");
  m.def(
      "current_device",
      [] {
        int device = 0;
        throwIfFailed(tilelang::runtime::currentDevice(device));
        return device;
      },
      "The device of the calling thread's current CUDA context (0 when "
      "none is current).");
  m.def(
      "pointer_device",
      [](std::uint64_t address) {
        int device = -1;
        throwIfFailed(tilelang::runtime::deviceOfPointer(address, device));
        return device;
      },
      py::arg("address"),
      "The device whose memory `address` is in, or -1 where the driver does "
      "not know it (0 without asking on a host with one device).");

  m.def("version", &tilelang::getVersion, "The compiler library's version.");
  m.def(
      "compiler_statistics",
      [] {
        tilelang::CompilerStatistics statistics =
            tilelang::getCompilerStatistics();
        py::dict result;
        result["compilations"] = statistics.compilations;
        result["recovered_crashes"] = statistics.recoveredCrashes;
        result["peak_concurrent"] = statistics.peakConcurrent;
        return result;
      },
      "Counters of this process's compilations: calls, recovered crashes, "
      "and the most that ran at once.");
  m.def("build_id", &tilelang::getBuildId,
        "The compiler library's GNU build ID (hex), or an empty string.");
}
