/*
 * func.c - what a program may ask about a kernel: cudaFuncGetAttributes,
 * cudaFuncSetAttribute, cudaFuncSetCacheConfig and the occupancy
 * calculator, all answered from the backend's struct ag_func_info and the
 * device's limits.
 */
#include "rt.h"

#include <string.h>

/* The kernel on the current device, resolved (and its module loaded). */
static cudaError_t func_on_current(const void *func, struct rt_device **d,
				   const struct ag_func_info **info)
{
	struct rt_kernel *k = rt_kernel_find(func);
	struct ag_func *f;
	cudaError_t e;

	*d = NULL;
	if (!k)
		return cudaErrorInvalidDeviceFunction;
	e = rt_current(d);
	if (e == cudaSuccess)
		e = rt_kernel_func(k, *d, &f, info);
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
	struct rt_device *d;
	cudaError_t e;

	if (!attr)
		return rt_error(cudaErrorInvalidValue);
	e = func_on_current(func, &d, &info);
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
	attr->maxDynamicSharedSizeBytes = (int)(d->info.shared_per_block - info->static_shared);
	attr->preferredShmemCarveout = -1;
	return cudaSuccess;
}

RT_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	const struct ag_func_info *info;
	struct rt_device *d;
	cudaError_t e = func_on_current(func, &d, &info);

	if (e != cudaSuccess)
		return rt_result(d, e);
	switch (attr) {
	case cudaFuncAttributeMaxDynamicSharedMemorySize:
		if (value < 0 ||
		    (uint64_t)value + info->static_shared > d->info.shared_per_block_optin)
			return rt_error(cudaErrorInvalidValue);
		return cudaSuccess;
	case cudaFuncAttributePreferredSharedMemoryCarveout:
		return value >= -1 && value <= 100 ? cudaSuccess : rt_error(cudaErrorInvalidValue);
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

/* The L1/shared split is a hint a CPU has no use for. */
RT_API cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
	const struct ag_func_info *info;
	struct rt_device *d;
	cudaError_t e = func_on_current(func, &d, &info);

	return rt_result(d, e);
}

RT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
	unsigned int flags)
{
	const struct ag_func_info *info;
	struct rt_device *d;
	uint64_t shared, warps_per_block, n;
	cudaError_t e;

	if (!numBlocks || blockSize <= 0)
		return rt_error(cudaErrorInvalidValue);
	e = func_on_current(func, &d, &info);
	if (e != cudaSuccess)
		return rt_result(d, e);
	if (blockSize > max_threads(d, info)) {
		*numBlocks = 0;
		return cudaSuccess;
	}
	warps_per_block = ((uint64_t)blockSize + d->info.warp_size - 1) / d->info.warp_size;
	n = (uint64_t)d->info.max_threads_per_sm / d->info.warp_size / warps_per_block;
	if (n > (uint64_t)d->info.max_blocks_per_sm)
		n = d->info.max_blocks_per_sm;
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
