# Many locals (kpyc's environments are hashed; the index grows every few
# names): 40 straight-line names, branches and loop bodies that each bind
# 20 new names and rebind old ones.  Expected values: the kernel's body run
# as plain Python (all exact in float32).
# RUN: --kernel manylocals --dim 4
# IN: x f32 4 2.0 -3.0 0.5 -1.0
# IN: n i32 4 0 1 2 3
# TOL: 1e-6 1e-6
# OUT: out f32 4 33.0 632.0 34.75 517.5
# OUT: cnt i32 4 0 10 20 30
import warp as wp


@wp.kernel
def manylocals(x: wp.array(dtype=float), n: wp.array(dtype=int), out: wp.array(dtype=float), cnt: wp.array(dtype=int)):
    i = wp.tid()
    a0 = x[i]
    a1 = a0 + 1.0
    a2 = a1 + 1.0
    a3 = a2 + 1.0
    a4 = a3 + 1.0
    a5 = a4 + 1.0
    a6 = a5 + 1.0
    a7 = a6 + 1.0
    a8 = a7 + 1.0
    a9 = a8 + 1.0
    a10 = a9 + 1.0
    a11 = a10 + 1.0
    a12 = a11 + 1.0
    a13 = a12 + 1.0
    a14 = a13 + 1.0
    a15 = a14 + 1.0
    a16 = a15 + 1.0
    a17 = a16 + 1.0
    a18 = a17 + 1.0
    a19 = a18 + 1.0
    a20 = a19 + 1.0
    a21 = a20 + 1.0
    a22 = a21 + 1.0
    a23 = a22 + 1.0
    a24 = a23 + 1.0
    a25 = a24 + 1.0
    a26 = a25 + 1.0
    a27 = a26 + 1.0
    a28 = a27 + 1.0
    a29 = a28 + 1.0
    a30 = a29 + 1.0
    a31 = a30 + 1.0
    a32 = a31 + 1.0
    a33 = a32 + 1.0
    a34 = a33 + 1.0
    a35 = a34 + 1.0
    a36 = a35 + 1.0
    a37 = a36 + 1.0
    a38 = a37 + 1.0
    a39 = a38 + 1.0
    if a0 > 0.0:
        b0 = a39 * 2.0
        b1 = b0 - a1
        b2 = b1 - a2
        b3 = b2 - a3
        b4 = b3 - a4
        b5 = b4 - a5
        b6 = b5 - a6
        b7 = b6 - a7
        b8 = b7 - a8
        b9 = b8 - a9
        b10 = b9 - a10
        b11 = b10 - a11
        b12 = b11 - a12
        b13 = b12 - a13
        b14 = b13 - a14
        b15 = b14 - a15
        b16 = b15 - a16
        b17 = b16 - a17
        b18 = b17 - a18
        b19 = b18 - a19
        a5 = b19
    else:
        c0 = a38 * 3.0
        c1 = c0 + a21
        c2 = c1 + a22
        c3 = c2 + a23
        c4 = c3 + a24
        c5 = c4 + a25
        c6 = c5 + a26
        c7 = c6 + a27
        c8 = c7 + a28
        c9 = c8 + a29
        c10 = c9 + a30
        c11 = c10 + a31
        c12 = c11 + a32
        c13 = c12 + a33
        c14 = c13 + a34
        c15 = c14 + a35
        c16 = c15 + a36
        c17 = c16 + a37
        c18 = c17 + a38
        c19 = c18 + a39
        a5 = c19
        a6 = c0
    s = float(0.0)
    k = int(0)
    for j in range(n[i]):
        d0 = s + a5
        d1 = d0 + a1
        d2 = d1 + a2
        d3 = d2 + a3
        d4 = d3 + a4
        d5 = d4 + a5
        d6 = d5 + a6
        d7 = d6 + a7
        d8 = d7 + a8
        d9 = d8 + a9
        d10 = d9 + a10
        d11 = d10 + a11
        d12 = d11 + a12
        d13 = d12 + a13
        d14 = d13 + a14
        d15 = d14 + a15
        d16 = d15 + a16
        d17 = d16 + a17
        d18 = d17 + a18
        d19 = d18 + a19
        s = d19 - a6
        k = k + 1
    m = k
    while k > 0:
        e0 = s * 0.5
        e1 = e0 + 1.0
        e2 = e1 + 1.0
        e3 = e2 + 1.0
        e4 = e3 + 1.0
        e5 = e4 + 1.0
        e6 = e5 + 1.0
        e7 = e6 + 1.0
        e8 = e7 + 1.0
        e9 = e8 + 1.0
        e10 = e9 + 1.0
        e11 = e10 + 1.0
        e12 = e11 + 1.0
        e13 = e12 + 1.0
        e14 = e13 + 1.0
        e15 = e14 + 1.0
        e16 = e15 + 1.0
        e17 = e16 + 1.0
        e18 = e17 + 1.0
        e19 = e18 + 1.0
        s = e19
        k = k - 1
    out[i] = s + a39 - a6
    cnt[i] = m * 10 + k
