//===- tilelang-compile.cpp - tile IR to PTX ------------------------------===//
//
// Part of tilelang. Compiles a tile-IR kernel to PTX through libtilelang's
// public API (the same path the Python package takes), optionally dumping
// every stage's IR and a resource report from ptxas when it is installed.
// The command line is parsed by llvm::cl (LLVMSupport, linked statically
// into the tool; libtilelang keeps its own LLVM to itself).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"
#include "tilelang/Runtime/Occupancy.h"
#include "tilelang/Runtime/Ptxas.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace cl = llvm::cl;

// The options, on llvm::cl: `--arch sm_80` and `--arch=sm_80` alike, and
// --help generated from the descriptions.
cl::OptionCategory toolOptions("tilelang-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir | ->"),
                               cl::cat(toolOptions));
cl::opt<std::string>
    outputFile("o", cl::value_desc("file"), cl::cat(toolOptions),
               cl::desc("write the PTX to <file> (default: standard output)"));
cl::opt<std::string>
    archOption("arch", cl::value_desc("sm_XX"), cl::init("sm_90a"),
               cl::cat(toolOptions),
               cl::desc("target GPU: sm_80, sm_86, sm_89, sm_90, sm_90a "
                        "(default sm_90a)"));
// The help names the defaults defined once (tilelang/Support/LaunchDefaults.h);
// cl::desc keeps a reference, so the texts live as long as the options.
const std::string numWarpsHelp =
    "warps per CTA, a power of two up to 32 (default " +
    std::to_string(tilelang::kDefaultNumWarps) + ")";
const std::string numStagesHelp = "software-pipelining depth (default " +
                                  std::to_string(tilelang::kDefaultNumStages) +
                                  ")";
cl::opt<unsigned> numWarpsOption("num-warps", cl::value_desc("n"),
                                 cl::init(tilelang::kDefaultNumWarps),
                                 cl::cat(toolOptions), cl::desc(numWarpsHelp));
cl::opt<unsigned> numStagesOption("num-stages", cl::value_desc("n"),
                                  cl::init(tilelang::kDefaultNumStages),
                                  cl::cat(toolOptions),
                                  cl::desc(numStagesHelp));
cl::opt<unsigned> maxnregOption(
    "maxnreg", cl::value_desc("n"), cl::init(0), cl::cat(toolOptions),
    cl::desc("registers a thread may use at most, 16 to 255 (PTX .maxnreg; "
             "default: ptxas decides)"));
cl::opt<std::string> dumpIrOption(
    "dump-ir", cl::ValueOptional, cl::value_desc("dir"), cl::cat(toolOptions),
    cl::desc("print the IR after every stage to standard error, or with "
             "=<dir> write <dir>/<stage>.mlir (and llvm-ir.ll)"));
cl::opt<bool> reportOption(
    "report", cl::cat(toolOptions),
    cl::desc("print kernel metadata and, if ptxas is found ($TILELANG_PTXAS, "
             "$CUDA_HOME/bin, PATH, /usr/local/cuda/bin), its register, "
             "spill and shared-memory report, and for kernels without "
             "tensor-core products the blocks per SM the runtime's "
             "occupancy search would link for and what its whole-program "
             "step would do"));

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

/// llvm::cl's message for a bad command line, as one usage error: its
/// "<program>: " prefix and "Try: ..." advice dropped, the first letter
/// lowered. An option's bad value llvm::cl reports itself, on standard
/// error ("for the --num-warps option: ..."): `message` is then empty and
/// only the advice follows.
[[noreturn]] void commandLineError(std::string message) {
  if (message.empty()) {
    std::cerr << "(run tilelang-compile --help for usage)\n";
    std::exit(2);
  }
  std::string first = message.substr(0, message.find('\n'));
  size_t colon = first.find(": ");
  if (colon != std::string::npos && first.compare(0, colon, "tilelang-compile") == 0)
    first = first.substr(colon + 2);
  size_t advice = first.find("  Try: ");
  if (advice != std::string::npos)
    first = first.substr(0, advice);
  while (!first.empty() && (first.back() == '.' || first.back() == ' ' ||
                            first.back() == '!'))
    first.pop_back();
  if (!first.empty() && first[0] >= 'A' && first[0] <= 'Z' &&
      !(first.size() > 1 && first[1] >= 'A' && first[1] <= 'Z'))
    first[0] = char(first[0] - 'A' + 'a');
  usageError(first.empty() ? "invalid command line" : first);
}

/// A count given on the command line, checked against `limit`.
unsigned checkedCount(const cl::opt<unsigned> &option, unsigned limit) {
  if (option > limit)
    usageError("--" + option.ArgStr.str() + " expects at most " +
               std::to_string(limit) + ", got " + std::to_string(option));
  return option;
}

Arguments parseArguments(int argc, char **argv) {
  cl::HideUnrelatedOptions(toolOptions);
  cl::SetVersionPrinter([](llvm::raw_ostream &out) {
    out << "tilelang-compile " << tilelang::getVersion() << "\n";
  });
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "Compiles one tile-IR kernel to PTX.\n",
                                   &errorStream))
    commandLineError(errorStream.str());
  Arguments args;
  if (inputFile.empty())
    usageError("no input file");
  args.input = inputFile;
  args.output = outputFile;
  args.options.arch = archOption;
  args.options.numWarps = checkedCount(numWarpsOption, 1024);
  args.options.numStages = checkedCount(numStagesOption, 1024);
  if (maxnregOption.getNumOccurrences()) {
    using Limits = tilelang::CompileOptions;
    if (maxnregOption < Limits::kMinMaxRegisters ||
        maxnregOption > Limits::kMaxMaxRegisters)
      usageError("--maxnreg expects " +
                 std::to_string(Limits::kMinMaxRegisters) + " to " +
                 std::to_string(Limits::kMaxMaxRegisters) +
                 " registers a thread, got '" + std::to_string(maxnregOption) +
                 "'");
    args.options.maxRegisters = maxnregOption;
  }
  args.dump = dumpIrOption.getNumOccurrences() > 0;
  args.dumpDir = dumpIrOption;
  args.report = reportOption;
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

/// Runs `ptxas -v` on `ptx` for `arch` as the runtime's whole-program step
/// does (Ptxas.h: no shell, a private directory, a time limit); its report
/// in `output`, and whether it accepted the PTX.
bool runPtxas(const std::string &ptxas, const std::string &ptx,
              const std::string &arch, std::string &output) {
  std::string cubin;
  bool accepted = tilelang::runtime::compileWithPtxas(
      ptxas, ptx, arch, /*verbose=*/true, cubin, output);
  // Printed as lines (a failure's reason has no newline of its own).
  if (!output.empty() && output.back() != '\n')
    output += '\n';
  return accepted;
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

/// What the search's whole-program step (on unless TILELANG_WHOLE_PROGRAM=0)
/// would do after keeping `kept` blocks per SM with the resources of
/// `linked`: compile the PTX without `.minnctapersm` as a whole program and
/// keep that where it keeps as many blocks (Occupancy.h, keepWholeProgram).
void reportWholeProgram(const std::string &ptxas,
                        const tilelang::CompileResult &result,
                        const tilelang::runtime::EntryDirectives &directives,
                        const tilelang::runtime::SMLimits &limits, int top,
                        int kept,
                        const tilelang::runtime::OccupancyTrial &linked) {
  using namespace tilelang::runtime;
  std::cerr << "  whole program: ";
  if (!tryWholeProgram(limits, top, directives.threadsPerBlock, kept, linked)) {
    std::cerr << "not tried (only where a floor that fits keeps at most 3 "
                 "blocks of 8 warps)\n";
    return;
  }
  if (!linksNothing(result.ptx)) {
    std::cerr << "not tried (the PTX declares external functions)\n";
    return;
  }
  std::string output;
  if (!runPtxas(ptxas, withoutMinBlocksPerSM(result.ptx, directives),
                result.arch, output)) {
    std::cerr << "ptxas failed; the linked cubin stays\n";
    return;
  }
  OccupancyTrial unbound;
  long local = numberBefore(output, result.kernelName, " bytes stack frame");
  unbound.registers =
      int(numberBefore(output, result.kernelName, " registers"));
  unbound.outcome = local == 0  ? OccupancyTrial::Fits
                    : local > 0 ? OccupancyTrial::Spills
                                : OccupancyTrial::Failed;
  unbound.localBytes = local;
  bool keep = keepWholeProgram(limits, top, directives.threadsPerBlock, kept,
                               linked, unbound);
  std::cerr << "without .minnctapersm, " << unbound.registers << " registers, "
            << local << " bytes of local memory, "
            << residentBlocks(limits, top, directives.threadsPerBlock, unbound)
            << " blocks per SM where the linked cubin keeps "
            << residentBlocks(limits, top, directives.threadsPerBlock, linked)
            << ": "
            << (keep ? "the runtime would use it"
                     : "the runtime would keep the linked cubin")
            << "\n";
}

/// The runtime's occupancy search (docs/runtime.md), with ptxas standing in
/// for the driver's JIT and the SM of `result.arch` for the device: what a
/// kernel would be linked for (unless it caps its registers).
void reportOccupancySearch(const std::string &ptxas,
                           const tilelang::CompileResult &result) {
  using namespace tilelang::runtime;
  EntryDirectives directives =
      readEntryDirectives(result.ptx, result.kernelName);
  if (directives.capsRegisters || directives.threadsPerBlock == 0)
    return;
  SMLimits limits = smLimitsOfArch(result.arch);
  int top = residentBlockLimit(limits, directives.threadsPerBlock,
                               result.sharedBytes);
  int base = directives.minBlocksPerSM;
  // A count of 0 is the PTX as written, which asks for none.
  auto blocksText = [](int count) {
    if (count == 0)
      return std::string("as written");
    return std::to_string(count) + (count == 1 ? " block" : " blocks");
  };
  std::cerr << "occupancy search (the runtime's, with ptxas standing in for "
            << "the driver's JIT, whose choice may differ; the PTX asks for "
            << (base ? blocksText(base) + " per SM" : std::string("nothing"))
            << ", an " << result.arch
            << " SM holds " << top << " of " << directives.threadsPerBlock
            << " threads):\n";
  int baseRegisters = 0;
  std::map<int, OccupancyTrial> trials;
  int kept = searchMinBlocksPerSM(
      base, top, limits, directives.threadsPerBlock, [&](int blocks) {
        OccupancyTrial trial;
        std::string output;
        if (!runPtxas(ptxas,
                      blocks == base
                          ? result.ptx
                          : withMinBlocksPerSM(result.ptx, directives, blocks),
                      result.arch, output)) {
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
        trial.localBytes = local;
        trials[blocks] = trial;
        return trial;
      });
  std::cerr << "  kept: " << blocksText(kept) << (kept ? " per SM" : "");
  if (kept == base && baseRegisters > 0)
    std::cerr << (base ? " (as the PTX asks; its " : " (its ") << baseRegisters
              << " registers allow "
              << std::min(top, blocksWithRegisters(limits,
                                                   directives.threadsPerBlock,
                                                   baseRegisters))
              << ")";
  std::cerr << "\n";
  reportWholeProgram(ptxas, result, directives, limits, top, kept,
                     trials[kept]);
}

/// Runs ptxas on the PTX and prints its resource report, then the
/// occupancy search's choice.
void reportResources(const tilelang::CompileResult &result) {
  std::string ptxas = tilelang::runtime::findPtxas();
  if (ptxas.empty()) {
    std::cerr << "resources: ptxas not found; no register/spill report\n";
    return;
  }
  std::string output;
  bool accepted = runPtxas(ptxas, result.ptx, result.arch, output);
  std::cerr << "resources (" << ptxas << "):\n" << output;
  if (!accepted) {
    std::cerr << "resources: ptxas rejected the PTX\n";
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
