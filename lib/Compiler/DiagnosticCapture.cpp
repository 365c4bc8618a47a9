//===- DiagnosticCapture.cpp - MLIR diagnostics as API values -------------===//
//
// Part of tilelang. Maps MLIR's diagnostics and their locations (file/line/
// column, possibly wrapped in name, call-site or fused locations) onto the
// library's Diagnostic records.
//
//===----------------------------------------------------------------------===//

#include "DiagnosticCapture.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tilelang {

/// Finds the file/line/column a location points at, looking through the
/// wrappers the frontend and passes put around it. Returns null if none.
static FileLineColLoc findFileLocation(Location location) {
  return llvm::TypeSwitch<LocationAttr, FileLineColLoc>(location)
      .Case([](FileLineColLoc loc) { return loc; })
      .Case([](NameLoc loc) { return findFileLocation(loc.getChildLoc()); })
      .Case([](CallSiteLoc loc) { return findFileLocation(loc.getCallee()); })
      .Case([](OpaqueLoc loc) {
        return findFileLocation(loc.getFallbackLocation());
      })
      .Case([](FusedLoc loc) {
        for (Location inner : loc.getLocations())
          if (FileLineColLoc found = findFileLocation(inner))
            return found;
        return FileLineColLoc();
      })
      .Default([](LocationAttr) { return FileLineColLoc(); });
}

static Severity toSeverity(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return Severity::Error;
  case DiagnosticSeverity::Warning:
    return Severity::Warning;
  case DiagnosticSeverity::Note:
    return Severity::Note;
  case DiagnosticSeverity::Remark:
    return Severity::Remark;
  }
  return Severity::Error;
}

/// Converts one MLIR diagnostic (without its notes).
static Diagnostic convert(mlir::Diagnostic &diagnostic) {
  Diagnostic result;
  result.severity = toSeverity(diagnostic.getSeverity());
  result.message = diagnostic.str();
  if (FileLineColLoc loc = findFileLocation(diagnostic.getLocation())) {
    result.file = loc.getFilename().str();
    result.line = loc.getLine();
    result.column = loc.getColumn();
  }
  return result;
}

DiagnosticCapture::DiagnosticCapture(MLIRContext &context,
                                     std::vector<Diagnostic> &sink)
    : sink(sink), handler(&context, [this](mlir::Diagnostic &diagnostic) {
        record(diagnostic);
        return success();
      }) {}

void DiagnosticCapture::record(mlir::Diagnostic &diagnostic) {
  if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
    errorSeen = true;
  sink.push_back(convert(diagnostic));
  for (mlir::Diagnostic &note : diagnostic.getNotes())
    sink.push_back(convert(note));
}

std::string Diagnostic::str() const {
  static const char *const names[] = {"error", "warning", "note", "remark"};
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!file.empty()) {
    os << file;
    if (line != 0)
      os << ':' << line << ':' << column;
    os << ": ";
  }
  os << names[static_cast<int>(severity)] << ": " << message;
  return text;
}

} // namespace tilelang
