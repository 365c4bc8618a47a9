//===- TorchLink.h - what the launcher knows of torch -----------*- C++ -*-===//
//
// Part of tilelang. tilelang._C never links torch: it finds torch in
// sys.modules once `import tilelang` (where torch came first and has
// finished importing) or a launch sees it imported, asks torch's stream
// query through Python, and reads torch tensors in C++ through the optional
// tilelang._C_torch bridge (TorchBridge.h) when that was built for the
// running torch. The per-tensor read is inline: it is on the launch path
// of every tensor argument.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_TORCHLINK_H
#define TILELANG_PYTHON_TORCHLINK_H

#include "TorchBridge.h"

#include <cstdint>
#include <string>

namespace tilelang::python {

/// What the launcher knows of torch: whether it is imported, the stream
/// query, and the C++ bridge of tilelang._C_torch when that is built for
/// this torch. Used with the GIL held.
struct TorchLink {
  bool imported = false;
  bool cudaReady = false;
  PyObject *getRawStream = nullptr;
  PyObject *currentDevice = nullptr;
  const TorchBridgeApi *bridge = nullptr;
  std::string bridgeStatus = "torch is not imported";
  /// set_torch_bridge(False) turns a loaded bridge off (benchmarks).
  bool enabled = true;

  const TorchBridgeApi *activeBridge() const {
    return enabled ? bridge : nullptr;
  }
};

/// The process's one TorchLink (TorchLink.cpp); read through torchLink().
extern TorchLink theTorchLink;

/// Brings theTorchLink up to date while torch is not known to be imported:
/// one dictionary lookup per call (an interned name), and once torch is
/// imported, its stream query and the bridge, loaded once. Called through
/// torchLink() by each launch, and by `import tilelang` (_C.connect_torch)
/// where torch is imported already and not still importing (the bridge's
/// import against a half-built torch could fail, and the link is made once).
TorchLink &connectTorch();

/// The launcher's view of torch, brought up to date.
inline TorchLink &torchLink() {
  return theTorchLink.imported ? theTorchLink : connectTorch();
}

/// A torch tensor's data_ptr(), dtype and is_cuda through the bridge; false
/// when there is none or `value` is not a plain torch tensor.
inline bool readTorchTensor(PyObject *value, std::uint64_t &pointer,
                            PyObject *&dtype, bool &isCuda) {
  const TorchBridgeApi *bridge = torchLink().activeBridge();
  return bridge && bridge->readTensor(value, &pointer, &dtype, &isCuda);
}

/// The stream to launch on: torch's current stream when torch is loaded
/// (on `device`, -1 for torch's current device), else the default stream.
std::uintptr_t currentStream(int device = -1);

/// Whether the launcher reads torch tensors and streams through
/// tilelang._C_torch: "active", or why not ("torch is not imported", the
/// import error, a torch version mismatch, TILELANG_TORCH_BRIDGE=0).
std::string torchBridgeStatus();

/// Turns a loaded bridge on or off for this process (to time launches
/// both ways in one process); returns the previous setting.
bool setTorchBridge(bool enabled);

} // namespace tilelang::python

#endif // TILELANG_PYTHON_TORCHLINK_H
