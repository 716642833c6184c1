# wp.static() over a loop index that kpyc cannot value as Warp does: never
# the module's value of the name (issue 23).
import warp as wp

X = 999
funcs = (wp.sin, wp.cos)


@wp.kernel
def k(out: wp.array(dtype=int), f: wp.array(dtype=float), n: int):
    idx = 0
    for X in range(2):
        for X in range(3):
            if f[X] > 0.0:
                break
        out[idx] = wp.static(X)
        idx += 1
    for X in range(n):
        out[X] = wp.static(X)
    for X in reversed(range(3)):
        out[X] = wp.static(X + 1)
    for X in range(3):
        out[X] = wp.static(X // 2)
    for i in range(2):
        f[i] = wp.static(funcs[i])(f[i])
    for X in range(3):
        y = out[0]
        out[X] = wp.static(X + y)
    for X in range(-3, 0):
        out[X + 3] = wp.static(X // 2)
