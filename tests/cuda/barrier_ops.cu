/*
 * barrier_ops: barriers that also reduce a predicate over the block:
 * __syncthreads_count, __syncthreads_and, __syncthreads_or, in blocks with
 * a partial last warp, and __threadfence with the last-block pattern (each
 * block publishes a partial sum, fences, takes a ticket; the block that
 * draws the last ticket adds up everyone's partial sums).
 */
#include "check.h"

struct votes {
	int count, all, any;
};

__global__ void vote(const int *v, struct votes *o)
{
	int x = v[blockIdx.x * blockDim.x + threadIdx.x];
	int count = __syncthreads_count(x > 50);
	int all = __syncthreads_and(x >= 0);
	int any = __syncthreads_or(x == 99);
	if (threadIdx.x == 0) {
		o[blockIdx.x].count = count;
		o[blockIdx.x].all = !!all;
		o[blockIdx.x].any = !!any;
	}
}

__device__ unsigned tickets;

__global__ void last_block_sum(const int *in, int n, volatile int *partial, int *total)
{
	__shared__ int s[128];
	__shared__ bool last;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? in[i] : 0;
	__syncthreads();
	for (int d = blockDim.x / 2; d > 0; d >>= 1) {
		if (threadIdx.x < d)
			s[threadIdx.x] += s[threadIdx.x + d];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		partial[blockIdx.x] = s[0];
		__threadfence();
		last = atomicInc(&tickets, gridDim.x) == gridDim.x - 1;
	}
	__syncthreads();
	if (last && threadIdx.x == 0) {
		int sum = 0;
		for (unsigned b = 0; b < gridDim.x; b++)
			sum += partial[b];
		*total = sum;
		tickets = 0;
	}
}

int main()
{
	const int blocks = 6, threads = 80;
	int v[blocks * threads];
	struct votes got[blocks], want[blocks];
	for (int i = 0; i < blocks * threads; i++)
		v[i] = (i * 37) % 97;
	v[1 * threads + 5] = -1;
	v[2 * threads + 79] = 99;
	v[4 * threads] = 99;
	for (int b = 0; b < blocks; b++) {
		want[b].count = 0, want[b].all = 1, want[b].any = 0;
		for (int t = 0; t < threads; t++) {
			int x = v[b * threads + t];
			want[b].count += x > 50;
			want[b].all &= x >= 0;
			want[b].any |= x == 99;
		}
	}
	int *dv;
	struct votes *dvotes;
	CK(cudaMalloc(&dv, sizeof(v)));
	CK(cudaMalloc(&dvotes, sizeof(got)));
	CK(cudaMemcpy(dv, v, sizeof(v), cudaMemcpyHostToDevice));
	vote<<<blocks, threads>>>(dv, dvotes);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dvotes, sizeof(got), cudaMemcpyDeviceToHost));
	for (int b = 0; b < blocks; b++)
		check(got[b].count == want[b].count && got[b].all == want[b].all &&
		      got[b].any == want[b].any,
		      "block %d: count/and/or got %d %d %d, want %d %d %d", b, got[b].count,
		      got[b].all, got[b].any, want[b].count, want[b].all, want[b].any);

	const int n = 100000, nb = (n + 127) / 128;
	int *in = (int *)malloc(n * 4), want_total = 0;
	for (int i = 0; i < n; i++) {
		in[i] = i % 19 - 9;
		want_total += in[i];
	}
	int *din, *dpartial, *dtotal, total = 0;
	CK(cudaMalloc(&din, n * 4));
	CK(cudaMalloc(&dpartial, nb * 4));
	CK(cudaMalloc(&dtotal, 4));
	CK(cudaMemcpy(din, in, n * 4, cudaMemcpyHostToDevice));
	for (int round = 0; round < 3; round++) {
		CK(cudaMemset(dtotal, 0xff, 4));
		last_block_sum<<<nb, 128>>>(din, n, dpartial, dtotal);
		CK(cudaGetLastError());
		CK(cudaMemcpy(&total, dtotal, 4, cudaMemcpyDeviceToHost));
		check(total == want_total, "round %d: last block's total %d, want %d", round, total,
		      want_total);
	}
	CK(cudaFree(dv));
	CK(cudaFree(dvotes));
	CK(cudaFree(din));
	CK(cudaFree(dpartial));
	CK(cudaFree(dtotal));
	free(in);
	return verdict("barrier_ops");
}
