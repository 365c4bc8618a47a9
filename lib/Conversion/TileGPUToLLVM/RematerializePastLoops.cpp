//===- RematerializePastLoops.cpp - cheap values recomputed after loops ---===//
//
// Part of tilelang. The tilelang-rematerialize-past-loops pass: values that
// a thread computes before an outermost loop from its special registers,
// the kernel's parameters and constants, and uses after the loop, are
// computed again there instead of being held through it.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Conversion/Passes.h"

#include "TileGPUToLLVM.h"

#include "mlir/Analysis/CFGLoopInfo.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

namespace tilelang {
#define GEN_PASS_DEF_REMATERIALIZEPASTLOOPS
#include "tilelang/Conversion/Passes.h.inc"
} // namespace tilelang

using namespace mlir;

namespace {

/// The most operations (special-register reads included, constants and
/// parameters not) one rematerialized value may take. A row a thread owns
/// takes 13 (tid, divisions and remainders by the layout's extents, the
/// program's first row), its mask one more, a head's base pointer 11 (a
/// division of the program id, products with strides); an element address
/// of a tile stored after the loops (its head's offset, row and column)
/// more. Such a copy's costly part, the division of the program id, is
/// its own: its parameters are read apart from ptxas's loads
/// (readParameter), so ptxas does not take the prologue's quotient instead
/// and hold it through the loops.
constexpr unsigned kMaxRematerializedOps = 64;

/// The PTX special register an NVVM op reads, where it holds one value for
/// the thread's whole life; empty otherwise (clocks, counters).
StringRef invariantSpecialRegister(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("nvvm.read.ptx.sreg."))
    return {};
  return llvm::StringSwitch<StringRef>(name)
      .Cases({"tid.x", "tid.y", "tid.z"}, name)
      .Cases({"ctaid.x", "ctaid.y", "ctaid.z"}, name)
      .Cases({"nctaid.x", "nctaid.y", "nctaid.z"}, name)
      .Cases({"ntid.x", "ntid.y", "ntid.z"}, name)
      .Case("laneid", name)
      .Default({});
}

/// Integer and pointer arithmetic without memory effects that computes the
/// same value wherever it is repeated.
bool isRecomputable(Operation *op) {
  return isa<LLVM::AddOp, LLVM::SubOp, LLVM::MulOp, LLVM::ShlOp, LLVM::LShrOp,
             LLVM::AShrOp, LLVM::AndOp, LLVM::OrOp, LLVM::XOrOp, LLVM::SDivOp,
             LLVM::UDivOp, LLVM::SRemOp, LLVM::URemOp, LLVM::SExtOp,
             LLVM::ZExtOp, LLVM::TruncOp, LLVM::ICmpOp, LLVM::SelectOp,
             LLVM::GEPOp, LLVM::PtrToIntOp, LLVM::IntToPtrOp,
             LLVM::AddrSpaceCastOp>(op);
}

bool isScalar(Type type) {
  return isa<IntegerType, LLVM::LLVMPointerType>(type);
}

/// A computation to repeat: its operations, operands before users, and the
/// kernel parameters it reads.
struct Recipe {
  SmallVector<Operation *> ops;
  SmallVector<BlockArgument> params;
};

class Rematerializer {
public:
  explicit Rematerializer(LLVM::LLVMFuncOp func)
      : func(func), dominance(func),
        loops(dominance.getDomTree(&func.getBody())) {}

  void run();

private:
  /// How to compute `value` again, if it is computed from special
  /// registers, kernel parameters and constants alone by at most
  /// kMaxRematerializedOps operations.
  std::optional<Recipe> recipe(Value value);
  bool collect(Value value, llvm::SetVector<Operation *> &ops,
               llvm::SetVector<BlockArgument> &params);

  /// Whether a copy can read `arg` on its own: a kernel's integer or
  /// pointer parameter, which PTX names `<kernel>_param_<index>`.
  bool isParameter(BlockArgument arg);

  /// The block where a copy of a value for `user` goes: its own, or the
  /// preheader of the outermost loop that holds it (a later loop that uses
  /// the value gets it computed once, before it); null if that loop has no
  /// preheader.
  Block *placement(Operation *user);

  /// Records the uses to rewrite of the values live across `loop`.
  void rematerializeAcross(CFGLoop *loop);

  /// The copies' leaves, read where the copy is, apart from the originals.
  Value readLeaf(OpBuilder &builder, Location loc, Type type, StringRef text,
                 StringRef constraint);
  Value readSpecialRegister(OpBuilder &builder, Operation *read);
  Value readParameter(OpBuilder &builder, BlockArgument param);

  LLVM::LLVMFuncOp func;
  DominanceInfo dominance;
  CFGLoopInfo loops;
  /// How each value to recompute is computed.
  llvm::DenseMap<Value, Recipe> recipes;
  /// The blocks given copies so far.
  unsigned sites = 0;
  /// Per block, the uses whose value is to be computed again in it.
  llvm::MapVector<Block *, SmallVector<std::pair<OpOperand *, Value>>> rewrites;
};

bool Rematerializer::isParameter(BlockArgument arg) {
  if (arg.getOwner() != &func.getBody().front() ||
      !func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
    return false;
  // Names that NVPTX keeps as they are (it rewrites others).
  StringRef name = func.getSymName();
  if (name.empty() || llvm::isDigit(name.front()) ||
      !llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return false;
  Type type = arg.getType();
  // A pointer passed as a value (global or generic): not one to a
  // parameter passed in place (a tensor map, byval and grid-constant),
  // whose PTX parameter is the bytes, not an address.
  if (auto pointer = dyn_cast<LLVM::LLVMPointerType>(type)) {
    unsigned index = arg.getArgNumber();
    return pointer.getAddressSpace() <= 1 &&
           !func.getArgAttr(index, LLVM::LLVMDialect::getByValAttrName()) &&
           !func.getArgAttr(index,
                            NVVM::NVVMDialect::getGridConstantAttrName());
  }
  return type.isInteger(32) || type.isInteger(64);
}

bool Rematerializer::collect(Value value, llvm::SetVector<Operation *> &ops,
                             llvm::SetVector<BlockArgument> &params) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // A block argument of any other block is a loop's or a branch's.
    if (!isParameter(arg))
      return false;
    params.insert(arg);
    return true;
  }
  Operation *op = value.getDefiningOp();
  if (op->hasTrait<OpTrait::ConstantLike>() || isa<LLVM::AddressOfOp>(op))
    return true;
  if (ops.contains(op))
    return true;
  if (invariantSpecialRegister(op).empty()) {
    if (!isRecomputable(op) || !llvm::all_of(op->getResultTypes(), isScalar))
      return false;
    for (Value operand : op->getOperands())
      if (!collect(operand, ops, params))
        return false;
  }
  ops.insert(op);
  return ops.size() <= kMaxRematerializedOps;
}

std::optional<Recipe> Rematerializer::recipe(Value value) {
  if (!isScalar(value.getType()))
    return std::nullopt;
  llvm::SetVector<Operation *> ops;
  llvm::SetVector<BlockArgument> params;
  if (!collect(value, ops, params))
    return std::nullopt;
  return Recipe{SmallVector<Operation *>(ops.begin(), ops.end()),
                SmallVector<BlockArgument>(params.begin(), params.end())};
}

Block *Rematerializer::placement(Operation *user) {
  Block *block = user->getBlock();
  CFGLoop *outermost = loops.getLoopFor(block);
  if (!outermost)
    return block;
  while (outermost->getParentLoop())
    outermost = outermost->getParentLoop();
  // The one block outside the loop that enters it, and only it.
  Block *preheader = nullptr;
  for (Block *predecessor : outermost->getHeader()->getPredecessors()) {
    if (outermost->contains(predecessor))
      continue;
    if (preheader && preheader != predecessor)
      return nullptr;
    preheader = predecessor;
  }
  if (!preheader || preheader->getNumSuccessors() != 1)
    return nullptr;
  return preheader;
}

/// Whether `loop` issues tensor-core products (mma.sync, wgmma.mma_async:
/// inline assembly by then), whose accumulators it holds in registers
/// through every iteration.
bool holdsTensorCoreProducts(CFGLoop *loop) {
  for (Block *block : loop->getBlocks())
    for (Operation &op : *block)
      if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op)) {
        StringRef text = asmOp.getAsmString();
        if (text.contains("mma.sync") || text.contains("wgmma.mma_async"))
          return true;
      }
  return false;
}

void Rematerializer::rematerializeAcross(CFGLoop *loop) {
  // Only a loop that holds tensor-core accumulators is bound by registers.
  // Elsewhere (a row walked in chunks, a reduction) nothing competes for
  // the values held through the loop, and the copies would only cost
  // instructions and, in ptxas's schedule, registers of their own (the
  // looped layer norm's 8192-column row: 72 -> 80).
  if (!holdsTensorCoreProducts(loop))
    return;

  // The blocks a thread may reach after leaving the loop.
  llvm::DenseSet<Block *> after;
  SmallVector<Block *> worklist;
  for (Block *block : loop->getBlocks())
    for (Block *successor : block->getSuccessors())
      if (!loop->contains(successor) && after.insert(successor).second)
        worklist.push_back(successor);
  while (!worklist.empty())
    for (Block *successor : worklist.pop_back_val()->getSuccessors())
      if (!loop->contains(successor) && after.insert(successor).second)
        worklist.push_back(successor);

  Block *header = loop->getHeader();
  func.walk([&](Operation *op) {
    Block *defBlock = op->getBlock();
    // Defined before the loop on every path into it: the loop is
    // outermost, so no path leads from the loop back to the definition.
    if (defBlock == header || !dominance.dominates(defBlock, header))
      return;
    for (Value value : op->getResults()) {
      // The uses past the loop, also where the loop uses the value: in
      // LLVM's hands it often is not live in the loop after all (LICM
      // takes the loop's invariant computations from it, a thread id's row
      // and column, and the thread id then ends with them), and a later
      // loop or the epilogue gets its own.
      SmallVector<OpOperand *> later;
      for (OpOperand &use : value.getUses())
        if (after.contains(use.getOwner()->getBlock()))
          later.push_back(&use);
      if (later.empty())
        continue;
      bool placeable = llvm::all_of(later, [&](OpOperand *use) {
        Block *block = placement(use->getOwner());
        return block && after.contains(block);
      });
      if (!placeable)
        continue;
      std::optional<Recipe> how = recipe(value);
      // A computation from constants alone is left to LLVM.
      if (!how ||
          (how->params.empty() && llvm::none_of(how->ops, [](Operation *op) {
             return !invariantSpecialRegister(op).empty();
           })))
        continue;
      recipes[value] = std::move(*how);
      for (OpOperand *use : later)
        rewrites[placement(use->getOwner())].push_back({use, value});
    }
  });
}

Value Rematerializer::readLeaf(OpBuilder &builder, Location loc, Type type,
                               StringRef text, StringRef constraint) {
  // LLVM takes inline assembly without side effects for a pure function
  // of its operands: it would merge two copies of one text (the copy
  // before a second loop with the epilogue's), so each site's text is its
  // own. Unlike the originals (intrinsics, arguments) a copy is not
  // merged with them or hoisted to them.
  std::string numbered = (text + " // rematerialized " + Twine(sites)).str();
  return tilelang::lowering::emitInlineAsm(builder, loc, type, ValueRange(),
                                           numbered, constraint,
                                           /*hasSideEffects=*/false)
      .getResult(0);
}

Value Rematerializer::readSpecialRegister(OpBuilder &builder, Operation *read) {
  // One S2R for ptxas.
  return readLeaf(
      builder, read->getLoc(), read->getResult(0).getType(),
      ("mov.u32 $0, %" + invariantSpecialRegister(read) + ";").str(), "=r");
}

Value Rematerializer::readParameter(OpBuilder &builder, BlockArgument param) {
  // Loaded from the parameter space again: ptxas does not always reload a
  // parameter it holds in a register, and a 64-bit product of one (a
  // stride times a head index) is two registers through the loop.
  Location loc = param.getLoc();
  bool wide = !param.getType().isInteger(32);
  // Through two bit reversals, which ptxas does not fold: a plain
  // ld.param it takes for the prologue's load of the same parameter, and
  // holds that (or what it computed from it: the reciprocal of the
  // divisor of a program id's division, a stride scaled by a block) through
  // the loops after all, where the uniform registers run out first.
  StringRef bits = wide ? "b64" : "b32";
  std::string text =
      ("{ .reg ." + bits + " t; ld.param." + bits + " t, [" +
       func.getSymName() + "_param_" + Twine(param.getArgNumber()) +
       "]; brev." + bits + " t, t; brev." + bits + " $0, t; }")
          .str();
  Value value =
      readLeaf(builder, loc, wide ? builder.getI64Type() : builder.getI32Type(),
               text, wide ? "=l" : "=r");
  if (isa<LLVM::LLVMPointerType>(param.getType()))
    value = LLVM::IntToPtrOp::create(builder, loc, param.getType(), value);
  return value;
}

void Rematerializer::run() {
  for (CFGLoop *loop : loops)
    rematerializeAcross(loop);

  for (auto &[block, uses] : rewrites) {
    // All copies of a block go before its first rewritten use (or its
    // terminator, for a later loop's preheader), together: none lands
    // between the accesses LLVM's load/store vectorizer would combine.
    llvm::DenseSet<Operation *> users;
    for (auto &[use, value] : uses)
      if (use->getOwner()->getBlock() == block)
        users.insert(use->getOwner());
    Operation *point = block->getTerminator();
    for (Operation &op : *block)
      if (users.contains(&op)) {
        point = &op;
        break;
      }
    OpBuilder builder(point);
    IRMapping copies;
    ++sites;
    for (auto &[use, value] : uses) {
      if (!copies.contains(value)) {
        const Recipe &how = recipes.find(value)->second;
        for (BlockArgument param : how.params)
          if (!copies.contains(param))
            copies.map(param, readParameter(builder, param));
        for (Operation *op : how.ops) {
          if (copies.contains(op->getResult(0)))
            continue;
          if (invariantSpecialRegister(op).empty())
            builder.clone(*op, copies);
          else
            copies.map(op->getResult(0), readSpecialRegister(builder, op));
        }
      }
      use->set(copies.lookup(value));
    }
  }
}

/// See Passes.td.
struct RematerializePastLoopsPass
    : public tilelang::impl::RematerializePastLoopsBase<
          RematerializePastLoopsPass> {
  void runOnOperation() override {
    LLVM::LLVMFuncOp func = getOperation();
    // One block has no loop (and no dominance tree to find one by).
    if (func.isExternal() || func.getBody().hasOneBlock())
      return;
    Rematerializer(func).run();
  }
};

} // namespace
