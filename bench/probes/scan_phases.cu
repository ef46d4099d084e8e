/*
 * scan_phases.cu - the scan's two big launches one at a time: scan_blocks
 * (read the input, scan each block of 1024, write the output) and
 * add_offsets (read and write the output again) on 2^k elements, the best
 * of 20 launches each.  At k = 24, the suite's size, the arrays are four
 * times the L3 cache; at k = 22 or 20 they mostly stay in it, which leaves
 * the kernels' own work.  Not part of the suite: a probe that tells what
 * the scan is bound by (docs/PERFORMANCE.md, "2026-12-05 16:08 UTC").
 *
 *   nvcc -cudart shared -arch=sm_75 -O3 -o scan_phases bench/probes/scan_phases.cu
 *   ANYGPU_THREADS=1 build/bin/anygpu run --backend cpu -- ./scan_phases 22
 */
#define PROBE_NAME "scan_phases"
#include "probe.h"

#include "../cuda/scan_kernels.h"

/* The best time of 20 launches of scan_blocks (which 0) or add_offsets. */
static float best_of(int which, const unsigned *in, unsigned *out, unsigned *sums,
		     const unsigned *offsets, int n)
{
	int nb = n / PER_BLOCK;

	return best_ms(20, [&] {
		if (which == 0)
			scan_blocks<<<nb, THREADS>>>(in, out, sums, n);
		else
			add_offsets<<<nb, THREADS>>>(out, offsets, n);
	});
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 24;
	unsigned *in, *out, *sums, *offsets;
	int n, nb;

	if (k < 10 || k > 28) {
		fprintf(stderr, "usage: scan_phases [LOG2_ELEMENTS (10-28, default 24)]\n");
		return 2;
	}
	n = 1 << k;
	nb = n / PER_BLOCK;
	check(cudaMalloc(&in, n * sizeof(unsigned)), "cudaMalloc");
	check(cudaMalloc(&out, n * sizeof(unsigned)), "cudaMalloc");
	check(cudaMalloc(&sums, nb * sizeof(unsigned)), "cudaMalloc");
	check(cudaMalloc(&offsets, nb * sizeof(unsigned)), "cudaMalloc");
	check(cudaMemset(in, 1, n * sizeof(unsigned)), "cudaMemset");
	check(cudaMemset(offsets, 2, nb * sizeof(unsigned)), "cudaMemset");
	printf("2^%d elements: scan_blocks %.3f ms, add_offsets %.3f ms (best of 20)\n", k,
	       best_of(0, in, out, sums, offsets, n), best_of(1, in, out, sums, offsets, n));
	check(cudaFree(in), "cudaFree");
	check(cudaFree(out), "cudaFree");
	check(cudaFree(sums), "cudaFree");
	check(cudaFree(offsets), "cudaFree");
	return 0;
}
