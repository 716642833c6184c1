"""wp.static(L[i]) of a module list of integers and the index of a loop
Warp unrolls (issue 14, Warp's test_unique_module): Warp reads L[i] in
each unrolled copy; kpyc selects it.  Forward and gradients."""
import warp as wp

WEIGHTS = [7, 11, -3, 5]
STEPS = (2, 0, 1)


@wp.kernel
def static_list(x: wp.array(dtype=float), y: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(wp.static(len(WEIGHTS))):
        if wp.static(WEIGHTS[k]) == 7:
            acc += x[i] * x[i]
        acc += float(wp.static(WEIGHTS[k])) * x[i]
    for k in range(1, 3):
        acc += float(wp.static(STEPS[k]) * 3) * x[i]
    y[i] = acc
    n[i] = wp.static(WEIGHTS[2]) + i
