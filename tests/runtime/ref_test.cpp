/*
 * ref_test.cpp — checks the kpy runtime against values computed by NVIDIA
 * Warp (ref/ref.txt, written by gen_ref.py).  For each case of
 * ref/cases.inc it reads the rows of inputs, computes the case's
 * expression with kpy and compares with Warp's result, component by
 * component, printing one TAP line per case (unnumbered: the .test script
 * numbers them).
 *
 * Usage: ref_test ref.txt
 *
 * Components are compared as text tokens: floats as bit patterns (4, 8 or
 * 16 hex digits for f16, f32, f64), integers in decimal.  A float matches
 * when the bits are equal, both are NaN, or (tol > 0) they are within tol
 * units in the last place.  Compiled with KPY_F32_DOUBLE, f32 results are
 * doubles; they are compared with the float reference: equal after
 * rounding to float, within 4 float ulps, or within dtol * max(|warp|, 1)
 * (dtol 0: the double must equal the float, as for random numbers).
 */
#include "kpy/kpy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

/* ------------------------------------------------------------------ */
/* Text of values                                                       */

std::string hex(unsigned long long u, int w)
{
	char b[32];
	snprintf(b, sizeof b, "%0*llx", w, u);
	return b;
}

inline void fmt(bool x, std::vector<std::string> &o) { o.push_back(x ? "1" : "0"); }
inline void fmt(float x, std::vector<std::string> &o) { o.push_back(hex(kpy::float_bits(x), 8)); }
inline void fmt(double x, std::vector<std::string> &o) { o.push_back(hex(kpy::double_bits(x), 16)); }
inline void fmt(kpy::f16 x, std::vector<std::string> &o) { o.push_back(hex(x.u, 4)); }
template <class I> typename kpy::detail::if_int<I, void>::type fmt(I x, std::vector<std::string> &o)
{
	o.push_back(kpy::detail::intinfo<I>::sgn ? std::to_string((long long)x) : std::to_string((unsigned long long)x));
}
template <unsigned N, class T> void fmt(const kpy::vec_t<N, T> &v, std::vector<std::string> &o)
{
	for (unsigned i = 0; i < N; i++)
		fmt(v.c[i], o);
}
template <unsigned R, unsigned C, class T> void fmt(const kpy::mat_t<R, C, T> &m, std::vector<std::string> &o)
{
	for (unsigned i = 0; i < R; i++)
		fmt(m.rows[i], o);
}
template <class T> void fmt(const kpy::quat_t<T> &q, std::vector<std::string> &o)
{
	fmt(q.x, o);
	fmt(q.y, o);
	fmt(q.z, o);
	fmt(q.w, o);
}
template <class T> void fmt(const kpy::transform_t<T> &t, std::vector<std::string> &o)
{
	fmt(t.p, o);
	fmt(t.q, o);
}

/* Tokens of one row, consumed left to right. */
struct Row {
	std::vector<std::string> tok;
	size_t pos = 0;
	const std::string &next()
	{
		if (pos >= tok.size()) {
			fprintf(stderr, "ref_test: row too short\n");
			exit(2);
		}
		return tok[pos++];
	}
};

unsigned long long parse_hex(const std::string &s) { return strtoull(s.c_str(), 0, 16); }

inline void parse(Row &r, bool &x) { x = r.next() == "1"; }
inline void parse(Row &r, kpy::f16 &x) { x = kpy::f16::from_bits((uint16_t)parse_hex(r.next())); }
inline void parse(Row &r, float &x) { x = kpy::bits_float((uint32_t)parse_hex(r.next())); }
inline void parse(Row &r, double &x)
{
	const std::string &s = r.next();
	if (s.size() <= 8) /* an f32 argument widened by KPY_F32_DOUBLE */
		x = (double)kpy::bits_float((uint32_t)parse_hex(s));
	else
		x = kpy::bits_double(parse_hex(s));
}
template <class I> typename kpy::detail::if_int<I, void>::type parse(Row &r, I &x)
{
	const std::string &s = r.next();
	if (kpy::detail::intinfo<I>::sgn)
		x = (I)strtoll(s.c_str(), 0, 10);
	else
		x = (I)strtoull(s.c_str(), 0, 10);
}
template <unsigned N, class T> void parse(Row &r, kpy::vec_t<N, T> &v)
{
	for (unsigned i = 0; i < N; i++)
		parse(r, v.c[i]);
}
template <unsigned R, unsigned C, class T> void parse(Row &r, kpy::mat_t<R, C, T> &m)
{
	for (unsigned i = 0; i < R; i++)
		parse(r, m.rows[i]);
}
template <class T> void parse(Row &r, kpy::quat_t<T> &q)
{
	parse(r, q.x);
	parse(r, q.y);
	parse(r, q.z);
	parse(r, q.w);
}
template <class T> void parse(Row &r, kpy::transform_t<T> &t)
{
	parse(r, t.p);
	parse(r, t.q);
}

/* ------------------------------------------------------------------ */
/* Comparison of tokens                                                 */

bool is_hex_token(const std::string &s) { return s.size() == 4 || s.size() == 8 || s.size() == 16; }

/* Position of a float on the number line, in units in the last place. */
long long ordered(unsigned long long bits, int width)
{
	unsigned long long sign = 1ull << (width - 1);
	long long mag = (long long)(bits & (sign - 1));
	return (bits & sign) ? -mag : mag;
}

bool nan_bits(unsigned long long b, int width)
{
	switch (width) {
	case 16: return (b & 0x7fffu) > 0x7c00u;
	case 32: return (b & 0x7fffffffu) > 0x7f800000u;
	default: return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
	}
}

struct Tol {
	int ulps;      /* units in the last place */
	double rel;    /* KPY_F32_DOUBLE: relative tolerance on f32 components */
};

/* Is the kpy component `got` close enough to Warp's `want`? */
bool close(const std::string &got, const std::string &want, const Tol &t, bool integer)
{
	if (integer || !is_hex_token(want))
		return got == want;
	int width = (int)want.size() * 4;
	unsigned long long w = parse_hex(want);
	if (got.size() == 16 && want.size() == 8) { /* f32 computed in double */
		double g = kpy::bits_double(parse_hex(got));
		double e = (double)kpy::bits_float((uint32_t)w);
		if (kpy::isnan(g) || kpy::isnan(e))
			return kpy::isnan(g) && kpy::isnan(e);
		if (t.rel == 0)
			return g == e;
		float gf = (float)g; /* overflow to inf in float is fine */
		if (gf == (float)e)
			return true;
		if (kpy::isinf(e) || kpy::isinf(g))
			return false;
		long long d = ordered(kpy::float_bits(gf), 32) - ordered(w, 32);
		if (d <= 4 && d >= -4)
			return true;
		double m = kpy::abs(e) > 1.0 ? kpy::abs(e) : 1.0;
		return kpy::abs(g - e) <= t.rel * m;
	}
	if (got.size() != want.size())
		return false;
	unsigned long long g = parse_hex(got);
	if (nan_bits(g, width) || nan_bits(w, width))
		return nan_bits(g, width) && nan_bits(w, width);
	if (t.ulps == 0)
		return g == w;
	long long d = ordered(g, width) - ordered(w, width);
	return d <= t.ulps && d >= -t.ulps;
}

/* ------------------------------------------------------------------ */
/* Cases                                                                */

struct Reader {
	FILE *f;
	char line[1 << 16];
	bool get()
	{
		if (!fgets(line, sizeof line, f))
			return false;
		line[strcspn(line, "\n")] = 0;
		return true;
	}
};

std::vector<std::string> split(const char *s)
{
	std::vector<std::string> v;
	const char *p = s;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *q = p;
		while (*q && *q != ' ')
			q++;
		if (q > p)
			v.push_back(std::string(p, q));
		p = q;
	}
	return v;
}

int failures = 0;

template <class R, class E> R exact(const E &e)
{
	static_assert(kpy::detail::same<R, E>::value, "expression type differs from the case's result type");
	return e;
}

template <class... A, size_t... I> void parse_args(Row &r, std::tuple<A...> &t, std::index_sequence<I...>)
{
	int dummy[] = {0, (parse(r, std::get<I>(t)), 0)...};
	(void)dummy;
}

std::string join(const std::vector<std::string> &v, size_t a, size_t b)
{
	std::string s;
	for (size_t i = a; i < b; i++)
		s += (i > a ? " " : "") + v[i];
	return s;
}

/* A case's computation, as a plain function; Sig<R, A...>::eval parses its
 * arguments from a row and formats its result (one instance per
 * signature, not per case, which keeps this file quick to compile). */
typedef void (*AnyFn)();
typedef void (*EvalFn)(Row &, std::vector<std::string> &, AnyFn);

template <class R, class... A> struct Sig {
	typedef R (*Fn)(A...);
	static void eval(Row &row, std::vector<std::string> &got, AnyFn fn)
	{
		std::tuple<A...> args;
		parse_args(row, args, std::index_sequence_for<A...>());
		if (row.next() != "|") {
			fprintf(stderr, "ref_test: bad row\n");
			exit(2);
		}
		fmt(std::apply((Fn)fn, args), got);
	}
};

void run_case(Reader &rd, const char *name, EvalFn eval, AnyFn fn)
{
	if (!rd.get()) {
		fprintf(stderr, "ref_test: ref.txt ends before case %s\n", name);
		exit(2);
	}
	char cname[256], dtol[64];
	int tol = 0, rows = 0;
	if (sscanf(rd.line, "case %255s tol %d dtol %63s rows %d", cname, &tol, dtol, &rows) != 4 || strcmp(cname, name)) {
		fprintf(stderr, "ref_test: expected case %s, found: %s\n", name, rd.line);
		exit(2);
	}
	const char *arrow = strstr(rd.line, "-> ");
	std::string rtype = arrow ? arrow + 3 : "";
	bool integer = rtype.find('f') == std::string::npos;
	bool skip = false;
	Tol t = {tol, 0};
#if defined(KPY_F32_DOUBLE)
	if (!strcmp(dtol, "none"))
		skip = true;
	else
		t.rel = atof(dtol);
#endif
	int bad = 0;
	for (int i = 0; i < rows; i++) {
		if (!rd.get()) {
			fprintf(stderr, "ref_test: case %s: missing rows\n", name);
			exit(2);
		}
		if (skip)
			continue;
		Row row;
		row.tok = split(rd.line);
		std::vector<std::string> got;
		eval(row, got, fn);
		size_t nin = row.pos - 1;
		bool ok = got.size() == row.tok.size() - row.pos;
		for (size_t k = 0; ok && k < got.size(); k++)
			ok = close(got[k], row.tok[row.pos + k], t, integer);
		if (!ok && ++bad <= 3)
			printf("# %s: args %s: kpy %s, warp %s\n", name, join(row.tok, 0, nin).c_str(),
				join(got, 0, got.size()).c_str(), join(row.tok, row.pos, row.tok.size()).c_str());
	}
	if (skip)
		printf("ok - %s # SKIP not compared with KPY_F32_DOUBLE\n", name);
	else if (bad)
		printf("not ok - %s (%d of %d rows differ)\n", name, bad, rows);
	else
		printf("ok - %s (%d rows)\n", name, rows);
	failures += bad != 0;
}

#define KPY_UNPAREN(...) __VA_ARGS__
#define KPY_CASE(name, types, ...) \
	{ \
		Sig<KPY_UNPAREN types>::Fn fn_ = [] __VA_ARGS__; \
		run_case(rd, name, &Sig<KPY_UNPAREN types>::eval, (AnyFn)fn_); \
	}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ref_test ref.txt\n");
		return 2;
	}
	Reader rd;
	rd.f = fopen(argv[1], "r");
	if (!rd.f) {
		perror(argv[1]);
		return 2;
	}
#include "ref/cases.inc"
	if (rd.get()) {
		fprintf(stderr, "ref_test: ref.txt has cases that cases.inc lacks: %s\n", rd.line);
		return 2;
	}
	return failures ? 1 : 0;
}
