#!/usr/bin/env bash
#
# run.sh - the CPU benchmark suite (docs/PERFORMANCE.md says what and why).
# Builds anygpu in build/ when it is not there (`make bench` rebuilds it
# first), builds both sides of every kernel of kernels.txt (cuda/NAME.cu
# with nvcc, omp/NAME.c with cc -O3 -march=native -fopenmp
# -fno-math-errno), runs each side, checks that the anygpu result matches
# the OpenMP one within the kernel's tolerance, and prints the comparison: the
# ratio OpenMP time / anygpu time per kernel, its geometric mean and the
# slowest kernel, the achieved rates against the memory bandwidth that a
# STREAM triad measures in the same run, the cold compile time of each
# module, the start-up overhead of a cached run, and scaling from one core.
#
#   bench/run.sh [--check] [--runs N] [--reps N] [--no-scaling] [KERNEL...]
#
# --check   small sizes, one untimed run per side, results compared only
#           (what the test suite may call; no timing thresholds anywhere)
# --runs N  processes per side and kernel (5), the two sides in turn; the
#           median of their medians
# --reps N  timed repetitions per process after its warm-up (5)
#
# Environment: ANYGPU_BUILD (the build directory, default build/), BENCH_OUT
# (programs, results and the compile cache, default bench/out/), NVCC, CC,
# BENCH_TIMEOUT (seconds one process may take, default 900).
# Exit status: 0 when every kernel ran and matched, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=$root/bench
out=${BENCH_OUT:-$bench/out}
build=${ANYGPU_BUILD:-$root/build}
cache=$out/kcache
ncpu=$(nproc)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cc=${CC:-cc}
timeout_s=${BENCH_TIMEOUT:-900}

mode=full
runs=5
reps=5
scaling=1
only=()

usage() {
	sed -n '/^#   bench/,/^# --reps/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--check) mode=check ;;
	--runs) runs=${2:?}; shift ;;
	--reps) reps=${2:?}; shift ;;
	--no-scaling) scaling=0 ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) only+=("$1") ;;
	esac
	shift
done

note() { printf '%s\n' "$*" >&2; }

# --- building -----------------------------------------------------------

# Whether $1 exists and is newer than every other argument.
fresh() {
	local t=$1 d
	shift
	[ -e "$t" ] || return 1
	for d; do [ "$t" -nt "$d" ] || return 1; done
}

# -fno-math-errno as the JIT has it (no one reads errno): without it GCC
# cannot make vector code of sqrtf, expf or logf, each of which might set
# errno, and the OpenMP n-body ran 11 times slower than the same source so.
build_omp() {
	local src=$bench/omp/$1.c exe=$out/omp/$1
	fresh "$exe" "$src" "$bench"/omp/*.h "$bench"/common/bench.h "${BASH_SOURCE[0]}" &&
		return 0
	"$cc" -O3 -march=native -fopenmp -fno-math-errno -Wall -Wextra -o "$exe" "$src" -lm
}

build_cuda() {
	local src=$bench/cuda/$1.cu exe=$out/cuda/$1
	fresh "$exe" "$src" "$bench"/cuda/*.h "$bench"/common/bench.h && return 0
	"$nvcc" -cudart shared -arch=sm_75 -O3 -o "$exe" "$src"
}

build_tool() {
	local src=$bench/$1.c exe=$out/$1
	fresh "$exe" "$src" "$bench"/common/bench.h && return 0
	"$cc" -O3 -march=native -fopenmp -Wall -Wextra -o "$exe" "$src" -lm
}

# Builds the runtime and the CLI unless they are there; on failure says why
# in $anygpu_missing.
anygpu_missing=
build_anygpu() {
	local log=$out/build-anygpu.log
	[ -e "$build/lib/libcudart.so.13" ] && [ -x "$build/bin/anygpu" ] && return
	if [ ! -f "$build/CMakeCache.txt" ] &&
	   ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$log" 2>&1; then
		anygpu_missing="cmake configure failed (see $log)"
		return
	fi
	if ! cmake --build "$build" -j"$ncpu" --target cudart anygpu >>"$log" 2>&1; then
		anygpu_missing="build of cudart and anygpu failed (see $log)"
		return
	fi
	[ -e "$build/lib/libcudart.so.13" ] && [ -x "$build/bin/anygpu" ] ||
		anygpu_missing="no libcudart.so.13 or anygpu in $build"
}

# --- running ------------------------------------------------------------

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run SIDE KERNEL [ARGS...]: one process of out/SIDE/KERNEL, on anygpu's
# runtime with the cpu backend (cuda) or on OpenMP (omp), pinned when $pin
# says so; its stdout in out/last.out, its stderr in out/last.err, its wall
# time in $wall_ms.  Fails as the process did.
pin=
threads=$ncpu
wall_ms=0
run() {
	local side=$1 kernel=$2 t0 rc=0 cmd=()
	shift 2
	[ -n "$pin" ] && cmd+=(taskset -c "$pin")
	if [ "$side" = omp ]; then
		cmd+=(env OMP_NUM_THREADS="$threads")
	else
		cmd+=(env ANYGPU_CACHE_DIR="$cache" ANYGPU_VERBOSE=1 ANYGPU_THREADS="$threads"
		      "$build/bin/anygpu" run --backend cpu --)
	fi
	t0=$(now_ms)
	timeout "$timeout_s" "${cmd[@]}" "$out/$side/$kernel" "$@" \
		>"$out/last.out" 2>"$out/last.err" || rc=$?
	wall_ms=$(( $(now_ms) - t0 ))
	return $rc
}

# The milliseconds the cpu backend says (ANYGPU_VERBOSE) that the last run
# spent compiling modules.
compile_ms() {
	sed -n 's/^anygpu: cpu: compiled module .* in \([0-9]*\) ms$/\1/p' "$out/last.err" |
		awk '{ s += $1 } END { print s + 0 }'
}

# Why the last run failed, in one line.
failure() {
	local rc=$1 why
	why=$(grep -v -e '^$' -e '^anygpu: cpu: compiled module' "$out/last.err" | head -n 1 || true)
	[ "$rc" = 124 ] && why="timed out after ${timeout_s}s"
	echo "exit $rc${why:+: $why}"
}

# field KEY: the value of KEY= in the BENCH line of the last run.
field() {
	sed -n "s/^BENCH .*[ ]$1=\([^ ]*\).*/\1/p" "$out/last.out" | head -n 1
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
	if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# calc EXPR: floating-point arithmetic.
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

# --- the suite ----------------------------------------------------------

declare -A rtol atol status any_ms omp_ms bytes flops cold_ms compile any1_ms omp1_ms spread
kernels=()
while read -r name r a _; do
	case $name in ''|'#'*) continue ;; esac
	kernels+=("$name")
	rtol[$name]=$r
	atol[$name]=$a
done <"$bench/kernels.txt"
if [ ${#only[@]} -gt 0 ]; then
	for k in "${only[@]}"; do
		[ -n "${rtol[$k]:-}" ] || { note "run.sh: no kernel '$k' in kernels.txt"; exit 2; }
	done
	kernels=("${only[@]}")
fi

[ -x "$nvcc" ] || { note "run.sh: nvcc not found (CUDA toolkit 13; set NVCC)"; exit 2; }
mkdir -p "$out/omp" "$out/cuda" "$out/res"
build_anygpu
for k in "${kernels[@]}"; do
	build_omp "$k"
	build_cuda "$k"
done
build_tool check
build_tool stream
if [ "$mode" = check ] && [ -n "$anygpu_missing" ]; then
	note "run.sh --check: anygpu is not available: $anygpu_missing"
	exit 1
fi
rm -rf "$cache"

# Process i of one side of one kernel: the first writes the result; on
# anygpu it is also the cold one (empty cache), whose extra wall time over
# the warm ones is the module's compile time.  Its median goes to
# meds_SIDE, its wall time (warm ones) to walls.
measure_one() {
	local side=$1 k=$2 i=$3 rc=0 size=()
	local -n meds=meds_$side
	[ "$mode" = check ] && size=(-s)
	if [ "$i" = 0 ]; then
		run "$side" "$k" "${size[@]}" -r "$reps" -o "$out/res/$k.$side" || rc=$?
		[ "$side" = cuda ] && cold=$wall_ms && compile[$k]=$(compile_ms)
	else
		run "$side" "$k" "${size[@]}" -r "$reps" || rc=$?
		[ "$side" = cuda ] && walls+=("$wall_ms")
	fi
	if [ "$rc" != 0 ]; then
		status[$k]="$side FAILED ($(failure "$rc"))"
		return 1
	fi
	meds+=("$(field median_ms)")
	bytes[$k]=$(field bytes)
	flops[$k]=$(field flops)
}

# The lowest and the highest ratio of measure's in-turn pairs (an OpenMP
# process and the anygpu one after it), "0.71-0.93": how far the host
# moved the ratio while the kernel was measured.
pair_spread() {
	paste <(printf '%s\n' "${meds_omp[@]}") <(printf '%s\n' "${meds_cuda[@]}") |
		awk '{ r = $1 / $2; if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
		     END { printf "%.2f-%.2f", lo, hi }'
}

# Both sides of one kernel, --runs processes each (one in --check),
# OpenMP and anygpu in turn: a spell of the machine running slower (it is
# shared) then slows both sides' processes of that turn, where all of one
# side first and all of the other next put it on one side only.
measure() {
	local k=$1 i cold=0 meds_omp=() meds_cuda=() walls=()

	for (( i = 0; i < runs; i++ )); do
		measure_one omp "$k" "$i" || return 1
		[ -n "$anygpu_missing" ] || measure_one cuda "$k" "$i" || return 1
	done
	omp_ms[$k]=$(median "${meds_omp[@]}")
	if [ -n "$anygpu_missing" ]; then
		status[$k]="anygpu pending"
		return 1
	fi
	any_ms[$k]=$(median "${meds_cuda[@]}")
	spread[$k]=$(pair_spread)
	if [ ${#walls[@]} -gt 0 ]; then
		printf -v "cold_ms[$k]" '%.0f' "$(calc "$cold - $(median "${walls[@]}")")"
	fi
}

compare() {
	local k=$1 verdict rc=0
	verdict=$("$out/check" "$out/res/$k.cuda" "$out/res/$k.omp" "${rtol[$k]}" "${atol[$k]}") || rc=$?
	if [ "$rc" = 0 ]; then
		status[$k]=ok
	else
		status[$k]="WRONG RESULT: ${verdict:-checker failed}"
	fi
}

if [ "$mode" = check ]; then
	runs=1
	reps=0
fi
triad=
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$mode" = full ]; then
	timeout "$timeout_s" "$out/stream" >"$out/last.out"
	triad=$(sed -n 's/^STREAM triad_gbs=//p' "$out/last.out")
fi

for k in "${kernels[@]}"; do
	note "== $k"
	status[$k]=
	measure "$k" || continue
	compare "$k"
done

# --- reporting ----------------------------------------------------------

failed=0
for k in "${kernels[@]}"; do [ "${status[$k]}" = ok ] || failed=$((failed + 1)); done

if [ "$mode" = check ]; then
	for k in "${kernels[@]}"; do printf '%-14s %s\n' "$k" "${status[$k]}"; done
	[ "$failed" = 0 ] && echo "all ${#kernels[@]} kernels match" && exit 0
	echo "$failed of ${#kernels[@]} kernels failed"
	exit 1
fi

# rate K MS: "12.3 GB/s" or "45.6 GFLOP/s"; pct K MS: of the triad bandwidth.
rate() {
	if [ "${flops[$1]:-0}" != 0 ]; then
		printf '%.1f GFLOP/s' "$(calc "${flops[$1]} / ($2 * 1e6)")"
	else
		printf '%.1f GB/s' "$(calc "${bytes[$1]} / ($2 * 1e6)")"
	fi
}
pct() {
	[ "${flops[$1]:-0}" = 0 ] && printf '%.0f%%' "$(calc "${bytes[$1]} / ($2 * 1e6) / $triad * 100")"
	return 0
}

echo
echo "anygpu CPU benchmark suite, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $ncpu cores; triad bandwidth ${triad} GB/s;" \
	"load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medians of $runs processes x $reps timed repetitions; ratio = OpenMP time / anygpu time (> 1: anygpu faster)"
echo "pairs: the lowest and highest ratio of one OpenMP process and the anygpu one run after it"
[ -n "$anygpu_missing" ] && echo "anygpu numbers pending: $anygpu_missing"
echo
printf '%-13s %10s %10s %7s %10s %14s %6s %14s %6s  %s\n' kernel "anygpu ms" "omp ms" ratio \
	pairs "anygpu rate" "%bw" "omp rate" "%bw" check
logsum=0
nok=0
slowest=
for k in "${kernels[@]}"; do
	if [ -z "${omp_ms[$k]:-}" ]; then
		printf '%-13s %s\n' "$k" "${status[$k]}"
		continue
	fi
	if [ -z "${any_ms[$k]:-}" ]; then
		printf '%-13s %10s %10.3f %7s %10s %14s %6s %14s %6s  %s\n' "$k" - "${omp_ms[$k]}" - - - - \
			"$(rate "$k" "${omp_ms[$k]}")" "$(pct "$k" "${omp_ms[$k]}")" "${status[$k]}"
		continue
	fi
	ratio=$(calc "${omp_ms[$k]} / ${any_ms[$k]}")
	printf '%-13s %10.3f %10.3f %7.3f %10s %14s %6s %14s %6s  %s\n' "$k" "${any_ms[$k]}" "${omp_ms[$k]}" \
		"$ratio" "${spread[$k]}" "$(rate "$k" "${any_ms[$k]}")" "$(pct "$k" "${any_ms[$k]}")" \
		"$(rate "$k" "${omp_ms[$k]}")" "$(pct "$k" "${omp_ms[$k]}")" "${status[$k]}"
	# A wrong answer does not count, however fast.
	[ "${status[$k]}" = ok ] || continue
	logsum=$(calc "$logsum + log($ratio)")
	nok=$((nok + 1))
	if [ -z "$slowest" ] || [ "$(calc "$ratio < $slowest_ratio")" = 1 ]; then
		slowest=$k
		slowest_ratio=$ratio
	fi
done
echo
if [ "$nok" -gt 0 ]; then
	printf 'geometric mean of ratios over %d correct kernels: %.3f\n' "$nok" "$(calc "exp($logsum / $nok)")"
	printf 'slowest: %s at %.3f\n' "$slowest" "$slowest_ratio"
fi
[ "$failed" -gt 0 ] && echo "$failed of ${#kernels[@]} kernels did not run or did not match: they are not in the mean"

if [ -n "$anygpu_missing" ]; then
	exit 1
fi

echo
echo "cold compile: the first process of each kernel, with an empty ANYGPU_CACHE_DIR"
printf '  %-13s %18s %22s\n' kernel "compile (backend)" "wall: cold - cached"
for k in "${kernels[@]}"; do
	[ -n "${compile[$k]:-}" ] || continue
	printf '  %-13s %15d ms %19s ms\n' "$k" "${compile[$k]}" "${cold_ms[$k]:--}"
done

# Start-up: vecadd at its small size, cached, against the same program
# making its inputs and stopping before any CUDA call (-H).
if [ -n "${any_ms[vecadd]:-}" ]; then
	host=() full=()
	for i in 1 2 3 4 5; do
		run cuda vecadd -s -H && host+=("$wall_ms")
		run cuda vecadd -s -r 0 && full+=("$wall_ms")
	done
	if [ ${#host[@]} = 5 ] && [ ${#full[@]} = 5 ]; then
		h=$(median "${host[@]}")
		f=$(median "${full[@]}")
		echo
		echo "start-up (vecadd -s, cached, median of 5 processes): whole run ${f} ms," \
			"host-only work ${h} ms: overhead $(calc "$f - $h") ms"
	fi
fi

# Scaling: every process pinned to one core and told one thread
# (OMP_NUM_THREADS, ANYGPU_THREADS).
if [ "$scaling" = 1 ]; then
	pin=0
	threads=1
	scale_reps=$(( reps < 3 ? reps : 3 ))
	for k in "${kernels[@]}"; do
		[ "${status[$k]}" = ok ] || continue
		run omp "$k" -r "$scale_reps" && omp1_ms[$k]=$(field median_ms)
		run cuda "$k" -r "$scale_reps" && any1_ms[$k]=$(field median_ms)
	done
	pin=
	threads=$ncpu
	echo
	echo "scaling from 1 core (taskset -c 0) to $ncpu: speed-up = time on 1 / time on $ncpu"
	printf '  %-13s %12s %12s %8s %12s %12s %8s\n' kernel "anygpu 1 ms" "anygpu $ncpu ms" \
		speedup "omp 1 ms" "omp $ncpu ms" speedup
	for k in "${kernels[@]}"; do
		[ -n "${any1_ms[$k]:-}" ] && [ -n "${omp1_ms[$k]:-}" ] || continue
		printf '  %-13s %12.3f %12.3f %8.2f %12.3f %12.3f %8.2f\n' "$k" \
			"${any1_ms[$k]}" "${any_ms[$k]}" "$(calc "${any1_ms[$k]} / ${any_ms[$k]}")" \
			"${omp1_ms[$k]}" "${omp_ms[$k]}" "$(calc "${omp1_ms[$k]} / ${omp_ms[$k]}")"
	done
fi
[ "$failed" = 0 ]
