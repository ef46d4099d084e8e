/*
 * reduce_volatile: the classic reduction whose last steps rely on a warp's
 * lanes running together: no barrier, only a volatile pointer into shared
 * memory (implicitly warp-synchronous code, common in older CUDA sources).
 */
#include "check.h"

#define BLOCK 256

__device__ void warp_tail(volatile int *s, int tid)
{
	s[tid] += s[tid + 32];
	s[tid] += s[tid + 16];
	s[tid] += s[tid + 8];
	s[tid] += s[tid + 4];
	s[tid] += s[tid + 2];
	s[tid] += s[tid + 1];
}

__global__ void reduce(const int *in, int *out, int n)
{
	__shared__ int s[BLOCK];
	int tid = threadIdx.x;
	int i = blockIdx.x * BLOCK * 2 + tid;
	int v = i < n ? in[i] : 0;
	if (i + BLOCK < n)
		v += in[i + BLOCK];
	s[tid] = v;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 32; stride >>= 1) {
		if (tid < stride)
			s[tid] += s[tid + stride];
		__syncthreads();
	}
	if (tid < 32)
		warp_tail(s, tid);
	if (tid == 0)
		out[blockIdx.x] = s[0];
}

int main()
{
	const int n = 300007, blocks = (n + 2 * BLOCK - 1) / (2 * BLOCK);
	int *in = (int *)malloc(n * sizeof(int));
	int *out = (int *)malloc(blocks * sizeof(int)), *want = (int *)calloc(blocks, sizeof(int));
	for (int i = 0; i < n; i++) {
		in[i] = (i * 2654435761u) >> 24;
		want[i / (2 * BLOCK)] += in[i];
	}
	int *din, *dout;
	CK(cudaMalloc(&din, n * sizeof(int)));
	CK(cudaMalloc(&dout, blocks * sizeof(int)));
	CK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	reduce<<<blocks, BLOCK>>>(din, dout, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
	check_array("block sums", out, want, blocks);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	free(in), free(out), free(want);
	return verdict("reduce_volatile");
}
