/*
 * scan_blelloch: the work-efficient exclusive prefix sum (up-sweep, then
 * down-sweep, in shared memory), each block scanning 2*blockDim elements;
 * the block totals are scanned by a second launch and added back, so the
 * whole array of a size that is no power of two gets one exclusive scan.
 */
#include "check.h"

#define THREADS 128
#define ELEMS (2 * THREADS)

__global__ void scan_blocks(const int *in, int *out, int *totals, int n)
{
	__shared__ int s[ELEMS];
	int tid = threadIdx.x, base = blockIdx.x * ELEMS;
	s[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
	s[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;
	int offset = 1;
	for (int d = ELEMS / 2; d > 0; d >>= 1) {
		__syncthreads();
		if (tid < d) {
			int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
			s[bi] += s[ai];
		}
		offset <<= 1;
	}
	if (tid == 0) {
		if (totals)
			totals[blockIdx.x] = s[ELEMS - 1];
		s[ELEMS - 1] = 0;
	}
	for (int d = 1; d < ELEMS; d <<= 1) {
		offset >>= 1;
		__syncthreads();
		if (tid < d) {
			int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
			int t = s[ai];
			s[ai] = s[bi];
			s[bi] += t;
		}
	}
	__syncthreads();
	if (base + 2 * tid < n)
		out[base + 2 * tid] = s[2 * tid];
	if (base + 2 * tid + 1 < n)
		out[base + 2 * tid + 1] = s[2 * tid + 1];
}

__global__ void add_offsets(int *out, const int *offsets, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] += offsets[i / ELEMS];
}

int main()
{
	const int n = 50000, blocks = (n + ELEMS - 1) / ELEMS;
	int *in = (int *)malloc(n * sizeof(int)), *out = (int *)malloc(n * sizeof(int));
	int *want = (int *)malloc(n * sizeof(int));
	int acc = 0;
	for (int i = 0; i < n; i++) {
		in[i] = (i * 31) % 17 - 3;
		want[i] = acc;
		acc += in[i];
	}
	int *din, *dout, *dtotals, *doffsets;
	CK(cudaMalloc(&din, n * sizeof(int)));
	CK(cudaMalloc(&dout, n * sizeof(int)));
	CK(cudaMalloc(&dtotals, ELEMS * sizeof(int)));
	CK(cudaMalloc(&doffsets, ELEMS * sizeof(int)));
	CK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	scan_blocks<<<blocks, THREADS>>>(din, dout, dtotals, n);
	CK(cudaGetLastError());
	scan_blocks<<<1, THREADS>>>(dtotals, doffsets, NULL, blocks);
	CK(cudaGetLastError());
	add_offsets<<<(n + 255) / 256, 256>>>(dout, doffsets, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
	check_array("exclusive scan", out, want, n);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(dtotals));
	CK(cudaFree(doffsets));
	free(in), free(out), free(want);
	return verdict("scan_blelloch");
}
