/*
 * kepler_reduce.cu - block reductions as CUDA code is commonly written,
 * not as the suite's are.  First the kernel of NVIDIA's "Faster Parallel
 * Reductions on Kepler" word for word: a grid-stride loop, then
 * warpReduceSum and blockReduceSum written with warpSize (nvcc keeps
 * WARP_SZ and the halving loops), on 2^24 floats for grids of 64, 1024 and
 * 16384 blocks of 256.  Then a block whose first warp, picked by
 * `if (threadIdx.x < 32)`, sums the warps' totals between two barriers,
 * in nanoseconds a block.  Not part of the suite: a probe for how such
 * kernels run on the cpu backend (docs/PERFORMANCE.md, "2026-12-05
 * 19:40 UTC"; docs/cpu-engine.md, warp calls).
 *
 *   nvcc -cudart shared -arch=sm_75 -O3 -o kepler_reduce bench/probes/kepler_reduce.cu
 *   build/bin/anygpu run --backend cpu -- ./kepler_reduce
 */
#define PROBE_NAME "kepler_reduce"
#include "probe.h"

#define N (1 << 24)
#define PICKED_BLOCKS 16384

__inline__ __device__ float warpReduceSum(float val)
{
	for (int offset = warpSize / 2; offset > 0; offset /= 2)
		val += __shfl_down_sync(0xffffffff, val, offset);
	return val;
}

__inline__ __device__ float blockReduceSum(float val)
{
	static __shared__ float shared[32];
	int lane = threadIdx.x % warpSize;
	int wid = threadIdx.x / warpSize;

	val = warpReduceSum(val);
	if (lane == 0)
		shared[wid] = val;
	__syncthreads();
	val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
	if (wid == 0)
		val = warpReduceSum(val);
	return val;
}

__global__ void deviceReduceKernel(const float *in, float *out, int n)
{
	float sum = 0;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		sum += in[i];
	sum = blockReduceSum(sum);
	if (threadIdx.x == 0)
		out[blockIdx.x] = sum;
}

/* Each warp's lane 31 stores its scan step; the first warp, picked by
 * threadIdx.x, adds the eight; thread 0 stores the block's. */
__global__ void first_warp(unsigned *out)
{
	__shared__ unsigned s[8];
	unsigned v = threadIdx.x;

	v += __shfl_up_sync(0xffffffffu, v, 1);
	if (threadIdx.x % 32 == 31)
		s[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x < 32) {
		unsigned w = threadIdx.x < 8 ? s[threadIdx.x] : 0;

		w += __shfl_up_sync(0xffffffffu, w, 1);
		if (threadIdx.x < 8)
			s[threadIdx.x] = w;
	}
	__syncthreads();
	if (threadIdx.x == 0)
		out[blockIdx.x] = s[7];
}

int main(void)
{
	float *in, *out;
	unsigned *sums;

	check(cudaMalloc(&in, N * sizeof(float)), "cudaMalloc");
	check(cudaMalloc(&out, 16384 * sizeof(float)), "cudaMalloc");
	check(cudaMalloc(&sums, PICKED_BLOCKS * sizeof(unsigned)), "cudaMalloc");
	check(cudaMemset(in, 0, N * sizeof(float)), "cudaMemset");
	for (int nb = 64; nb <= 16384; nb *= 16) {
		float ms = best_ms(20, [&] { deviceReduceKernel<<<nb, 256>>>(in, out, N); });

		printf("blockReduceSum, 2^24 floats, %5d blocks of 256: %7.3f ms (%.1f GB/s)\n", nb,
		       ms, N * 4.0 / ms / 1e6);
	}
	float ms = best_ms(50, [&] { first_warp<<<PICKED_BLOCKS, 256>>>(sums); });
	printf("if (threadIdx.x < 32) between two barriers, %d blocks of 256: %.1f ns a block\n",
	       PICKED_BLOCKS, ms * 1e6f / PICKED_BLOCKS);
	return 0;
}
