/*
 * warp_size: the block reduction as NVIDIA's "Faster Parallel Reductions
 * on Kepler" writes it, with warpSize: a grid-stride loop sums each
 * thread's elements, each warp adds its lanes with a halving loop of
 * __shfl_down_sync (nvcc keeps WARP_SZ and the loop), lane 0 stores to
 * shared[threadIdx.x / warpSize], and the first warp adds those; on
 * grids smaller and larger than the data, with blocks of 256, 1024, 96
 * and 160 threads.  Then each thread's threadIdx.x / warpSize and %
 * warpSize, and a branch on threadIdx.x < warpSize around a shuffle, in
 * blocks of whole warps and of 48 threads; all checked against the host.
 */
#include "check.h"

__device__ int warp_reduce(int v)
{
	for (int offset = warpSize / 2; offset > 0; offset /= 2)
		v += __shfl_down_sync(0xffffffffu, v, offset);
	return v;
}

__device__ int block_reduce(int v)
{
	static __shared__ int shared[32];
	int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;

	v = warp_reduce(v);
	if (lane == 0)
		shared[wid] = v;
	__syncthreads();
	v = threadIdx.x < (blockDim.x + warpSize - 1) / warpSize ? shared[lane] : 0;
	if (wid == 0)
		v = warp_reduce(v);
	return v;
}

__global__ void reduce(const int *in, int *out, int n)
{
	int sum = 0;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		sum += in[i];
	sum = block_reduce(sum);
	if (threadIdx.x == 0)
		out[blockIdx.x] = sum;
}

/* Each thread's warp and lane, and, in the first warp of each block only,
 * the lane's value from the next lane up. */
__global__ void places(int *warp, int *lane, int *next)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;

	warp[t] = threadIdx.x / warpSize;
	lane[t] = threadIdx.x % warpSize;
	next[t] = -1;
	if (threadIdx.x < warpSize)
		next[t] = __shfl_down_sync(0xffffffffu, t, 1);
}

static void test_reduce(int n, int blocks, int threads)
{
	int *in = (int *)malloc(n * sizeof(int)), *sums = (int *)malloc(blocks * sizeof(int));
	int *want = (int *)calloc(blocks, sizeof(int)), *din, *dout;
	char what[80];

	for (int i = 0; i < n; i++)
		in[i] = (i * 7919) % 2001 - 1000;
	for (int i = 0; i < n; i++)
		want[i / threads % blocks] += in[i];
	CK(cudaMalloc(&din, n * sizeof(int)));
	CK(cudaMalloc(&dout, blocks * sizeof(int)));
	CK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	reduce<<<blocks, threads>>>(din, dout, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(sums, dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "block sums of %d, %d blocks of %d", n, blocks, threads);
	check_array(what, sums, want, blocks);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	free(in), free(sums), free(want);
}

static void test_places(int blocks, int threads)
{
	int n = blocks * threads, *d;
	int *got = (int *)malloc(3 * n * sizeof(int)), *want = (int *)malloc(3 * n * sizeof(int));
	char what[80];

	for (int t = 0; t < n; t++) {
		int x = t % threads;

		want[t] = x / 32;
		want[n + t] = x % 32;
		/* a lane past the block's last thread keeps its own value */
		want[2 * n + t] = x >= 32 ? -1 : x % 32 < 31 && x + 1 < threads ? t + 1 : t;
	}
	CK(cudaMalloc(&d, 3 * n * sizeof(int)));
	places<<<blocks, threads>>>(d, d + n, d + 2 * n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, 3 * n * sizeof(int), cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "warp, lane and next lane, %d blocks of %d", blocks, threads);
	check_array(what, got, want, 3 * n);
	CK(cudaFree(d));
	free(got), free(want);
}

int main(void)
{
	test_reduce(1 << 20, 64, 256);          /* each thread many elements */
	test_reduce(100003, 1024, 256);         /* a partial last turn */
	test_reduce(5000, 40, 256);             /* threads with nothing */
	test_reduce(1 << 16, 16, 1024);
	test_reduce(77777, 33, 96);             /* three warps a block */
	test_reduce(9999, 20, 160);
	test_places(3, 128);
	test_places(2, 96);
	test_places(3, 48);                     /* not whole warps */
	return verdict("warp_size");
}
