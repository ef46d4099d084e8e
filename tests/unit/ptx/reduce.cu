#include <cstdio>
__device__ unsigned int counter;
__device__ float warp_sum(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffff, v, o);
	return v;
}
__global__ void reduce(const float *in, float *out, int n)
{
	extern __shared__ float s[];
	float v = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		v += in[i];
	v = warp_sum(v);
	if ((threadIdx.x & 31) == 0)
		s[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x < 32) {
		v = threadIdx.x < blockDim.x / 32 ? s[threadIdx.x] : 0;
		v = warp_sum(v);
		if (threadIdx.x == 0) {
			atomicAdd(out, v);
			unsigned t = atomicInc(&counter, 1000);
			if (__ballot_sync(0xffffffff, t > 3) == 0)
				printf("block %d sum %f t=%u %lld\n", blockIdx.x, v, t, (long long)clock64());
		}
	}
	double d = atomicAdd((double *)out + 8, 1.0);
	int x = __shfl_xor_sync(0xffffffff, (int)d, 3, 16);
	unsigned long long m = atomicCAS((unsigned long long *)out + 20, 0ull, (unsigned long long)x);
	if (m == 7) asm volatile("trap;");
}
