#!/usr/bin/env bash
# run-demo.sh BUILD_DIR - what `make demo` shows: examples/demo.cu built with
# `anygpu nvcc`, then run on this machine's CPU twice (the first run
# translates the PTX to C and compiles it, the second finds it in the cache),
# then through a local `anygpu serve`.
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

# ---- The same program through a local `anygpu serve` (remote backend):
# ---- the step is added here when the server lands.
