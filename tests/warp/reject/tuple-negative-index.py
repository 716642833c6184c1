import warp as wp


# Warp's tuple extract takes no index from the end (extract<-1> does not
# compile)
@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    t = (a[i], 2.0)
    a[i] = t[-1]
