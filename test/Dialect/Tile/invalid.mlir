// Every verifier rule of the tile dialect rejects a bad op with its message:
// the C++ verifiers, the ODS type constraints and traits (reached through the
// generic op form where the custom form cannot express the mistake), the
// pointer type's verifier, and the enum keywords of the custom forms.
// RUN: tilelang-opt %s -split-input-file -verify-diagnostics

// program_id yields an i32.
func.func @f() {
  // expected-error @+1 {{result #0 must be 32-bit signless integer, but got 'i64'}}
  %0 = tile.program_id x : i64
  return
}

// -----

// num_programs yields an integer type, not index.
func.func @f() {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.integer, but found 'index'}}
  %0 = tile.num_programs y : index
  return
}

// -----

// The grid has only axes x, y and z.
func.func @f() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]}}
  %0 = tile.program_id w : i32
  return
}

// -----

// An out-of-range axis in the generic form is rejected when converting properties.
func.func @f() {
  // expected-error @+1 {{Invalid attribute `axis` in property conversion: 3 : i32}}
  %0 = "tile.program_id"() <{axis = 3 : i32}> : () -> i32
  return
}

// -----

// make_range: end must exceed start (empty range).
func.func @f() {
  // expected-error @+1 {{'tile.make_range' op end (8) must be greater than start (8)}}
  %0 = tile.make_range 8 to 8 : tensor<0xi32>
  return
}

// -----

// make_range: end must exceed start (reversed range).
func.func @f() {
  // expected-error @+1 {{end (0) must be greater than start (16)}}
  %0 = tile.make_range 16 to 0 : tensor<16xi32>
  return
}

// -----

// make_range: the element count is a power of two.
func.func @f() {
  // expected-error @+1 {{number of elements (end - start = 12) must be a power of two}}
  %0 = tile.make_range 0 to 12 : tensor<12xi32>
  return
}

// -----

// make_range: the result length is end - start.
func.func @f() {
  // expected-error @+1 {{result must be tensor<16xi32> for the range [0, 16), got 'tensor<32xi32>'}}
  %0 = tile.make_range 0 to 16 : tensor<32xi32>
  return
}

// -----

// make_range: the result is 1-D.
func.func @f() {
  // expected-error @+1 {{result must be tensor<16xi32> for the range [0, 16), got 'tensor<4x4xi32>'}}
  %0 = tile.make_range 0 to 16 : tensor<4x4xi32>
  return
}

// -----

// make_range: the result holds i32.
func.func @f() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer values, but got 'tensor<16xi64>'}}
  %0 = tile.make_range 0 to 16 : tensor<16xi64>
  return
}

// -----

// splat: the result element type is the source type.
func.func @f(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result element type 'f16' differs from the source type 'f32'}}
  %0 = tile.splat %x : f32 -> tensor<4xf16>
  return
}

// -----

// splat: the source is a scalar.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be tile element, but got 'tensor<4xf32>'}}
  %0 = tile.splat %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// splat: the result is a tensor.
func.func @f(%x: f32) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'f32'}}
  %0 = tile.splat %x : f32 -> f32
  return
}

// -----

// broadcast: element types agree.
func.func @f(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op element types of source ('f32') and result ('f16') differ}}
  %0 = tile.broadcast %x : tensor<1x4xf32> -> tensor<8x4xf16>
  return
}

// -----

// broadcast: ranks agree.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{source rank (1) differs from result rank (2); use tile.expand_dims first}}
  %0 = tile.broadcast %x : tensor<4xf32> -> tensor<8x4xf32>
  return
}

// -----

// broadcast: every source dimension is 1 or the result's.
func.func @f(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{dimension 0 of the source has size 2, which is neither 1 nor the result's 8}}
  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>
  return
}

// -----

// expand_dims: axis is at most the source rank.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range [0, 1]}}
  %0 = tile.expand_dims %x {axis = 2 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

// expand_dims: axis is not negative.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis -1 is out of range [0, 1]}}
  %0 = tile.expand_dims %x {axis = -1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

// expand_dims: the unit dimension sits at axis.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{result type must be 'tensor<1x4xf32>', got 'tensor<4x1xf32>'}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

// expand_dims: the element type is kept.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{result type must be 'tensor<4x1xf32>', got 'tensor<4x1xi32>'}}
  %0 = tile.expand_dims %x {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xi32>
  return
}

// -----

// expand_dims: axis is required.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op requires attribute 'axis'}}
  %0 = tile.expand_dims %x : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

// reshape: the element count is kept.
func.func @f(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'tile.reshape' op source has 16 elements but the result has 32}}
  %0 = tile.reshape %x : tensor<4x4xf32> -> tensor<32xf32>
  return
}

// -----

// reshape: the element type is kept.
func.func @f(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{element types of source ('f32') and result ('i32') differ}}
  %0 = tile.reshape %x : tensor<4x4xf32> -> tensor<16xi32>
  return
}

// -----

// trans: order has one entry per dimension.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.trans' op order has 1 entries but the source has rank 2}}
  %0 = tile.trans %x {order = array<i32: 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// trans: order entries are below the rank.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order entry 2 is out of range [0, 2)}}
  %0 = tile.trans %x {order = array<i32: 2, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

// trans: order entries are not negative.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order entry -1 is out of range [0, 2)}}
  %0 = tile.trans %x {order = array<i32: -1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

// trans: order is a permutation (no duplicates).
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order is not a permutation: 1 appears twice}}
  %0 = tile.trans %x {order = array<i32: 1, 1>} : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

// trans: the result shape is the permuted source shape.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result type must be 'tensor<8x4xf32>', got 'tensor<4x8xf32>'}}
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// trans: the element type is kept.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result type must be 'tensor<8x4xf32>', got 'tensor<8x4xf16>'}}
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf16>
  return
}

// -----

// addptr: pointer and offset tensors have one shape.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error @+1 {{'tile.addptr' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, tensor<8xi32>
  return
}

// -----

// addptr: a scalar pointer takes a scalar offset.
func.func @f(%p: !tile.ptr<f32>, %o: tensor<8xi32>) {
  // expected-error @+1 {{'tile.addptr' op if an operand is non-scalar, then there must be at least one non-scalar result}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, tensor<8xi32>
  return
}

// -----

// addptr: the offset is an integer.
func.func @f(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{operand #1 must be integer or tensor of integers, but got 'f32'}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return
}

// -----

// addptr: a tensor offset holds integers.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be integer or tensor of integers, but got 'tensor<4xf32>'}}
  %0 = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  return
}

// -----

// addptr: the base is a pointer.
func.func @f(%p: i64, %o: i32) {
  // expected-error @+1 {{operand #0 must be pointer or tensor of pointers, but got 'i64'}}
  %0 = tile.addptr %p, %o : i64, i32
  return
}

// -----

// addptr: the result has the pointer's type (AllTypesMatch).
func.func @f(%p: !tile.ptr<f32>, %o: i32) {
  // expected-error @+1 {{failed to verify that all of {ptr, result} have same type}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, i32) -> !tile.ptr<f16>
  return
}

// -----

// load: 'other' needs a 'mask'.
func.func @f(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tile.load' op 'other' requires a 'mask'}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (!tile.ptr<f32>, f32) -> f32
  return
}

// -----

// load: 'wb' is a store cache modifier.
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{cache modifier 'wb' applies to stores only}}
  %0 = tile.load %p cache = wb : !tile.ptr<f32>
  return
}

// -----

// load: 'wt' is a store cache modifier.
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{cache modifier 'wt' applies to stores only}}
  %0 = tile.load %p cache = wt : !tile.ptr<f32>
  return
}

// -----

// store: 'ca' is a load cache modifier.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.store' op cache modifier 'ca' applies to loads only}}
  tile.store %p, %v cache = ca : !tile.ptr<f32>
  return
}

// -----

// store: 'cv' is a load cache modifier.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{cache modifier 'cv' applies to loads only}}
  tile.store %p, %v cache = cv : !tile.ptr<f32>
  return
}

// -----

// load: the result is the pointee type (TypesMatchWith).
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{failed to verify that result is the pointee of ptr}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tile.ptr<f32>) -> f16
  return
}

// -----

// load: the result has the pointer tensor's shape.
func.func @f(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{failed to verify that result is the pointee of ptr}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tile.ptr<f32>>) -> tensor<8xf32>
  return
}

// -----

// load: the mask has the pointer tensor's shape.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{failed to verify that mask is i1 of the shape of ptr}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

// load: the mask holds i1.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi32>) {
  // expected-error @+1 {{operand #1 must be i1 or tensor of i1, but got 'tensor<4xi32>'}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

// load: 'other' has the pointee type.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that other is the pointee of ptr}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x!tile.ptr<f32>>, tensor<4xi1>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// load: the custom form takes a pointer type.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'tile.load' 'ptr' must be pointer or tensor of pointers, but got 'tensor<4xf32>'}}
  %0 = tile.load %x : tensor<4xf32>
  return
}

// -----

// load: in the custom form the mask type is implied by the pointer type.
// expected-note @+1 {{prior use here}}
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<4xi1>' vs 'tensor<8xi1>'}}
  %0 = tile.load %p, %m : tensor<4x!tile.ptr<f32>>
  return
}

// -----

// load: operandSegmentSizes is required (AttrSizedOperandSegments).
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{operand count (1) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  %0 = "tile.load"(%p) : (!tile.ptr<f32>) -> f32
  return
}

// -----

// load: operandSegmentSizes has one entry per operand group.
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{size mismatch in attribute conversion: 2 vs 3}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0>}> : (!tile.ptr<f32>) -> f32
  return
}

// -----

// load: operandSegmentSizes sums to the operand count.
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{operand count (1) does not match with the total size (2) specified in attribute 'operandSegmentSizes'}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tile.ptr<f32>) -> f32
  return
}

// -----

// load: an optional operand group has at most one value.
func.func @f(%p: !tile.ptr<f32>, %m: i1) {
  // expected-error @+1 {{operand group starting at #1 requires 0 or 1 element, but found 2}}
  %0 = "tile.load"(%p, %m, %m) <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (!tile.ptr<f32>, i1, i1) -> f32
  return
}

// -----

// load: operandSegmentSizes entries are not negative.
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'operandSegmentSizes' attribute cannot have negative elements}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, -1, 1>}> : (!tile.ptr<f32>) -> f32
  return
}

// -----

// store: the value is the pointee type.
func.func @f(%p: !tile.ptr<f32>, %v: f16) {
  // expected-error @+1 {{'tile.store' op failed to verify that value is the pointee of ptr}}
  "tile.store"(%p, %v) : (!tile.ptr<f32>, f16) -> ()
  return
}

// -----

// store: the mask has the pointer tensor's shape.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: i1) {
  // expected-error @+1 {{failed to verify that mask is i1 of the shape of ptr}}
  "tile.store"(%p, %v, %m) : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>, i1) -> ()
  return
}

// -----

// Unknown cache modifiers do not parse.
func.func @f(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'cache' [none, ca, cg, cs, cv, wb, wt]}}
  %0 = tile.load %p cache = bogus : !tile.ptr<f32>
  return
}

// -----

// Unknown eviction policies do not parse.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'evict' [evict_normal, evict_first, evict_last]}}
  tile.store %p, %v evict = evict_never : !tile.ptr<f32>
  return
}

// -----

// dot: operands are at least 2-D.
func.func @f(%a: tensor<16xf16>, %b: tensor<16xf16>, %c: tensor<16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be 2-D, or 3-D with a leading batch dimension; 'a' has rank 1}}
  %0 = tile.dot %a, %b, %c : tensor<16xf16> * tensor<16xf16> -> tensor<16xf32>
  return
}

// -----

// dot: operands are at most 3-D.
func.func @f(%a: tensor<1x1x16x16xf16>, %b: tensor<1x1x16x16xf16>, %c: tensor<1x1x16x16xf32>) {
  // expected-error @+1 {{operands must be 2-D, or 3-D with a leading batch dimension; 'a' has rank 4}}
  %0 = tile.dot %a, %b, %c : tensor<1x1x16x16xf16> * tensor<1x1x16x16xf16> -> tensor<1x1x16x16xf32>
  return
}

// -----

// dot: a, b and c have one rank.
func.func @f(%a: tensor<16x16xf16>, %b: tensor<2x16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'a', 'b' and 'c' must have the same rank, got 2, 3 and 2}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<2x16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// dot: the K dimensions of a and b agree.
func.func @f(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inner dimensions differ: 'a' is 16x32 and 'b' is 16x16}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// dot: the accumulator is MxN.
func.func @f(%a: tensor<32x16xf16>, %b: tensor<16x64xf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{accumulator must be 32x64 for a 32x16 by 16x64 product, got 64x32}}
  %0 = tile.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x64xf16> -> tensor<64x32xf32>
  return
}

// -----

// dot: a and b have one batch size.
func.func @f(%a: tensor<2x16x16xf16>, %b: tensor<4x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{batch dimensions differ: 2x16x16, 4x16x16 and 2x16x16}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16> * tensor<4x16x16xf16> -> tensor<2x16x16xf32>
  return
}

// -----

// dot: a and c have one batch size.
func.func @f(%a: tensor<2x16x16xf16>, %b: tensor<2x16x16xf16>, %c: tensor<4x16x16xf32>) {
  // expected-error @+1 {{batch dimensions differ: 2x16x16, 2x16x16 and 4x16x16}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16> * tensor<2x16x16xf16> -> tensor<4x16x16xf32>
  return
}

// -----

// dot: M is at least 16.
func.func @f(%a: tensor<8x16xf16>, %b: tensor<16x16xf16>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{M, N and K must each be at least 16, got M=8, N=16, K=16}}
  %0 = tile.dot %a, %b, %c : tensor<8x16xf16> * tensor<16x16xf16> -> tensor<8x16xf32>
  return
}

// -----

// dot: N is at least 16.
func.func @f(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{M, N and K must each be at least 16, got M=16, N=8, K=16}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x8xf16> -> tensor<16x8xf32>
  return
}

// -----

// dot: K is at least 16.
func.func @f(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{M, N and K must each be at least 16, got M=16, N=16, K=8}}
  %0 = tile.dot %a, %b, %c : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// dot: i32 is not an operand element type.
func.func @f(%a: tensor<16x16xi32>, %b: tensor<16x16xi32>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{operand element type 'i32' is not one of f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i8}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xi32> * tensor<16x16xi32> -> tensor<16x16xi32>
  return
}

// -----

// dot: b's element type is checked too.
func.func @f(%a: tensor<16x16xi8>, %b: tensor<16x16xi16>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{operand element type 'i16' is not one of f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i8}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xi8> * tensor<16x16xi16> -> tensor<16x16xi32>
  return
}

// -----

// dot: pointers are not operand elements.
func.func @f(%a: tensor<16x16x!tile.ptr<f16>>, %b: tensor<16x16x!tile.ptr<f16>>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operand element type '!tile.ptr<f16>' is not one of f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i8}}
  %0 = tile.dot %a, %b, %c : tensor<16x16x!tile.ptr<f16>> * tensor<16x16x!tile.ptr<f16>> -> tensor<16x16xf32>
  return
}

// -----

// dot: a and b have one element type.
func.func @f(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operand element types differ: 'f16' and 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

// dot: only fp8 kinds mix, not fp8 with f16.
func.func @f(%a: tensor<16x16xf8E4M3FN>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operand element types differ: 'f8E4M3FN' and 'f16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf8E4M3FN> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// dot: i8 products accumulate in i32.
func.func @f(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{cannot accumulate 'i8' products in 'f32'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

// dot: bf16 products accumulate in f32 only.
func.func @f(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{cannot accumulate 'bf16' products in 'f16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf16>
  return
}

// -----

// dot: f64 products accumulate in f64.
func.func @f(%a: tensor<16x16xf64>, %b: tensor<16x16xf64>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{cannot accumulate 'f64' products in 'f32'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf32>
  return
}

// -----

// dot: f32 products accumulate in f32.
func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{cannot accumulate 'f32' products in 'f16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf16>
  return
}

// -----

// dot: inputPrecision applies to f32 operands only.
func.func @f(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inputPrecision applies to f32 operands only, got 'f16'}}
  %0 = tile.dot %a, %b, %c inputPrecision = ieee : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// dot: maxNumImpreciseAcc applies to fp8 operands only.
func.func @f(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{maxNumImpreciseAcc applies to fp8 operands only}}
  %0 = tile.dot %a, %b, %c maxNumImpreciseAcc = 32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// dot: unknown input precisions do not parse.
func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'inputPrecision' [tf32, tf32x3, ieee]}}
  %0 = tile.dot %a, %b, %c inputPrecision = bf16x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

// dot: the result has the accumulator's type (AllTypesMatch).
func.func @f(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{failed to verify that all of {c, d} have same type}}
  %0 = "tile.dot"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf16>
  return
}

// -----

// dot: operands are tensors.
func.func @f(%a: f16, %c: f32) {
  // expected-error @+1 {{operand #0 must be tensor with power-of-two dimensions of tile element values, but got 'f16'}}
  %0 = "tile.dot"(%a, %a, %c) : (f16, f16, f32) -> f32
  return
}

// -----

// reduce: the combine block takes two arguments per source.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op combine region must take 2 arguments of types ('f32', 'f32'): the running values, then the new ones}}
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: combine arguments have the source element types.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{combine region must take 2 arguments of types ('f32', 'f32'): the running values, then the new ones}}
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f16, %b: f16):
    tile.reduce.return %a : f16
  }
  return
}

// -----

// reduce: combine arguments are scalars, not tensors.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{combine region must take 2 arguments of types ('f32', 'f32'): the running values, then the new ones}}
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    tile.reduce.return %a : tensor<8xf32>
  }
  return
}

// -----

// reduce: with several sources, the running values come first, then the new ones.
func.func @f(%x: tensor<4x8xf32>, %i: tensor<4x8xi32>) {
  // expected-error @+1 {{combine region must take 4 arguments of types ('f32', 'i32', 'f32', 'i32'): the running values, then the new ones}}
  %0:2 = tile.reduce %x, %i axis = 1 : tensor<4x8xf32>, tensor<4x8xi32> -> tensor<4xf32>, tensor<4xi32> {
  ^bb0(%a: f32, %b: f32, %ai: i32, %bi: i32):
    tile.reduce.return %a, %ai : f32, i32
  }
  return
}

// -----

// reduce: the combine block ends with a terminator.
func.func @f(%x: tensor<4x8xf32>) {
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{block with no terminator}}
    %s = arith.addf %a, %b : f32
  }
  return
}

// -----

// reduce: the combine block is not empty.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op expects a non-empty block}}
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
  }
  return
}

// -----

// reduce: the combine region has a single block.
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op expects region #0 to have 0 or 1 blocks}}
  %0 = tile.reduce %x axis = 0 : tensor<8xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    cf.br ^bb1
  ^bb1:
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: the terminator is tile.reduce.return (any other terminator).
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op combine region must end with 'tile.reduce.return'}}
  %0 = tile.reduce %x axis = 0 : tensor<8xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    llvm.unreachable
  }
  return
}

// -----

// reduce: tile.scan.return cannot end a reduce region.
func.func @f(%x: tensor<4x8xf32>) {
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'tile.scan.return' op expects parent op 'tile.scan'}}
    tile.scan.return %a : f32
  }
  return
}

// -----

// reduce: the combine region returns the element types.
func.func @f(%x: tensor<4x8xf32>) {
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %i = arith.constant 0 : i32
    // expected-error @+1 {{'tile.reduce.return' op must return 1 values of types ('f32'), one per source}}
    tile.reduce.return %i : i32
  }
  return
}

// -----

// reduce: the combine region returns one value per source (too many).
func.func @f(%x: tensor<4x8xf32>) {
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{must return 1 values of types ('f32'), one per source}}
    tile.reduce.return %a, %b : f32, f32
  }
  return
}

// -----

// reduce: the combine region returns one value per source (none).
func.func @f(%x: tensor<4x8xf32>) {
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{must return 1 values of types ('f32'), one per source}}
    tile.reduce.return
  }
  return
}

// -----

// reduce: one result per source.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op has 1 sources but 2 results}}
  %0:2 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: the result drops the reduced axis.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 0 must be 'tensor<4xf32>', got 'tensor<8xf32>'}}
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: the reduced axis is dropped, not kept as size 1.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 0 must be 'tensor<4xf32>', got 'tensor<4x1xf32>'}}
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4x1xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: reducing a 1-D tensor gives a scalar.
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{result 0 must be 'f32', got 'tensor<1xf32>'}}
  %0 = tile.reduce %x axis = 0 : tensor<8xf32> -> tensor<1xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: the result keeps the element type.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 0 must be 'tensor<4xf32>', got 'tensor<4xf16>'}}
  %0 = tile.reduce %x axis = 1 : tensor<4x8xf32> -> tensor<4xf16> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: axis is below the rank.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range [0, 2)}}
  %0 = tile.reduce %x axis = 2 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: axis is not negative.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis -1 is out of range [0, 2)}}
  %0 = tile.reduce %x axis = -1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

// reduce: all sources have one shape.
func.func @f(%x: tensor<4x8xf32>, %i: tensor<8x4xi32>) {
  // expected-error @+1 {{'tile.reduce' op sources must have one shape, got 4x8 and 8x4}}
  %0:2 = tile.reduce %x, %i axis = 1 : tensor<4x8xf32>, tensor<8x4xi32> -> tensor<4xf32>, tensor<8xi32> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    tile.reduce.return %a, %ai : f32, i32
  }
  return
}

// -----

// reduce: at least one source.
func.func @f() {
  // expected-error @+1 {{'tile.reduce' op needs at least one source}}
  "tile.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    tile.reduce.return
  }) : () -> ()
  return
}

// -----

// reduce: the combine region has exactly one block.
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op region #0 ('combineOp') failed to verify constraint: region with 1 blocks}}
  %0 = "tile.reduce"(%x) <{axis = 0 : i32}> ({}) : (tensor<8xf32>) -> f32
  return
}

// -----

// reduce: sources are tensors.
func.func @f(%x: f32) {
  // expected-error @+1 {{'tile.reduce' op operand #0 must be variadic of tensor with power-of-two dimensions of tile element values, but got 'f32'}}
  %0 = "tile.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }) : (f32) -> f32
  return
}

// -----

// reduce.return only appears in a reduce region.
func.func @f(%x: f32) {
  // expected-error @+1 {{'tile.reduce.return' op expects parent op 'tile.reduce'}}
  tile.reduce.return %x : f32
}

// -----

// scan.return only appears in a scan region.
func.func @f(%x: f32) {
  // expected-error @+1 {{'tile.scan.return' op expects parent op 'tile.scan'}}
  tile.scan.return %x : f32
}

// -----

// scan: the combine block takes two arguments per source.
func.func @f(%x: tensor<8xi32>) {
  // expected-error @+1 {{'tile.scan' op combine region must take 2 arguments of types ('i32', 'i32'): the running values, then the new ones}}
  %0 = tile.scan %x axis = 0 : tensor<8xi32> {
  ^bb0(%a: i32, %b: i32, %c: i32):
    tile.scan.return %a : i32
  }
  return
}

// -----

// scan: the combine block ends with a terminator.
func.func @f(%x: tensor<8xi32>) {
  %0 = tile.scan %x axis = 0 : tensor<8xi32> {
  ^bb0(%a: i32, %b: i32):
    // expected-error @+1 {{block with no terminator}}
    %s = arith.addi %a, %b : i32
  }
  return
}

// -----

// scan: tile.reduce.return cannot end a scan region.
func.func @f(%x: tensor<8xi32>) {
  %0 = tile.scan %x axis = 0 : tensor<8xi32> {
  ^bb0(%a: i32, %b: i32):
    // expected-error @+1 {{'tile.reduce.return' op expects parent op 'tile.reduce'}}
    tile.reduce.return %a : i32
  }
  return
}

// -----

// scan: the terminator is tile.scan.return (any other terminator).
func.func @f(%x: tensor<8xi32>) {
  // expected-error @+1 {{'tile.scan' op combine region must end with 'tile.scan.return'}}
  %0 = tile.scan %x axis = 0 : tensor<8xi32> {
  ^bb0(%a: i32, %b: i32):
    llvm.unreachable
  }
  return
}

// -----

// scan: the combine region returns the element types.
func.func @f(%x: tensor<8xi32>) {
  %0 = tile.scan %x axis = 0 : tensor<8xi32> {
  ^bb0(%a: i32, %b: i32):
    %e = arith.extsi %a : i32 to i64
    // expected-error @+1 {{'tile.scan.return' op must return 1 values of types ('i32'), one per source}}
    tile.scan.return %e : i64
  }
  return
}

// -----

// scan: axis is below the rank.
func.func @f(%x: tensor<8xi32>) {
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range [0, 1)}}
  %0 = tile.scan %x axis = 1 : tensor<8xi32> {
  ^bb0(%a: i32, %b: i32):
    tile.scan.return %a : i32
  }
  return
}

// -----

// scan: all sources have one shape.
func.func @f(%x: tensor<8xi32>, %y: tensor<16xf32>) {
  // expected-error @+1 {{'tile.scan' op sources must have one shape, got 8 and 16}}
  %0:2 = tile.scan %x, %y axis = 0 : tensor<8xi32>, tensor<16xf32> {
  ^bb0(%a: i32, %af: f32, %b: i32, %bf: f32):
    tile.scan.return %a, %af : i32, f32
  }
  return
}

// -----

// scan: results have the sources' types (RangedTypesMatchWith).
func.func @f(%x: tensor<8xi32>) {
  // expected-error @+1 {{'tile.scan' op failed to verify that results have the types of the sources}}
  %0 = "tile.scan"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    tile.scan.return %a : i32
  }) : (tensor<8xi32>) -> tensor<8xi64>
  return
}

// -----

// scan: one result per source.
func.func @f(%x: tensor<8xi32>) {
  // expected-error @+1 {{'tile.scan' op failed to verify that results have the types of the sources}}
  %0:2 = "tile.scan"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    tile.scan.return %a : i32
  }) : (tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>)
  return
}

// -----

// scan: at least one source.
func.func @f() {
  // expected-error @+1 {{'tile.scan' op needs at least one source}}
  "tile.scan"() <{axis = 0 : i32}> ({
  ^bb0:
    tile.scan.return
  }) : () -> ()
  return
}

// -----

// atomic_rmw: fadd needs floats.
func.func @f(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'fadd' needs f16, bf16, f32 or f64 elements, got 'i32'}}
  %0 = tile.atomic_rmw fadd, relaxed, gpu, %p, %v : !tile.ptr<i32>
  return
}

// -----

// atomic_rmw: fadd has no fp8 form.
func.func @f(%p: !tile.ptr<f8E4M3FN>, %v: f8E4M3FN) {
  // expected-error @+1 {{'fadd' needs f16, bf16, f32 or f64 elements, got 'f8E4M3FN'}}
  %0 = tile.atomic_rmw fadd, relaxed, gpu, %p, %v : !tile.ptr<f8E4M3FN>
  return
}

// -----

// atomic_rmw: add needs integers.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'add' needs i32 or i64 elements, got 'f32'}}
  %0 = tile.atomic_rmw add, relaxed, gpu, %p, %v : tensor<4x!tile.ptr<f32>>
  return
}

// -----

// atomic_rmw: add needs 32- or 64-bit integers.
func.func @f(%p: !tile.ptr<i16>, %v: i16) {
  // expected-error @+1 {{'add' needs i32 or i64 elements, got 'i16'}}
  %0 = tile.atomic_rmw add, relaxed, gpu, %p, %v : !tile.ptr<i16>
  return
}

// -----

// atomic_rmw: bitwise kinds need integers.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'and' needs i32 or i64 elements, got 'f32'}}
  %0 = tile.atomic_rmw and, relaxed, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

// atomic_rmw: unsigned max needs integers.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'umax' needs i32 or i64 elements, got 'f32'}}
  %0 = tile.atomic_rmw umax, relaxed, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

// atomic_rmw: max needs 32- or 64-bit elements.
func.func @f(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'max' needs i32, i64, f32 or f64 elements, got 'i8'}}
  %0 = tile.atomic_rmw max, relaxed, gpu, %p, %v : !tile.ptr<i8>
  return
}

// -----

// atomic_rmw: min has no f16 form.
func.func @f(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'min' needs i32, i64, f32 or f64 elements, got 'f16'}}
  %0 = tile.atomic_rmw min, relaxed, gpu, %p, %v : !tile.ptr<f16>
  return
}

// -----

// atomic_rmw: xchg needs 32- or 64-bit elements (PTX has no 16-bit exchange).
func.func @f(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'xchg' needs 32- or 64-bit integer or float elements, got 'i8'}}
  %0 = tile.atomic_rmw xchg, relaxed, gpu, %p, %v : !tile.ptr<i8>
  return
}

// -----

// atomic_rmw: xchg does not take pointer elements.
func.func @f(%p: !tile.ptr<!tile.ptr<f32>>, %v: !tile.ptr<f32>) {
  // expected-error @+1 {{'xchg' needs 32- or 64-bit integer or float elements, got '!tile.ptr<f32>'}}
  %0 = tile.atomic_rmw xchg, relaxed, gpu, %p, %v : !tile.ptr<!tile.ptr<f32>>
  return
}

// -----

// atomic_rmw: val is the pointee type.
func.func @f(%p: !tile.ptr<f32>, %v: f16) {
  // expected-error @+1 {{'tile.atomic_rmw' op failed to verify that val is the pointee of ptr}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = 4 : i32, sem = 0 : i32, scope = 0 : i32}> : (!tile.ptr<f32>, f16) -> f32
  return
}

// -----

// atomic_rmw: the result is the pointee type.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{failed to verify that result is the pointee of ptr}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = 4 : i32, sem = 0 : i32, scope = 0 : i32}> : (!tile.ptr<f32>, f32) -> f16
  return
}

// -----

// atomic_rmw: the mask has the pointer tensor's shape.
func.func @f(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<8xi1>) {
  // expected-error @+1 {{failed to verify that mask is i1 of the shape of ptr}}
  %0 = "tile.atomic_rmw"(%p, %v, %m) <{kind = 4 : i32, sem = 0 : i32, scope = 0 : i32}> : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>, tensor<8xi1>) -> tensor<4xf32>
  return
}

// -----

// atomic_rmw: an out-of-range kind in the generic form is rejected.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{Invalid attribute `kind` in property conversion: 42 : i32}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = 42 : i32, sem = 0 : i32, scope = 0 : i32}> : (!tile.ptr<f32>, f32) -> f32
  return
}

// -----

// atomic_rmw: unknown kinds do not parse.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [and, or, xor, add, fadd, max, min, umax, umin, xchg]}}
  %0 = tile.atomic_rmw fmul, relaxed, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

// atomic_rmw: unknown memory semantics do not parse.
func.func @f(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'sem' [relaxed, acquire, release, acq_rel]}}
  %0 = tile.atomic_rmw fadd, seq_cst, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

// atomic_cas: unknown scopes do not parse.
func.func @f(%p: !tile.ptr<i32>, %c: i32, %v: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'scope' [gpu, cta, sys]}}
  %0 = tile.atomic_cas relaxed, warp, %p, %c, %v : !tile.ptr<i32>
  return
}

// -----

// atomic_cas: needs 16-, 32- or 64-bit elements.
func.func @f(%p: !tile.ptr<i8>, %c: i8, %v: i8) {
  // expected-error @+1 {{'tile.atomic_cas' op needs 16-, 32- or 64-bit integer or float elements, got 'i8'}}
  %0 = tile.atomic_cas acq_rel, gpu, %p, %c, %v : !tile.ptr<i8>
  return
}

// -----

// atomic_cas: does not take pointer elements.
func.func @f(%p: !tile.ptr<!tile.ptr<f32>>, %c: !tile.ptr<f32>, %v: !tile.ptr<f32>) {
  // expected-error @+1 {{needs 16-, 32- or 64-bit integer or float elements, got '!tile.ptr<f32>'}}
  %0 = tile.atomic_cas acq_rel, gpu, %p, %c, %v : !tile.ptr<!tile.ptr<f32>>
  return
}

// -----

// atomic_cas: cmp is the pointee type.
func.func @f(%p: !tile.ptr<i32>, %c: i64, %v: i32) {
  // expected-error @+1 {{'tile.atomic_cas' op failed to verify that cmp is the pointee of ptr}}
  %0 = "tile.atomic_cas"(%p, %c, %v) <{sem = 3 : i32, scope = 0 : i32}> : (!tile.ptr<i32>, i64, i32) -> i32
  return
}

// -----

// atomic_cas: val is the pointee type.
func.func @f(%p: !tile.ptr<i32>, %c: i32, %v: i64) {
  // expected-error @+1 {{failed to verify that val is the pointee of ptr}}
  %0 = "tile.atomic_cas"(%p, %c, %v) <{sem = 3 : i32, scope = 0 : i32}> : (!tile.ptr<i32>, i32, i64) -> i32
  return
}

// -----

// atomic_cas: the result is the pointee type.
func.func @f(%p: !tile.ptr<i32>, %c: i32, %v: i32) {
  // expected-error @+1 {{failed to verify that result is the pointee of ptr}}
  %0 = "tile.atomic_cas"(%p, %c, %v) <{sem = 3 : i32, scope = 0 : i32}> : (!tile.ptr<i32>, i32, i32) -> i64
  return
}

// -----

// bitcast: shapes agree.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.bitcast' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tile.bitcast %x : tensor<4xf32> -> tensor<8xi32>
  return
}

// -----

// bitcast: a scalar stays a scalar.
func.func @f(%x: f32) {
  // expected-error @+1 {{'tile.bitcast' op if a result is non-scalar, then at least one operand must be non-scalar}}
  %0 = tile.bitcast %x : f32 -> tensor<1xi32>
  return
}

// -----

// bitcast: element widths agree.
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{source elements have 32 bits but result elements have 16}}
  %0 = tile.bitcast %x : tensor<4xf32> -> tensor<4xi16>
  return
}

// -----

// bitcast: pointers count as 64 bits.
func.func @f(%x: !tile.ptr<f32>) {
  // expected-error @+1 {{source elements have 64 bits but result elements have 32}}
  %0 = tile.bitcast %x : !tile.ptr<f32> -> i32
  return
}

// -----

// int_to_ptr: addresses are i64.
func.func @f(%x: i32) {
  // expected-error @+1 {{'tile.int_to_ptr' op addresses must be i64, got 'i32'}}
  %0 = tile.int_to_ptr %x : i32 -> !tile.ptr<f32>
  return
}

// -----

// int_to_ptr: shapes agree.
func.func @f(%x: tensor<4xi64>) {
  // expected-error @+1 {{'tile.int_to_ptr' op all non-scalar operands/results must have the same shape and base type}}
  %0 = tile.int_to_ptr %x : tensor<4xi64> -> tensor<8x!tile.ptr<f32>>
  return
}

// -----

// int_to_ptr: the source is an integer.
func.func @f(%x: f64) {
  // expected-error @+1 {{operand #0 must be integer or tensor of integers, but got 'f64'}}
  %0 = tile.int_to_ptr %x : f64 -> !tile.ptr<f32>
  return
}

// -----

// ptr_to_int: addresses are i64.
func.func @f(%x: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.ptr_to_int' op addresses must be i64, got 'i32'}}
  %0 = tile.ptr_to_int %x : tensor<4x!tile.ptr<f32>> -> tensor<4xi32>
  return
}

// -----

// ptr_to_int: shapes agree.
func.func @f(%x: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.ptr_to_int' op if an operand is non-scalar, then there must be at least one non-scalar result}}
  %0 = tile.ptr_to_int %x : tensor<4x!tile.ptr<f32>> -> i64
  return
}

// -----

// print: isSigned has one entry per argument.
func.func @f(%x: i32) {
  // expected-error @+1 {{'tile.print' op isSigned has 2 entries for 1 arguments}}
  tile.print "x" {isSigned = array<i32: 1, 0>} %x : i32
  return
}

// -----

// print: isSigned is empty without arguments.
func.func @f() {
  // expected-error @+1 {{isSigned has 1 entries for 0 arguments}}
  tile.print "x" {isSigned = array<i32: 1>}
  return
}

// -----

// print: isSigned entries are 0 or 1.
func.func @f(%x: i32) {
  // expected-error @+1 {{isSigned entries must be 0 or 1, got 2}}
  tile.print "x" {isSigned = array<i32: 2>} %x : i32
  return
}

// -----

// assert: the condition is i1.
func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tile.assert' op operand #0 must be i1 or tensor of i1, but got 'tensor<4xi32>'}}
  tile.assert %x, "bad" : tensor<4xi32>
  return
}

// -----

// The pointee is not a tensor.
// expected-error @+1 {{pointee type must be an integer, a float or a pointer, got 'tensor<4xf32>'}}
func.func private @f(!tile.ptr<tensor<4xf32>>)

// -----

// The pointee is not index.
// expected-error @+1 {{pointee type must be an integer, a float or a pointer, got 'index'}}
func.func private @f(!tile.ptr<index>)

// -----

// The pointee is not a vector.
// expected-error @+1 {{pointee type must be an integer, a float or a pointer, got 'vector<4xf32>'}}
func.func private @f(!tile.ptr<vector<4xf32>>)

// -----

// The pointee is not a complex number.
// expected-error @+1 {{pointee type must be an integer, a float or a pointer, got 'complex<f32>'}}
func.func private @f(!tile.ptr<complex<f32>>)

// -----

// Pointee integers are signless (unsigned).
// expected-error @+1 {{pointee integer type must be signless, got 'ui32'}}
func.func private @f(!tile.ptr<ui32>)

// -----

// Pointee integers are signless (signed).
// expected-error @+1 {{pointee integer type must be signless, got 'si8'}}
func.func private @f(!tile.ptr<si8>)

// -----

// Pointer element types of tensors are verified too.
// expected-error @+1 {{pointee integer type must be signless, got 'ui8'}}
func.func private @f(tensor<4x!tile.ptr<ui8>>)

// -----

// The address space is not negative.
// expected-error @+1 {{address space must be non-negative, got -1}}
func.func private @f(!tile.ptr<f32, -1>)

// -----

// Block shapes are static: no dynamic dimensions.
func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be tensor with power-of-two dimensions of tile element values, but got 'tensor<?xf32>'}}
  %r = tile.reshape %x : tensor<?xf32> -> tensor<4xf32>
  return
}

// -----

// Pointee integers have the widths memory ops support.
// expected-error @+1 {{pointee integers are i1, i8, i16, i32 or i64, got 'i7'}}
func.func private @odd_width(!tile.ptr<i7>)

// -----

// Pointee floats are the tile float types.
// expected-error @+1 {{pointee floats are f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got 'f128'}}
func.func private @wide_float(!tile.ptr<f128>)

// -----

// The generic form cannot give load a second pointer.
func.func @two_pointers(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) {
  // expected-error @+1 {{takes one pointer, an optional mask and an optional 'other' (operandSegmentSizes is malformed)}}
  %v = "tile.load"(%p, %q) <{operandSegmentSizes = array<i32: 2, 0, 0>}> : (!tile.ptr<f32>, !tile.ptr<f32>) -> f32
  return
}

// -----

// PTX accesses take a cache operator or an eviction priority, not both.
func.func @cache_and_evict(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{cannot combine cache modifier 'cg' with eviction policy 'evict_last'}}
  %v = tile.load %p cache = cg evict = evict_last : !tile.ptr<f32>
  return
}

// -----

// PTX's ld.volatile takes no cache operator or eviction priority.
func.func @volatile_and_evict(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{a volatile load takes no cache modifier or eviction policy}}
  %v = tile.load %p evict = evict_first volatile : !tile.ptr<f32>
  return
}

// -----

func.func @volatile_and_cache(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{a volatile load takes no cache modifier or eviction policy}}
  %v = tile.load %p cache = cg volatile : !tile.ptr<f32>
  return
}

// -----

// Block dimensions are powers of two, as in Triton.
func.func @ragged_block(%x: f32) {
  // expected-error @+1 {{result #0 must be tensor with power-of-two dimensions of tile element values, but got 'tensor<160xf32>'}}
  %t = tile.splat %x : f32 -> tensor<160xf32>
  return
}

// -----

// Tensor descriptors: one extent and one stride per block dimension.
func.func @descriptor_rank(%p: !tile.ptr<f32>, %n: i32) {
  %c1 = arith.constant 1 : i64
  // expected-error @+1 {{a descriptor of 2-dimensional blocks needs 2 extents and strides, got 1 and 1}}
  %d = tile.make_tensor_descriptor %p, [%n], [%c1] : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x16xf32>>
  return
}

// -----

// The base points to the blocks' element type.
func.func @descriptor_element(%p: !tile.ptr<f16>, %n: i32) {
  %c1 = arith.constant 1 : i64
  // expected-error @+1 {{base points to 'f16' but the blocks hold 'f32'}}
  %d = tile.make_tensor_descriptor %p, [%n], [%c1] : !tile.ptr<f16> -> !tile.tensordesc<tensor<16xf32>>
  return
}

// -----

// Block dimensions are powers of two.
// expected-error @+1 {{tensor descriptor block dimensions must be powers of two, got 'tensor<48xf32>'}}
func.func @descriptor_block(%d: !tile.tensordesc<tensor<48xf32>>) {
  return
}

// -----

// One offset per dimension.
func.func @descriptor_offsets(%d: !tile.tensordesc<tensor<16x16xf32>>, %i: i32) {
  // expected-error @+1 {{takes 2 offsets for '!tile.tensordesc<tensor<16x16xf32>>', got 1}}
  %v = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<16x16xf32>> -> tensor<16x16xf32>
  return
}

// -----

// Stores write blocks of the descriptor's type.
func.func @descriptor_store_type(%d: !tile.tensordesc<tensor<16xf32>>, %i: i32, %v: tensor<16xf16>) {
  // expected-error @+1 {{stored type 'tensor<16xf16>' is not the descriptor's block type 'tensor<16xf32>'}}
  tile.descriptor_store %d[%i], %v : !tile.tensordesc<tensor<16xf32>>, tensor<16xf16>
  return
}

// -----

// A hint has one value per dimension (one for a scalar).
func.func @hint_rank(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'multiple_of' has 1 values for a value of rank 2}}
  tile.hint %x {multiple_of = array<i64: 16>} : tensor<4x8xi32>
  return
}

// -----

// Hint values are positive.
func.func @hint_positive(%x: i32) {
  // expected-error @+1 {{'max_contiguous' values must be positive, got 0}}
  tile.hint %x {max_contiguous = array<i64: 0>} : i32
  return
}

// -----

// A hint promises something.
func.func @hint_empty(%x: i32) {
  // expected-error @+1 {{promises nothing: it needs multiple_of, max_contiguous or max_constancy}}
  tile.hint %x : i32
  return
}

// -----

// Hints are about integers and pointers.
func.func @hint_float(%x: f32) {
  // expected-error @+1 {{operand #0 must be integer or tensor of integers or pointer or tensor of pointers, but got 'f32'}}
  tile.hint %x {multiple_of = array<i64: 16>} : f32
  return
}

// -----

// An assumption is a scalar i1.
func.func @assume_tensor(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be 1-bit signless integer, but got 'tensor<4xi1>'}}
  "tile.assume"(%x) : (tensor<4xi1>) -> ()
  return
}
