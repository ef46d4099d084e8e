/*
 * scan_hillis_steele: the step-efficient inclusive prefix sum with two
 * shared-memory buffers swapped at each step, over float data that is
 * exact in binary (multiples of 1/4), in blocks of 512 whose totals the
 * host adds back, compared with the host's running sum.
 */
#include "check.h"

#define BLOCK 512

__global__ void scan(const float *in, float *out, float *totals, int n)
{
	__shared__ float buf[2][BLOCK];
	int tid = threadIdx.x, i = blockIdx.x * BLOCK + tid;
	int cur = 0;
	buf[cur][tid] = i < n ? in[i] : 0;
	__syncthreads();
	for (int d = 1; d < BLOCK; d <<= 1) {
		float v = buf[cur][tid];
		if (tid >= d)
			v += buf[cur][tid - d];
		buf[1 - cur][tid] = v;
		cur = 1 - cur;
		__syncthreads();
	}
	if (i < n)
		out[i] = buf[cur][tid];
	if (tid == BLOCK - 1)
		totals[blockIdx.x] = buf[cur][tid];
}

int main()
{
	const int n = 20000, blocks = (n + BLOCK - 1) / BLOCK;
	float *in = (float *)malloc(n * sizeof(float)), *out = (float *)malloc(n * sizeof(float));
	float *want = (float *)malloc(n * sizeof(float)), totals[blocks];
	float acc = 0;
	for (int i = 0; i < n; i++) {
		in[i] = ((i * 7) % 13) * 0.25f;
		acc += in[i];
		want[i] = acc;
	}
	float *din, *dout, *dtotals;
	CK(cudaMalloc(&din, n * sizeof(float)));
	CK(cudaMalloc(&dout, n * sizeof(float)));
	CK(cudaMalloc(&dtotals, blocks * sizeof(float)));
	CK(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
	scan<<<blocks, BLOCK>>>(din, dout, dtotals, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(totals, dtotals, sizeof(totals), cudaMemcpyDeviceToHost));
	float offset = 0;
	for (int b = 0; b < blocks; b++) {
		for (int i = b * BLOCK; i < n && i < (b + 1) * BLOCK; i++)
			out[i] += offset;
		offset += totals[b];
	}
	check_array("inclusive scan", out, want, n);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(dtotals));
	free(in), free(out), free(want);
	return verdict("scan_hillis_steele");
}
