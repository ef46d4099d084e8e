/*
 * early_return: threads that return before __syncthreads() count as
 * arrived at the barrier.  Blocks of 100 threads (a partial last warp) in
 * which a different number of threads per block leave early (whole warps,
 * parts of warps, all but one); the rest exchange values through shared
 * memory across one and then two barriers.
 */
#include "check.h"

#define BLOCK 100

__global__ void rotate(const int *in, int *out, const int *active)
{
	__shared__ int s[BLOCK];
	int tid = threadIdx.x, n = active[blockIdx.x];
	if (tid >= n)
		return;
	s[tid] = in[blockIdx.x * BLOCK + tid];
	__syncthreads();
	int v = s[(tid + 1) % n];
	__syncthreads();
	s[tid] = v * 2;
	__syncthreads();
	out[blockIdx.x * BLOCK + tid] = s[(tid + n - 1) % n] + s[tid];
}

/* Threads leave between two barriers. */
__global__ void leave_between(int *out)
{
	__shared__ int s[BLOCK];
	int tid = threadIdx.x;
	s[tid] = tid;
	__syncthreads();
	if (tid % 3 == 0)
		return;
	__syncthreads();
	out[blockIdx.x * BLOCK + tid] = s[(tid + 1) % BLOCK] + 1;
}

int main()
{
	const int blocks = 8;
	int active[blocks] = { 100, 64, 33, 31, 1, 96, 50, 97 };
	static int in[blocks * BLOCK], out[blocks * BLOCK], want[blocks * BLOCK];
	for (int i = 0; i < blocks * BLOCK; i++) {
		in[i] = i * 3 + 7;
		out[i] = want[i] = -1;
	}
	for (int b = 0; b < blocks; b++) {
		int n = active[b];
		for (int t = 0; t < n; t++) {
			int prev = (t + n - 1) % n;
			want[b * BLOCK + t] = 2 * in[b * BLOCK + (prev + 1) % n] +
					      2 * in[b * BLOCK + (t + 1) % n];
		}
	}
	int *din, *dout, *dactive;
	CK(cudaMalloc(&din, sizeof(in)));
	CK(cudaMalloc(&dout, sizeof(out)));
	CK(cudaMalloc(&dactive, sizeof(active)));
	CK(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dout, out, sizeof(out), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dactive, active, sizeof(active), cudaMemcpyHostToDevice));
	rotate<<<blocks, BLOCK>>>(din, dout, dactive);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	check_array("values exchanged after early returns", out, want, blocks * BLOCK);

	for (int i = 0; i < blocks * BLOCK; i++) {
		int t = i % BLOCK;
		out[i] = -1;
		want[i] = t % 3 == 0 ? -1 : (t + 1) % BLOCK + 1;
	}
	CK(cudaMemcpy(dout, out, sizeof(out), cudaMemcpyHostToDevice));
	leave_between<<<blocks, BLOCK>>>(dout);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	check_array("threads leaving between barriers", out, want, blocks * BLOCK);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(dactive));
	return verdict("early_return");
}
