"""enum.IntEnum and enum.IntFlag members in kernels (issue 14): Warp reads
each as the int it is, an int32 constant; enum.auto() counts from 1 in an
IntEnum and takes the next power of two in an IntFlag; .value and int()
give the same int."""
import enum

import warp as wp
from enum import IntEnum


class Color(IntEnum):
    RED = 1
    GREEN = enum.auto()
    BLUE = 7
    ALPHA = enum.auto()


class Flags(enum.IntFlag):
    A = 1
    B = enum.auto()
    C = enum.auto()
    D = 16
    E = enum.auto()


GREEN_CONST = wp.constant(wp.int32(Color.GREEN))


@wp.kernel
def enums(ins: wp.array(dtype=int), outs: wp.array(dtype=int), f: wp.array(dtype=float)):
    i = wp.tid()
    v = 0
    if ins[i] & Flags.A:
        v += Flags.A
    if ins[i] & Flags.C:
        v += Flags.C.value * Color.ALPHA
    if ins[i] > Color.GREEN:
        v += int(Flags.E) + GREEN_CONST
    outs[i] = v + (Flags.B | Flags.D) + wp.static(Color.BLUE.value)
    f[i] = float(Color.RED) * f[i]
