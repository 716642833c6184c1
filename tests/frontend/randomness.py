"""Random states in expressions: rebinding inside conditional expressions,
short-circuit operators and while conditions (the condition is then
evaluated at the top of the loop body)."""
import warp as wp


@wp.kernel
def sample(seed: int, out: wp.array(dtype=float), n: int):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    x = wp.randf(state) if i % 2 == 0 else wp.randn(state) * 0.5
    ok = x > 0.0 and wp.randf(state) < 0.5
    y = float(0.0)
    count = int(0)
    while count < n and wp.randf(state) < 0.9:
        y += wp.randf(state, -1.0, 1.0)
        count += 1
    z = 1.0 if ok else wp.randf(state)
    out[i] = x + y + z + float(wp.randi(state, 0, 4))
