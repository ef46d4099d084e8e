/*
 * classic_reductions.cu - block reductions as CUDA code commonly writes
 * them, not as the suite's are, each word for word from where it is
 * usually copied:
 *
 * - reduce3 of the CUDA samples' reduction: a shared-memory tree, `for (s
 *   = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) ...;
 *   __syncthreads(); }`, 2^24 ints in blocks of 256, two a thread;
 * - reduce4 as the samples now write it, with cooperative groups: the
 *   tree down to 64, then the warp picked by `cta.thread_rank() < 32`
 *   adds with a tile's shfl_down;
 * - reduce6: a loop with the grid's stride, the tree, and the last warp
 *   without barriers through volatile shared memory (warp-synchronous
 *   code), 2^24 ints on 64, 1024 and 16384 blocks;
 * - NVIDIA's "Faster Parallel Reductions on Kepler": a grid-stride loop,
 *   then warpReduceSum and blockReduceSum written with warpSize (nvcc
 *   keeps WARP_SZ and the halving loops), 2^24 floats on 64, 1024 and
 *   16384 blocks;
 * - a block whose first warp, picked by `if (threadIdx.x < 32)`, sums the
 *   warps' totals between two barriers, in nanoseconds a block.
 *
 * Not part of the suite: a probe for how such kernels run on the cpu
 * backend (docs/PERFORMANCE.md, "2026-12-05 20:00 UTC"; docs/cpu-engine.md).
 *
 *   nvcc -cudart shared -arch=sm_75 -O3 -o classic_reductions bench/probes/classic_reductions.cu
 *   build/bin/anygpu run --backend cpu -- ./classic_reductions
 */
#define PROBE_NAME "classic_reductions"
#include "probe.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define N (1 << 24)
#define PICKED_BLOCKS 16384

__global__ void reduce3(const int *g_idata, int *g_odata, unsigned int n)
{
	extern __shared__ int sdata[];
	unsigned int tid = threadIdx.x;
	unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
	int mySum = (i < n) ? g_idata[i] : 0;

	if (i + blockDim.x < n)
		mySum += g_idata[i + blockDim.x];
	sdata[tid] = mySum;
	__syncthreads();
	for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			sdata[tid] = mySum = mySum + sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		g_odata[blockIdx.x] = mySum;
}

template <unsigned int blockSize>
__global__ void reduce4(const int *g_idata, int *g_odata, unsigned int n)
{
	cg::thread_block cta = cg::this_thread_block();
	extern __shared__ int sdata[];
	unsigned int tid = threadIdx.x;
	unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
	int mySum = (i < n) ? g_idata[i] : 0;

	if (i + blockSize < n)
		mySum += g_idata[i + blockSize];
	sdata[tid] = mySum;
	cg::sync(cta);
	for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
		if (tid < s)
			sdata[tid] = mySum = mySum + sdata[tid + s];
		cg::sync(cta);
	}
	cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
	if (cta.thread_rank() < 32) {
		if (blockSize >= 64)
			mySum += sdata[tid + 32];
		for (int offset = tile32.size() / 2; offset > 0; offset /= 2)
			mySum += tile32.shfl_down(mySum, offset);
	}
	if (cta.thread_rank() == 0)
		g_odata[blockIdx.x] = mySum;
}

template <unsigned int blockSize>
__device__ void warpReduce(volatile int *sdata, unsigned int tid)
{
	if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
	if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
	if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
	if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
	if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
	if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}

template <unsigned int blockSize>
__global__ void reduce6(const int *g_idata, int *g_odata, unsigned int n)
{
	extern __shared__ int sdata[];
	unsigned int tid = threadIdx.x;
	unsigned int i = blockIdx.x * (blockSize * 2) + tid;
	unsigned int gridSize = blockSize * 2 * gridDim.x;

	sdata[tid] = 0;
	while (i < n) {
		sdata[tid] += g_idata[i] + g_idata[i + blockSize];
		i += gridSize;
	}
	__syncthreads();
	if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
	if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
	if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
	if (tid < 32)
		warpReduce<blockSize>(sdata, tid);
	if (tid == 0)
		g_odata[blockIdx.x] = sdata[0];
}

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
	check(cudaMalloc(&out, 65536 * sizeof(float)), "cudaMalloc");
	check(cudaMalloc(&sums, PICKED_BLOCKS * sizeof(unsigned)), "cudaMalloc");
	check(cudaMemset(in, 0, N * sizeof(float)), "cudaMemset");
	{
		const int *ints = (const int *)in;
		int *isums = (int *)out;
		float ms = best_ms(20, [&] {
			reduce3<<<N / 512, 256, 256 * sizeof(int)>>>(ints, isums, N);
		});

		printf("reduce3, 2^24 ints, %d blocks of 256: %7.3f ms (%.1f GB/s)\n", N / 512, ms,
		       N * 4.0 / ms / 1e6);
		ms = best_ms(20, [&] {
			reduce4<256><<<N / 512, 256, 256 * sizeof(int)>>>(ints, isums, N);
		});
		printf("reduce4 (cooperative groups), %d blocks: %7.3f ms (%.1f GB/s)\n", N / 512,
		       ms, N * 4.0 / ms / 1e6);
		for (int nb = 64; nb <= 16384; nb *= 16) {
			ms = best_ms(20, [&] {
				reduce6<256><<<nb, 256, 256 * sizeof(int)>>>(ints, isums, N);
			});
			printf("reduce6, 2^24 ints, %5d blocks of 256: %7.3f ms (%.1f GB/s)\n", nb, ms,
			       N * 4.0 / ms / 1e6);
		}
	}
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
