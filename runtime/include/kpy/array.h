/*
 * kpy/array.h — array_t<T, ND>: a typed view of a kpy_array (kpy/abi.h):
 * data pointer, ND extents and ND byte strides.
 *
 * Indexing follows Warp's release builds: a negative index counts from the
 * end of its dimension (i += shape[d]), and no bounds are checked unless
 * KPY_DEBUG is defined.
 */
#ifndef KPY_ARRAY_H
#define KPY_ARRAY_H

#include "core.h"

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
} // namespace detail

/* address(a, i, ...): a reference to the element at (i, ...). */
template <class T> KPY_HD inline T &address(const array_t<T, 1> &a, i32 i)
{
	return *detail::at(a, detail::offset(a, 0, i));
}
template <class T> KPY_HD inline T &address(const array_t<T, 2> &a, i32 i, i32 j)
{
	return *detail::at(a, detail::offset(a, 0, i) + detail::offset(a, 1, j));
}
template <class T> KPY_HD inline T &address(const array_t<T, 3> &a, i32 i, i32 j, i32 k)
{
	return *detail::at(a, detail::offset(a, 0, i) + detail::offset(a, 1, j) + detail::offset(a, 2, k));
}
template <class T> KPY_HD inline T &address(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l)
{
	return *detail::at(a, detail::offset(a, 0, i) + detail::offset(a, 1, j) + detail::offset(a, 2, k) +
		detail::offset(a, 3, l));
}

template <class T> KPY_HD inline T load(const array_t<T, 1> &a, i32 i) { return address(a, i); }
template <class T> KPY_HD inline T load(const array_t<T, 2> &a, i32 i, i32 j) { return address(a, i, j); }
template <class T> KPY_HD inline T load(const array_t<T, 3> &a, i32 i, i32 j, i32 k) { return address(a, i, j, k); }
template <class T> KPY_HD inline T load(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l) { return address(a, i, j, k, l); }

template <class T> KPY_HD inline void store(const array_t<T, 1> &a, i32 i, const T &v) { address(a, i) = v; }
template <class T> KPY_HD inline void store(const array_t<T, 2> &a, i32 i, i32 j, const T &v) { address(a, i, j) = v; }
template <class T> KPY_HD inline void store(const array_t<T, 3> &a, i32 i, i32 j, i32 k, const T &v) { address(a, i, j, k) = v; }
template <class T> KPY_HD inline void store(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l, const T &v)
{
	address(a, i, j, k, l) = v;
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

template <class T, int ND> KPY_HD inline array_t<T, ND - 1> view(const array_t<T, ND> &a, i32 i)
{
	return detail::subview<T, ND, 1>(a, detail::offset(a, 0, i));
}
template <class T, int ND> KPY_HD inline array_t<T, ND - 2> view(const array_t<T, ND> &a, i32 i, i32 j)
{
	return detail::subview<T, ND, 2>(a, detail::offset(a, 0, i) + detail::offset(a, 1, j));
}
template <class T, int ND> KPY_HD inline array_t<T, ND - 3> view(const array_t<T, ND> &a, i32 i, i32 j, i32 k)
{
	return detail::subview<T, ND, 3>(a, detail::offset(a, 0, i) + detail::offset(a, 1, j) + detail::offset(a, 2, k));
}

} // namespace kpy

#endif /* KPY_ARRAY_H */
