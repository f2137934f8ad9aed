"""Atomic updates of one array element, for numba's parallel loops: the solver's threads lower the move
counts of a level's predecessors directly, in any order, and still reach the same values.

numba has no atomic operations on arrays for the CPU, so this is LLVM's ``atomicrmw`` on the element's
address (sequentially consistent; contiguous 1-d arrays, no bounds check). (The won predecessors need
none: every thread writes them the same value.)
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _element_pointer(context, builder, array_type, array, index, index_type):
    ary = context.make_array(array_type)(context, builder, array)
    idx = context.cast(builder, index, index_type, types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, ary, [idx], wraparound=False)


@intrinsic
def atomic_decrement(typingctx, array, index):
    """Lower ``array[index]`` by one, atomically; returns the value it had before."""
    if not isinstance(array, types.Array) or array.ndim != 1 or not isinstance(index, types.Integer):
        return None
    sig = array.dtype(array, index)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        one = ir.Constant(context.get_value_type(signature.args[0].dtype), 1)
        return builder.atomic_rmw("sub", ptr, one, "seq_cst")

    return sig, codegen
