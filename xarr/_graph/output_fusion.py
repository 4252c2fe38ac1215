"""kind=kOutput, XLA's output fusion: a dot_general moves into the elementwise fusion
that is its only reader (a pass of the pipeline in xarr/_graph/passes.py, which calls
``fuse_into_dots`` after loop and input fusion). The fused step is
xarr/_graph/compile.py's ``_output_fusion_step``.
"""

from xarr._graph.ir import Instruction

# The ops whose result an elementwise fusion may take over (each has two operands and its
# registry row's impl computes it: compile.py _output_fusion_step).
OUTPUT_FUSIBLE = ("dot_general", "conv_general_dilated")


def fuse_into_dots(comp):
    """kind=kOutput (XLA's output fusion): a dot_general read only by one single-output
    kLoop fusion of its own shape, which reads it element for element (bias add, scaling,
    activation, convert), moves into that fusion: the fused computation computes the dot
    from two new parameters and the elementwise work on its result; the executor runs the
    GEMM, then that work over the product, as one step (compile.py
    _output_fusion_step; not yet per block as the GEMM finishes it - measured, that pass
    is ~0.3 ms of a 19 ms 1024^3 f32 product). Worked example: relu(x @ w + b) ->
    fusion(x, w, b), kind=kOutput { d = dot(p1, p2); ROOT max(add(d, broadcast(p0)), 0) }.
    Returns whether a fusion changed (the caller then re-sorts and drops the moved dots)."""
    users = comp.users()
    changed = False
    for f in list(comp.instructions):
        if f.op != "fusion" or f.attrs.get("kind") != "kLoop" or f.is_tuple or \
                f.type.m2m is not None:
            continue
        fused = f.calls[0]
        for k, d in enumerate(f.operands):
            if d.op not in OUTPUT_FUSIBLE or len(users[d]) != 1 or d.dims != f.dims or \
                    d.type.m2m is not None or f.operands.count(d) != 1 or \
                    any(o.is_tuple for o in d.operands):
                continue
            param = next(p for p in fused.parameters if p.attrs["number"] == k)
            if param.dims != f.dims:
                continue
            _move_dot_into(f, k, d, param)
            f.attrs = dict(f.attrs, kind="kOutput")
            changed = True
            break
    return changed


def _move_dot_into(f, k, d, param):
    """Operand k of fusion f (the dot d, read through ``param``) becomes an instruction of
    its fused computation over two new parameters: d's operands, appended to f's operands
    (the parameters after k are renumbered)."""
    fused = f.calls[0]
    del f.operands[k]
    fused.parameters.remove(param)
    fused.instructions.remove(param)
    for p in fused.parameters:
        if p.attrs["number"] > k:
            p.attrs = dict(p.attrs, number=p.attrs["number"] - 1)
            p.name = f"param_{p.attrs['number']}.{p.name.split('.', 1)[-1]}"
    front = []
    for x in d.operands:
        p = Instruction("parameter", (), x.type, {"number": len(f.operands)})
        p.name = f"param_{len(f.operands)}.{fused.module.unique_name('p').split('.')[1]}"
        p.computation = fused
        fused.parameters.append(p)
        f.operands.append(x)
        front.append(p)
    dot = Instruction(d.op, front, d.type, dict(d.attrs), (), fused)
    dot.name = d.name
    for i in fused.instructions:
        i.operands = [dot if o is param else o for o in i.operands]
    if fused.root is param:
        fused.root = dot
    fused.instructions[:0] = front + [dot]     # before every reader
