# Warp's typing: no implicit conversions between scalar types.
import warp as wp


@wp.kernel
def mixing(a: wp.array(dtype=float), d: wp.array(dtype=wp.float64), n: wp.array(dtype=int)):
    i = wp.tid()
    x = a[i] * 2
    y = d[i] + 1.0
    v = wp.vec3(1.0) * 2
    a[i] = 1
    d[i] = 1.0
    u = wp.vec3(n[i], 1.0, 2.0)
    z = a[i] if n[i] > 0 else 0
    if 0.0 < a[i] < 1:
        pass


@wp.kernel
def rebinding(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    x = 1.0
    x = 1
    s = i
    if a[i] > 0.0:
        y = 1.0
    else:
        y = 1
    a[i] = y


@wp.kernel
def retyping_after_blocks(a: wp.array(dtype=float), n: int):
    # Warp merges the two versions of y even though nothing reads y later
    if n > 2:
        y = 1.0
    else:
        y = 1
    # the loop variable and the names a loop binds stay known after it
    for i in range(n):
        t = a[i]
    i = 1.5
    t = 1


@wp.kernel
def slot_update(v: wp.array(dtype=wp.vec3), n: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    v[i].z *= 2.0
    n[i].x *= 2
    v[i].x += 1.0
