// Malformed input is reported as an error at its location and tilelang-opt
// exits with a plain failure, never a crash (`not` without --crash fails on a
// crash signal).
// RUN: not tilelang-opt %s -split-input-file 2>&1 | FileCheck %s

// An op cut off in the middle of its operands.
func.func @truncated() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:28: error: expected attribute value
  %0 = tile.make_range 0 to
// -----

// An op the tile dialect does not define.
func.func @unknown_op() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: custom op 'tile.nonexistent' is unknown
  %0 = tile.nonexistent : i32
  return
}

// -----

// A pointer type without a pointee.
// CHECK: parse-errors.mlir:[[@LINE+2]]:44: error: expected non-function type
// CHECK: parse-errors.mlir:[[@LINE+1]]:44: error: failed to parse Tile_PointerType parameter 'pointeeType'
func.func private @empty_pointer(!tile.ptr<>)

// -----

// A pointer type whose '<' is never closed.
// CHECK: parse-errors.mlir:[[@LINE+1]]:46: error: unbalanced '<' character in pretty dialect name
func.func private @unclosed_pointer(!tile.ptr<f32, 1)

// -----

// A pointer type with a stray '>'.
// CHECK: parse-errors.mlir:[[@LINE+1]]:51: error: expected ')'
func.func private @extra_bracket(!tile.ptr<f32, 1>>)

// -----

// A tile type the dialect does not define.
// CHECK: parse-errors.mlir:[[@LINE+1]]:39: error: unknown  type `pointer` in dialect `tile`
func.func private @unknown_type(!tile.pointer<f32>)

// -----

// A function body whose closing brace is missing.
func.func @unclosed_body() {
  %0 = tile.program_id x : i32
  // CHECK: parse-errors.mlir:[[@LINE+1]]:9: error: expected operation name in quotes
  return
// -----

// A closing brace too many.
func.func @extra_brace() {
  return
// CHECK: parse-errors.mlir:[[@LINE+1]]:2: error: expected operation name in quotes
}}

// -----

// A reduce without its combine region.
func.func @reduce_without_region(%x: tensor<8xf32>) -> f32 {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:54: error: expected '{' to begin a region
  %0 = tile.reduce %x axis = 0 : tensor<8xf32> -> f32
  return %0 : f32
}

// -----

// A scan without its combine region.
func.func @scan_without_region(%x: tensor<8xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:45: error: expected '{' to begin a region
  %0 = tile.scan %x axis = 0 : tensor<8xf32>
  return
}

// -----

// A reduce region whose closing brace is missing swallows the rest of the
// function.
func.func @reduce_unclosed_region(%x: tensor<8xf32>) -> f32 {
  %0 = tile.reduce %x axis = 0 : tensor<8xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  // CHECK: parse-errors.mlir:[[@LINE+1]]:3: error: Dialect `' not found for custom op 'return'
  return %0 : f32
}

// -----

// A reduce with an empty combine region parses but does not verify.
func.func @reduce_empty_region(%x: tensor<8xf32>) -> f32 {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: 'tile.reduce' op expects a non-empty block
  %0 = tile.reduce %x axis = 0 : tensor<8xf32> -> f32 {}
  return %0 : f32
}

// -----

// make_range without its 'to' keyword.
func.func @make_range_without_to() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:26: error: custom op 'tile.make_range' expected 'to'
  %0 = tile.make_range 0 128 : tensor<128xi32>
  return
}

// -----

// make_range bounds are 32-bit.
func.func @make_range_too_large() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:29: error: integer constant out of range for attribute
  %0 = tile.make_range 0 to 4294967296 : tensor<128xi32>
  return
}

// -----

// program_id without its axis.
func.func @program_id_without_axis() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:24: error: custom op 'tile.program_id' expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]
  %0 = tile.program_id : i32
  return
}

// -----

// A load without its type.
func.func @load_without_type(%p: !tile.ptr<f32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:20: error: expected ':'
  %0 = tile.load %p
  return
}

// -----

// A dot without the '*' between its operand types.
func.func @dot_without_star(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:47: error: expected '*'
  %0 = tile.dot %a, %a, %c : tensor<16x16xf16> tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// An atomic_rmw missing the comma after its kind.
func.func @atomic_missing_comma(%p: !tile.ptr<f32>, %v: f32) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:28: error: expected ','
  %0 = tile.atomic_rmw fadd relaxed, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

// A print prefix that is never closed.
func.func @unterminated_string() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:27: error: expected '"' in string literal
  tile.print "unterminated
  return
}

// -----

// A use of a value that was never defined.
func.func @undefined_value() {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:19: error: use of undeclared SSA value name
  %0 = tile.splat %undefined : f32 -> tensor<4xf32>
  return
}

// -----

// An order array whose '>' is missing.
func.func @unclosed_array(%x: tensor<4x8xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:46: error: expected '>' to close an array attribute
  %0 = tile.trans %x {order = array<i32: 1, 0} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

// An order that is not an i32 array.
func.func @order_not_array(%x: tensor<4x8xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:22: error: custom op 'tile.trans' 'tile.trans' op attribute 'order' failed to satisfy constraint: i32 dense array attribute
  %0 = tile.trans %x {order = 5 : i32} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

// A tensor type whose '>' is missing.
func.func @unclosed_tensor(%x: f32) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:43: error: expected '>' in tensor type
  %0 = tile.splat %x : f32 -> tensor<4xf32
  return
}

// -----

// Unranked tensors are not tile tensors.
func.func @unranked(%x: tensor<*xf32>) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:26: error: custom op 'tile.reshape' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'
  %0 = tile.reshape %x : tensor<*xf32> -> tensor<4xf32>
  return
}

// -----

// A generic op that names a result it does not have.
func.func @named_no_result(%x: f32) {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:3: error: cannot name an operation with no results
  %0 = "tile.splat"(%x) : (f32) -> ()
  return
}
