#!/bin/sh
# gpu-bundle.sh — make keval-gpu-bundle [KEVAL_GPU=dir] [KEVAL_GPU_N=40]
# [KEVAL_GPU_RECORDS=10]: a keval GPU bundle (keval(1), docs/keval.md) of a
# small dataset build (DIR.data, made first when absent): per record, one
# of each category, its reference CUDA (the record's kcuda) and PTX
# (kptx --fmad=off, sm_90) as candidates ref-cuda-CAT, ref-ptx-CAT, and
# for the first three records with a float output mechanically broken
# ones bad-zeros-CAT, bad-first-CAT, bad-f16-CAT (cuda) and
# bad-zeros-ptx-CAT (ptx).  DIR is what the GPU machine gets; the
# records stay here, in DIR.records.jsonl, for keval --score.
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${KEVAL_GPU:=keval-gpu}" "${KEVAL_GPU_RECORDS:=10}" "${PYTHON3:=python3}"
B=$top_builddir
D=$KEVAL_GPU
data=$D.data
recs=$D.records.jsonl
for t in keval kpyc kopt kptx; do [ -x "$B/$t" ] || { echo "keval-gpu-bundle: $B/$t is not built" >&2; exit 2; }; done
[ -f "$data/train.jsonl" ] || { echo "keval-gpu-bundle: no dataset in $data" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/keval-gpu.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export KPY_CACHE=$tmp/cache
rm -rf "$D" && mkdir -p "$D" || exit 1
# the records: the first (by id) of each category, NREC of them; each
# record's CUDA and Python beside it in tmp/ID.cu, tmp/ID.py, tmp/list
cat "$data"/train.jsonl "$data"/val.jsonl "$data"/test.jsonl 2>/dev/null | "$PYTHON3" -c '
import json, sys
n, tmp, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rs = sorted((json.loads(l) for l in sys.stdin if l.strip()), key=lambda r: r["id"])
seen, pick = set(), []
for r in rs:
    if r["category"] not in seen and r["cuda"].get("forward"):
        seen.add(r["category"]); pick.append(r)
pick = pick[:n]
with open(out, "w") as f, open(tmp + "/list", "w") as l:
    for r in pick:
        f.write(json.dumps(r) + "\n")
        open("%s/%s.cu" % (tmp, r["id"]), "w").write(r["cuda"]["forward"])
        open("%s/%s.py" % (tmp, r["kernel"]), "w").write(r["python"])
        fl = any(t in r["kir"] for t in ("f32", "vec3f", "mat"))
        l.write("%s %s %s %d\n" % (r["id"], r["category"], r["kernel"], fl))
' "$KEVAL_GPU_RECORDS" "$tmp" "$recs" || exit 1
status=0
cat >"$tmp/prelude.h" <<'CU'
#include "kpy/vec.h"
#include "kpy/mat.h"
namespace kpy {
KPY_HD inline f32 hack_f16(f32 x) { return (f32)f16(x); }
template <class X> KPY_HD inline X hack_f16(X x) { return x; }
template <unsigned N, class T> KPY_HD inline vec_t<N, T> hack_f16(vec_t<N, T> v)
{ for (unsigned i = 0; i < N; i++) v.c[i] = hack_f16(v.c[i]); return v; }
template <class T, int N, class V> KPY_HD inline void zstore(const array_t<T, N> &a, i32 i, const V &) { store(a, i, T()); }
template <class T, int N, class V> KPY_HD inline void zstore(const array_t<T, N> &a, i32 i, i32 j, const V &) { store(a, i, j, T()); }
template <class T, int N, class V> KPY_HD inline void zstore(const array_t<T, N> &a, i32 i, i32 j, i32 k, const V &) { store(a, i, j, k, T()); }
template <class T, int N, class V> KPY_HD inline void hstore(const array_t<T, N> &a, i32 i, const V &v) { store(a, i, hack_f16(T(v))); }
template <class T, int N, class V> KPY_HD inline void hstore(const array_t<T, N> &a, i32 i, i32 j, const V &v) { store(a, i, j, hack_f16(T(v))); }
template <class T, int N, class V> KPY_HD inline void hstore(const array_t<T, N> &a, i32 i, i32 j, i32 k, const V &v) { store(a, i, j, k, hack_f16(T(v))); }
}
CU
add() { # NAME TARGET ID CAND
	if ! "$B/keval" --record "$recs" --id "$3" --target "$2" --bundle "$D" --name "$1" "$4" >"$tmp/v.json" 2>"$tmp/v.err"; then
		echo "keval-gpu-bundle: $1: $(head -1 "$tmp/v.err")" >&2
		status=1
	fi
}
nbad=0
while read -r id cat kernel fl; do
	# the reference PTX as the GPU bundle makes it (docs/gpu-bundle.md)
	(cd "$tmp" && "$B/kpyc" "$kernel.py" -o "$id.kir" && "$B/kopt" -p ad,O "$id.kir" -o "$id.ad.kir" &&
		"$B/kopt" -p forward "$id.ad.kir" -o "$id.fwd.kir" &&
		"$B/kopt" -p unroll,fold,cse,dce,scalarize,fold,cse,dce "$id.fwd.kir" -o "$id.low.kir" &&
		"$B/kptx" --arch=sm_90 --fmad=off "$id.low.kir" -o "$id.ptx") 2>"$tmp/err" ||
		{ echo "keval-gpu-bundle: $id: no PTX: $(head -1 "$tmp/err")" >&2; status=1; }
	add "ref-cuda-$cat" cuda "$id" "$tmp/$id.cu"
	[ -f "$tmp/$id.ptx" ] && add "ref-ptx-$cat" ptx "$id" "$tmp/$id.ptx"
	if [ "$fl" = 1 ] && [ $nbad -lt 3 ]; then
		nbad=$((nbad + 1))
		ins='/#include "kpy\/array.h"/r '"$tmp/prelude.h"
		sed -e "$ins" -e 's/kpy::store(/kpy::zstore(/g' "$tmp/$id.cu" >"$tmp/zeros.cu"
		sed -e 's/task < bounds.size;/task < (bounds.size < 1 ? bounds.size : 1);/' "$tmp/$id.cu" >"$tmp/first.cu"
		sed -e "$ins" -e 's/kpy::store(/kpy::hstore(/g' "$tmp/$id.cu" >"$tmp/f16.cu"
		# a kernel that writes only through atomics keeps its results
		# under the two store hacks: they would be references, not hacks
		# (the first GPU run passed two such "broken" candidates)
		if grep -q 'kpy::store(' "$tmp/$id.cu"; then
			add "bad-zeros-$cat" cuda "$id" "$tmp/zeros.cu"
			add "bad-f16-$cat" cuda "$id" "$tmp/f16.cu"
		fi
		add "bad-first-$cat" cuda "$id" "$tmp/first.cu"
		if [ -f "$tmp/$id.ptx" ]; then
			sed -e 's/st\.global\.f32 	*\(\[[^]]*\]\), %f[0-9]*;/st.global.f32 \1, 0f00000000;/' "$tmp/$id.ptx" >"$tmp/zeros.ptx"
			cmp -s "$tmp/$id.ptx" "$tmp/zeros.ptx" || add "bad-zeros-ptx-$cat" ptx "$id" "$tmp/zeros.ptx"
		fi
	fi
done <"$tmp/list"
n=$(ls "$D"/cand/*.json 2>/dev/null | wc -l)
echo "keval-gpu-bundle: $D: $n candidates of $(wc -l <"$recs") records ($(ls "$D"/cand/bad-*.json 2>/dev/null | wc -l) broken); $(du -sk "$D" | cut -f1) KiB"
echo "  on the GPU machine:  sh $(basename "$D")/run.sh RESULTS"
echo "  then here:           make keval-gpu-score KEVAL_GPU=$D KEVAL_GPU_RESULTS=RESULTS"
exit $status
