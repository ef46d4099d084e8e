// Kernels for test_cpu_kernel: each exercises one part of the path from
// fatbin to running blocks (parameters, globals, shared memory and
// barriers, printf, assert).
#include <cassert>
#include <cstdio>

__device__ int counter;

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

extern "C" __global__ void count(void)
{
	atomicAdd(&counter, 1);
}

// Sum of each block's slice, through shared memory and barriers.
extern "C" __global__ void block_sum(const int *in, int *out)
{
	extern __shared__ int part[];
	unsigned t = threadIdx.x;
	part[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			part[t] += part[t + s];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = part[0];
}

extern "C" __global__ void hello(int v, double d)
{
	if (threadIdx.x == 0)
		printf("hello %d %.2f from block %d\n", v, d, blockIdx.x);
}

extern "C" __global__ void check_zero(const int *p)
{
	assert(p[threadIdx.x] == 0);
}
