import warp as wp


@wp.struct
class S:
    x: float


# v.length is a value type's (Warp's resolve_type_attribute); a struct has none
@wp.kernel
def k(s: S, out: wp.array(dtype=int)):
    out[0] = s.length
