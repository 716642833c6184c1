/*
 * kpy/array.h — array_t<T, ND>: a typed view of a kpy_array (kpy/abi.h):
 * data pointer, ND extents and ND byte strides.
 *
 * Indexing follows Warp's release builds: a negative index counts from the
 * end of its dimension (i += shape[d]), and no bounds are checked unless
 * KPY_CHECKED or KPY_DEBUG is defined.
 *
 * KPY_CHECKED (host code, not under nvcc; krun's default, see krun(1)):
 * every access (load, store, address, view, atomics) checks its indices
 * after the negative-index wrap.  The first access outside the array calls
 * kpy_bounds_handler, a function pointer the module exports with C linkage,
 * with a kpy_bounds_fault (kpy/abi.h) naming the array's data and extents,
 * the indices, and the source file and line of the call (__builtin_FILE and
 * __builtin_LINE at the call site, so #line directives from kcpu -g name the
 * Python line).  The handler must not return (krun longjmps out of the
 * launch); with no handler set, or if it returns, the process prints the
 * fault and aborts.  The access itself is never made.
 */
#ifndef KPY_ARRAY_H
#define KPY_ARRAY_H

#include "core.h"

#if defined(KPY_CHECKED) && !defined(__CUDACC__)
#define KPY_BOUNDS_CHECKED 1
#include <stdio.h>
#include <stdlib.h>
/* Set by the launcher (weak: one definition however many units include it). */
extern "C" {
__attribute__((weak)) void (*kpy_bounds_handler)(const kpy_bounds_fault *) = 0;
}
/* The call site of a public accessor (default arguments), and its check. */
#define KPY_LOC , const char *kpy_file_ = __builtin_FILE(), int kpy_line_ = __builtin_LINE()
#define KPY_CHECK(a, access, ...) \
	do { \
		const i32 kpy_idx_[] = {__VA_ARGS__}; \
		::kpy::detail::check(a, access, kpy_idx_, (int)(sizeof kpy_idx_ / sizeof kpy_idx_[0]), kpy_file_, kpy_line_); \
	} while (0)
#else
#define KPY_LOC
#define KPY_CHECK(a, access, ...) ((void)0)
#endif

namespace kpy {

template <class T, int ND> struct array_t {
	static_assert(ND >= 1 && ND <= KPY_MAX_DIMS, "array_t: 1 to 4 dimensions");
	T *data;            /* element (0, ..., 0) */
	i32 shape[ND];      /* extents */
	i64 strides[ND];    /* byte strides */

	KPY_HD array_t() : data(0), shape(), strides() { }
	KPY_HD array_t(const kpy_array &a) : data((T *)a.data)
	{
		for (int d = 0; d < ND; d++) {
			shape[d] = a.shape[d];
			strides[d] = a.strides[d];
		}
	}
	/* A C-contiguous view of n0 x n1 x ... elements at p. */
	KPY_HD array_t(T *p, i32 n0, i32 n1 = 0, i32 n2 = 0, i32 n3 = 0) : data(p)
	{
		const i32 n[4] = {n0, n1, n2, n3};
		i64 s = (i64)sizeof(T);
		for (int d = ND - 1; d >= 0; d--) {
			shape[d] = n[d];
			strides[d] = s;
			s *= n[d];
		}
	}

	KPY_HD kpy_array abi() const
	{
		kpy_array a;
		a.data = (void *)data;
		a.ndim = ND;
		for (int d = 0; d < 4; d++) {
			a.shape[d] = d < ND ? shape[d] : 0;
			a.strides[d] = d < ND ? strides[d] : 0;
		}
		return a;
	}

	/* An array is true when it has storage (Warp's where(arr, a, b)). */
	KPY_HD explicit operator bool() const { return data != 0; }
};

/* Is a C-contiguous: each stride the product of the extents after it and
 * the element size? */
template <class T, int ND> KPY_HD inline bool contiguous(const array_t<T, ND> &a)
{
#ifdef KPY_CHECKED
	/* a bounds-checked build (krun's default, the dataset's checks) runs
	 * the one general loop: its speed matters less than its compile time,
	 * which the specialised copy would double */
	(void)a;
	return false;
#endif
	i64 s = (i64)sizeof(T);
	for (int d = ND - 1; d >= 0; d--) {
		if (a.strides[d] != s)
			return false;
		s *= a.shape[d];
	}
	return true;
}

/* A contiguous a with its strides computed from its extents: the same
 * array, but a compiler sees the innermost stride as the constant
 * sizeof(T) and can vectorize and strength-reduce (kcpu's entry points,
 * as Warp's wp_linear_contiguous kernels). */
template <class T, int ND> KPY_HD inline array_t<T, ND> contiguous_view(const array_t<T, ND> &a)
{
	array_t<T, ND> v;
	i64 s = (i64)sizeof(T);
	v.data = a.data;
	for (int d = ND - 1; d >= 0; d--) {
		v.shape[d] = a.shape[d];
		v.strides[d] = s;
		s *= a.shape[d];
	}
	return v;
}

/* Extent of dimension d. */
template <class T, int ND> KPY_HD inline i32 shape(const array_t<T, ND> &a, int d) { return a.shape[d]; }

namespace detail {
template <class T, int ND> KPY_HD inline i64 offset(const array_t<T, ND> &a, int d, i32 i)
{
	if (i < 0)
		i += a.shape[d];
	KPY_ASSERT(i >= 0 && i < a.shape[d]);
	return (i64)i * a.strides[d];
}
template <class T, int ND> KPY_HD inline T *at(const array_t<T, ND> &a, i64 byte_offset)
{
	return (T *)((char *)a.data + byte_offset);
}
#if defined(KPY_BOUNDS_CHECKED)
[[noreturn]] inline void bounds_fail(const kpy_bounds_fault *f)
{
	if (kpy_bounds_handler)
		kpy_bounds_handler(f);
	fprintf(stderr, "%s:%d: array index %d out of bounds (extent %d of dimension %d)\n", f->file, f->line,
	        (int)f->index[f->dim], (int)f->shape[f->dim], (int)f->dim);
	abort();
}
/* Check the n leading indices idx of an access to a (after the wrap of
 * negative indices). */
template <class T, int ND>
inline void check(const array_t<T, ND> &a, int access, const i32 *idx, int n, const char *file, int line)
{
	for (int d = 0; d < n; d++) {
		i32 i = idx[d] < 0 ? idx[d] + a.shape[d] : idx[d];
		if (i < 0 || i >= a.shape[d]) {
			kpy_bounds_fault f;
			memset(&f, 0, sizeof f);
			f.data = (const void *)a.data;
			f.ndim = ND;
			f.nidx = n;
			f.dim = d;
			f.access = access;
			for (int e = 0; e < ND; e++)
				f.shape[e] = a.shape[e];
			for (int e = 0; e < n; e++)
				f.index[e] = idx[e];
			f.file = file;
			f.line = line;
			bounds_fail(&f);
		}
	}
}
#endif
} // namespace detail

namespace detail {
/* elem(a, i, ...): the element at (i, ...), unchecked. */
template <class T> KPY_HD inline T &elem(const array_t<T, 1> &a, i32 i) { return *at(a, offset(a, 0, i)); }
template <class T> KPY_HD inline T &elem(const array_t<T, 2> &a, i32 i, i32 j)
{
	return *at(a, offset(a, 0, i) + offset(a, 1, j));
}
template <class T> KPY_HD inline T &elem(const array_t<T, 3> &a, i32 i, i32 j, i32 k)
{
	return *at(a, offset(a, 0, i) + offset(a, 1, j) + offset(a, 2, k));
}
template <class T> KPY_HD inline T &elem(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l)
{
	return *at(a, offset(a, 0, i) + offset(a, 1, j) + offset(a, 2, k) + offset(a, 3, l));
}
} // namespace detail

/* address(a, i, ...): a reference to the element at (i, ...). */
template <class T> KPY_HD inline T &address(const array_t<T, 1> &a, i32 i KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ADDRESS, i);
	return detail::elem(a, i);
}
template <class T> KPY_HD inline T &address(const array_t<T, 2> &a, i32 i, i32 j KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ADDRESS, i, j);
	return detail::elem(a, i, j);
}
template <class T> KPY_HD inline T &address(const array_t<T, 3> &a, i32 i, i32 j, i32 k KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ADDRESS, i, j, k);
	return detail::elem(a, i, j, k);
}
template <class T> KPY_HD inline T &address(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ADDRESS, i, j, k, l);
	return detail::elem(a, i, j, k, l);
}

template <class T> KPY_HD inline T load(const array_t<T, 1> &a, i32 i KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_READ, i);
	return detail::elem(a, i);
}
template <class T> KPY_HD inline T load(const array_t<T, 2> &a, i32 i, i32 j KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_READ, i, j);
	return detail::elem(a, i, j);
}
template <class T> KPY_HD inline T load(const array_t<T, 3> &a, i32 i, i32 j, i32 k KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_READ, i, j, k);
	return detail::elem(a, i, j, k);
}
template <class T> KPY_HD inline T load(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_READ, i, j, k, l);
	return detail::elem(a, i, j, k, l);
}

template <class T> KPY_HD inline void store(const array_t<T, 1> &a, i32 i, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_WRITE, i);
	detail::elem(a, i) = v;
}
template <class T> KPY_HD inline void store(const array_t<T, 2> &a, i32 i, i32 j, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_WRITE, i, j);
	detail::elem(a, i, j) = v;
}
template <class T> KPY_HD inline void store(const array_t<T, 3> &a, i32 i, i32 j, i32 k, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_WRITE, i, j, k);
	detail::elem(a, i, j, k) = v;
}
template <class T> KPY_HD inline void store(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_WRITE, i, j, k, l);
	detail::elem(a, i, j, k, l) = v;
}

/* view(a, i, ...): the sub-array at leading indices (i, ...), of rank ND
 * minus the number of indices. */
namespace detail {
template <class T, int ND, int K> KPY_HD inline array_t<T, ND - K> subview(const array_t<T, ND> &a, i64 off)
{
	array_t<T, ND - K> v;
	v.data = at(a, off);
	for (int d = K; d < ND; d++) {
		v.shape[d - K] = a.shape[d];
		v.strides[d - K] = a.strides[d];
	}
	return v;
}
} // namespace detail

template <class T, int ND> KPY_HD inline array_t<T, ND - 1> view(const array_t<T, ND> &a, i32 i KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_VIEW, i);
	return detail::subview<T, ND, 1>(a, detail::offset(a, 0, i));
}
template <class T, int ND> KPY_HD inline array_t<T, ND - 2> view(const array_t<T, ND> &a, i32 i, i32 j KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_VIEW, i, j);
	return detail::subview<T, ND, 2>(a, detail::offset(a, 0, i) + detail::offset(a, 1, j));
}
template <class T, int ND> KPY_HD inline array_t<T, ND - 3> view(const array_t<T, ND> &a, i32 i, i32 j, i32 k KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_VIEW, i, j, k);
	return detail::subview<T, ND, 3>(a, detail::offset(a, 0, i) + detail::offset(a, 1, j) + detail::offset(a, 2, k));
}

} // namespace kpy

#endif /* KPY_ARRAY_H */
