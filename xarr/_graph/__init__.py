"""The lazy graph (issue 3): IR, tracer, passes, printer, executor glue. So far: the glue
that runs a fused elementwise program on the C++ executor (fused_program.py)."""
