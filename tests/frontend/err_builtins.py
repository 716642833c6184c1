# Wrong argument types for builtins: the candidates are listed.
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3i), b: wp.array(dtype=wp.vec3), c: wp.array(dtype=wp.vec3d), n: wp.int64):
    i = wp.tid()
    x = wp.length(a[i])
    y = wp.dot(b[i], c[i])
    z = wp.sin(i)
    w = min(1.0, 2.0, 3.0)
    z = 1.0
    w = 2.0
    s = wp.select(True, 1.0, 2.0)
    print(z, w)
    for j in range(n):
        pass
    q = wp.clamp(z, lo=0.0, hi=1.0)
