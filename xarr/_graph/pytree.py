"""Pytrees: nested tuples, lists and dicts of leaves (tensors, scalars), as xa.jit's
arguments and results and the loop state of xa.lax.while_loop are.

>>> leaves = []
>>> struct = flatten((a, {"b": b, "c": [c]}), leaves)       # leaves == [a, b, c]
>>> unflatten(struct, iter([x, y, z]))                      # (x, {"b": y, "c": [z]})
"""


def flatten(tree, leaves):
    """Appends tree's leaves to ``leaves``; returns the structure (a hashable skeleton)."""
    t = type(tree)
    if t is tuple or t is list:
        return (t, tuple(flatten(x, leaves) for x in tree))
    if t is dict:
        keys = tuple(sorted(tree))
        return (dict, keys, tuple(flatten(tree[k], leaves) for k in keys))
    if tree is None:
        return None
    leaves.append(tree)
    return "*"


def unflatten(struct, it):
    """The tree of ``struct`` with its leaves taken from iterator ``it`` in order."""
    if struct == "*":
        return next(it)
    if struct is None:
        return None
    if struct[0] is dict:
        return {k: unflatten(s, it) for k, s in zip(struct[1], struct[2])}
    items = [unflatten(s, it) for s in struct[1]]
    return tuple(items) if struct[0] is tuple else items
