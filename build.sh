#!/usr/bin/env bash
# build.sh — install what kpy needs, build it, and run a job.
#
#   ./build.sh dataset   install, build, build a verified dataset (the main job)
#   ./build.sh test      install, build, run the whole test suite
#   ./build.sh build     install and build only
#   ./build.sh sanitize  build in build-san/ with ASan+UBSan and run the test suite there
#   ./build.sh deps      install the system packages only
#
# Idempotent and fast when nothing changed: packages are installed only when
# missing, configure runs only when configure.ac or Makefile.am changed.
# Environment: JOBS (parallel make jobs, default: number of cores),
# KPY_NO_APT=1 (never call apt-get).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Debian packages the build and the tests need.
PKGS=(build-essential autoconf automake re2c bison pkg-config llvm-19-dev libcjson-dev
      python3 python3-venv clang)

log() { printf '%s\n' "build.sh: $*" >&2; }

deps() {
	local missing=()
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "${KPY_NO_APT:-0}" = 1 ]; then
		log "missing packages: ${missing[*]} (KPY_NO_APT=1: not installing)"
		return 0
	fi
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null; then sudo=sudo; else
			log "missing packages: ${missing[*]}; run as root or install them"; return 1
		fi
	fi
	log "installing: ${missing[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || {
		$sudo apt-get update -q >/dev/null 2>&1 || true
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
	}
}

# configure into directory $1 with extra arguments.
configure_in() {
	local dir=$1; shift
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] ||
	   [ -n "$(find . -name Makefile.inc -newer Makefile.in 2>/dev/null | head -1)" ]; then
		log "autoreconf"
		autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
	fi
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ configure -nt "$dir/config.status" ]; then
		log "configure $* (in $dir)"
		(cd "$dir" && "$here/configure" -q "$@")
	fi
}

build() {
	deps
	configure_in build
	make -C build -s -j"$JOBS" >&2
}

# The last line of the test command is the plain summary CI reads.
summary() {
	local log=$1 pass fail skip err xfail xpass
	pass=$(sed -n 's/^# PASS: *//p' "$log" | tail -1); fail=$(sed -n 's/^# FAIL: *//p' "$log" | tail -1)
	skip=$(sed -n 's/^# SKIP: *//p' "$log" | tail -1); err=$(sed -n 's/^# ERROR: *//p' "$log" | tail -1)
	xfail=$(sed -n 's/^# XFAIL: *//p' "$log" | tail -1); xpass=$(sed -n 's/^# XPASS: *//p' "$log" | tail -1)
	pass=$(( ${pass:-0} + ${xfail:-0} )); fail=$(( ${fail:-0} + ${err:-0} + ${xpass:-0} ))
	echo "${pass} passed, ${fail} failed, ${skip:-0} skipped"
}

run_tests() {
	local dir=$1 out rc=0
	out=$(mktemp)
	make -C "$dir" -j"$JOBS" check 2>&1 | tee "$out" || rc=$?
	if ! grep -q '^# TOTAL:' "$out"; then
		log "the test suite did not run (make check exited $rc)"
		rm -f "$out"
		echo "0 passed, 1 failed, 0 skipped"
		return 1
	fi
	summary "$out"
	rm -f "$out"
	return $rc
}

cmd=${1:-build}
shift || true
case $cmd in
	deps) deps ;;
	build) build ;;
	test)
		if ! build; then echo "0 passed, 1 failed, 0 skipped"; exit 1; fi
		run_tests build
		;;
	sanitize)
		deps
		configure_in build-san --enable-sanitizers
		if ! make -C build-san -s -j"$JOBS" >&2; then echo "0 passed, 1 failed, 0 skipped"; exit 1; fi
		run_tests build-san
		;;
	dataset)
		build
		make -C build -s dataset "$@"
		;;
	demo)
		build
		make -C build -s demo "$@"
		;;
	*)
		echo "usage: ./build.sh [dataset|test|build|sanitize|deps]" >&2
		exit 2
		;;
esac
