//===- DotOpToLLVM.cpp - tile.dot on mma.sync, warp_group_dot on wgmma ----===//
//
// Part of tilelang. Lowers a tile.dot whose accumulator has an mma.sync
// layout (version 2) to one mma.sync per 16x8 output tile and K step:
// m16n8k16 for f16/bf16, m16n8k8 tf32 for f32 (one product, or three for
// tf32x3), m16n8k32 for i8. Each instruction's operand and accumulator
// registers are those of one repetition of their layouts' fragments
// (getFragmentRepetitions, from their LayoutMaps).
// warp_group_dot becomes wgmma.mma_async on shared-memory descriptors, and
// warp_group_dot_wait a wgmma.wait_group with the accumulators tied
// through it.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// One mma.sync shape and element type.
struct MmaInstruction {
  StringRef text;
  bool integer;
};

/// The instruction for operands of `element` type.
MmaInstruction getMmaInstruction(Type element) {
  if (element.isF16())
    return {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false};
  if (element.isBF16())
    return {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", false};
  if (element.isF32())
    return {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", false};
  return {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", true};
}

/// Inline PTX that LLVM may schedule, duplicate or drop like any pure
/// computation.
Value emitPureAsm(OpBuilder &b, Location loc, Type resultType,
                  ValueRange operands, StringRef text, StringRef constraints) {
  return emitInlineAsm(b, loc, resultType, operands, text, constraints,
                       /*hasSideEffects=*/false)
      .getResult(0);
}

/// Packs `elements` (kWidth of them, 32 bits in all) into one i32 register.
Value packRegister(OpBuilder &b, Location loc, ArrayRef<Value> elements) {
  Type i32 = b.getI32Type();
  if (elements.size() == 1)
    return LLVM::BitcastOp::create(b, loc, i32, elements.front());
  auto vectorType =
      VectorType::get(elements.size(), elements.front().getType());
  Value vector = LLVM::UndefOp::create(b, loc, vectorType);
  for (auto [index, element] : llvm::enumerate(elements))
    vector = LLVM::InsertElementOp::create(b, loc, vector, element,
                                           i32Constant(b, loc, index));
  return LLVM::BitcastOp::create(b, loc, i32, vector);
}

/// f32 -> tf32 (round to nearest, ties away), kept in a 32-bit register.
Value roundToTF32(OpBuilder &b, Location loc, Value value) {
  return emitPureAsm(b, loc, b.getI32Type(), value, "cvt.rna.tf32.f32 $0, $1;",
                     "=r,r");
}

/// The registers of every instruction-sized piece of an operand: for each
/// of its struct's groups of `regs * kWidth` elements, `regs` registers.
/// f32 operands are rounded to tf32; with `split`, the second result holds
/// the rounding residues (as tf32) for tf32x3.
std::pair<SmallVector<Value>, SmallVector<Value>>
packOperand(OpBuilder &b, Location loc, ArrayRef<Value> elements,
            unsigned kWidth, bool split) {
  SmallVector<Value> registers, residues;
  for (unsigned start = 0; start < elements.size(); start += kWidth) {
    ArrayRef<Value> piece = elements.slice(start, kWidth);
    if (!piece.front().getType().isF32()) {
      registers.push_back(packRegister(b, loc, piece));
      continue;
    }
    Value big = roundToTF32(b, loc, piece.front());
    registers.push_back(big);
    if (split) {
      Value bigAsFloat = LLVM::BitcastOp::create(b, loc, b.getF32Type(), big);
      Value rest = LLVM::FSubOp::create(b, loc, piece.front(), bigAsFloat);
      residues.push_back(roundToTF32(b, loc, rest));
    }
  }
  return {registers, residues};
}

/// tile.dot with an mma.sync accumulator -> mma.sync instructions.
struct DotOpLowering : public ConvertOpToLLVMPattern<tile::DotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType aType = op.getA().getType(), dType = op.getType();
    auto aLayout = dyn_cast<DotOperandEncodingAttr>(aType.getEncoding());
    // Each operand's and the accumulator's registers by instruction, as
    // their layouts' fragments place them.
    std::optional<FragmentRepetitions> aFragments =
        getFragmentRepetitions(aType);
    std::optional<FragmentRepetitions> bFragments =
        getFragmentRepetitions(op.getB().getType());
    std::optional<FragmentRepetitions> dFragments =
        getFragmentRepetitions(dType);
    if (!getMmaV2Tile(dType.getEncoding()) || !aLayout ||
        !getMmaV2Tile(aLayout) || !aFragments || !bFragments || !dFragments)
      return op.emitError("tile.dot reached the LLVM lowering without "
                          "tensor-core layouts (tilegpu-accelerate-matmul "
                          "assigns them)");
    unsigned kWidth = aLayout.getKWidth();
    MmaInstruction instruction = getMmaInstruction(aType.getElementType());
    unsigned repM = dFragments->reps[0], repN = dFragments->reps[1];
    unsigned repK = aFragments->reps[1];
    bool split = op.getInputPrecision() == tile::InputPrecision::TF32x3 &&
                 aType.getElementType().isF32();

    auto [aRegs, aResidues] =
        packOperand(rewriter, loc, unpackStruct(rewriter, loc, adaptor.getA()),
                    kWidth, split);
    auto [bRegs, bResidues] =
        packOperand(rewriter, loc, unpackStruct(rewriter, loc, adaptor.getB()),
                    kWidth, split);
    SmallVector<Value> acc = unpackStruct(rewriter, loc, adaptor.getC());

    Type accType = instruction.integer ? Type(rewriter.getI32Type())
                                       : Type(rewriter.getF32Type());
    auto resultType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(4, accType));
    std::string text =
        (instruction.text + " {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
                            "{$10,$11,$12,$13};")
            .str();
    std::string out = instruction.integer ? "=r" : "=f";
    std::string constraints =
        out + "," + out + "," + out + "," + out + ",r,r,r,r,r,r,0,1,2,3";
    // The packed registers (kWidth elements each) of a fragment.
    auto registersOf = [&](ArrayRef<Value> regs, ArrayRef<unsigned> positions) {
      SmallVector<Value> result;
      for (unsigned at = 0; at < positions.size(); at += kWidth) {
        assert(positions[at] % kWidth == 0 &&
               positions[at] + kWidth - 1 == positions[at + kWidth - 1] &&
               "a 32-bit register's elements are not adjacent");
        result.push_back(regs[positions[at] / kWidth]);
      }
      return result;
    };
    // Registers of instruction (i, kk) of A and (j, kk) of B.
    auto aSlice = [&](ArrayRef<Value> regs, unsigned i, unsigned kk) {
      return registersOf(regs, aFragments->get({i, kk}));
    };
    auto bSlice = [&](ArrayRef<Value> regs, unsigned j, unsigned kk) {
      return registersOf(regs, bFragments->get({kk, j}));
    };
    auto issue = [&](ArrayRef<Value> a, ArrayRef<Value> b,
                     MutableArrayRef<Value> c) {
      SmallVector<Value> operands(a);
      llvm::append_range(operands, b);
      llvm::append_range(operands, c);
      Value result =
          emitPureAsm(rewriter, loc, resultType, operands, text, constraints);
      for (unsigned e = 0; e < 4; ++e)
        c[e] = LLVM::ExtractValueOp::create(rewriter, loc, result,
                                            ArrayRef<int64_t>{e});
    };
    for (unsigned kk = 0; kk < repK; ++kk)
      for (unsigned i = 0; i < repM; ++i)
        for (unsigned j = 0; j < repN; ++j) {
          ArrayRef<unsigned> cPositions = dFragments->get({i, j});
          SmallVector<Value> c;
          for (unsigned position : cPositions)
            c.push_back(acc[position]);
          // tf32x3: the small cross terms first, then the main product.
          if (split) {
            issue(aSlice(aResidues, i, kk), bSlice(bRegs, j, kk), c);
            issue(aSlice(aRegs, i, kk), bSlice(bResidues, j, kk), c);
          }
          issue(aSlice(aRegs, i, kk), bSlice(bRegs, j, kk), c);
          for (auto [position, value] : llvm::zip_equal(cPositions, c))
            acc[position] = value;
        }
    rewriter.replaceOp(
        op,
        packStruct(rewriter, loc, getTypeConverter()->convertType(dType), acc));
    return success();
  }
};

/// Byte offset, from the tile's start, of storage position (row, column)
/// of `elementBytes`-byte elements before swizzling (the hardware applies
/// it): column blocks of blockLength elements, each holding all rows.
int64_t getUnswizzledByteOffset(const SwizzledTile &smem, int64_t row,
                                int64_t column, int64_t elementBytes) {
  int64_t block = column / smem.blockLength;
  int64_t inBlock = column % smem.blockLength;
  return elementBytes * (block * smem.numRows * smem.blockLength +
                         row * smem.blockLength + inBlock);
}

/// The same offset for a run-time (row, column).
Value emitUnswizzledByteOffset(OpBuilder &b, Location loc,
                               const SwizzledTile &smem, Value row,
                               Value column, int64_t elementBytes) {
  auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
  Value block =
      LLVM::UDivOp::create(b, loc, column, constant(smem.blockLength));
  Value inBlock =
      LLVM::URemOp::create(b, loc, column, constant(smem.blockLength));
  Value elements = LLVM::AddOp::create(
      b, loc,
      LLVM::MulOp::create(b, loc, block,
                          constant(smem.numRows * smem.blockLength)),
      LLVM::AddOp::create(
          b, loc, LLVM::MulOp::create(b, loc, row, constant(smem.blockLength)),
          inBlock));
  return LLVM::MulOp::create(b, loc, elements, constant(elementBytes));
}

/// The wgmma matrix descriptor of a tile of `elementBytes`-byte elements
/// laid out as `smem`, for the core matrices starting at shared address
/// `address` (i32): the
/// address in 16-byte units, the distance between column blocks (leading
/// byte offset) and between groups of 8 rows (stride byte offset), and the
/// swizzle mode of the blocks' row width (128, 64 or 32 bytes).
Value emitMatrixDescriptor(OpBuilder &b, Location loc, const SwizzledTile &smem,
                           Value address, int64_t elementBytes) {
  int64_t blockBytes = smem.blockLength * elementBytes;
  uint64_t mode = blockBytes == 128 ? 1 : blockBytes == 64 ? 2 : 3;
  uint64_t leading = (smem.numRows * blockBytes) >> 4;
  uint64_t stride = (8 * blockBytes) >> 4;
  uint64_t fields = (leading << 16) | (stride << 32) | (mode << 62);
  Value field = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, address, i32Constant(b, loc, 4)),
      i32Constant(b, loc, 0x3FFF));
  Value wide = LLVM::ZExtOp::create(b, loc, b.getI64Type(), field);
  Value constantFields = LLVM::ConstantOp::create(
      b, loc, b.getI64Type(), b.getI64IntegerAttr(int64_t(fields)));
  return LLVM::OrOp::create(b, loc, wide, constantFields);
}

/// The inline-assembly constraint of a wgmma accumulator register: f32, or
/// i32 for the integer products.
StringRef getAccumulatorConstraint(Type type) {
  return type.isF32() ? "f" : "r";
}

/// wgmma.wait_group `pendings` with `accumulators` (f32 or i32) tied
/// through it: the returned values are the ones to read, so that LLVM keeps
/// every read after the wait.
SmallVector<Value> emitWarpGroupWait(OpBuilder &builder, Location loc,
                                     ArrayRef<Value> accumulators,
                                     unsigned pendings) {
  std::string text =
      llvm::formatv("wgmma.wait_group.sync.aligned {0};", pendings).str();
  if (accumulators.empty()) {
    emitInlineAsm(builder, loc, {}, {}, text, "");
    return {};
  }
  std::string constraints;
  SmallVector<Type> types;
  for (Value value : accumulators) {
    constraints += (types.empty() ? "=" : ",=") +
                   getAccumulatorConstraint(value.getType()).str();
    types.push_back(value.getType());
  }
  for (unsigned r = 0; r < accumulators.size(); ++r)
    constraints += "," + std::to_string(r);
  auto waited =
      emitInlineAsm(builder, loc, types, accumulators, text, constraints);
  return unpackStruct(builder, loc, waited.getResult(0));
}

/// The PTX name of a wgmma operand type.
StringRef getWgmmaTypeName(Type type) {
  if (type.isBF16())
    return "bf16";
  if (isa<Float8E4M3FNType>(type))
    return "e4m3";
  if (isa<Float8E5M2Type>(type))
    return "e5m2";
  if (type.isInteger(8))
    return "s8";
  return "f16";
}

/// warp_group_dot -> wgmma.mma_async per warpgroup tile and K step (m64nNk16
/// for 16-bit operands, m64nNk32 for fp8 and i8: 32 bytes of K either way),
/// between wgmma.fence and a commit; then, unless the product is
/// asynchronous (a later warp_group_dot_wait), a wait that hands the
/// accumulators back.
struct WarpGroupDotLowering : public ConvertOpToLLVMPattern<WarpGroupDotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WarpGroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto dType = cast<RankedTensorType>(op.getD().getType());
    std::optional<MmaV2Tile> tile = getMmaV3Tile(dType.getEncoding());
    // A is a shared tile read through descriptors, or registers.
    bool aInRegisters = op.isAInRegisters();
    std::optional<SwizzledTile> aTile;
    if (!aInRegisters)
      aTile = SwizzledTile::get(cast<MemDescType>(op.getA().getType()));
    std::optional<SwizzledTile> bTile = SwizzledTile::get(op.getB().getType());
    Type aElement = op.getAElementType();
    Type bElement = op.getB().getType().getElementType();
    int64_t elementBytes = aElement.getIntOrFloatBitWidth() / 8;
    // Integer products (i8) accumulate in s32 registers, the others in f32.
    Type accElement = dType.getElementType();
    bool integer = accElement.isInteger(32);
    if (!tile ||
        (!aInRegisters && (!aTile || aTile->blockLength * elementBytes < 32)) ||
        !bTile || !(accElement.isF32() || integer) ||
        bTile->blockLength * elementBytes < 32)
      return op.emitError("warp_group_dot needs an f32 or i32 wgmma "
                          "accumulator and swizzled operand tiles with rows "
                          "of 32 bytes or more");
    auto mma = cast<MmaEncodingAttr>(dType.getEncoding());
    unsigned instrN = mma.getInstrShape()[1];
    unsigned perInstr = instrN / 2;
    unsigned repM = llvm::divideCeil(dType.getDimSize(0), tile->ctaTile[0]);
    unsigned repN = llvm::divideCeil(dType.getDimSize(1), tile->ctaTile[1]);
    // Each instruction covers 32 bytes of K.
    unsigned instrK = 32 / elementBytes;
    unsigned repK = op.getAShape()[1] / instrK;
    // K-major operands need no transpose; M- or N-major ones do, which
    // wgmma offers for 16-bit operands only.
    bool transposeA = aTile && aTile->contiguousDim != 1;
    bool transposeB = bTile->contiguousDim != 0;
    if (elementBytes == 1 && (transposeA || transposeB))
      return op.emitError("wgmma reads 8-bit operands K-major only: A's rows "
                          "and B's columns must be contiguous in shared "
                          "memory");
    std::string types = (getWgmmaTypeName(aElement) + "." +
                         getWgmmaTypeName(bElement))
                            .str();

    auto constant = [&](int64_t value) {
      return i32Constant(rewriter, loc, value);
    };
    auto i32 = rewriter.getI32Type();
    Value bAddress =
        LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getB());
    // Descriptors derived from a warp id ptxas knows to be warp-uniform stay
    // in uniform registers, which wgmma reads them from.
    auto [warpM, warpN] = emitMmaWarpCoordinates(
        rewriter, loc, mma, getUniformWarpId(rewriter, loc));
    Value warpgroupRow = LLVM::MulOp::create(
        rewriter, loc, LLVM::UDivOp::create(rewriter, loc, warpM, constant(4)),
        constant(64));
    Value warpgroupColumn =
        LLVM::MulOp::create(rewriter, loc, warpN, constant(instrN));
    // The descriptors of operand tile `smem` at (warp's non-K start + a
    // constant non-K offset, constant K): one descriptor at the warp's start,
    // and the constant part of each position added to it (in 16-byte units;
    // shared addresses stay below 2^18, so the 14-bit address field never
    // carries into the next). The split holds when the warp's start falls
    // on a column-block boundary, always true when it is a row; otherwise
    // each position's descriptor is derived from its address.
    struct OperandDescriptors {
      const SwizzledTile &smem;
      Value address, warpStart, base;
      bool kContiguous;
    };
    auto makeOperand = [&](const SwizzledTile &smem, Value address,
                           Value warpStart, bool kContiguous,
                           unsigned warpStartMultiple) {
      OperandDescriptors operand{smem, address, warpStart, Value(),
                                 kContiguous};
      if (kContiguous || warpStartMultiple % smem.blockLength == 0) {
        Value zero = constant(0);
        Value at = LLVM::AddOp::create(
            rewriter, loc, address,
            emitUnswizzledByteOffset(rewriter, loc, smem,
                                     kContiguous ? warpStart : zero,
                                     kContiguous ? zero : warpStart,
                                     elementBytes));
        operand.base =
            emitMatrixDescriptor(rewriter, loc, smem, at, elementBytes);
      }
      return operand;
    };
    // A descriptor as a value and a constant (16-byte units) the
    // instruction adds to it as it issues: with descriptorsAtIssue, the
    // operand's base and the position's offset (see TileGPUOps.td), else the
    // whole descriptor and 0.
    struct IssuedDescriptor {
      Value value;
      int64_t units = 0;
    };
    auto descriptor = [&](const OperandDescriptors &operand, int64_t other,
                          int64_t k) -> IssuedDescriptor {
      const SwizzledTile &smem = operand.smem;
      int64_t row = operand.kContiguous ? other : k;
      int64_t column = operand.kContiguous ? k : other;
      if (operand.base) {
        int64_t units =
            getUnswizzledByteOffset(smem, row, column, elementBytes) >> 4;
        if (units == 0 || op.getDescriptorsAtIssue())
          return {operand.base, units};
        return {LLVM::AddOp::create(
            rewriter, loc, operand.base,
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(),
                                     rewriter.getI64IntegerAttr(units)))};
      }
      Value otherAt = LLVM::AddOp::create(rewriter, loc, operand.warpStart,
                                          constant(other));
      Value at = LLVM::AddOp::create(
          rewriter, loc, operand.address,
          emitUnswizzledByteOffset(
              rewriter, loc, smem,
              operand.kContiguous ? otherAt : constant(k),
              operand.kContiguous ? constant(k) : otherAt, elementBytes));
      return {emitMatrixDescriptor(rewriter, loc, smem, at, elementBytes)};
    };
    std::optional<OperandDescriptors> aOperand;
    SmallVector<Value> aRegisters;
    if (aInRegisters) {
      aRegisters = packOperand(rewriter, loc,
                               unpackStruct(rewriter, loc, adaptor.getA()),
                               /*kWidth=*/2, /*split=*/false)
                       .first;
    } else {
      Value aAddress =
          LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getA());
      aOperand.emplace(makeOperand(*aTile, aAddress, warpgroupRow,
                                   !transposeA, /*warpStartMultiple=*/64));
    }
    OperandDescriptors bOperand = makeOperand(
        *bTile, bAddress, warpgroupColumn, !transposeB, instrN);

    SmallVector<Value> acc = unpackStruct(rewriter, loc, adaptor.getC());
    std::string outputs, ties;
    for (unsigned r = 0; r < perInstr; ++r) {
      outputs += (r ? ",$" : "$") + std::to_string(r);
      ties += "," + std::to_string(r);
    }
    // Operands after the outputs and their tied inputs. Register A: 4
    // registers of 2 elements, and no transpose flag for it.
    unsigned aIndex = 2 * perInstr;
    std::string aText =
        aInRegisters
            ? llvm::formatv("{{${0},${1},${2},${3}}", aIndex, aIndex + 1,
                            aIndex + 2, aIndex + 3)
                  .str()
            : "$" + std::to_string(aIndex);
    unsigned bIndex = aIndex + (aInRegisters ? 4 : 1);
    // The input scales (imm-scale-a, imm-scale-b: 1), which the integer
    // forms do not take, and the transpose flags, which the 8-bit forms do
    // not take.
    std::string scales = integer ? std::string() : std::string(", 1, 1");
    std::string flags = aInRegisters ? ", " + std::to_string(int(transposeB))
                        : elementBytes == 1
                            ? std::string()
                            : llvm::formatv(", {0}, {1}", int(transposeA),
                                            int(transposeB))
                                  .str();
    // scale-d 0 makes an instruction overwrite its accumulator (d = a * b)
    // rather than add to it.
    StringRef accName = integer ? "s32" : "f32";
    // A descriptor offset the instruction adds (descriptorsAtIssue) goes
    // into a register of the instruction's own scope.
    auto instructionText = [&](int scaleD, int64_t aUnits, int64_t bUnits) {
      std::string prefix, a = aText, b = "$" + std::to_string(bIndex);
      auto offset = [&](std::string &operand, StringRef name, int64_t units) {
        if (units == 0)
          return;
        prefix += llvm::formatv(".reg .b64 {0};\nadd.s64 {0}, {1}, {2};\n",
                                name, operand, units)
                      .str();
        operand = name.str();
      };
      offset(a, "%wgmma_a", aUnits);
      offset(b, "%wgmma_b", bUnits);
      std::string text =
          llvm::formatv("wgmma.mma_async.sync.aligned.m64n{0}k{1}.{2}.{3} "
                        "{{{4}}, {5}, {6}, {7}{8}{9};",
                        instrN, instrK, accName, types, outputs, a, b, scaleD,
                        scales, flags)
              .str();
      return prefix.empty() ? text : "{\n" + prefix + text + "\n}";
    };
    // A product from zero (S = Q K^T in attention) starts each output tile
    // with scale-d 0: no registers are zeroed for it in every iteration.
    bool fromZero = matchPattern(op.getC(), m_AnyZeroFloat()) ||
                    matchPattern(op.getC(), m_Zero());
    Type accType =
        integer ? Type(rewriter.getI32Type()) : rewriter.getF32Type();
    StringRef accConstraint = getAccumulatorConstraint(accType);
    std::string constraints;
    for (unsigned r = 0; r < perInstr; ++r)
      constraints += (r ? ",=" : "=") + accConstraint.str();
    constraints += ties + (aInRegisters ? ",r,r,r,r,l" : ",l,l");
    SmallVector<Type> accTypes(perInstr, accType);

    emitInlineAsm(rewriter, loc, {}, {}, "wgmma.fence.sync.aligned;", "");
    for (unsigned i = 0; i < repM; ++i) {
      for (unsigned j = 0; j < repN; ++j) {
        MutableArrayRef<Value> slice(&acc[(i * repN + j) * perInstr], perInstr);
        if (fromZero)
          for (Value &value : slice)
            value = LLVM::UndefOp::create(rewriter, loc, accType);
        for (unsigned kk = 0; kk < repK; ++kk) {
          SmallVector<Value> operands(slice.begin(), slice.end());
          IssuedDescriptor aDescriptor;
          if (aInRegisters) {
            // The operand's registers of this (M, K) step, in the order of
            // its LayoutMap: 4 pairs per step, K steps, then M.
            auto step = ArrayRef(aRegisters).slice((i * repK + kk) * 4, 4);
            operands.append(step.begin(), step.end());
          } else {
            aDescriptor =
                descriptor(*aOperand, i * tile->ctaTile[0], kk * instrK);
            operands.push_back(aDescriptor.value);
          }
          IssuedDescriptor bDescriptor =
              descriptor(bOperand, j * tile->ctaTile[1], kk * instrK);
          operands.push_back(bDescriptor.value);
          auto product = emitInlineAsm(
              rewriter, loc, accTypes, operands,
              instructionText(kk == 0 && fromZero ? 0 : 1, aDescriptor.units,
                              bDescriptor.units),
              constraints);
          for (unsigned r = 0; r < perInstr; ++r)
            slice[r] = LLVM::ExtractValueOp::create(
                rewriter, loc, product.getResult(0), ArrayRef<int64_t>{r});
        }
      }
    }
    emitInlineAsm(rewriter, loc, {}, {}, "wgmma.commit_group.sync.aligned;",
                  "");
    // An asynchronous product hands its accumulators to a later wait.
    if (!op.getIsAsync())
      acc = emitWarpGroupWait(rewriter, loc, acc, 0);
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(dType),
                                      acc));
    return success();
  }
};

/// warp_group_dot_wait -> wgmma.wait_group with every accumulator register
/// of its inputs tied through it.
struct WarpGroupDotWaitLowering
    : public ConvertOpToLLVMPattern<WarpGroupDotWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WarpGroupDotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> values;
    SmallVector<unsigned> counts;
    for (Value input : adaptor.getInputs()) {
      SmallVector<Value> elements = unpackStruct(rewriter, loc, input);
      if (!llvm::all_of(elements, [](Value v) {
            return v.getType().isF32() || v.getType().isInteger(32);
          }))
        return op.emitError("warp_group_dot_wait expects f32 or i32 "
                            "accumulators");
      counts.push_back(elements.size());
      llvm::append_range(values, elements);
    }
    values = emitWarpGroupWait(rewriter, loc, values, op.getPendings());
    SmallVector<Value> results;
    ArrayRef<Value> rest = values;
    for (auto [output, count] : llvm::zip_equal(op.getOutputs(), counts)) {
      results.push_back(packStruct(
          rewriter, loc, getTypeConverter()->convertType(output.getType()),
          rest.take_front(count)));
      rest = rest.drop_front(count);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void tilelang::lowering::populateDotOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotOpLowering, WarpGroupDotLowering, WarpGroupDotWaitLowering>(
      converter);
}
