/* Random numbers: splitmix64 seeds a xoshiro256** state per kernel.
 *
 * Each kernel's state is a pure function of (seed, index): no stream is shared across
 * kernels, so kernel i of --count N equals kernel i of any larger count and builds can
 * be sharded.  Only integer arithmetic decides choices, so output is the same on every
 * platform. */
#include "kgen.h"

uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void
rng_for_kernel(Rng *r, uint64_t seed, uint64_t index)
{
	uint64_t x = seed;
	uint64_t y;
	int i;

	/* mix seed, then index, so that (s, i) and (i, s) differ */
	y = splitmix64(&x);
	x = y ^ (index * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull);
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
rng_next(Rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

int
rng_below(Rng *r, int n)
{
	if (n <= 0)
		die("rng_below(%d)", n);
	/* 64-bit draw: the modulo bias is far below anything observable */
	return (int)(rng_next(r) % (uint64_t)n);
}

int
rng_range(Rng *r, int lo, int hi)
{
	if (hi < lo)
		die("rng_range(%d, %d)", lo, hi);
	return lo + rng_below(r, hi - lo + 1);
}

bool
rng_pct(Rng *r, int pct)
{
	return rng_below(r, 100) < pct;
}

int
rng_weighted(Rng *r, const int *w, int n)
{
	int i, total = 0, x;

	for (i = 0; i < n; i++)
		total += w[i] > 0 ? w[i] : 0;
	if (total <= 0)
		die("no positive weight among %d", n);
	x = rng_below(r, total);
	for (i = 0; i < n; i++) {
		if (w[i] <= 0)
			continue;
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}
