#!/bin/sh
# bench.sh — `make bench-ptx`: a benchmark, not a test.
#
# 1. Per kernel of tests/ptx/kernels, tests/ir and tests/ptx/bench (lowered
#    for kptx), for sm_80: the registers, spill bytes (stores + loads) and
#    PTX instruction count of kptx's code, against nvcc's compilation of
#    kcuda's C++ for the same kernel (nvcc -ptx, then `ptxas -v` on both).
#    PTX instructions are counted in the kernel's entry and in the device
#    functions it calls.
# 2. The cold time from Python to PTX for one kernel
#    (tests/ptx/bench/particles.py) through kpyc | kopt | kptx, separate
#    processes as in a pipe, best and median of 5 runs, kptx's phases, and
#    nvcc's time for kcuda's output of the same module for comparison
#    (NVIDIA Warp's NVRTC path takes about 0.5 s for such a module).
# 3. The same, RUNS times (default 20), wall and CPU (user + system, from
#    wait4) of each tool on its own (file to file) and of the pipe: the
#    best and the median; the issue's goal is the pipe's wall <= 20 ms.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
B=$top_builddir
S=$top_srcdir
ARCH=${ARCH:-sm_80}
PY=${PYTHON3:-python3}
LOWER="inline,unroll,fold,cse,dce,scalarize,fold,cse,dce"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-ptx.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PTXAS=${PTXAS:-$(command -v ptxas 2>/dev/null)}
NVCC=${NVCC:-$(command -v nvcc 2>/dev/null)}

# ptxstat FILE.ptx OUT: "kernel regs spills instructions" lines (ptxas -v)
ptxstat() {
	"$PTXAS" -arch="$ARCH" -v "$1" -o "$tmp/x.cubin" 2>"$tmp/ptxas.txt" || { cat "$tmp/ptxas.txt" >&2; return 1; }
	"$PY" - "$1" "$tmp/ptxas.txt" >"$2" <<'PYEOF'
import re, sys
ptx = open(sys.argv[1]).read().split('\n')
# instruction counts and calls per function body; a statement may span
# lines (calls do), so text is gathered up to its ';'
funcs, calls, entries, cur, depth, stmt = {}, {}, [], None, 0, ''
for line in ptx:
    s = line.split('//')[0].strip()
    m = re.match(r'^(?:\.visible\s+|\.weak\s+)?(\.entry|\.func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)', s)
    if m and depth == 0:
        cur = m.group(2)
        funcs.setdefault(cur, 0)
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
    funcs[cur] += 1
    c = re.search(r'\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*)', st)
    if c:
        calls[cur].add(c.group(1))
def total(f, seen):
    if f in seen or f not in funcs:
        return 0
    seen.add(f)
    return funcs[f] + sum(total(g, seen) for g in calls[f])
info = open(sys.argv[2]).read()
regs, spill = {}, {}
for m in re.finditer(r"Function properties for (\S+)\n\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", info):
    spill[m.group(1)] = int(m.group(3)) + int(m.group(4))
for m in re.finditer(r"Compiling entry function '([^']+)'.*?Used (\d+) registers", info, re.S):
    regs[m.group(1)] = int(m.group(2))
for e in entries:
    print(e, regs.get(e, '?'), spill.get(e, 0), total(e, set()))
PYEOF
}

if [ -z "$PTXAS" ]; then
	echo "bench-ptx: no ptxas: register and instruction counts skipped"
else
	echo "== kptx vs nvcc (kcuda's C++), $ARCH: registers, spill bytes, PTX instructions"
	printf '%-34s %13s %13s %15s\n' "kernel" "regs kptx/nv" "spill kptx/nv" "instrs kptx/nv"
	tot_k=0; tot_n=0; nk=0
	for f in "$S"/tests/ptx/kernels/*.kir "$S"/tests/ir/*.kir "$S"/tests/ptx/bench/*.py; do
		n=$(basename "$f"); n=${n%.*}
		case $f in
		*.py) "$B/kpyc" "$f" -o "$tmp/$n.kir" 2>/dev/null || continue ;;
		*) cp "$f" "$tmp/$n.kir" ;;
		esac
		"$B/kopt" -p "$LOWER" "$tmp/$n.kir" -o "$tmp/$n.low.kir" 2>/dev/null || continue
		"$B/kptx" --arch="$ARCH" "$tmp/$n.low.kir" -o "$tmp/$n.k.ptx" 2>/dev/null || continue
		ptxstat "$tmp/$n.k.ptx" "$tmp/$n.k.stat" || continue
		: >"$tmp/$n.n.stat"
		if [ -n "$NVCC" ] && "$B/kcuda" "$tmp/$n.kir" -o "$tmp/$n.cu" 2>/dev/null &&
		   "$NVCC" -arch="$ARCH" -ptx -std=c++17 -I"$S/runtime/include" "$tmp/$n.cu" -o "$tmp/$n.n.ptx" 2>/dev/null; then
			ptxstat "$tmp/$n.n.ptx" "$tmp/$n.n.stat" || :
		fi
		while read -r k rk sk ik; do
			set -- $(grep "^$k " "$tmp/$n.n.stat" 2>/dev/null) ""
			rn=${2:--}; sn=${3:--}; in_=${4:--}
			printf '%-34s %6s/%-6s %6s/%-6s %7s/%-7s\n' "$n.$k" "$rk" "$rn" "$sk" "$sn" "$ik" "$in_"
			if [ "$in_" != "-" ]; then tot_k=$((tot_k + ik)); tot_n=$((tot_n + in_)); nk=$((nk + 1)); fi
		done <"$tmp/$n.k.stat"
	done
	[ $nk -gt 0 ] && echo "PTX instructions over the $nk kernels both compiled: kptx $tot_k, nvcc $tot_n"
	[ -z "$NVCC" ] && echo "(no nvcc: kcuda's side left out)"
fi

echo
echo "== cold time, Python to PTX, one kernel (tests/ptx/bench/particles.py)"
py=$S/tests/ptx/bench/particles.py
times=""
for r in 1 2 3 4 5; do
	t0=$(date +%s%N)
	"$B/kpyc" "$py" | "$B/kopt" -p "$LOWER" | "$B/kptx" --arch="$ARCH" -o "$tmp/cold.ptx" || exit 1
	t1=$(date +%s%N)
	times="$times $(( (t1 - t0) / 1000 ))"
done
echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END {
	printf "kpyc | kopt | kptx: best %.1f ms, median %.1f ms (5 runs)\n", a[1] / 1000, a[3] / 1000 }'
"$B/kpyc" "$py" -o "$tmp/p.kir"
t0=$(date +%s%N); "$B/kpyc" "$py" -o "$tmp/p2.kir"; t1=$(date +%s%N)
"$B/kopt" -p "$LOWER" "$tmp/p.kir" -o "$tmp/p.low.kir"
t2=$(date +%s%N); "$B/kopt" -p "$LOWER" "$tmp/p.kir" -o "$tmp/p2.low.kir"; t3=$(date +%s%N)
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }
echo "kpyc $(ms "$t0" "$t1") ms, kopt $(ms "$t2" "$t3") ms; kptx, phase by phase:"
"$B/kptx" --time --arch="$ARCH" "$tmp/p.low.kir" -o "$tmp/p.ptx" 2>&1 | sed 's/^kptx: /  /'
t0=$(date +%s%N); "$B/kptx" --version >/dev/null; t1=$(date +%s%N)
echo "  (kptx --version, i.e. process start with LLVM loaded: $(ms "$t0" "$t1") ms)"
if [ -n "$NVCC" ] && "$B/kcuda" "$tmp/p.kir" -o "$tmp/p.cu" 2>/dev/null; then
	t0=$(date +%s%N)
	if "$NVCC" -arch="$ARCH" -ptx -std=c++17 -I"$S/runtime/include" "$tmp/p.cu" -o "$tmp/p.nv.ptx"; then
		t1=$(date +%s%N)
		echo "for comparison, nvcc -ptx of kcuda's C++ for the same module: $(ms "$t0" "$t1") ms"
	fi
fi
echo "NVIDIA Warp's NVRTC path, measured for a one-kernel module: about 530 ms to PTX"

echo
RUNS=${RUNS:-20}
echo "== cold time per stage, one kernel (particles.py), $RUNS runs: wall and CPU (user + system)"
"$PY" "$S/tests/ptx/coldtime.py" --bin "$B" --passes "$LOWER" --arch "$ARCH" --runs "$RUNS" "$py"
