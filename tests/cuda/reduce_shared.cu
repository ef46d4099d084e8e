/*
 * reduce_shared: a sum by a shared-memory tree (every step behind a
 * __syncthreads), first over the input, then a second launch over the
 * per-block partial sums; also a max reduction with the same shape.
 */
#include "check.h"

#define BLOCK 256

__global__ void reduce(const long long *in, long long *out, int n, int use_max)
{
	__shared__ long long s[BLOCK];
	int tid = threadIdx.x;
	long long acc = use_max ? LLONG_MIN : 0;
	for (int i = blockIdx.x * BLOCK + tid; i < n; i += gridDim.x * BLOCK)
		acc = use_max ? max(acc, in[i]) : acc + in[i];
	s[tid] = acc;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
		if (tid < stride)
			s[tid] = use_max ? max(s[tid], s[tid + stride]) : s[tid] + s[tid + stride];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = s[0];
}

static long long device_reduce(const long long *din, long long *dpart, int n, int use_max)
{
	const int blocks = 61;
	long long result;
	reduce<<<blocks, BLOCK>>>(din, dpart, n, use_max);
	CK(cudaGetLastError());
	reduce<<<1, BLOCK>>>(dpart, dpart + blocks, blocks, use_max);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&result, dpart + blocks, sizeof(result), cudaMemcpyDeviceToHost));
	return result;
}

int main()
{
	const int n = 1000003;
	long long *in = (long long *)malloc(n * sizeof(long long));
	long long sum = 0, mx = LLONG_MIN;
	unsigned x = 12345;
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		in[i] = (long long)(x >> 4) - (1 << 27);
		sum += in[i];
		mx = in[i] > mx ? in[i] : mx;
	}
	long long *din, *dpart;
	CK(cudaMalloc(&din, n * sizeof(long long)));
	CK(cudaMalloc(&dpart, 128 * sizeof(long long)));
	CK(cudaMemcpy(din, in, n * sizeof(long long), cudaMemcpyHostToDevice));
	long long got = device_reduce(din, dpart, n, 0);
	check(got == sum, "sum: got %lld, want %lld", got, sum);
	got = device_reduce(din, dpart, n, 1);
	check(got == mx, "max: got %lld, want %lld", got, mx);
	CK(cudaFree(din));
	CK(cudaFree(dpart));
	free(in);
	return verdict("reduce_shared");
}
