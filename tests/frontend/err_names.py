# Unknown names, host objects and missing functions: every error of the
# file is reported, each at its place.
import argparse

import warp as wp

parser = argparse.ArgumentParser()


def host_helper(x):
    return x


@wp.kernel
def k1(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = undefined_name + 1.0


@wp.kernel
def k2(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = host_helper(a[i])


@wp.kernel
def k3(a: wp.array(dtype=float)):
    a[0] = wp.no_such_builtin(1.0)


@wp.kernel
def k4(a: wp.array(dtype=float)):
    a[0] = float(parser)


@wp.kernel
def k5(a: wp.array(dtype=float)):
    k1(a)
    a[0] = sum(a)
