#!/bin/sh
# gpu-check.sh [BUILD_DIR] - what only a machine with an NVIDIA GPU can
# check: builds anygpu (default build-gpu/), runs the cuda backend's unit
# test, every CUDA test program on `--backend cuda`, then again through
# `anygpu serve --backend cuda` on loopback, and `anygpu bench bandwidth`
# and `latency` on the GPU and through the server; prints a summary.
# Exits 1 when a check failed, 2 when there is no NVIDIA driver.
# docs/testing.md, "On a GPU machine".
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
logs=$build/gpu-check
anygpu=$build/bin/anygpu

if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' &&
	! [ -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ]; then
	echo "gpu-check: no NVIDIA driver here (libcuda.so.1 not found): run this on a GPU machine" >&2
	exit 2
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L

echo "== build ($build)"
if ! { cmake -S "$root" -B "$build" && cmake --build "$build" -j"$(nproc)"; } >"$build.log" 2>&1; then
	tail -30 "$build.log"
	echo "gpu-check: the build failed" >&2
	exit 1
fi
rm -rf "$logs" && mkdir -p "$logs"
summary=

# Records a result line for the summary.
note() { summary="$summary$1
"; }

# run_suite LABEL ANYGPU-RUN-OPTIONS...: every tests/cuda program; one
# passes when it exits 0 and prints a line starting with PASS (its
# expect-stdout/stderr directives are not checked here).
run_suite() {
	label=$1
	shift
	pass=0 fail=0 failed=
	for src in "$root"/tests/cuda/*.cu; do
		name=$(basename "$src" .cu)
		out=$logs/$label.$name
		if "$anygpu" run "$@" -- "$build/tests/cuda/$name" >"$out.out" 2>"$out.err" &&
			grep -q '^PASS' "$out.out"; then
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

echo "== the cuda backend's unit test"
if (cd "$build" && ctest -R server.cuda_backend --output-on-failure >"$logs/unit.log" 2>&1); then
	note "unit server.cuda_backend: passed"
else
	note "unit server.cuda_backend: FAILED ($logs/unit.log)"
fi

echo "== CUDA test programs on --backend cuda"
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

echo "== CUDA test programs through the server"
run_suite remote --server 127.0.0.1:$port

for what in bandwidth latency; do
	for where in "--backend cuda" "--server 127.0.0.1:$port"; do
		sizes=
		[ $what = bandwidth ] && sizes="--sizes 1M,64M,256M --reps 5"
		echo "== anygpu bench $what $where"
		# shellcheck disable=SC2086 # the options are words
		if "$anygpu" bench $what $where $sizes | tee -a "$logs/bench.txt"; then
			note "bench $what $where: ran (figures in $logs/bench.txt)"
		else
			note "bench $what $where: FAILED"
		fi
	done
done

kill $serve
wait $serve 2>/dev/null
if grep -q "killed by signal" "$logs/serve.log"; then
	note "serve: a worker crashed ($logs/serve.log)"
fi

echo "== summary"
printf '%s' "$summary"
case $summary in
*FAILED* | *crashed*) exit 1 ;;
esac
exit 0
