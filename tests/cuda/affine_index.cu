/*
 * affine_index: 32-bit indices built from threadIdx.x and widened to 64
 * bits, where some threads of a block wrap past INT32_MAX, UINT32_MAX or
 * INT32_MIN and others do not.  The cpu backend's thread loop computes
 * such widenings as base + c * threadIdx.x when no thread of the block
 * wraps (src/cpu/affine.c); a block in which one does must get the
 * wrapped values, as PTX defines them.  Blocks of 7 x 3 x 2 threads (x not
 * a multiple of 32), multipliers 1, 2, 5 and -1, and the same index kept
 * across __syncthreads() in a kernel with barriers (which gets no bases).
 */
#include "check.h"

#include <cstdint>

#define NX 7
#define NY 3
#define NZ 2
#define NT (NX * NY * NZ)
#define BLOCKS 40

__device__ int flat()
{
	return ((blockIdx.x * NZ + threadIdx.z) * NY + threadIdx.y) * NX + threadIdx.x;
}

/* i = base + 7 * blockIdx.x + threadIdx.x, sign-extended */
__global__ void widen_s32(long long *out, int base)
{
	int i = (int)((unsigned)base + blockIdx.x * blockDim.x + threadIdx.x);

	out[flat()] = (long long)i;
}

/* u = base + 2 * (7 * blockIdx.x + threadIdx.x), zero-extended */
__global__ void widen_u32(unsigned long long *out, unsigned base)
{
	unsigned u = base + 2 * (blockIdx.x * blockDim.x + threadIdx.x);

	out[flat()] = (unsigned long long)u;
}

/* j = 5 * threadIdx.x + base + threadIdx.y: a multiplier of 5, a part that
 * differs between rows; k = base - threadIdx.x: a multiplier of -1 */
__global__ void widen_mad(long long *out, long long *neg, int base)
{
	int j = (int)(threadIdx.x * 5 + (unsigned)base + threadIdx.y);
	int k = (int)((unsigned)base - threadIdx.x);

	out[flat()] = (long long)j * 3;
	neg[flat()] = (long long)k;
}

/* An index computed before a barrier and widened after it. */
__global__ void across_barrier(long long *out, int base)
{
	__shared__ int s[NT];
	int t = (threadIdx.z * NY + threadIdx.y) * NX + threadIdx.x;
	int i = (int)((unsigned)base + blockIdx.x * blockDim.x + threadIdx.x);

	s[t] = t;
	__syncthreads();
	out[flat()] = (long long)i * s[(t + 1) % NT];
}

static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

int main()
{
	const int n = BLOCKS * NT;
	/* the first blocks stay below the limits, a middle one crosses them */
	const int sbase = INT32_MAX - 5 * NX * 4;
	const unsigned ubase = UINT32_MAX - 2 * NX * 6;
	const int mbase = INT32_MIN + 3;
	long long *h = new long long[n], *h2 = new long long[n];
	unsigned long long *hu = new unsigned long long[n];
	long long *d, *d2;
	unsigned long long *du;
	dim3 block(NX, NY, NZ);

	CK(cudaMalloc(&d, n * sizeof(*d)));
	CK(cudaMalloc(&d2, n * sizeof(*d2)));
	CK(cudaMalloc(&du, n * sizeof(*du)));

	widen_s32<<<BLOCKS, block>>>(d, sbase);
	CK(cudaMemcpy(h, d, n * sizeof(*h), cudaMemcpyDeviceToHost));
	for (int b = 0; b < BLOCKS; b++)
		for (int t = 0; t < NT; t++) {
			int x = t % NX;
			long long want = wrap32((int64_t)sbase + b * NX + x);
			check(h[b * NT + t] == want, "widen_s32 block %d thread %d: %lld, want %lld",
			      b, t, h[b * NT + t], want);
		}

	widen_u32<<<BLOCKS, block>>>(du, ubase);
	CK(cudaMemcpy(hu, du, n * sizeof(*hu), cudaMemcpyDeviceToHost));
	for (int b = 0; b < BLOCKS; b++)
		for (int t = 0; t < NT; t++) {
			int x = t % NX;
			unsigned long long want = (uint32_t)(ubase + 2u * (unsigned)(b * NX + x));
			check(hu[b * NT + t] == want, "widen_u32 block %d thread %d: %llu, want %llu",
			      b, t, hu[b * NT + t], want);
		}

	/* sbase: rows cross INT32_MAX at different threads; mbase: the
	 * multiplier of -1 crosses INT32_MIN */
	widen_mad<<<BLOCKS, block>>>(d, d2, INT32_MAX - 20);
	CK(cudaMemcpy(h, d, n * sizeof(*h), cudaMemcpyDeviceToHost));
	for (int b = 0; b < BLOCKS; b++)
		for (int t = 0; t < NT; t++) {
			int x = t % NX, y = t / NX % NY;
			long long want = 3LL * wrap32((int64_t)x * 5 + (INT32_MAX - 20) + y);
			check(h[b * NT + t] == want, "widen_mad block %d thread %d: %lld, want %lld",
			      b, t, h[b * NT + t], want);
		}
	widen_mad<<<BLOCKS, block>>>(d, d2, mbase);
	CK(cudaMemcpy(h2, d2, n * sizeof(*h2), cudaMemcpyDeviceToHost));
	for (int b = 0; b < BLOCKS; b++)
		for (int t = 0; t < NT; t++) {
			long long want = wrap32((int64_t)mbase - t % NX);
			check(h2[b * NT + t] == want, "widen_mad (-1) block %d thread %d: %lld, want %lld",
			      b, t, h2[b * NT + t], want);
		}

	across_barrier<<<BLOCKS, block>>>(d, sbase);
	CK(cudaMemcpy(h, d, n * sizeof(*h), cudaMemcpyDeviceToHost));
	for (int b = 0; b < BLOCKS; b++)
		for (int t = 0; t < NT; t++) {
			long long want = (long long)wrap32((int64_t)sbase + b * NX + t % NX) *
					 ((t + 1) % NT);
			check(h[b * NT + t] == want, "across_barrier block %d thread %d: %lld, want %lld",
			      b, t, h[b * NT + t], want);
		}

	CK(cudaGetLastError());
	CK(cudaFree(d));
	CK(cudaFree(d2));
	CK(cudaFree(du));
	delete[] h;
	delete[] h2;
	delete[] hu;
	return verdict("affine_index");
}
