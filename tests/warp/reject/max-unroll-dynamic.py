import warp as wp


# max_unroll 4: range(8) is a dynamic loop, where a constant cannot change
@wp.kernel(module="unique", module_options={"max_unroll": 4})
def k(a: wp.array(dtype=float)):
    x = 0.0
    for j in range(8):
        x = x + a[j]
    a[0] = x
