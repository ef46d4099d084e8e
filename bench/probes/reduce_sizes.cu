/*
 * reduce_sizes.cu - the suite's reduction kernel (cuda/reduce_kernels.h:
 * 1024 blocks of 256 threads, a grid-stride sum, then shuffles, a barrier
 * and the first warp's fold) alone on 2^k floats, the best of 50
 * launches.  Its time less the sweep's share is what every block's end
 * costs: at k = 18 each thread sums one element, and the time is nearly
 * all block ends; at k = 24, the suite's size, the sweep reads 64 MiB.
 * Not part of the suite: a probe (docs/PERFORMANCE.md, "2026-12-05 17:15
 * UTC").
 *
 *   nvcc -cudart shared -arch=sm_75 -O3 -o reduce_sizes bench/probes/reduce_sizes.cu
 *   ANYGPU_THREADS=1 build/bin/anygpu run --backend cpu -- ./reduce_sizes 18
 */
#define PROBE_NAME "reduce_sizes"
#include "probe.h"

#include "../cuda/reduce_kernels.h"

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 24;
	float *in, *out, ms;
	int n;

	if (k < 10 || k > 28) {
		fprintf(stderr, "usage: reduce_sizes [LOG2_ELEMENTS (10-28, default 24)]\n");
		return 2;
	}
	n = 1 << k;
	check(cudaMalloc(&in, n * sizeof(float)), "cudaMalloc");
	check(cudaMalloc(&out, BLOCKS * sizeof(float)), "cudaMalloc");
	check(cudaMemset(in, 0, n * sizeof(float)), "cudaMemset");
	ms = best_ms(50, [&] { reduce<<<BLOCKS, THREADS>>>(in, out, n); });
	printf("2^%d floats: reduce %.3f ms, %.1f GB/s, %.3f us a block (best of 50)\n", k, ms,
	       n * 4.0 / ms / 1e6, ms * 1e3 / BLOCKS);
	check(cudaFree(in), "cudaFree");
	check(cudaFree(out), "cudaFree");
	return 0;
}
