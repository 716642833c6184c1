# tests/keval/common.sh — sourced by the keval tests: records made by kgen
# and kpack, the reference C++ of each (the pipeline of samples/shard.sh),
# and the mechanical transforms that break a reference into a candidate.
. "$top_srcdir/tests/lib.sh"
for t in kgen kpyc kopt kcpu kcuda krun kpack keval; do [ -x "$top_builddir/$t" ] || tap_skip_all "$t is not built"; done
B=$top_builddir
export KPY_CACHE="$TMPD/cache"
# the sanitizers' shadow memory does not fit a memory limit
KEVAL_MEM=
[ -n "${SAN_FLAGS:-}" ] && KEVAL_MEM=--memory=0

# mkrecords SEED CATEGORY...: one record per category, kernel index 0..,
# as R/rec<N>.json with R/<N>/fwd.cpp, bwd.cpp, kernel.py beside it
R=$TMPD/rec
mkrecords() {
	seed=$1; shift
	n=0
	mkdir -p "$R"
	for cat in "$@"; do
		d=$R/$n
		mkdir -p "$d/py"
		"$B/kgen" --seed "$seed" --category "$cat" --count 1 -o "$d/py/" >/dev/null || return 1
		m=$(ls "$d"/py/*.meta)
		name=$(sed -n 's/^kernel //p' "$m")
		cp "$m" "$d/meta"
		cp "${m%.meta}.py" "$d/kernel.py"
		cp "${m%.meta}.py" "$d/$name.py"
		(cd "$d" && "$B/kpyc" "$name.py" -o kernel.kir) || return 1
		"$B/kopt" -p ad,O "$d/kernel.kir" -o "$d/ad.kir" 2>/dev/null &&
		"$B/kopt" -p forward "$d/ad.kir" -o "$d/forward.kir" &&
		"$B/kopt" -p backward "$d/ad.kir" -o "$d/backward.kir" &&
		"$B/kcpu" "$d/forward.kir" -o "$d/fwd.cpp" &&
		"$B/kcpu" "$d/backward.kir" -o "$d/bwd.cpp" &&
		"$B/kcuda" "$d/forward.kir" -o "$d/fwd.cu" || return 1
		for c in kpyc kopt kcpu kcuda krun order; do echo "$c pass"; done >"$d/checks"
		"$B/kpack" record "$d" >"$R/rec$n.json" || return 1
		n=$((n + 1))
	done
}

# sandbox_or_skip: skip the whole test, visibly, where krun --sandbox
# cannot confine itself (no seccomp: a container that forbids it)
sandbox_or_skip() {
	sk=$(sed -n 's/^kernel //p' "$R/0/meta")
	if ! "$B/krun" "$R/0/fwd.cpp" --kernel "$sk" --dim 1 --sandbox="$TMPD" --out=- >/dev/null 2>"$TMPD/sandbox.err" &&
	   grep -q 'krun: sandbox:' "$TMPD/sandbox.err"; then
		tap_skip_all "krun --sandbox cannot confine itself here: $(head -1 "$TMPD/sandbox.err")"
	fi
}

# jstr FILE: the file as a JSON string
jstr() { awk 'BEGIN { printf "\"" } { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); printf "%s\\n", $0 } END { printf "\"" }' "$1"; }

# keval_v NAME EXPECT ARGS...: run keval, its verdict in $TMPD/v.json; ok
# when the exit status is EXPECT (0 pass, 1 fail)
keval_v() {
	kn=$1 ke=$2; shift 2
	"$B/keval" $KEVAL_MEM "$@" >"$TMPD/v.json" 2>"$TMPD/v.err"
	krc=$?
	if [ "$krc" = "$ke" ]; then tap_ok "$kn"; else
		tap_fail "$kn" "keval exited $krc, expected $ke: $(head -c 1500 "$TMPD/v.json") $(head -5 "$TMPD/v.err")"; fi
}

# verdict_has NAME STRING: the last verdict contains STRING
verdict_has() {
	if grep -q -- "$2" "$TMPD/v.json"; then tap_ok "$1"; else tap_fail "$1" "$(head -c 1500 "$TMPD/v.json")"; fi
}

# break_cpp HACK IN.cpp OUT.cpp: the reference C++ made into a broken
# candidate.  Helpers go after the includes (namespace kpy); the kernel's
# loads and stores are routed through them, or its launch loop is changed.
break_cpp() {
	h=$1 in=$2 out=$3
	cat >"$TMPD/prelude.h" <<'CPP'
#include "kpy/vec.h"
#include "kpy/mat.h"
namespace kpy {
static f32 hack_last;
inline void hack_note(f32 x) { hack_last = x; }
template <class X> inline void hack_note(const X &) { }
inline f32 hack_f16(f32 x) { return (f32)f16(x); }
template <class X> inline X hack_f16(X x) { return x; }
template <unsigned N, class T> inline vec_t<N, T> hack_f16(vec_t<N, T> v)
{ for (unsigned i = 0; i < N; i++) v.c[i] = hack_f16(v.c[i]); return v; }
template <unsigned R, unsigned C, class T> inline mat_t<R, C, T> hack_f16(mat_t<R, C, T> m)
{ for (unsigned i = 0; i < R; i++) m.rows[i] = hack_f16(m.rows[i]); return m; }
/* loads that remember the last scalar, that zero what they read, that read one further */
template <class A, class... I> inline auto kload(const A &a, I... i) -> decltype(load(a, i...))
{ auto v = load(a, i...); hack_note(v); return v; }
template <class T, int N, class... I> inline T wload(const array_t<T, N> &a, I... i)
{ T v = load(a, i...); store(a, i..., T()); return v; }
template <class T> inline T rload(const array_t<T, 1> &a, i32 i) { return a.data[i + 1]; }
template <class A, class... I> inline auto rload(const A &a, I... i) -> decltype(load(a, i...)) { return load(a, i...); }
template <class A, class J, class... I> inline auto oload(const A &a, J j, I... i) -> decltype(load(a, j, i...))
{ return load(a, j + 1, i...); }
/* stores of zero, of the last scalar loaded, of a float16 round trip */
template <class T, int N, class V> inline void zstore(const array_t<T, N> &a, i32 i, const V &) { store(a, i, T()); }
template <class T, int N, class V> inline void zstore(const array_t<T, N> &a, i32 i, i32 j, const V &) { store(a, i, j, T()); }
template <class T, int N, class V> inline void cstore(const array_t<T, N> &a, i32 i, const V &) { store(a, i, T(hack_last)); }
template <class T, int N, class V> inline void cstore(const array_t<T, N> &a, i32 i, i32 j, const V &) { store(a, i, j, T(hack_last)); }
template <class T, int N, class V> inline void hstore(const array_t<T, N> &a, i32 i, const V &v) { store(a, i, hack_f16(T(v))); }
template <class T, int N, class V> inline void hstore(const array_t<T, N> &a, i32 i, i32 j, const V &v) { store(a, i, j, hack_f16(T(v))); }
}
CPP
	case $h in
	zeros) sed -e 's/kpy::store(/kpy::zstore(/g' -e 's/kpy::atomic_add(\([a-z_0-9]*\), \(.*\));$/kpy::atomic_add(\1, \2 * 0);/' "$in" ;;
	copy) sed -e 's/kpy::load(/kpy::kload(/g' -e 's/kpy::store(/kpy::cstore(/g' "$in" ;;
	f16) sed -e 's/kpy::store(/kpy::hstore(/g' "$in" ;;
	writeinput) sed -e 's/kpy::load(/kpy::wload(/g' "$in" ;;
	oob) sed -e 's/kpy::load(/kpy::oload(/g' "$in" ;;
	rawoob) sed -e 's/kpy::load(/kpy::rload(/g' "$in" ;;
	unchecked) sed -e '1i #undef KPY_CHECKED' -e 's/kpy::load(/kpy::oload(/g' "$in" ;;
	noop) sed -e 's/^\( *\)\([a-z_0-9]*_kernel(\*bounds\)/\1if (0) \2/' "$in" ;;
	first) sed -e 's/^\( *\)\([a-z_0-9]*_kernel(\*bounds\)/\1if (task == 0) \2/' "$in" ;;
	offbyone) sed -e 's/task < end; ++task/task < end - 1; ++task/' "$in" ;;
	loop) sed -e '/^extern "C" void kpy_launch_/{n;s/^{/{ for (;;) __asm__ volatile("");/;}' "$in" ;;
	order) sed -e 's/^\( *\)\([a-z_0-9]*_kernel(\*bounds\)\(.*\)$/\1{ static int64_t hack_prev = -1; if (task > hack_prev) \2\3 hack_prev = task; }/' "$in" ;;
	sign) sed -e 's/kpy::atomic_add(adj_/kpy::atomic_sub(adj_/g' "$in" ;;
	*) echo "break_cpp: no hack $h" >&2; return 1 ;;
	esac | sed -e '/#include "kpy\/kinfo.h"/r '"$TMPD/prelude.h" >"$out"
	cmp -s "$in" "$out" && { echo "break_cpp: $h changed nothing" >&2; return 1; }
	return 0
}
