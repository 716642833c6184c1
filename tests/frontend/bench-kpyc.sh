#!/bin/sh
# bench-kpyc.sh KPYC [N] — kpyc's throughput: generate one Warp module of N
# kernels (varied statements: loads, math, branches, loops, calls,
# structs, random numbers), compile it once on one core, report kernels
# per second.
set -eu
kpyc=$1
n=${2:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
awk -v n="$n" 'BEGIN {
	print "import warp as wp"
	print "import numpy as np"
	print ""
	print "SCALE = wp.constant(0.5)"
	print ""
	print "@wp.struct"
	print "class Particle:"
	print "    pos: wp.vec3"
	print "    vel: wp.vec3"
	print "    mass: float"
	print ""
	print "@wp.func"
	print "def smooth(x: float, h: float) -> float:"
	print "    q = wp.clamp(x / h, 0.0, 1.0)"
	print "    return (1.0 - q) * (1.0 - q)"
	print ""
	for (k = 0; k < n; k++) {
		t = k % 4
		print "@wp.kernel"
		if (t == 0) {
			print "def saxpy_" k "(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):"
			print "    i = wp.tid()"
			print "    v = a * x[i] + y[i]"
			print "    if v > " k % 7 ".0:"
			print "        v = wp.sqrt(v) * SCALE"
			print "    y[i] = v"
		} else if (t == 1) {
			print "def reduce_" k "(x: wp.array2d(dtype=float), out: wp.array(dtype=float), n: int):"
			print "    i = wp.tid()"
			print "    s = float(0.0)"
			print "    for j in range(n):"
			print "        w = smooth(x[i, j], " (k % 5) + 1 ".0)"
			print "        if w < 0.01:"
			print "            continue"
			print "        s += w * x[i, j]"
			print "    out[i] = s"
		} else if (t == 2) {
			print "def particles_" k "(ps: wp.array(dtype=Particle), dt: float, seed: int):"
			print "    i = wp.tid()"
			print "    p = ps[i]"
			print "    state = wp.rand_init(seed, i)"
			print "    g = wp.vec3(0.0, -9.8, 0.0) + wp.sample_unit_sphere(state) * 0.1"
			print "    p.vel = p.vel + g * dt"
			print "    p.pos = p.pos + p.vel * dt"
			print "    if p.pos[1] < 0.0:"
			print "        p.pos[1] = 0.0"
			print "        p.vel = wp.vec3(p.vel[0], -p.vel[1] * 0.5, p.vel[2])"
			print "    ps[i] = p"
		} else {
			print "def transform_" k "(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33)):"
			print "    i = wp.tid()"
			print "    r = wp.quat_rotate(q[i], v[i])"
			print "    a = m[i] * r"
			print "    k = int(0)"
			print "    while k < 3 and wp.length(a) > 1.0:"
			print "        a = wp.normalize(a) * 0.9"
			print "        k += 1"
			print "    v[i] = wp.cross(a, r) + a * wp.dot(a, r)"
		}
		print ""
	}
	print "if __name__ == \"__main__\":"
	print "    print(\"host code\")"
}' > "$tmp/bench.py"
lines=$(wc -l < "$tmp/bench.py")
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
# CPU time (user + system) is the figure: a busy machine stretches wall time
if [ -x /usr/bin/time ] && /usr/bin/time -f "%e" true 2>/dev/null; then
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" $pin "$kpyc" "$tmp/bench.py" > "$tmp/bench.kir"
	read -r wall user sys < "$tmp/time"
else
	start=$(date +%s%N)
	$pin "$kpyc" "$tmp/bench.py" > "$tmp/bench.kir"
	end=$(date +%s%N)
	wall=$(awk -v ns=$((end - start)) 'BEGIN { print ns / 1e9 }')
	user=$wall
	sys=0
fi
out=$(wc -c < "$tmp/bench.kir")
awk -v n="$n" -v wall="$wall" -v user="$user" -v sys="$sys" -v lines="$lines" -v out="$out" 'BEGIN {
	cpu = user + sys
	if (cpu <= 0) cpu = 0.001
	if (wall <= 0) wall = 0.001
	printf "kpyc: %d kernels (%d lines of Python, %.1f MB of kir) on one core: %.3f s CPU (%.3f s wall): %.0f kernels/s, %.0f lines/s\n",
	       n, lines, out / 1e6, cpu, wall, n / cpu, lines / cpu
}'
