/*
 * rt2_func: what a program learns about and sets on a kernel.
 * cudaFuncGetAttributes reports static shared memory, the thread limit
 * from __launch_bounds__, the dynamic shared memory limit and the PTX's
 * virtual architecture (what CUB and Thrust choose their kernels by); a launch
 * above 48 KiB of shared memory fails until cudaFuncSetAttribute raises
 * the kernel's limit, then works and really gets that much memory; the
 * occupancy calculator (and the cuda_runtime.h templates built on it)
 * agrees with the device's per-SM limits; cache and bank hints are
 * accepted and checked.
 */
#include "check.h"

/* cudaFuncSetSharedMemConfig and friends are deprecated, not gone. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define STATIC_INTS 256

/* Fills n ints of dynamic shared memory, then reads them back reversed. */
__global__ void big_shared(int *out, int n)
{
	__shared__ int fixed[STATIC_INTS];
	extern __shared__ int dyn[];

	for (int i = threadIdx.x; i < n; i += blockDim.x)
		dyn[i] = i * 3 + blockIdx.x;
	if (threadIdx.x < STATIC_INTS)
		fixed[threadIdx.x] = (int)threadIdx.x;
	__syncthreads();
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		out[blockIdx.x * n + i] = dyn[n - 1 - i] + fixed[i % STATIC_INTS];
}

__global__ void __launch_bounds__(128) bounded(int *out)
{
	out[threadIdx.x] = threadIdx.x;
}

static int min3(long a, long b, long c)
{
	long m = a < b ? a : b;
	return (int)(m < c ? m : c);
}

static void run_big(int n, int blocks)
{
	int *d, *h = (int *)malloc((size_t)n * blocks * 4), *want = (int *)malloc((size_t)n * blocks * 4);
	CK(cudaMalloc(&d, (size_t)n * blocks * 4));
	big_shared<<<blocks, 256, (size_t)n * 4>>>(d, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, d, (size_t)n * blocks * 4, cudaMemcpyDeviceToHost));
	for (int b = 0; b < blocks; b++)
		for (int i = 0; i < n; i++)
			want[b * n + i] = (n - 1 - i) * 3 + b + i % STATIC_INTS;
	check_array("big dynamic shared", h, want, (size_t)n * blocks);
	CK(cudaFree(d));
	free(h), free(want);
}

int main()
{
	cudaDeviceProp prop;
	cudaFuncAttributes a;
	int dev = 0;

	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	const int static_bytes = STATIC_INTS * 4;
	const int default_dyn = (int)prop.sharedMemPerBlock - static_bytes;
	const int optin_dyn = (int)prop.sharedMemPerBlockOptin - static_bytes;

	CK(cudaFuncGetAttributes(&a, big_shared));
	check(a.sharedSizeBytes == (size_t)static_bytes, "sharedSizeBytes %zu", a.sharedSizeBytes);
	check(a.maxThreadsPerBlock == prop.maxThreadsPerBlock, "maxThreadsPerBlock %d",
	      a.maxThreadsPerBlock);
	check(a.maxDynamicSharedSizeBytes == default_dyn, "default maxDynamicSharedSizeBytes %d, want %d",
	      a.maxDynamicSharedSizeBytes, default_dyn);
	/* the virtual architecture of the PTX (CUB picks its tuning by it),
	 * and the device's own that it was compiled for (built for sm_75) */
	check(a.ptxVersion == 75, "ptxVersion %d, want 75", a.ptxVersion);
	check(a.binaryVersion >= 75 &&
	      (!on_cpu_engine() || a.binaryVersion == prop.major * 10 + prop.minor),
	      "binaryVersion %d (device %d.%d)", a.binaryVersion, prop.major, prop.minor);
	CK(cudaFuncGetAttributes(&a, bounded));
	check(a.maxThreadsPerBlock == 128, "__launch_bounds__(128): maxThreadsPerBlock %d",
	      a.maxThreadsPerBlock);
	CK_EXPECT(cudaFuncGetAttributes(&a, (const void *)main), cudaErrorInvalidDeviceFunction);
	CK_EXPECT(cudaFuncGetAttributes(NULL, big_shared), cudaErrorInvalidValue);
	cudaGetLastError();

	/* Within the default limit: fine.  Above it: refused at launch. */
	run_big(default_dyn / 4, 3);
	if (optin_dyn > default_dyn) {
		int *d;
		CK(cudaMalloc(&d, 4));
		big_shared<<<1, 256, (size_t)default_dyn + 4>>>(d, 1);
		CK_EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
		CK(cudaFree(d));

		CK_EXPECT(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
					       optin_dyn + 1), cudaErrorInvalidValue);
		cudaGetLastError();
		CK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
					optin_dyn));
		CK(cudaFuncGetAttributes(&a, big_shared));
		check(a.maxDynamicSharedSizeBytes == optin_dyn, "raised limit reads %d, want %d",
		      a.maxDynamicSharedSizeBytes, optin_dyn);
		run_big(optin_dyn / 4, 2);
		/* The limit is the kernel's: another kernel keeps the default. */
		CK(cudaFuncGetAttributes(&a, bounded));
		check(a.maxDynamicSharedSizeBytes == (int)prop.sharedMemPerBlock,
		      "other kernel's limit %d", a.maxDynamicSharedSizeBytes);
		/* A device reset forgets it, as it forgets the context. */
		CK(cudaDeviceReset());
		CK(cudaFuncGetAttributes(&a, big_shared));
		check(a.maxDynamicSharedSizeBytes == default_dyn, "after reset %d",
		      a.maxDynamicSharedSizeBytes);
	}
	CK(cudaFuncGetAttributes(&a, big_shared));
	check(a.preferredShmemCarveout == -1, "default carveout %d", a.preferredShmemCarveout);
	CK(cudaFuncSetAttribute(big_shared, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
	CK(cudaFuncGetAttributes(&a, big_shared));
	check(a.preferredShmemCarveout == 50, "carveout %d", a.preferredShmemCarveout);
	CK_EXPECT(cudaFuncSetAttribute(big_shared, cudaFuncAttributePreferredSharedMemoryCarveout,
				       101), cudaErrorInvalidValue);
	CK_EXPECT(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, -1),
		  cudaErrorInvalidValue);
	cudaGetLastError();

	/* Hints. */
	CK(cudaFuncSetCacheConfig(big_shared, cudaFuncCachePreferShared));
	CK_EXPECT(cudaFuncSetCacheConfig(big_shared, (cudaFuncCache)9), cudaErrorInvalidValue);
	CK_EXPECT(cudaFuncSetCacheConfig((const void *)main, cudaFuncCachePreferL1),
		  cudaErrorInvalidDeviceFunction);
	CK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
	cudaFuncCache cc;
	CK(cudaDeviceGetCacheConfig(&cc));
	CK(cudaFuncSetSharedMemConfig(big_shared, cudaSharedMemBankSizeEightByte));
	CK_EXPECT(cudaFuncSetSharedMemConfig(big_shared, (cudaSharedMemConfig)7),
		  cudaErrorInvalidValue);
	CK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeFourByte));
	cudaSharedMemConfig sc;
	CK(cudaDeviceGetSharedMemConfig(&sc));
	check(sc == cudaSharedMemBankSizeFourByte, "bank size %d", (int)sc);
	cudaGetLastError();

	/* Occupancy from threads, block slots and shared memory per SM. */
	int n = -1;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, big_shared, 256, 0));
	int want = min3(prop.maxThreadsPerMultiProcessor / 256, prop.maxBlocksPerMultiProcessor,
			(long)prop.sharedMemPerMultiprocessor / static_bytes);
	check(n == want, "occupancy 256 threads: %d, want %d", n, want);
	size_t dyn = 20000;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, big_shared, 64, dyn,
								  cudaOccupancyDisableCachingOverride));
	want = min3(prop.maxThreadsPerMultiProcessor / 64, prop.maxBlocksPerMultiProcessor,
		    (long)prop.sharedMemPerMultiprocessor / (static_bytes + dyn));
	check(n == want, "occupancy with %zu dynamic bytes: %d, want %d", dyn, n, want);
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, bounded, 256, 0));
	check(n == 0, "256 threads for a 128-thread kernel: %d blocks", n);
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, big_shared, 64, (size_t)default_dyn + 4));
	check(n == 0, "over the kernel's shared limit: %d blocks", n);
	CK_EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, big_shared, 64, 0, 4),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, big_shared, 0, 0),
		  cudaErrorInvalidValue);
	cudaGetLastError();

	size_t avail = 0;
	CK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, big_shared, 2, 128));
	size_t want_avail = prop.sharedMemPerMultiprocessor / 2 - static_bytes;
	if (want_avail > (size_t)default_dyn)
		want_avail = default_dyn;
	check(avail == want_avail, "available dynamic shared for 2 blocks: %zu, want %zu", avail,
	      want_avail);
	/* The C++ template: cudaOccupancyAvailableDynamicSMemPerBlock(size_t*, T, int, int). */
	CK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, bounded, 1, 128));
	check(avail == prop.sharedMemPerBlock, "available for bounded: %zu", avail);

	/* cudaOccupancyMaxPotentialBlockSize is a cuda_runtime.h template built
	 * on the calls above. */
	int min_grid = 0, block = 0;
	CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, big_shared, 0, 0));
	check(block > 0 && block <= prop.maxThreadsPerBlock && block % prop.warpSize == 0,
	      "potential block size %d", block);
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, big_shared, block, 0));
	check(min_grid == n * prop.multiProcessorCount, "min grid %d, want %d", min_grid,
	      n * prop.multiProcessorCount);
	CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, bounded, 0, 0));
	check(block == 128, "potential block size of a 128-thread kernel: %d", block);
	return verdict("rt2_func");
}
