/*
 * abi13.c - the entry points whose signature or structure layout is CUDA
 * 13's own; only libcudart.so.13 links this file (abi12.c holds the CUDA 12
 * forms under the same names).
 */
#include "rt.h"

const int rt_runtime_version = 13000;

RT_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	return rt_device_props(prop, device);
}

RT_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
					struct cudaMemLocation location, unsigned int flags,
					cudaStream_t stream)
{
	return rt_mem_prefetch(devPtr, count, location, flags, stream, 0);
}

RT_API cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
					     struct cudaMemLocation location, unsigned int flags,
					     cudaStream_t stream)
{
	return rt_mem_prefetch(devPtr, count, location, flags, stream, 1);
}

RT_API cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
				 struct cudaMemLocation location)
{
	return rt_mem_advise(devPtr, count, advice, location);
}
