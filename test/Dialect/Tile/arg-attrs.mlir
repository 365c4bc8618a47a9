// Kernel argument attributes of the tile dialect.
// RUN: tilelang-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Divisibility on pointers and integers round-trips.
// CHECK-LABEL: func @aligned
// CHECK-SAME: !tile.ptr<f16> {tile.divisibility = 16 : i32}
// CHECK-SAME: i32 {tile.divisibility = 8 : i32}
func.func @aligned(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 8 : i32}) {
  return
}

// -----

// Divisibility must be a power of two.
// expected-error @+1 {{'tile.divisibility' of argument 0 must be a positive power-of-two integer, got 12 : i32}}
func.func @not_power_of_two(%p: !tile.ptr<f16> {tile.divisibility = 12 : i32}) {
  return
}

// -----

// Divisibility must be an integer.
// expected-error @+1 {{'tile.divisibility' of argument 0 must be a positive power-of-two integer, got "16"}}
func.func @string(%p: !tile.ptr<f16> {tile.divisibility = "16"}) {
  return
}

// -----

// Divisibility says nothing about floats.
// expected-error @+1 {{'tile.divisibility' applies to integer and pointer arguments; argument 1 is 'f32'}}
func.func @float(%p: !tile.ptr<f16>, %x: f32 {tile.divisibility = 16 : i32}) {
  return
}

// -----

// Unknown tile attributes are rejected rather than ignored.
// expected-error @+1 {{unknown tile argument attribute 'tile.alignment' on argument 0}}
func.func @unknown(%p: !tile.ptr<f16> {tile.alignment = 16 : i32}) {
  return
}

// -----

// An entry block with fewer arguments than the function type is the
// function's own error, even with divisibility on the missing argument.
// expected-error @+1 {{'func.func' op entry block must have 2 arguments to match function signature}}
"func.func"() <{function_type = (i32, i32) -> (), sym_name = "fewer",
                arg_attrs = [{tile.divisibility = 16 : i32}, {tile.divisibility = 16 : i32}]}> ({
^bb0(%x: i32):
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A declaration has no entry block: divisibility is checked on its type.
// CHECK-LABEL: func private @declared
// CHECK-SAME: (i32 {tile.divisibility = 16 : i32})
func.func private @declared(i32 {tile.divisibility = 16 : i32})

// -----

// ... and still applies only to integers and pointers.
// expected-error @+1 {{'tile.divisibility' applies to integer and pointer arguments; argument 0 is 'f32'}}
func.func private @declared_float(f32 {tile.divisibility = 16 : i32})
