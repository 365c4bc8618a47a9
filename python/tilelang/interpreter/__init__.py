"""The CPU interpreter: ``TILELANG_INTERPRET=1`` or ``@tilelang.jit(interpret=True)``.

``kernel[grid](...)`` then runs the kernel's programs one after another on
the CPU, on NumPy arrays, torch CPU tensors, and CUDA tensors (copied to
the host and back), with the language's semantics and NumPy doing one
operation per tile operation. See docs/interpreter.md.
"""

from tilelang.interpreter.launch import InterpreterError, Launcher, active, call, launch, typed

__all__ = ["InterpreterError", "Launcher", "active", "call", "launch", "typed"]
