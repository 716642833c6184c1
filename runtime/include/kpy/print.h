/*
 * kpy/print.h — kpy::print(x): Warp's print() formats, one value per call,
 * ending with a newline (warp/native/builtin.h):
 *   floats           %g                       0.1
 *   signed ints      %d / %lld                -5
 *   unsigned ints    %u / %llu                250
 *   bool             True / False
 *   vectors          "%g " per component      1 2 3  (trailing space)
 *   matrices         one such line per row
 *   quaternions      %g %g %g %g
 *   transforms       (%g %g %g) (%g %g %g %g)
 *   strings          %s
 * Components of composites print through float, as in Warp.
 */
#ifndef KPY_PRINT_H
#define KPY_PRINT_H

#include <stdio.h>

#include "transform.h"

namespace kpy {

KPY_HD inline void print(const char *s) { printf("%s\n", s); }
KPY_HD inline void print(bool b) { printf("%s\n", b ? "True" : "False"); }
KPY_HD inline void print(float x) { printf("%g\n", (double)x); }
KPY_HD inline void print(double x) { printf("%g\n", x); }
KPY_HD inline void print(f16 x) { printf("%g\n", (double)(float)x); }
KPY_HD inline void print(bf16 x) { printf("%g\n", (double)(float)x); }
KPY_HD inline void print(signed char x) { printf("%d\n", (int)x); }
KPY_HD inline void print(short x) { printf("%d\n", (int)x); }
KPY_HD inline void print(int x) { printf("%d\n", x); }
KPY_HD inline void print(long x) { printf("%lld\n", (long long)x); }
KPY_HD inline void print(long long x) { printf("%lld\n", x); }
KPY_HD inline void print(unsigned char x) { printf("%u\n", (unsigned)x); }
KPY_HD inline void print(unsigned short x) { printf("%u\n", (unsigned)x); }
KPY_HD inline void print(unsigned int x) { printf("%u\n", x); }
KPY_HD inline void print(unsigned long x) { printf("%llu\n", (unsigned long long)x); }
KPY_HD inline void print(unsigned long long x) { printf("%llu\n", x); }

template <unsigned N, class T> KPY_HD inline void print(const vec_t<N, T> &v)
{
	for (unsigned i = 0; i < N; i++)
		printf("%g ", (double)(float)v.c[i]);
	printf("\n");
}

template <unsigned R, unsigned C, class T> KPY_HD inline void print(const mat_t<R, C, T> &m)
{
	for (unsigned i = 0; i < R; i++) {
		for (unsigned j = 0; j < C; j++)
			printf("%g ", (double)(float)m.rows[i].c[j]);
		printf("\n");
	}
}

template <class T> KPY_HD inline void print(const quat_t<T> &q)
{
	printf("%g %g %g %g\n", (double)(float)q.x, (double)(float)q.y, (double)(float)q.z, (double)(float)q.w);
}

template <class T> KPY_HD inline void print(const transform_t<T> &t)
{
	printf("(%g %g %g) (%g %g %g %g)\n", (double)(float)t.p.c[0], (double)(float)t.p.c[1], (double)(float)t.p.c[2],
		(double)(float)t.q.x, (double)(float)t.q.y, (double)(float)t.q.z, (double)(float)t.q.w);
}

} // namespace kpy

#endif /* KPY_PRINT_H */
