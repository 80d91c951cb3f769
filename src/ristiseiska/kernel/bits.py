# mypy: ignore-errors
# (numba-compiled code: numba types it; its intrinsics have no stubs)
"""Bit tricks and the random numbers of the compiled kernel (numba).

Random numbers: SplitMix64, one uint64 state per deal, so a deal is a pure function of its
seed. A bounded draw uses the multiply-shift method on the top 32 bits (the bias, below 2^-32
for our tiny ranges, is far below anything a simulation can see).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from .codes import FULL

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_FULL = np.uint64(FULL)


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one instruction on x86-64)."""
    sig = x(x)

    def codegen(context, builder, signature, args):
        t = context.get_value_type(x)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(t, [t]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, args)

    return sig, codegen


@njit(inline="always")
def popcount(x):
    return np.int64(_ctpop(x))


@njit(inline="always")
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def next_random(state):
    state = state + _GOLDEN
    return state, mix64(state)


@njit(inline="always")
def below(state, k):
    """A uniform integer in [0, k) and the new state."""
    state, r = next_random(state)
    return state, np.int64(((r >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@njit(cache=True)
def derive_seed(seed, i):
    """The seed of deal ``i`` of a run seeded with ``seed`` (twin of ``sim.derive_seed``)."""
    return mix64(mix64(seed) + i * _GOLDEN) >> np.uint64(1)


@njit(inline="always")
def kth_bit(m, k):
    for _ in range(k):
        m &= m - _ONE
    return np.int64(trailing_zeros(m))

