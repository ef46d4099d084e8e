/*
 * func.c - what a program may ask about a kernel: cudaFuncGetAttributes,
 * cudaFuncSetAttribute, the cache and bank hints and the occupancy
 * calculator, all answered from the backend's struct ag_func_info and the
 * device's limits.
 *
 * The one attribute that changes behaviour is the dynamic shared memory
 * limit: 48 KiB (less the kernel's static shared memory) until
 * cudaFuncSetAttribute raises it towards the opt-in limit; launches check
 * it (launch.c) and the occupancy calculator uses it.
 */
#include "rt.h"

#include <string.h>

/* The kernel on the current device, resolved (and its module loaded). */
static cudaError_t func_on_current(const void *func, struct rt_kernel **k,
				   struct rt_device **d, const struct ag_func_info **info)
{
	struct ag_func *f;
	cudaError_t e;

	*d = NULL;
	*k = rt_kernel_find(func);
	if (!*k)
		return cudaErrorInvalidDeviceFunction;
	e = rt_current(d);
	if (e == cudaSuccess)
		e = rt_kernel_func(*k, *d, &f, info);
	return e;
}

static int max_threads(const struct rt_device *d, const struct ag_func_info *info)
{
	int n = d->info.max_threads_per_block;

	return info->max_threads && (int)info->max_threads < n ? (int)info->max_threads : n;
}

RT_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	const struct ag_func_info *info;
	struct rt_kernel *k;
	struct rt_device *d;
	cudaError_t e;

	if (!attr)
		return rt_error(cudaErrorInvalidValue);
	e = func_on_current(func, &k, &d, &info);
	if (e != cudaSuccess)
		return rt_result(d, e);
	memset(attr, 0, sizeof(*attr));
	attr->sharedSizeBytes = info->static_shared;
	attr->localSizeBytes = info->local_bytes;
	attr->maxThreadsPerBlock = max_threads(d, info);
	attr->numRegs = (int)info->nregs;
	attr->ptxVersion = (int)info->ptx_version;
	attr->binaryVersion = (int)(info->binary_version ? info->binary_version
					: info->ptx_version);
	attr->maxDynamicSharedSizeBytes = (int)rt_kernel_attrs(k, d)->max_dyn_shared;
	attr->preferredShmemCarveout = rt_kernel_attrs(k, d)->carveout;
	return cudaSuccess;
}

RT_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	const struct ag_func_info *info;
	struct rt_kernel *k;
	struct rt_device *d;
	cudaError_t e = func_on_current(func, &k, &d, &info);

	if (e != cudaSuccess)
		return rt_result(d, e);
	switch (attr) {
	case cudaFuncAttributeMaxDynamicSharedMemorySize:
		if (value < 0 ||
		    (uint64_t)value + info->static_shared > d->info.shared_per_block_optin)
			return rt_error(cudaErrorInvalidValue);
		rt_kernel_attrs(k, d)->max_dyn_shared = (uint32_t)value;
		return cudaSuccess;
	case cudaFuncAttributePreferredSharedMemoryCarveout:
		if (value < -1 || value > 100)
			return rt_error(cudaErrorInvalidValue);
		rt_kernel_attrs(k, d)->carveout = value;   /* a hint, reported back */
		return cudaSuccess;
	case cudaFuncAttributeRequiredClusterWidth:
	case cudaFuncAttributeRequiredClusterHeight:
	case cudaFuncAttributeRequiredClusterDepth:
	case cudaFuncAttributeClusterDimMustBeSet:
	case cudaFuncAttributeNonPortableClusterSizeAllowed:
	case cudaFuncAttributeClusterSchedulingPolicyPreference:
		return rt_error(cudaErrorNotSupported);   /* no clusters */
	default:
		return rt_error(cudaErrorInvalidValue);
	}
}

/* The L1/shared split and the bank width are hints a CPU has no use for;
 * the kernel and the value (at most max) are still checked. */
static cudaError_t func_hint(const void *func, unsigned value, unsigned max)
{
	const struct ag_func_info *info;
	struct rt_kernel *k;
	struct rt_device *d;
	cudaError_t e = func_on_current(func, &k, &d, &info);

	if (e == cudaSuccess && value > max)
		e = cudaErrorInvalidValue;
	return rt_result(d, e);
}

RT_API cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
	return func_hint(func, cacheConfig, cudaFuncCachePreferEqual);
}

RT_API cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
	return func_hint(func, config, cudaSharedMemBankSizeEightByte);
}

RT_API cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
	struct rt_device *d;
	cudaError_t e = rt_current(&d);

	if (e == cudaSuccess && (unsigned)config > cudaSharedMemBankSizeEightByte)
		e = cudaErrorInvalidValue;
	return rt_result(d, e);
}

RT_API cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
	struct rt_device *d;
	cudaError_t e;

	if (!pConfig)
		return rt_error(cudaErrorInvalidValue);
	e = rt_current(&d);
	if (e == cudaSuccess)
		*pConfig = cudaSharedMemBankSizeFourByte;
	return rt_result(d, e);
}

/* Blocks of blockSize threads that one SM holds by threads, block slots
 * and registers (shared memory aside). */
static uint64_t blocks_by_threads(const struct rt_device *d, const struct ag_func_info *info,
				  int blockSize)
{
	uint64_t warps = ((uint64_t)blockSize + d->info.warp_size - 1) / d->info.warp_size;
	uint64_t n = (uint64_t)d->info.max_threads_per_sm / d->info.warp_size / warps;
	uint64_t regs = (uint64_t)info->nregs * warps * d->info.warp_size;

	if (n > (uint64_t)d->info.max_blocks_per_sm)
		n = d->info.max_blocks_per_sm;
	if (regs && d->info.regs_per_sm / regs < n)
		n = d->info.regs_per_sm / regs;
	return n;
}

RT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
	unsigned int flags)
{
	const struct ag_func_info *info;
	struct rt_kernel *k;
	struct rt_device *d;
	uint64_t shared, n;
	cudaError_t e;

	if (!numBlocks || blockSize <= 0 || (flags & ~(unsigned)cudaOccupancyDisableCachingOverride))
		return rt_error(cudaErrorInvalidValue);
	e = func_on_current(func, &k, &d, &info);
	if (e != cudaSuccess)
		return rt_result(d, e);
	*numBlocks = 0;
	if (blockSize > max_threads(d, info) ||
	    dynamicSMemSize > rt_kernel_attrs(k, d)->max_dyn_shared)
		return cudaSuccess;
	n = blocks_by_threads(d, info, blockSize);
	shared = info->static_shared + dynamicSMemSize;
	if (shared && d->info.shared_per_sm / shared < n)
		n = d->info.shared_per_sm / shared;
	*numBlocks = (int)n;
	return cudaSuccess;
}

RT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
								 const void *func,
								 int blockSize,
								 size_t dynamicSMemSize)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
								       dynamicSMemSize, 0);
}

/* The most dynamic shared memory each block may take so that numBlocks
 * blocks of blockSize threads still fit on one SM. */
RT_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
							     const void *func, int numBlocks,
							     int blockSize)
{
	const struct ag_func_info *info;
	struct rt_kernel *k;
	struct rt_device *d;
	uint64_t per_block, limit;
	cudaError_t e;

	if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
		return rt_error(cudaErrorInvalidValue);
	e = func_on_current(func, &k, &d, &info);
	if (e != cudaSuccess)
		return rt_result(d, e);
	*dynamicSmemSize = 0;
	if (blockSize > max_threads(d, info) ||
	    blocks_by_threads(d, info, blockSize) < (uint64_t)numBlocks)
		return cudaSuccess;
	per_block = d->info.shared_per_sm / (uint64_t)numBlocks;
	limit = rt_kernel_attrs(k, d)->max_dyn_shared;
	if (per_block > info->static_shared)
		*dynamicSmemSize = per_block - info->static_shared < limit
				   ? per_block - info->static_shared : limit;
	return cudaSuccess;
}

RT_API cudaError_t cudaFuncGetName(const char **name, const void *func)
{
	struct rt_kernel *k = rt_kernel_find(func);

	if (!name)
		return rt_error(cudaErrorInvalidValue);
	if (!k)
		return rt_error(cudaErrorInvalidDeviceFunction);
	*name = rt_kernel_name(k);
	return cudaSuccess;
}
