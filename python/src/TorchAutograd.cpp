//===- TorchAutograd.cpp - C++ autograd nodes for tilelang.ops ------------===//
//
// Part of tilelang, built into tilelang._C_torch (against torch's headers).
// A BackwardPlan is a backward of tilelang.ops resolved once per shape and
// set of flags (tilelang/ops/_autograd.py builds it): the loaded kernels it
// launches, each with its parameter slots packed except the tensors', where
// each tensor comes from (the incoming gradient, a saved tensor, a buffer
// the backward allocates, a constant of the plan), the buffers' shapes and
// dtypes, and which buffer is the gradient of which forward input.
// `record` attaches a node to a forward's output that holds the plan and
// the saved tensors; the autograd engine runs its backward in C++: it
// allocates the buffers with at::empty and launches the kernels through
// tilelang._C's LaunchApi on torch's current stream, with no Python.
// A ForwardPlan is the forward of such a key resolved the same way (its
// launches in a BackwardPlan's form, with x in the gradient's place and
// the call's eps at a slot of its own) beside its BackwardPlan: `forward`
// allocates the output and the statistics, launches the forward and
// records the node in one call. A ForwardTable keeps an operator's
// ForwardPlans by the call's key, and `eager_forward` (a plain CPython
// fast-call function) takes an eager call from the operator's public
// function to its plan with the checks the Python path makes first, or
// hands it back (None).
//
//===----------------------------------------------------------------------===//

#include "TorchAutograd.h"
#include "LaunchApi.h"

#include <ATen/ATen.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/forward_grad.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/basic_ops.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/utils/pybind.h>

#ifdef TILELANG_TORCH_BRIDGE_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

namespace py = pybind11;
using torch::autograd::Edge;
using torch::autograd::edge_list;
using torch::autograd::Node;
using torch::autograd::SavedVariable;
using torch::autograd::variable_list;

/// How autograd holds nodes: a std::shared_ptr up to torch 2.1x, a
/// c10::intrusive_ptr in newer releases. Both are handled by their type.
using NodePtr = decltype(Edge::function);

template <typename T, typename Ptr = NodePtr> struct NodeHolder;
template <typename T> struct NodeHolder<T, std::shared_ptr<Node>> {
  template <typename... Args> static NodePtr make(Args &&...args) {
    return std::make_shared<T>(std::forward<Args>(args)...);
  }
  static NodePtr self(T *node) { return node->shared_from_this(); }
};
template <typename T> struct NodeHolder<T, c10::intrusive_ptr<Node>> {
  template <typename... Args> static NodePtr make(Args &&...args) {
    return c10::make_intrusive<T>(std::forward<Args>(args)...);
  }
  static NodePtr self(T *node) { return node->getptr(); }
};

using tilelang::python::LaunchApi;

/// tilelang._C's launcher (imports tilelang._C the first time); throws
/// when it is missing or of another build.
const LaunchApi &launchApi() {
  static const LaunchApi *api = nullptr;
  if (api)
    return *api;
  auto *found = static_cast<const LaunchApi *>(
      PyCapsule_Import(tilelang::python::kLaunchApiCapsule, 0));
  if (!found)
    throw py::error_already_set();
  if (found->version != tilelang::python::kLaunchApiVersion)
    throw std::runtime_error(
        "tilelang._C_torch: tilelang._C's launch_api is of another build "
        "(version " +
        std::to_string(found->version) + ")");
  api = found;
  return *api;
}

/// The most parameters a planned launch takes: what tilelang._C packs.
constexpr std::size_t kMaxParams = tilelang::python::kMaxLaunchParams;

/// Where a kernel's pointer parameter comes from.
struct Slot {
  std::size_t index; ///< the parameter (one 8-byte slot each)
  char kind;         ///< 'g' gradient, 's' saved, 'b' buffer, 'c' constant
  std::size_t which; ///< index among the saved tensors, buffers, constants
  /// Bytes into a buffer (one workspace holding several arrays).
  std::size_t offset = 0;
};

struct Launch {
  py::object kernelObject; ///< the _C.Kernel, which owns `loaded`
  const void *loaded = nullptr;
  unsigned dims[3] = {1, 1, 1};
  std::vector<std::uint64_t> params;
  std::vector<Slot> slots;
  /// The parameter taking the call's runtime scalar (a forward's eps, as
  /// an fp32), or -1.
  std::ptrdiff_t scalar = -1;
};

struct Buffer {
  bool gradientShaped = false; ///< the incoming gradient's sizes
  std::vector<std::int64_t> sizes;
  at::ScalarType dtype;
};

} // namespace

namespace tilelang::python {

/// A resolved backward: see the file comment.
struct BackwardPlan {
  std::string name;
  int device = -1;
  at::ScalarType dtype;
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  std::vector<at::Tensor> constants;
  std::vector<int> gradients;

  ~BackwardPlan() {
    // The kernels are Python objects: released with the GIL, or left to the
    // process's end once Python is finalizing.
#if PY_VERSION_HEX >= 0x030D0000
    bool finalizing = Py_IsFinalizing();
#else
    bool finalizing = _Py_IsFinalizing();
#endif
    if (!Py_IsInitialized() || finalizing) {
      for (Launch &launch : launches)
        launch.kernelObject.release();
      return;
    }
    py::gil_scoped_acquire gil;
    for (Launch &launch : launches)
      launch.kernelObject = py::object();
  }
};

} // namespace tilelang::python

namespace {

using tilelang::python::BackwardPlan;

at::ScalarType dtypeOf(py::handle object) {
  if (!THPDtype_Check(object.ptr()))
    throw py::type_error("tilelang._C_torch: expected a torch.dtype");
  return reinterpret_cast<THPDtype *>(object.ptr())->scalar_type;
}

std::shared_ptr<BackwardPlan> makePlan(std::string name, int device,
                                       py::handle dtype, py::list buffers,
                                       py::list launches, py::list constants,
                                       std::vector<int> gradients) {
  const LaunchApi &api = launchApi();
  auto plan = std::make_shared<BackwardPlan>();
  plan->name = std::move(name);
  plan->device = device;
  plan->dtype = dtypeOf(dtype);
  for (py::handle item : buffers) {
    py::tuple spec = py::reinterpret_borrow<py::tuple>(item);
    Buffer buffer;
    buffer.gradientShaped = spec[0].is_none();
    if (!buffer.gradientShaped)
      buffer.sizes = spec[0].cast<std::vector<std::int64_t>>();
    buffer.dtype = dtypeOf(spec[1]);
    plan->buffers.push_back(std::move(buffer));
  }
  for (py::handle item : constants)
    plan->constants.push_back(THPVariable_Unpack(item.ptr()));
  for (py::handle item : launches) {
    py::tuple spec = py::reinterpret_borrow<py::tuple>(item);
    Launch launch;
    launch.kernelObject = py::reinterpret_borrow<py::object>(spec[0]);
    launch.loaded = api.loadedKernel(launch.kernelObject.ptr(), device);
    if (!launch.loaded)
      throw py::error_already_set();
    py::tuple dims = py::reinterpret_borrow<py::tuple>(spec[1]);
    for (std::size_t i = 0; i < 3; ++i)
      launch.dims[i] = dims[i].cast<unsigned>();
    std::string bytes = spec[2].cast<std::string>();
    if (bytes.size() > kMaxParams * sizeof(std::uint64_t))
      throw py::value_error("tilelang._C_torch: a launch of more than " +
                            std::to_string(kMaxParams) + " parameters");
    launch.params.resize(bytes.size() / sizeof(std::uint64_t));
    std::memcpy(launch.params.data(), bytes.data(),
                launch.params.size() * sizeof(std::uint64_t));
    for (py::handle slotItem : py::reinterpret_borrow<py::list>(spec[3])) {
      py::tuple slot = py::reinterpret_borrow<py::tuple>(slotItem);
      Slot parsed{slot[0].cast<std::size_t>(),
                  slot[1].cast<std::string>().at(0),
                  slot[2].cast<std::size_t>(),
                  slot.size() > 3 ? slot[3].cast<std::size_t>() : 0};
      std::size_t limit = parsed.kind == 's'   ? std::size_t(-1)
                          : parsed.kind == 'b' ? plan->buffers.size()
                          : parsed.kind == 'c' ? plan->constants.size()
                                               : 1;
      if (parsed.index >= launch.params.size() || parsed.which >= limit ||
          std::string("gsbc").find(parsed.kind) == std::string::npos)
        throw py::value_error("tilelang._C_torch: a bad slot in the plan");
      // An offset points into a buffer of fixed size, never past its end.
      if (parsed.offset) {
        const Buffer *buffer =
            parsed.kind == 'b' ? &plan->buffers[parsed.which] : nullptr;
        std::size_t bytes = 0;
        if (buffer && !buffer->gradientShaped) {
          bytes = at::elementSize(buffer->dtype);
          for (std::int64_t size : buffer->sizes)
            bytes *= std::size_t(size);
        }
        if (parsed.offset >= bytes)
          throw py::value_error(
              "tilelang._C_torch: a slot's offset is not inside its buffer");
      }
      launch.slots.push_back(parsed);
    }
    if (spec.size() > 4 && !spec[4].is_none()) {
      launch.scalar = spec[4].cast<std::ptrdiff_t>();
      if (launch.scalar < 0 ||
          std::size_t(launch.scalar) >= launch.params.size())
        throw py::value_error("tilelang._C_torch: a bad scalar in the plan");
    }
    plan->launches.push_back(std::move(launch));
  }
  for (int gradient : gradients)
    if (gradient >= int(plan->buffers.size()))
      throw py::value_error("tilelang._C_torch: a bad gradient in the plan");
  plan->gradients = std::move(gradients);
  return plan;
}

/// The stream a node's launches go on: torch's current stream of the plan's
/// device (the one autograd runs the node on), read in C++ where the bridge
/// has CUDA's headers, else asked of tilelang._C (which takes the GIL; the
/// CPU tensors of the tests).
std::uintptr_t streamOf(const BackwardPlan &plan, const LaunchApi &api) {
#ifdef TILELANG_TORCH_BRIDGE_CUDA
  if (plan.device >= 0)
    return reinterpret_cast<std::uintptr_t>(
        c10::cuda::getCurrentCUDAStream(plan.device).stream());
#endif
  std::uintptr_t stream = 0;
  char message[512] = {0};
  if (!api.currentStream(plan.device, &stream, message, sizeof(message)))
    throw std::runtime_error(std::string("tilelang.ops: ") + plan.name + ": " +
                             message);
  return stream;
}

/// `tensor`, or a copy of it, contiguous and 16-byte aligned: the plan's
/// kernels were specialized for aligned pointers (as fresh allocations
/// are), so a view at another offset is copied rather than misread.
at::Tensor asKernelsTake(at::Tensor tensor) {
  if (!tensor.defined())
    return tensor;
  tensor = tensor.contiguous();
  if (reinterpret_cast<std::uintptr_t>(tensor.data_ptr()) % 16 != 0)
    tensor = tensor.clone(at::MemoryFormat::Contiguous);
  return tensor;
}

/// Launches `plan`'s kernels on torch's current stream: each pointer slot
/// takes its tensor ('g' `gradient`, 's' `inputs`, 'b' `buffers`, 'c' the
/// plan's constants), a scalar slot `scalar` as an fp32.
void launchAll(const BackwardPlan &plan, const at::Tensor &gradient,
               const std::vector<at::Tensor> &inputs,
               const std::vector<at::Tensor> &buffers, double scalar = 0.0) {
  const LaunchApi &api = launchApi();
  std::uintptr_t stream = streamOf(plan, api);
  char message[512] = {0};
  std::uint64_t params[kMaxParams];
  void *pointers[kMaxParams];
  for (const Launch &launch : plan.launches) {
    std::size_t count = launch.params.size();
    std::memcpy(params, launch.params.data(), count * sizeof(params[0]));
    for (const Slot &slot : launch.slots) {
      const at::Tensor &tensor = slot.kind == 'g'   ? gradient
                                 : slot.kind == 's' ? inputs.at(slot.which)
                                 : slot.kind == 'b'
                                     ? buffers[slot.which]
                                     : plan.constants[slot.which];
      params[slot.index] =
          tensor.defined()
              ? reinterpret_cast<std::uintptr_t>(tensor.data_ptr()) +
                    slot.offset
              : 0;
    }
    if (launch.scalar >= 0) {
      // As tilelang._C packs a Python float for an fp32 parameter.
      float value = static_cast<float>(scalar);
      params[launch.scalar] = 0;
      std::memcpy(&params[launch.scalar], &value, sizeof(value));
    }
    for (std::size_t i = 0; i < count; ++i)
      pointers[i] = &params[i];
    if (!api.launch(launch.loaded, launch.dims, stream, pointers, message,
                    sizeof(message)))
      throw std::runtime_error(std::string("tilelang.ops: ") + plan.name +
                               ": " + message);
  }
}

/// The node a forward of tilelang.ops records: the plan and what it saved.
struct TileLangBackward : Node {
  std::shared_ptr<const BackwardPlan> plan;
  std::vector<SavedVariable> saved;

  std::string name() const override { return plan->name; }

  void release_variables() override {
    for (SavedVariable &variable : saved)
      variable.reset_data();
  }

  variable_list apply(variable_list &&grads) override {
    variable_list result(num_outputs());
    at::Tensor incoming = grads.empty() ? at::Tensor() : grads[0];
    if (!incoming.defined())
      return result; // the output was not used: no gradient flows
    NodePtr self = NodeHolder<TileLangBackward>::self(this);
    std::vector<at::Tensor> tensors;
    tensors.reserve(saved.size());
    for (SavedVariable &variable : saved) {
      tensors.push_back(variable.unpack(self));
      // A saved-tensor hook may give back a tensor elsewhere (its unpack
      // returning a CPU copy): its address would reach the kernels as a
      // device pointer and fault, where torch's own nodes raise.
      const at::Tensor &tensor = tensors.back();
      TORCH_CHECK(!tensor.defined() || tensor.device() == incoming.device(),
                  "tilelang.ops: ", plan->name,
                  ": a saved tensor came back on ", tensor.device(),
                  " and the gradient is on ", incoming.device(),
                  " (a saved-tensor hook's unpack?)");
    }
    bool differentiable = false;
    if (torch::autograd::GradMode::is_enabled()) {
      differentiable = incoming.requires_grad();
      for (const at::Tensor &tensor : tensors)
        differentiable |= tensor.defined() && tensor.requires_grad();
    }
    at::Tensor gradient = incoming;
    if (gradient.scalar_type() != plan->dtype)
      gradient = gradient.to(plan->dtype);
    gradient = asKernelsTake(gradient);
    std::vector<at::Tensor> inputs;
    inputs.reserve(tensors.size());
    for (const at::Tensor &tensor : tensors)
      inputs.push_back(asKernelsTake(tensor));
    std::vector<at::Tensor> buffers;
    buffers.reserve(plan->buffers.size());
    for (const Buffer &buffer : plan->buffers)
      buffers.push_back(at::empty(buffer.gradientShaped
                                      ? gradient.sizes()
                                      : at::IntArrayRef(buffer.sizes),
                                  gradient.options().dtype(buffer.dtype)));
    launchAll(*plan, gradient, inputs, buffers);
    for (std::size_t i = 0; i < result.size(); ++i) {
      int buffer = i < plan->gradients.size() ? plan->gradients[i] : -1;
      if (buffer >= 0 && should_compute_output(i))
        result[i] = buffers[std::size_t(buffer)];
    }
    if (differentiable) {
      // Under create_graph the gradients are recorded, as a node that
      // refuses to be differentiated: the backward kernels have no
      // backward of their own.
      edge_list edges;
      edges.push_back(torch::autograd::impl::gradient_edge(incoming));
      for (const at::Tensor &tensor : tensors)
        edges.push_back(tensor.defined()
                            ? torch::autograd::impl::gradient_edge(tensor)
                            : Edge());
      NodePtr error = NodeHolder<torch::autograd::Error>::make(
          "tilelang.ops: " + plan->name +
              " is not twice differentiable (its backward kernels have no "
              "backward)",
          std::move(edges));
      for (at::Tensor &output : result)
        if (output.defined())
          torch::autograd::set_history(output, error);
    }
    return result;
  }
};

/// Gives `result` (a fresh tensor of the forward) a TileLangBackward node
/// running `plan` as its grad_fn, with an edge to each of `inputs` (in the
/// order of the plan's gradients; undefined: none) and `saved` (undefined:
/// nothing) saved as autograd saves tensors.
void attachNode(std::shared_ptr<const BackwardPlan> plan,
                const at::Tensor &result, const std::vector<at::Tensor> &inputs,
                const std::vector<at::Tensor> &saved) {
  edge_list edges;
  edges.reserve(inputs.size());
  for (const at::Tensor &input : inputs)
    edges.push_back(
        input.defined() ? torch::autograd::impl::gradient_edge(input) : Edge());
  NodePtr node = NodeHolder<TileLangBackward>::make();
  auto *backward = static_cast<TileLangBackward *>(node.get());
  backward->plan = std::move(plan);
  backward->set_next_edges(std::move(edges));
  torch::autograd::set_history(result, node);
  backward->saved.reserve(saved.size());
  for (const at::Tensor &tensor : saved) {
    if (!tensor.defined())
      backward->saved.emplace_back();
    else
      backward->saved.emplace_back(tensor,
                                   /*is_output=*/tensor.is_same(result));
  }
}

/// A tensor argument or None (undefined).
at::Tensor tensorOrNone(py::handle object, const char *what) {
  if (object.is_none())
    return at::Tensor();
  if (!THPVariable_Check(object.ptr()))
    throw py::type_error(std::string("tilelang._C_torch: ") + what +
                         " is not a tensor");
  return THPVariable_Unpack(object.ptr());
}

/// record(plan, output, inputs, saved) -> output: `output` (a fresh tensor
/// of the forward) gets a TileLangBackward node as its grad_fn, with an
/// edge to each of `inputs` (tensors or None, in the order of the plan's
/// gradients) and `saved` (tensors or None) saved as autograd saves them.
py::object record(std::shared_ptr<BackwardPlan> plan, py::handle output,
                  py::tuple inputs, py::tuple saved) {
  if (!THPVariable_Check(output.ptr()))
    throw py::type_error("tilelang._C_torch.record: output is not a tensor");
  std::vector<at::Tensor> edges, kept;
  edges.reserve(inputs.size());
  for (py::handle input : inputs)
    edges.push_back(tensorOrNone(input, "an input"));
  kept.reserve(saved.size());
  for (py::handle item : saved)
    kept.push_back(tensorOrNone(item, "a saved tensor"));
  attachNode(std::move(plan), THPVariable_Unpack(output.ptr()), edges, kept);
  return py::reinterpret_borrow<py::object>(output);
}

/// A resolved eager forward with grad (see the file comment): `launches`
/// holds its kernels ('g' slots take x, 's' slots the parameters after x,
/// 'b' the buffers it allocates, x-shaped where gradient-shaped; the first
/// of `launches->gradients` is the output's buffer), `backward` the node's
/// plan, `saved` what the node saves: ('g', 0) x, ('s', k) the parameter
/// k, ('b', k) the buffer k, ('-', 0) nothing.
struct ForwardPlan {
  std::shared_ptr<BackwardPlan> launches;
  std::shared_ptr<BackwardPlan> backward;
  std::vector<std::pair<char, std::size_t>> saved;
};

std::shared_ptr<ForwardPlan>
makeForwardPlan(std::shared_ptr<BackwardPlan> launches,
                std::shared_ptr<BackwardPlan> backward, py::list saved) {
  if (!launches || !backward || launches->gradients.empty() ||
      launches->gradients[0] < 0)
    throw py::value_error("tilelang._C_torch: a forward plan needs its "
                          "launches, its output buffer and a backward");
  auto plan = std::make_shared<ForwardPlan>();
  for (py::handle item : saved) {
    if (item.is_none()) {
      plan->saved.emplace_back('-', 0);
      continue;
    }
    py::tuple spec = py::reinterpret_borrow<py::tuple>(item);
    char kind = spec[0].cast<std::string>().at(0);
    std::size_t which = spec[1].cast<std::size_t>();
    if ((kind != 'g' && kind != 's' && kind != 'b') ||
        (kind == 'b' && which >= launches->buffers.size()))
      throw py::value_error("tilelang._C_torch: a bad saved tensor in the "
                            "forward plan");
    plan->saved.emplace_back(kind, which);
  }
  plan->launches = std::move(launches);
  plan->backward = std::move(backward);
  return plan;
}

/// The forward of `plan` on x and its parameters (undefined where the call
/// has None), with eps at the launches' scalar slot, the output and
/// statistics allocated with at::empty, then the node recorded (as `record`
/// does), with edges to x and the parameters. x and the parameters reach the
/// kernels contiguous and 16-byte aligned (asKernelsTake: the kernels were
/// specialized for aligned pointers); the node saves them as given.
at::Tensor runForward(const ForwardPlan &plan, double eps, const at::Tensor &x,
                      const std::vector<at::Tensor> &parameters) {
  const BackwardPlan &launches = *plan.launches;
  std::vector<at::Tensor> inputs, taken;
  inputs.reserve(parameters.size() + 1);
  taken.reserve(parameters.size());
  inputs.push_back(x);
  for (const at::Tensor &parameter : parameters) {
    inputs.push_back(parameter);
    taken.push_back(asKernelsTake(parameter));
  }
  at::Tensor xTaken = asKernelsTake(x);
  std::vector<at::Tensor> buffers;
  buffers.reserve(launches.buffers.size());
  for (const Buffer &buffer : launches.buffers)
    buffers.push_back(at::empty(
        buffer.gradientShaped ? x.sizes() : at::IntArrayRef(buffer.sizes),
        x.options().dtype(buffer.dtype)));
  launchAll(launches, xTaken, taken, buffers, eps);
  const at::Tensor &result = buffers[std::size_t(launches.gradients[0])];
  std::vector<at::Tensor> saved;
  saved.reserve(plan.saved.size());
  for (const auto &[kind, which] : plan.saved)
    saved.push_back(kind == 'g'   ? x
                    : kind == 's' ? parameters.at(which)
                    : kind == 'b' ? buffers[which]
                                  : at::Tensor());
  attachNode(plan.backward, result, inputs, saved);
  return result;
}

/// forward(plan, eps, x, *parameters) -> the output: runForward on the
/// call's tensors (or None).
py::object forward(const ForwardPlan &plan, double eps, py::args tensors) {
  if (tensors.size() == 0)
    throw py::type_error("tilelang._C_torch.forward: no x");
  at::Tensor x = tensorOrNone(tensors[0], "x");
  if (!x.defined())
    throw py::type_error("tilelang._C_torch.forward: x is None");
  std::vector<at::Tensor> parameters;
  for (std::size_t i = 1; i < tensors.size(); ++i)
    parameters.push_back(tensorOrNone(tensors[i], "a parameter"));
  return py::reinterpret_steal<py::object>(
      THPVariable_Wrap(runForward(plan, eps, x, parameters)));
}

/// What a ForwardPlan is kept under in a ForwardTable: what the Python
/// path's key (tilelang/ops/_norm.py, _softmax.py `_key`) holds, read off
/// the call's tensors: x's rows and row length, dtype and device, and per
/// tensor (x, then each parameter) whether it is there and requires grad.
struct TableKey {
  std::int64_t rows = 0, length = 0;
  std::int16_t dtype = 0, deviceType = 0;
  std::int32_t deviceIndex = 0;
  std::uint32_t flags = 0;
  bool operator==(const TableKey &other) const {
    return rows == other.rows && length == other.length &&
           dtype == other.dtype && deviceType == other.deviceType &&
           deviceIndex == other.deviceIndex && flags == other.flags;
  }
};

struct TableKeyHash {
  std::size_t operator()(const TableKey &key) const {
    std::size_t hash = std::hash<std::int64_t>()(key.rows);
    for (std::int64_t part :
         {key.length, std::int64_t(key.dtype), std::int64_t(key.deviceType),
          std::int64_t(key.deviceIndex), std::int64_t(key.flags)})
      hash = hash * 1000003u ^ std::hash<std::int64_t>()(part);
    return hash;
  }
};

/// One operator's ForwardPlans for `eager_forward`, each with the (Tuned,
/// tuner cache) pairs it was resolved from and the compile knobs' values
/// it was put under (tilelang.ops._autograd puts a plan here once its
/// Python path has used it): see "The C++ entry" in docs/ops.md.
struct ForwardTable {
  struct Entry {
    std::shared_ptr<ForwardPlan> plan;
    std::vector<std::pair<py::object, py::object>> sources;
    std::vector<std::optional<std::string>> knobValues;
  };
  std::size_t parameters = 0; ///< parameters a call passes after x
  bool scalar = false;        ///< whether a call ends with a positive eps
  std::vector<py::object> plainTypes; ///< tensor types taken as they are
  /// Environment variables whose values a plan holds for (the knobs that
  /// change what a launch runs: tilelang.knobs).
  std::vector<std::string> knobs;
  std::unordered_map<TableKey, Entry, TableKeyHash> entries;
};

/// The values of `table`'s knobs now (nullopt where unset); os.environ's
/// changes reach the process's environment (putenv).
std::vector<std::optional<std::string>> knobValues(const ForwardTable &table) {
  std::vector<std::optional<std::string>> values;
  values.reserve(table.knobs.size());
  for (const std::string &name : table.knobs) {
    const char *value = std::getenv(name.c_str());
    values.push_back(value ? std::optional<std::string>(value) : std::nullopt);
  }
  return values;
}

/// Whether every knob of `table` has the value `entry` was put under.
bool knobsHold(const ForwardTable &table, const ForwardTable::Entry &entry) {
  for (std::size_t i = 0; i < table.knobs.size(); ++i) {
    const char *value = std::getenv(table.knobs[i].c_str());
    const std::optional<std::string> &kept = entry.knobValues[i];
    if (value ? !kept || *kept != value : kept.has_value())
      return false;
  }
  return true;
}

/// Whether `object` is a tensor of one of `table`'s plain types.
bool isPlain(const ForwardTable &table, PyObject *object) {
  for (const py::object &type : table.plainTypes)
    if (reinterpret_cast<PyObject *>(Py_TYPE(object)) == type.ptr())
      return true;
  return false;
}

/// The key of a call on `x` and `parameters`.
TableKey keyOf(const at::Tensor &x, const std::vector<at::Tensor> &parameters) {
  TableKey key;
  key.length = x.sizes().back();
  key.rows = key.length ? x.numel() / key.length : 0;
  key.dtype = std::int16_t(x.scalar_type());
  key.deviceType = std::int16_t(x.device().type());
  key.deviceIndex = x.device().index();
  key.flags = x.requires_grad() ? 1u : 0u;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].defined())
      key.flags |= 2u << (2 * i);
    if (parameters[i].defined() && parameters[i].requires_grad())
      key.flags |= 4u << (2 * i);
  }
  return key;
}

/// Whether each (Tuned, cache) pair still holds: tuned._tuner.cache is the
/// cache (as _autograd._held checks); false with no error on any failure.
bool sourcesHold(const ForwardTable::Entry &entry) {
  static PyObject *tunerName = PyUnicode_InternFromString("_tuner");
  static PyObject *cacheName = PyUnicode_InternFromString("cache");
  for (const auto &[tuned, cache] : entry.sources) {
    PyObject *tuner = PyObject_GetAttr(tuned.ptr(), tunerName);
    PyObject *current = tuner ? PyObject_GetAttr(tuner, cacheName) : nullptr;
    Py_XDECREF(tuner);
    bool same = current == cache.ptr();
    Py_XDECREF(current);
    if (!same) {
      PyErr_Clear();
      return false;
    }
  }
  return true;
}

/// The tensors of a call: x, then `count` parameters (tensors or None).
/// False where the call is not one `eager_forward` takes as it is: an
/// argument of another type, a tensor that is not a plain one, x without
/// dimensions, a parameter not 1-D of x's row length, dtype and device.
bool callTensors(const ForwardTable &table, PyObject *const *args,
                 std::size_t count, at::Tensor &x,
                 std::vector<at::Tensor> &parameters) {
  if (!isPlain(table, args[0]))
    return false;
  x = THPVariable_Unpack(args[0]);
  if (x.dim() == 0)
    return false;
  parameters.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    PyObject *object = args[1 + i];
    if (object == Py_None) {
      parameters.emplace_back();
      continue;
    }
    if (!isPlain(table, object))
      return false;
    const at::Tensor &parameter = THPVariable_Unpack(object);
    if (parameter.dim() != 1 || parameter.scalar_type() != x.scalar_type() ||
        parameter.device() != x.device() ||
        parameter.sizes()[0] != x.sizes().back())
      return false;
    parameters.push_back(parameter);
  }
  return true;
}

/// Whether something traces or transforms the calls made now (as
/// tilelang.ops._runtime._tracing and the forward-AD level eager() reads;
/// torch.compile's own flag is read by the Python caller): dispatch modes,
/// torch function modes, functorch's transforms, a dual level of
/// forward-mode AD.
bool transformed() {
  if (c10::impl::TorchDispatchModeTLS::stack_len() > 0 ||
      at::impl::torch_function_mode_enabled())
    return true;
  c10::DispatchKeySet included =
      c10::impl::tls_local_dispatch_key_set().included_;
  if (included.has(c10::DispatchKey::FuncTorchDynamicLayerFrontMode) ||
      included.has(c10::DispatchKey::FuncTorchDynamicLayerBackMode))
    return true;
  return torch::autograd::ForwardADLevel::try_get_by_idx(0) != nullptr;
}

/// eager_forward(table, x, *parameters[, eps]) -> the output, or None: an
/// eager call of the operator whose plans `table` keeps, taken in C++
/// where the Python path would take its C++ forward (tilelang.ops'
/// `eager` checks, its key, a plan that holds), so that a call with a plan
/// runs no Python between the call and the launch. None where it is not
/// such a call (the Python path then decides, and may put a plan here).
/// Wrong arguments (not a table, not as many as the table's operator
/// takes) raise TypeError.
PyObject *eagerForward(PyObject *, PyObject *const *args, Py_ssize_t count) {
  try {
    if (count < 1)
      throw py::type_error("tilelang._C_torch.eager_forward: no table");
    auto &table = py::handle(args[0]).cast<ForwardTable &>();
    std::size_t expected = 2 + table.parameters + (table.scalar ? 1 : 0);
    if (std::size_t(count) != expected)
      throw py::type_error(
          "tilelang._C_torch.eager_forward: the table's operator takes x, " +
          std::to_string(table.parameters) + " parameter(s)" +
          (table.scalar ? " and eps" : "") + " (" +
          std::to_string(expected - 1) + " arguments after the table), not " +
          std::to_string(count - 1));
    double eps = 0.0;
    if (table.scalar) {
      PyObject *object = args[count - 1];
      if (PyFloat_CheckExact(object))
        eps = PyFloat_AS_DOUBLE(object);
      else if (PyLong_CheckExact(object))
        eps = PyLong_AsDouble(object);
      else
        Py_RETURN_NONE;
      if (eps == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
      }
      if (!(eps > 0))
        Py_RETURN_NONE;
    }
    at::Tensor x;
    std::vector<at::Tensor> parameters;
    if (!callTensors(table, args + 1, table.parameters, x, parameters) ||
        !torch::autograd::GradMode::is_enabled() || transformed())
      Py_RETURN_NONE;
    // A call that records no gradient (no tensor requires one) finds no
    // plan: the key holds the requires_grad flags, and the Python path
    // puts only recorded calls' plans here.
    auto found = table.entries.find(keyOf(x, parameters));
    if (found == table.entries.end())
      Py_RETURN_NONE;
    if (!sourcesHold(found->second)) {
      table.entries.erase(found);
      Py_RETURN_NONE;
    }
    // A knob changed since: the Python path drops what was made under the
    // old values (and puts the plan made under the new ones here).
    if (!knobsHold(table, found->second))
      Py_RETURN_NONE;
    return THPVariable_Wrap(
        runForward(*found->second.plan, eps, x, parameters));
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (py::cast_error &) {
    PyErr_SetString(PyExc_TypeError, "tilelang._C_torch.eager_forward: the "
                                     "first argument is not a ForwardTable");
  } catch (py::builtin_exception &error) {
    error.set_error(); // its own Python type (TypeError...)
  } catch (const c10::Error &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what_without_backtrace());
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  }
  return nullptr;
}

/// ForwardTable.put(plan, sources, x, *parameters): keeps `plan` (with its
/// (Tuned, cache) pairs `sources`) under the key of a call on x and the
/// parameters (tensors or None).
void putPlan(ForwardTable &table, std::shared_ptr<ForwardPlan> plan,
             py::list sources, py::args tensors) {
  if (!plan)
    throw py::type_error("tilelang._C_torch.ForwardTable.put: no plan");
  if (tensors.size() != 1 + table.parameters)
    throw py::type_error("tilelang._C_torch.ForwardTable.put: x and " +
                         std::to_string(table.parameters) +
                         " parameter(s) expected");
  at::Tensor x = tensorOrNone(tensors[0], "x");
  if (!x.defined() || x.dim() == 0)
    throw py::type_error("tilelang._C_torch.ForwardTable.put: x is not a "
                         "tensor with dimensions");
  std::vector<at::Tensor> parameters;
  for (std::size_t i = 1; i < tensors.size(); ++i)
    parameters.push_back(tensorOrNone(tensors[i], "a parameter"));
  ForwardTable::Entry entry{std::move(plan), {}, knobValues(table)};
  for (py::handle item : sources) {
    py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
    entry.sources.emplace_back(py::reinterpret_borrow<py::object>(pair[0]),
                               py::reinterpret_borrow<py::object>(pair[1]));
  }
  table.entries[keyOf(x, parameters)] = std::move(entry);
}

PyMethodDef eagerForwardMethods[] = {
    {"eager_forward",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&eagerForward)),
     METH_FASTCALL,
     "eager_forward(table, x, *parameters[, eps]) -> the output, or None "
     "where the call is not one the table has a plan for (docs/ops.md, "
     "\"The C++ entry\")."},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

namespace tilelang::python {

bool addTorchAutograd(PyObject *module) {
  try {
    py::module_ m = py::reinterpret_borrow<py::module_>(module);
    py::class_<BackwardPlan, std::shared_ptr<BackwardPlan>>(
        m, "BackwardPlan",
        "A backward of tilelang.ops resolved for one shape and set of flags "
        "(docs/ops.md, \"The C++ backward\").")
        .def(py::init(&makePlan), py::arg("name"), py::arg("device"),
             py::arg("dtype"), py::arg("buffers"), py::arg("launches"),
             py::arg("constants"), py::arg("gradients"))
        .def_property_readonly(
            "launches",
            [](const BackwardPlan &plan) { return plan.launches.size(); })
        .def_property_readonly(
            "name", [](const BackwardPlan &plan) { return plan.name; });
    py::class_<ForwardPlan, std::shared_ptr<ForwardPlan>>(
        m, "ForwardPlan",
        "An eager forward of tilelang.ops with its backward, resolved for "
        "one key (docs/ops.md, \"The C++ forward\").")
        .def(py::init(&makeForwardPlan), py::arg("launches"),
             py::arg("backward"), py::arg("saved"));
    py::class_<ForwardTable, std::shared_ptr<ForwardTable>>(
        m, "ForwardTable",
        "One operator's ForwardPlans, for eager_forward (docs/ops.md, \"The "
        "C++ entry\").")
        .def(py::init([](std::size_t parameters, bool scalar,
                         py::tuple plainTypes, std::vector<std::string> knobs) {
               auto table = std::make_shared<ForwardTable>();
               table->parameters = parameters;
               table->scalar = scalar;
               table->knobs = std::move(knobs);
               for (py::handle type : plainTypes) {
                 if (!PyType_Check(type.ptr()))
                   throw py::type_error("tilelang._C_torch.ForwardTable: "
                                        "plain_types holds a non-type");
                 table->plainTypes.push_back(
                     py::reinterpret_borrow<py::object>(type));
               }
               return table;
             }),
             py::arg("parameters"), py::arg("scalar"), py::arg("plain_types"),
             py::arg("knobs") = std::vector<std::string>())
        .def("put", &putPlan, py::arg("plan"), py::arg("sources"))
        .def("clear", [](ForwardTable &table) { table.entries.clear(); })
        .def("__len__",
             [](const ForwardTable &table) { return table.entries.size(); });
    if (PyModule_AddFunctions(module, eagerForwardMethods) < 0)
      return false;
    m.def("forward", &forward, py::arg("plan"), py::arg("eps"),
          "forward(plan, eps, x, *parameters) -> the output, launched and "
          "recorded with the plan's C++ node, in one call.");
    m.def("record", &record, py::arg("plan"), py::arg("output"),
          py::arg("inputs"), py::arg("saved"),
          "record(plan, output, inputs, saved) -> output, with a C++ "
          "autograd node running `plan` as its grad_fn.");
  } catch (py::error_already_set &error) {
    error.restore();
    return false;
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
    return false;
  }
  return true;
}

} // namespace tilelang::python
