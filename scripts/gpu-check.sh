#!/usr/bin/env bash
# gpu-check.sh [--prebuilt] [BUILD_DIR] - what only a machine with an
# NVIDIA GPU can check: builds anygpu (default build-gpu/; --prebuilt uses
# BUILD_DIR as it is, e.g. one built on another machine), runs the cuda
# backend's unit test, every CUDA test program (but those marked
# "// engine: cpu") on `--backend cuda`, then
# again through `anygpu serve --backend cuda` on loopback, and `anygpu
# bench bandwidth` and `latency` on the GPU, through the server, and, as
# the native reference, the same bench program on NVIDIA's own libcudart
# when one is found (ANYGPU_NATIVE_CUDART names its folder); prints a
# summary.  JOBS programs run at once (default: half the cores).
# Exits 1 when a check failed, 2 when there is no NVIDIA driver.
# docs/testing.md, "On a GPU machine".
set -u -o pipefail

# --one LABEL NAME ANYGPU-RUN-OPTIONS...: one program of the suite, its
# output in BUILD/gpu-check/LABEL.NAME.{out,err}, its exit status in .rc;
# it passes when it exits 0 and prints a line starting with PASS (its
# expect-stdout/stderr directives are not checked here).
if [ "${1:-}" = --one ]; then
	label=$2 name=$3
	shift 3
	out=$GPU_CHECK_BUILD/gpu-check/$label.$name
	timeout 60 "$GPU_CHECK_BUILD/bin/anygpu" run "$@" -- \
		"$GPU_CHECK_BUILD/tests/cuda/$name" >"$out.out" 2>"$out.err"
	echo $? >"$out.rc"
	exit 0
fi

prebuilt=0
if [ "${1:-}" = --prebuilt ]; then
	prebuilt=1
	shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
logs=$build/gpu-check
anygpu=$build/bin/anygpu
jobs=${JOBS:-$(( ($(nproc) + 1) / 2 ))}

# The driver's library, where the loader or the usual mounts have it.
driver=$(ldconfig -p 2>/dev/null | awk '$1 == "libcuda.so.1" { print $NF; exit }')
for d in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64; do
	[ -n "$driver" ] && break
	if [ -e "$d/libcuda.so.1" ]; then
		driver=$d/libcuda.so.1
		export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	fi
done
if [ -z "$driver" ]; then
	echo "gpu-check: no NVIDIA driver here (libcuda.so.1 not found): run this on a GPU machine" >&2
	exit 2
fi
echo "driver library: $driver"
command -v nvidia-smi >/dev/null && nvidia-smi -L &&
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv

if [ $prebuilt = 0 ]; then
	echo "== build ($build)"
	if ! { cmake -S "$root" -B "$build" && cmake --build "$build" -j"$(nproc)"; } \
		>"$build.log" 2>&1; then
		tail -30 "$build.log"
		echo "gpu-check: the build failed" >&2
		exit 1
	fi
elif ! [ -x "$anygpu" ]; then
	echo "gpu-check: --prebuilt, but $anygpu is not there" >&2
	exit 1
fi
rm -rf "$logs" && mkdir -p "$logs"
summary=

# Records a result line for the summary.
note() { summary="$summary$1
"; }

# programs [cpu]: the tests/cuda programs that check the GPU's behaviour,
# or with cpu those marked "// engine: cpu", which check what anygpu's cpu
# engine refuses or traps where a GPU runs on.
programs() {
	for src in "$root"/tests/cuda/*.cu; do
		if grep -q '^// engine: cpu' "$src"; then
			[ "${1:-}" = cpu ] && basename "$src" .cu
		else
			[ "${1:-}" = cpu ] || basename "$src" .cu
		fi
	done
}

# run_suite LABEL ANYGPU-RUN-OPTIONS...: the programs, JOBS at a time,
# each by this script's --one.
run_suite() {
	label=$1
	shift
	programs | GPU_CHECK_BUILD=$build xargs -P "$jobs" -I{} bash "$0" --one "$label" {} "$@"
	pass=0 fail=0 failed=
	for name in $(programs); do
		out=$logs/$label.$name
		if [ "$(cat "$out.rc")" = 0 ] && grep -q '^PASS' "$out.out"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			failed="$failed $name"
		fi
	done
	if [ $fail = 0 ]; then
		note "$label: all $pass programs passed"
	else
		note "$label: $pass passed, FAILED $fail (logs in $logs/$label.NAME.*):$failed"
	fi
}

note "not run (engine: cpu): $(programs cpu | tr '\n' ' ')"

echo "== the cuda backend's unit test"
if "$build/bin/test_cuda_backend" >"$logs/unit.log" 2>&1; then
	note "unit server.cuda_backend: passed"
else
	note "unit server.cuda_backend: FAILED ($logs/unit.log)"
fi

echo "== CUDA test programs on --backend cuda ($jobs at a time)"
run_suite cuda --backend cuda

port=$(( 40000 + $$ % 20000 ))
echo "== anygpu serve --backend cuda on 127.0.0.1:$port"
"$anygpu" serve --backend cuda --listen 127.0.0.1:$port --state-dir "$logs/state" \
	>"$logs/serve.log" 2>&1 &
serve=$!
i=0
until grep -q "listening on 127.0.0.1:$port" "$logs/serve.log"; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 $serve 2>/dev/null; then
		cat "$logs/serve.log"
		echo "gpu-check: anygpu serve did not start" >&2
		exit 1
	fi
	sleep 0.1
done

echo "== CUDA test programs through the server ($jobs at a time)"
run_suite remote --backend remote --server 127.0.0.1:$port

# NVIDIA's libcudart.so.13, for the native reference: the bench program
# asks only for CUDA's runtime API, so it runs on either library.
native=${ANYGPU_NATIVE_CUDART:-}
if [ -z "$native" ]; then
	for f in /usr/local/cuda/lib64/libcudart.so.13 /usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13 \
		/usr/local/cuda-13*/lib64/libcudart.so.13 \
		$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia/cu13/lib/libcudart.so.13; do
		if [ -e "$f" ]; then
			native=$(dirname "$f")
			break
		fi
	done
fi

for what in bandwidth latency; do
	sizes=
	[ $what = bandwidth ] && sizes="--sizes 1M,64M,256M --reps 5"
	for where in "--backend cuda" "--backend remote --server 127.0.0.1:$port"; do
		echo "== anygpu bench $what $where"
		# shellcheck disable=SC2086 # the options are words
		if "$anygpu" bench $what $where $sizes 2>&1 | tee -a "$logs/bench.txt"; then
			note "bench $what $where: ran (figures in $logs/bench.txt)"
		else
			note "bench $what $where: FAILED"
		fi
	done
	if [ -n "$native" ]; then
		echo "== native: anygpu-bench $what on NVIDIA's libcudart ($native)" | tee -a "$logs/bench.txt"
		# shellcheck disable=SC2086
		if LD_LIBRARY_PATH="$native:${LD_LIBRARY_PATH:-}" "$build/libexec/anygpu-bench" $what $sizes \
			2>&1 | tee -a "$logs/bench.txt"; then
			note "bench $what native (NVIDIA's libcudart): ran"
		else
			note "bench $what native (NVIDIA's libcudart): FAILED"
		fi
	fi
done
[ -n "$native" ] || note "bench native: no NVIDIA libcudart.so.13 found (set ANYGPU_NATIVE_CUDART)"

kill $serve
wait $serve 2>/dev/null
# Workers still running at the end are stopped with SIGTERM: not a crash.
if grep "killed by signal" "$logs/serve.log" | grep -qv "signal 15 "; then
	note "serve: a worker crashed ($logs/serve.log)"
fi

echo "== summary"
printf '%s' "$summary"
case $summary in
*FAILED* | *crashed*) exit 1 ;;
esac
exit 0
