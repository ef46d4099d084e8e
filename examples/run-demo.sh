#!/usr/bin/env bash
# run-demo.sh BUILD_DIR - what `make demo` shows: examples/demo.cu built with
# `anygpu nvcc`, then run on this machine's CPU twice (the first run
# translates the PTX to C and compiles it, the second finds it in the cache),
# then through a local `anygpu serve` on a Unix socket.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${1:-build}
anygpu=$build/bin/anygpu
out=$build/examples
mkdir -p "$out"

step() { printf '\n==== %s\n' "$*"; }
TIMEFORMAT='---- took %R s'

step "anygpu nvcc -O2 --fmad=false -o $out/demo examples/demo.cu"
"$anygpu" nvcc -O2 --fmad=false -o "$out/demo" "$root/examples/demo.cu"

export ANYGPU_CACHE_DIR=$out/kcache
rm -rf "$ANYGPU_CACHE_DIR"
step "anygpu run --backend cpu -- demo   (first run: PTX -> C -> cc, cached in $ANYGPU_CACHE_DIR)"
time "$anygpu" run --backend cpu -- "$out/demo"
step "anygpu run --backend cpu -- demo   (second run: kernels from the cache)"
time "$anygpu" run --backend cpu -- "$out/demo"

# The same program through a local `anygpu serve` (cpu backend behind it),
# on a Unix socket: the path a GPU server on another machine takes.
serve_dir=$out/serve
rm -rf "$serve_dir"
mkdir -p "$serve_dir"
"$anygpu" serve --backend cpu --unix "$serve_dir/sock" --state-dir "$serve_dir" \
	</dev/null >"$serve_dir/serve.log" 2>&1 &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null' EXIT
for _ in $(seq 100); do
	[ -S "$serve_dir/sock" ] && break
	kill -0 $serve_pid 2>/dev/null || break
	sleep 0.1
done
[ -S "$serve_dir/sock" ] || { cat "$serve_dir/serve.log"; echo "anygpu serve did not start"; exit 1; }
step "ANYGPU_SERVER=unix:$serve_dir/sock anygpu run --backend remote -- demo   (through anygpu serve)"
time ANYGPU_SERVER=unix:$serve_dir/sock "$anygpu" run --backend remote -- "$out/demo"
for _ in $(seq 50); do  # let the session end before the server stops
	grep -q "session 1 end" "$serve_dir/serve.log" && break
	sleep 0.1
done
kill $serve_pid
wait $serve_pid 2>/dev/null || true
trap - EXIT
step "anygpu serve's log"
cat "$serve_dir/serve.log"
