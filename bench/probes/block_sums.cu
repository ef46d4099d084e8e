/*
 * block_sums.cu - a block reduction whose warp 0 alone finishes: each warp
 * sums its lanes with __shfl_down_sync, lane 0 stores the warp's sum to
 * shared memory, and after __syncthreads() warp 0 sums the eight and
 * stores the block's; warps 1 to 7 have nothing left to do.  2^22 floats
 * in blocks of 256, the best of 30 launches.  Not part of the suite: a
 * probe for the calls that end at their barrier (src/cpu/ahead.c;
 * docs/PERFORMANCE.md, "2026-12-05 16:36 UTC").
 *
 *   nvcc -cudart shared -arch=sm_75 -O3 -o block_sums bench/probes/block_sums.cu
 *   build/bin/anygpu run --backend cpu -- ./block_sums
 */
#define PROBE_NAME "block_sums"
#include "probe.h"

#define N (1 << 22)
#define THREADS 256

__device__ float warp_sum(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__global__ void block_sums(const float *in, float *out)
{
	__shared__ float warps[THREADS / 32];
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	float v = warp_sum(in[blockIdx.x * THREADS + threadIdx.x]);

	if (lane == 0)
		warps[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = warp_sum(lane < THREADS / 32 ? warps[lane] : 0);
		if (lane == 0)
			out[blockIdx.x] = v;
	}
}

int main(void)
{
	float *in, *out, best, first;

	check(cudaMalloc(&in, N * sizeof(float)), "cudaMalloc");
	check(cudaMalloc(&out, N / THREADS * sizeof(float)), "cudaMalloc");
	check(cudaMemset(in, 0, N * sizeof(float)), "cudaMemset");
	best = best_ms(30, [&] { block_sums<<<N / THREADS, THREADS>>>(in, out); });
	check(cudaMemcpy(&first, out, sizeof(first), cudaMemcpyDeviceToHost), "cudaMemcpy");
	if (first != 0) {
		fprintf(stderr, "block_sums: block 0's sum is %g, want 0\n", first);
		return 1;
	}
	printf("block_sums: %d floats in blocks of %d: %.3f ms (best of 30)\n", N, THREADS, best);
	check(cudaFree(in), "cudaFree");
	check(cudaFree(out), "cudaFree");
	return 0;
}
