//===- tilelang-compile.cpp - tile IR to PTX ------------------------------===//
//
// Part of tilelang. Compiles a tile-IR kernel to PTX through libtilelang's
// public API (the same path the Python package takes), optionally dumping
// every stage's IR and a resource report from ptxas when it is installed.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"
#include "tilelang/Runtime/Occupancy.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr const char *kUsage = R"(usage: tilelang-compile [options] <input.mlir | ->

Compiles one tile-IR kernel to PTX.

options:
  -o <file>            write the PTX to <file> (default: standard output)
  --arch=<sm_XX>       target GPU: sm_80, sm_86, sm_89, sm_90, sm_90a (default sm_90a)
  --num-warps=<n>      warps per CTA, a power of two up to 32 (default 4)
  --num-stages=<n>     software-pipelining depth (default 3)
  --maxnreg=<n>        registers a thread may use at most, 16 to 255 (PTX
                       .maxnreg; default: ptxas decides)
  --dump-ir[=<dir>]    print the IR after every stage to standard error, or
                       write <dir>/<stage>.mlir (and llvm-ir.ll)
  --report             print kernel metadata and, if ptxas is found
                       ($TILELANG_PTXAS, PATH, /usr/local/cuda/bin), its
                       register, spill and shared-memory report, and for
                       kernels without tensor-core products the blocks per
                       SM the runtime's occupancy search would link for
  --version            print the compiler version
  -h, --help           print this help
)";

struct Arguments {
  std::string input, output, dumpDir;
  bool dump = false, report = false;
  tilelang::CompileOptions options;
};

[[noreturn]] void usageError(const std::string &message) {
  std::cerr << "tilelang-compile: error: " << message << "\n"
            << "(run tilelang-compile --help for usage)\n";
  std::exit(2);
}

unsigned parseCount(const std::string &flag, const std::string &text) {
  char *end = nullptr;
  unsigned long value = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value > 1024)
    usageError(flag + " expects a small non-negative integer, got '" + text +
               "'");
  return static_cast<unsigned>(value);
}

Arguments parseArguments(int argc, char **argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string &prefix) -> std::string {
      return arg.substr(prefix.size());
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--version") {
      std::cout << "tilelang-compile " << tilelang::getVersion() << "\n";
      std::exit(0);
    } else if (arg == "-o") {
      if (++i >= argc)
        usageError("-o needs a file name");
      args.output = argv[i];
    } else if (arg.rfind("--arch=", 0) == 0) {
      args.options.arch = value("--arch=");
    } else if (arg.rfind("--num-warps=", 0) == 0) {
      args.options.numWarps = parseCount("--num-warps", value("--num-warps="));
    } else if (arg.rfind("--maxnreg=", 0) == 0) {
      args.options.maxRegisters = parseCount("--maxnreg", value("--maxnreg="));
      using Limits = tilelang::CompileOptions;
      if (args.options.maxRegisters < Limits::kMinMaxRegisters ||
          args.options.maxRegisters > Limits::kMaxMaxRegisters)
        usageError("--maxnreg expects " +
                   std::to_string(Limits::kMinMaxRegisters) + " to " +
                   std::to_string(Limits::kMaxMaxRegisters) +
                   " registers a thread, got '" + value("--maxnreg=") + "'");
    } else if (arg.rfind("--num-stages=", 0) == 0) {
      args.options.numStages =
          parseCount("--num-stages", value("--num-stages="));
    } else if (arg == "--dump-ir") {
      args.dump = true;
    } else if (arg.rfind("--dump-ir=", 0) == 0) {
      args.dump = true;
      args.dumpDir = value("--dump-ir=");
    } else if (arg == "--report") {
      args.report = true;
    } else if (arg != "-" && arg.rfind('-', 0) == 0) {
      usageError("unknown option '" + arg + "'");
    } else if (!args.input.empty()) {
      usageError("more than one input file");
    } else {
      args.input = arg;
    }
  }
  if (args.input.empty())
    usageError("no input file");
  return args;
}

std::string readInput(const std::string &path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    std::cerr << "tilelang-compile: error: cannot read '" << path
              << "': not a readable file\n";
    std::exit(1);
  }
  std::ifstream file(path);
  if (!file) {
    std::cerr << "tilelang-compile: error: cannot read '" << path << "'\n";
    std::exit(1);
  }
  text << file.rdbuf();
  return text.str();
}

/// Prints a diagnostic with the source line and a caret when available.
void printDiagnostic(const tilelang::Diagnostic &diagnostic,
                     const std::string &sourceName,
                     const std::string &source) {
  std::cerr << diagnostic.str() << "\n";
  if (diagnostic.file != sourceName || diagnostic.line == 0)
    return;
  std::istringstream lines(source);
  std::string line;
  for (unsigned number = 1; std::getline(lines, line); ++number) {
    if (number != diagnostic.line)
      continue;
    std::cerr << "    " << line << "\n    ";
    for (unsigned column = 1; column < diagnostic.column && column <= line.size();
         ++column)
      std::cerr << (line[column - 1] == '\t' ? '\t' : ' ');
    std::cerr << "^\n";
    return;
  }
}

/// mkdir -p.
bool makeDirectories(const std::string &path) {
  for (size_t slash = path.find('/', 1); ; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
    if (slash == std::string::npos)
      break;
  }
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string findPtxas() {
  if (const char *explicitPath = std::getenv("TILELANG_PTXAS"))
    return explicitPath;
  if (const char *path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && access((dir + "/ptxas").c_str(), X_OK) == 0)
        return dir + "/ptxas";
  }
  if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0)
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

/// Runs `ptxas -v` on `ptx` for `arch`; its output in `output`, and
/// whether it accepted the PTX (`status`: its exit status, or -1).
bool runPtxas(const std::string &ptxas, const std::string &ptx,
              const std::string &arch, std::string &output, int &status) {
  char ptxPath[] = "/tmp/tilelang-XXXXXX";
  int fd = mkstemp(ptxPath);
  if (fd < 0) {
    output = "cannot create a temporary file\n";
    status = -1;
    return false;
  }
  FILE *file = fdopen(fd, "w");
  std::fwrite(ptx.data(), 1, ptx.size(), file);
  std::fclose(file);
  std::string command = "'" + ptxas + "' -arch=" + arch + " -v -o /dev/null " +
                        ptxPath + " 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  output.clear();
  std::array<char, 512> buffer;
  while (pipe && std::fgets(buffer.data(), buffer.size(), pipe))
    output += buffer.data();
  status = pipe ? pclose(pipe) : -1;
  unlink(ptxPath);
  return status == 0;
}

/// The number before `unit` in ptxas's report ("Used 64 registers", "32
/// bytes stack frame") for kernel `name`, or -1. ptxas reports every
/// function; the kernel's own lines follow "Function properties for NAME".
long numberBefore(const std::string &report, const std::string &name,
                  const std::string &unit) {
  size_t section = report.find("Function properties for " + name + "\n");
  if (section == std::string::npos)
    return -1;
  size_t at = report.find(unit, section);
  if (at == std::string::npos || at < 2)
    return -1;
  size_t end = report.find_last_not_of(' ', at - 1);
  size_t begin = report.find_last_not_of("0123456789", end);
  if (end == std::string::npos || begin == end)
    return -1;
  return std::strtol(report.c_str() + begin + 1, nullptr, 10);
}

/// The runtime's occupancy search (docs/runtime.md), with ptxas standing in
/// for the driver's JIT and the SM of `result.arch` for the device: what a
/// kernel whose PTX asks for a minimum of blocks per SM would be linked for.
void reportOccupancySearch(const std::string &ptxas,
                           const tilelang::CompileResult &result) {
  using namespace tilelang::runtime;
  EntryDirectives directives =
      readEntryDirectives(result.ptx, result.kernelName);
  if (directives.minBlocksPerSM == 0)
    return;
  SMLimits limits = smLimitsOfArch(result.arch);
  int top = residentBlockLimit(limits, directives.threadsPerBlock,
                               result.sharedBytes);
  int base = directives.minBlocksPerSM;
  auto blocksText = [](int count) {
    return std::to_string(count) + (count == 1 ? " block" : " blocks");
  };
  std::cerr << "occupancy search (the runtime's, with ptxas standing in for "
            << "the driver's JIT, whose choice may differ; the PTX asks for "
            << blocksText(base) << " per SM, an " << result.arch
            << " SM holds " << top << " of " << directives.threadsPerBlock
            << " threads):\n";
  int baseRegisters = 0;
  int kept = searchMinBlocksPerSM(
      base, top, limits, directives.threadsPerBlock, [&](int blocks) {
        OccupancyTrial trial;
        std::string output;
        int status = 0;
        if (!runPtxas(ptxas,
                      blocks == base
                          ? result.ptx
                          : withMinBlocksPerSM(result.ptx, directives, blocks),
                      result.arch, output, status)) {
          std::cerr << "  " << blocksText(blocks) << ": ptxas failed\n";
          return trial;
        }
        long local =
            numberBefore(output, result.kernelName, " bytes stack frame");
        trial.registers =
            int(numberBefore(output, result.kernelName, " registers"));
        if (blocks == base)
          baseRegisters = trial.registers;
        std::cerr << "  " << blocksText(blocks) << ": " << trial.registers
                  << " registers, " << local << " bytes of local memory\n";
        trial.outcome = local == 0 ? OccupancyTrial::Fits
                        : local > 0 ? OccupancyTrial::Spills
                                    : OccupancyTrial::Failed;
        return trial;
      });
  std::cerr << "  kept: " << blocksText(kept) << " per SM";
  if (kept == base && baseRegisters > 0)
    std::cerr << " (as the PTX asks; its " << baseRegisters
              << " registers allow "
              << std::min(top, blocksWithRegisters(limits,
                                                   directives.threadsPerBlock,
                                                   baseRegisters))
              << ")";
  std::cerr << "\n";
}

/// Runs ptxas on the PTX and prints its resource report, then the
/// occupancy search's choice.
void reportResources(const tilelang::CompileResult &result) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    std::cerr << "resources: ptxas not found; no register/spill report\n";
    return;
  }
  std::string output;
  int status = 0;
  bool accepted = runPtxas(ptxas, result.ptx, result.arch, output, status);
  std::cerr << "resources (" << ptxas << "):\n" << output;
  if (!accepted) {
    std::cerr << "resources: ptxas rejected the PTX (exit status "
              << (status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status)
                                                   : status)
              << ")\n";
    return;
  }
  reportOccupancySearch(ptxas, result);
}

} // namespace

int main(int argc, char **argv) {
  Arguments args = parseArguments(argc, argv);
  std::string source = readInput(args.input);
  args.options.sourceName = args.input == "-" ? "<stdin>" : args.input;
  args.options.keepStages = args.dump;

  auto start = std::chrono::steady_clock::now();
  tilelang::CompileResult result = tilelang::compile(source, args.options);
  double milliseconds = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  for (const tilelang::Diagnostic &diagnostic : result.diagnostics)
    printDiagnostic(diagnostic, args.options.sourceName, source);

  for (const tilelang::Stage &stage : result.stages) {
    if (args.dumpDir.empty()) {
      std::cerr << "// ----- IR after stage '" << stage.name << "' -----\n"
                << stage.ir;
      continue;
    }
    if (!makeDirectories(args.dumpDir)) {
      std::cerr << "tilelang-compile: error: cannot create directory '"
                << args.dumpDir << "'\n";
      return 1;
    }
    std::string path = args.dumpDir + "/" + stage.name +
                       (stage.name == "llvm-ir" ? ".ll" : ".mlir");
    std::ofstream out(path);
    if (!(out << stage.ir)) {
      std::cerr << "tilelang-compile: error: cannot write '" << path << "'\n";
      return 1;
    }
  }
  if (!result.success)
    return 1;

  if (args.output.empty()) {
    std::cout << result.ptx;
  } else {
    std::ofstream out(args.output);
    if (!(out << result.ptx)) {
      std::cerr << "tilelang-compile: error: cannot write '" << args.output
                << "'\n";
      return 1;
    }
  }
  if (args.report) {
    std::cerr << "kernel " << result.kernelName << ": " << result.arch << ", "
              << result.numWarps << " warps, " << result.sharedBytes
              << " bytes of shared memory, compiled in " << milliseconds
              << " ms\n";
    reportResources(result);
  }
  return 0;
}
