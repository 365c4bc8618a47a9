// convert-tilegpu-to-llvm: the f32 math functions that an NVVM approximation
// alone would get wrong. log1p and expm1 pick a series below a threshold
// (|x| < 1/4, |x| < 1/2), where lg2/ex2 of 1 + x or minus 1 would cancel;
// tanh is built on that expm1; pow handles negative bases (odd integer
// exponents negate, others give NaN) and y == 0 or x == 1 give 1.
// RUN: tilelang-opt %s --split-input-file --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func internal @log1p
  // CHECK: llvm.fdiv
  // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
  // CHECK: %[[Q:.*]] = llvm.mlir.constant(2.500000e-01 : f32) : f32
  // CHECK-NEXT: %[[SMALL:.*]] = llvm.fcmp "olt" %{{.*}}, %[[Q]] : f32
  // CHECK-NEXT: llvm.select %[[SMALL]], %{{.*}}, %{{.*}} : i1, f32
  func.func private @log1p(%x: f32) -> f32 {
    %r = math.log1p %x : f32
    return %r : f32
  }

  // CHECK-LABEL: llvm.func internal @expm1
  // CHECK: llvm.mlir.constant(2.75573188E-6 : f32) : f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
  // CHECK: %[[H:.*]] = llvm.mlir.constant(5.000000e-01 : f32) : f32
  // CHECK-NEXT: %[[SMALL:.*]] = llvm.fcmp "olt" %{{.*}}, %[[H]] : f32
  // CHECK-NEXT: llvm.select %[[SMALL]], %{{.*}}, %{{.*}} : i1, f32
  func.func private @expm1(%x: f32) -> f32 {
    %r = math.expm1 %x : f32
    return %r : f32
  }

  // CHECK-LABEL: llvm.func internal @tanh
  // CHECK: %[[T:.*]] = llvm.select
  // CHECK: %[[N:.*]] = llvm.fneg %[[T]] : f32
  // CHECK: %[[R:.*]] = llvm.fdiv %[[N]], %{{.*}} : f32
  // CHECK: llvm.intr.copysign(%[[R]], %{{.*}}) : (f32, f32) -> f32
  func.func private @tanh(%x: f32) -> f32 {
    %r = math.tanh %x : f32
    return %r : f32
  }

  // CHECK-LABEL: llvm.func internal @pow
  // CHECK: llvm.intr.fabs
  // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
  // CHECK: %[[MAG:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
  // CHECK: %[[INT:.*]] = llvm.fcmp "oeq" %{{.*}}, %arg1 : f32
  // CHECK: %[[ODDHALF:.*]] = llvm.fcmp "une"
  // CHECK: %[[ODD:.*]] = llvm.and %[[INT]], %[[ODDHALF]] : i1
  // CHECK: %[[NEG:.*]] = llvm.fcmp "olt" %arg0
  // CHECK: %[[NEGMAG:.*]] = llvm.fneg %[[MAG]] : f32
  // CHECK: %[[NEGODD:.*]] = llvm.and %[[NEG]], %[[ODD]] : i1
  // CHECK: %[[SIGNED:.*]] = llvm.select %[[NEGODD]], %[[NEGMAG]], %[[MAG]] : i1, f32
  // CHECK: %[[NAN:.*]] = llvm.mlir.constant(0x7FC00000 : f32) : f32
  // CHECK: %[[R:.*]] = llvm.select %{{.*}}, %[[NAN]], %[[SIGNED]] : i1, f32
  // CHECK: %[[ISONE:.*]] = llvm.fcmp "oeq" %arg0
  // CHECK: %[[ZEROEXP:.*]] = llvm.fcmp "oeq" %arg1
  // CHECK: %[[EITHER:.*]] = llvm.or %[[ZEROEXP]], %[[ISONE]] : i1
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
  // CHECK: llvm.select %[[EITHER]], %[[ONE]], %[[R]] : i1, f32
  func.func private @pow(%x: f32, %y: f32) -> f32 {
    %r = math.powf %x, %y : f32
    return %r : f32
  }
}

// -----

// f64 log1p, expm1 and tanh: Kahan's corrections on the accurate f64 log and
// exp (MathF64.cpp), with the exact cases (u == 1, u - 1 == -1, u == inf)
// selected; tanh from expm1 as in f32.
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func internal @log1p_f64
  // CHECK: %[[U:.*]] = llvm.fadd %arg0, %{{.*}} : f64
  // CHECK: %[[D:.*]] = llvm.fsub %[[U]], %{{.*}} : f64
  // CHECK: %[[Q:.*]] = llvm.fdiv %arg0, %[[D]] : f64
  // CHECK: %[[R:.*]] = llvm.fmul %{{.*}}, %[[Q]] : f64
  // CHECK: %[[EXACT:.*]] = llvm.fcmp "oeq" %[[D]], %{{.*}} : f64
  // CHECK: %[[R2:.*]] = llvm.select %[[EXACT]], %arg0, %[[R]] : i1, f64
  // CHECK: %[[INF:.*]] = llvm.fcmp "oeq" %[[U]], %{{.*}} : f64
  // CHECK: llvm.select %[[INF]], %[[U]], %[[R2]] : i1, f64
  func.func private @log1p_f64(%x: f64) -> f64 {
    %r = math.log1p %x : f64
    return %r : f64
  }

  // CHECK-LABEL: llvm.func internal @expm1_f64
  // CHECK: %[[D:.*]] = llvm.fsub %[[U:.*]], %{{.*}} : f64
  // CHECK: %[[N:.*]] = llvm.fmul %[[D]], %arg0 : f64
  // CHECK: %[[R:.*]] = llvm.fdiv %[[N]], %{{.*}} : f64
  // CHECK: llvm.select %{{.*}}, %arg0, %[[R]] : i1, f64
  // CHECK: llvm.select %{{.*}}, %[[D]], %{{.*}} : i1, f64
  // CHECK: llvm.select %{{.*}}, %[[U]], %{{.*}} : i1, f64
  func.func private @expm1_f64(%x: f64) -> f64 {
    %r = math.expm1 %x : f64
    return %r : f64
  }

  // CHECK-LABEL: llvm.func internal @tanh_f64
  // CHECK: llvm.intr.fabs(%arg0) : (f64) -> f64
  // CHECK: llvm.fneg %{{.*}} : f64
  // CHECK: llvm.intr.copysign(%{{.*}}, %arg0) : (f64, f64) -> f64
  func.func private @tanh_f64(%x: f64) -> f64 {
    %r = math.tanh %x : f64
    return %r : f64
  }
}
