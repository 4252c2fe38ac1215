"""The lazy graph: IR and tracer (ir.py, pytree.py, trace.py: below the op families), then
the passes, the compiler to the fused executor, native kernels, xa.jit, xa.lazy and the
control-flow ops (passes.py, compile.py, native.py, jit.py, lazy.py, control.py: above
them). docs/architecture.md draws the layers."""
