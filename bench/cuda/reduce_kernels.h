/*
 * reduce_kernels.h - the kernel of the reduction (reduce.cu), shared with
 * the probe that times it on other sizes (probes/reduce_sizes.cu): each
 * thread sums a grid-stride slice, warps fold with __shfl_down_sync, warp
 * sums meet in shared memory after __syncthreads(), and the first warp
 * folds those.
 */
#ifndef REDUCE_KERNELS_H
#define REDUCE_KERNELS_H

#define THREADS 256
#define BLOCKS 1024

__device__ float warp_sum(float v)
{
	int off;

	for (off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__global__ void reduce(const float *in, float *out, int n)
{
	__shared__ float warps[THREADS / 32];
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	float sum = 0;
	int i;

	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		sum += in[i];
	sum = warp_sum(sum);
	if (lane == 0)
		warps[warp] = sum;
	__syncthreads();
	if (warp == 0) {
		sum = lane < THREADS / 32 ? warps[lane] : 0;
		sum = warp_sum(sum);
		if (lane == 0)
			out[blockIdx.x] = sum;
	}
}

#endif
