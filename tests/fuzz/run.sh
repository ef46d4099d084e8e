#!/bin/sh
# run.sh [SECONDS] - builds the libFuzzer targets with clang in build-fuzz/
# and runs each for SECONDS (default 30) on a seed corpus: the real nvcc
# fatbins and the PTX of the unit tests.  Exits non-zero when a target
# crashes (the input that did it is left in build-fuzz/fuzz-artifacts/).
set -eu

secs=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${ANYGPU_FUZZ_BUILD:-$root/build-fuzz}
log=$build/run.log
mkdir -p "$build"

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	-DANYGPU_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$log" 2>&1 ||
	{ cat "$log"; exit 1; }
fuzzers=$(cd "$root/tests/fuzz" && ls fuzz_*.c | sed 's/\.c$//')

# Seeds: the fatbin fixtures (built by nvcc) and every PTX file in the tree.
cmake --build "$build" -j2 --target fatbin_fixtures >>"$log" 2>&1 ||
	echo "run.sh: no fatbin fixtures (nvcc missing?): fuzz_fatbin starts from nothing"
seeds() {
	case $1 in
	fuzz_fatbin) find "$build/tests/unit/fatbin" -name '*.fatbin' 2>/dev/null ;;
	fuzz_ptx | fuzz_translate) find "$root/tests" "$build/tests" -name '*.ptx' 2>/dev/null ;;
	fuzz_elf) find "$build/tests/unit/fatbin" -name '*.exe' -size -64k 2>/dev/null ;;
	*) find "$root/tests/fuzz/seeds/${1#fuzz_}" -type f 2>/dev/null ;;
	esac
}

failed=
for f in $fuzzers; do
	if ! cmake --build "$build" -j2 --target "$f" >>"$log" 2>&1; then
		if grep -q "No rule to make target '$f'" "$log"; then
			echo "run.sh: $f: its library is not built yet, skipped"
			continue
		fi
		tail -20 "$log"
		exit 1
	fi
	corpus=$build/fuzz-corpus/$f
	seed_dir=$build/fuzz-seeds/$f
	artifacts=$build/fuzz-artifacts/$f/
	rm -rf "$seed_dir"
	mkdir -p "$corpus" "$seed_dir" "$artifacts"
	seeds "$f" | while read -r s; do cp "$s" "$seed_dir/"; done
	echo "run.sh: $f for ${secs}s ($(ls "$seed_dir" | wc -l) seeds)"
	if ! "$build/bin/$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts" -print_final_stats=1 \
		"$corpus" "$seed_dir" >"$build/$f.log" 2>&1; then
		tail -40 "$build/$f.log"
		echo "run.sh: $f FAILED (input in $artifacts)"
		failed="$failed $f"
	else
		grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$build/$f.log" | tail -2
	fi
done
if [ -n "$failed" ]; then
	echo "run.sh: crashes in:$failed"
	exit 1
fi
echo "run.sh: no crash"
