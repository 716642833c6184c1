#!/bin/sh
# bench-static.sh — `make bench-ptx-static`: a benchmark, not a test.
#
# Per kernel of tests/ptx/kernels, tests/run and tests/ptx/bench, forward
# and backward (kopt -p inline,ad), for sm_80 (ARCH=sm_XX to change): kcuda
# (nvcc -ptx, then ptxas -v) and kptx (ptxas -v) side by side, "kptx/kcuda"
# in each column:
#   regs    registers per thread (ptxas -v)
#   spill   spill bytes, stores + loads (ptxas -v)
#   ld.g    global loads in the PTX (ld.global*, ld.volatile.global, ...)
#   st.g    global stores
#   atom.g  global atomics and reductions (atom.global*, red.global*)
#   gen     generic loads, stores and atomics (no state space)
#   sqrt~   approximate f32 square roots (sqrt.approx.*f32)
#   instr   PTX instructions (labels and directives not counted)
# Instructions are counted in the entry and the .func bodies it calls.
# Totals over the kernels both sides compiled close the table.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
B=$top_builddir
S=$top_srcdir
ARCH=${ARCH:-sm_80}
PY=${PYTHON3:-python3}
LOWER="inline,unroll,fold,cse,dce,scalarize,fold,cse,dce"
PTXAS=${PTXAS:-$(command -v ptxas 2>/dev/null)}
NVCC=${NVCC:-$(command -v nvcc 2>/dev/null)}
if [ -z "$PTXAS" ] || [ -z "$NVCC" ]; then
	echo "bench-ptx-static: needs ptxas and nvcc (configure did not find the CUDA toolkit)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-ptx-static.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# stat PTX OUT: "kernel regs spill ldg stg atomg generic sqrtapprox instr" lines
stat() {
	"$PTXAS" -arch="$ARCH" -v "$1" -o "$tmp/x.cubin" 2>"$tmp/ptxas.txt" || { head -5 "$tmp/ptxas.txt" >&2; return 1; }
	"$PY" - "$1" "$tmp/ptxas.txt" >"$2" <<'PYEOF'
import re, sys
SPACES = ('global', 'shared', 'local', 'param', 'const')
funcs, calls, entries, cur, depth, stmt = {}, {}, [], None, 0, ''
def count(f, op):
    p = op.split('.')
    c = funcs[f]
    c[5] += 1
    if p[0] in ('ld', 'ldu', 'st', 'atom', 'red'):
        sp = [x for x in p[1:] if x.startswith(SPACES)]
        if not sp:
            c[3] += 1
        elif sp[0] == 'global':
            c[0 if p[0] in ('ld', 'ldu') else 1 if p[0] == 'st' else 2] += 1
    if op.startswith('sqrt.approx') and op.endswith('f32'):
        c[4] += 1
for line in open(sys.argv[1]):
    s = line.split('//')[0].strip()
    m = re.match(r'^(?:\.visible\s+|\.weak\s+)?(\.entry|\.func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)', s)
    if m and depth == 0:
        cur = m.group(2)
        funcs.setdefault(cur, [0, 0, 0, 0, 0, 0])
        calls.setdefault(cur, set())
        if m.group(1) == '.entry':
            entries.append(cur)
        continue
    if cur is None or not s:
        continue
    if s.startswith('{') or s.startswith('}'):
        depth += s.count('{') - s.count('}')
        if depth == 0:
            cur = None
        continue
    if depth < 1:
        continue
    stmt += ' ' + s
    if not s.endswith(';'):
        continue
    st, stmt = stmt.strip(), ''
    if st.startswith('.') or re.match(r'^[$\w]+:', st):
        continue
    w = st.split()
    op = w[1] if w[0].startswith('@') and len(w) > 1 else w[0]
    count(cur, op)
    c = re.search(r'\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*)', st)
    if c:
        calls[cur].add(c.group(1))
def total(f, seen):
    if f in seen or f not in funcs:
        return [0] * 6
    seen.add(f)
    t = list(funcs[f])
    for g in calls[f]:
        t = [a + b for a, b in zip(t, total(g, seen))]
    return t
info = open(sys.argv[2]).read()
regs, spill = {}, {}
for m in re.finditer(r"Function properties for (\S+)\n\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", info):
    spill[m.group(1)] = int(m.group(3)) + int(m.group(4))
for m in re.finditer(r"Compiling entry function '([^']+)'.*?Used (\d+) registers", info, re.S):
    regs[m.group(1)] = int(m.group(2))
for e in entries:
    print(e, regs.get(e, '?'), spill.get(e, 0), *total(e, set()))
PYEOF
}

echo "== kptx/kcuda per kernel, $ARCH (kcuda: nvcc -ptx; both: ptxas -v)"
printf '%-40s %9s %9s %11s %11s %11s %9s %7s %11s\n' kernel regs spill ld.g st.g atom.g gen 'sqrt~' instr
: >"$tmp/all"
for f in "$S"/tests/ptx/kernels/*.kir "$S"/tests/run/*.krun "$S"/tests/ptx/bench/*.py; do
	n=$(basename "$f"); n=${n%.*}
	case $f in
	*.py) "$B/kpyc" "$f" -o "$tmp/$n.kir" 2>/dev/null || continue ;;
	*) "$B/kopt" "$f" -o "$tmp/$n.kir" 2>/dev/null || continue ;;
	esac
	for dir in fwd bwd; do
		if [ $dir = bwd ]; then
			"$B/kopt" -p inline,ad "$tmp/$n.kir" -o "$tmp/$n.$dir.kir" 2>/dev/null || continue
		else
			cp "$tmp/$n.kir" "$tmp/$n.$dir.kir"
		fi
		"$B/kopt" -p "$LOWER" "$tmp/$n.$dir.kir" -o "$tmp/$n.$dir.low.kir" 2>/dev/null &&
			"$B/kptx" --arch="$ARCH" "$tmp/$n.$dir.low.kir" -o "$tmp/$n.$dir.k.ptx" 2>/dev/null &&
			stat "$tmp/$n.$dir.k.ptx" "$tmp/k.stat" || continue
		: >"$tmp/n.stat"
		if "$B/kcuda" "$tmp/$n.$dir.kir" -o "$tmp/$n.$dir.cu" 2>/dev/null &&
		   "$NVCC" -arch="$ARCH" -ptx -std=c++17 -I"$S/runtime/include" "$tmp/$n.$dir.cu" -o "$tmp/$n.$dir.n.ptx" 2>/dev/null; then
			stat "$tmp/$n.$dir.n.ptx" "$tmp/n.stat" || :
		fi
		while read -r k r1 s1 l1 t1 a1 g1 q1 i1; do
			# a backward module holds the forward kernels too: those are
			# listed with the forward module
			case $dir:$k in bwd:*_adj) ;; bwd:*) continue ;; esac
			set -- $(grep "^$k " "$tmp/n.stat") ""
			if [ -n "$1" ]; then
				printf '%-40s %4s/%-4s %4s/%-4s %5s/%-5s %5s/%-5s %5s/%-5s %4s/%-4s %3s/%-3s %5s/%-5s\n' "$n.$k" \
					"$r1" "$2" "$s1" "$3" "$l1" "$4" "$t1" "$5" "$a1" "$6" "$g1" "$7" "$q1" "$8" "$i1" "$9"
				echo "$r1 $2 $s1 $3 $l1 $4 $t1 $5 $a1 $6 $g1 $7 $q1 $8 $i1 $9" >>"$tmp/all"
			else
				printf '%-40s %4s/-    %4s/-    %5s/-     %5s/-     %5s/-     %4s/-    %3s/-   %5s/-\n' "$n.$k" \
					"$r1" "$s1" "$l1" "$t1" "$a1" "$g1" "$q1" "$i1"
			fi
		done <"$tmp/k.stat"
	done
done
awk '{ for (i = 1; i <= NF; i++) t[i] += $i } END {
	printf "totals over %d kernels both compiled, kptx/kcuda: regs %d/%d, spill %d/%d, ld.global %d/%d, st.global %d/%d, atom.global %d/%d, generic %d/%d, sqrt.approx.f32 %d/%d, instructions %d/%d\n",
		NR, t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15], t[16] }' "$tmp/all"
