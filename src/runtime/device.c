/*
 * device.c - device management: count, choice, properties, attributes,
 * synchronisation, reset, flags, limits and versions.
 *
 * cudaDeviceProp is filled from the backend's struct ag_device_info; every
 * cudaDeviceAttr with a meaning reads the same filled structure, so the two
 * views cannot disagree.  anygpu has no textures or surfaces, so their size
 * limits read 0.
 */
#include "graph.h"

#include <cuda_profiler_api.h>
#include <stdio.h>
#include <string.h>

#define RT_VERSION 13000

static void fill_props(const struct ag_device_info *in, struct cudaDeviceProp *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", in->name);
	memcpy(p->uuid.bytes, in->uuid, sizeof(p->uuid.bytes));
	p->totalGlobalMem = in->total_mem;
	p->sharedMemPerBlock = in->shared_per_block;
	p->regsPerBlock = in->regs_per_block;
	p->warpSize = in->warp_size;
	p->memPitch = INT32_MAX;
	p->maxThreadsPerBlock = in->max_threads_per_block;
	memcpy(p->maxThreadsDim, in->max_block_dim, sizeof(p->maxThreadsDim));
	memcpy(p->maxGridSize, in->max_grid_dim, sizeof(p->maxGridSize));
	p->totalConstMem = in->const_mem;
	p->major = in->cc_major;
	p->minor = in->cc_minor;
	p->textureAlignment = 512;
	p->texturePitchAlignment = 32;
	p->multiProcessorCount = in->sm_count;
	p->integrated = in->integrated;
	p->canMapHostMemory = in->can_map_host;
	p->surfaceAlignment = 512;
	p->concurrentKernels = in->concurrent_kernels;
	p->pciBusID = in->pci_bus;
	p->pciDeviceID = in->pci_device;
	p->pciDomainID = in->pci_domain;
	p->asyncEngineCount = in->async_engines;
	p->unifiedAddressing = 1;
	p->memoryBusWidth = in->mem_bus_width;
	p->l2CacheSize = (int)in->l2_cache;
	p->maxThreadsPerMultiProcessor = in->max_threads_per_sm;
	p->streamPrioritiesSupported = 1;
	p->globalL1CacheSupported = 1;
	p->localL1CacheSupported = 1;
	p->sharedMemPerMultiprocessor = in->shared_per_sm;
	p->regsPerMultiprocessor = in->regs_per_sm;
	p->managedMemory = in->managed_memory;
	p->hostNativeAtomicSupported = in->integrated;
	p->pageableMemoryAccess = in->pageable_access;
	p->concurrentManagedAccess = in->concurrent_managed;
	p->canUseHostPointerForRegisteredMem = in->integrated;
	p->cooperativeLaunch = in->cooperative_launch;
	p->sharedMemPerBlockOptin = in->shared_per_block_optin;
	p->pageableMemoryAccessUsesHostPageTables = in->pageable_access;
	p->directManagedMemAccessFromHost = in->integrated;
	p->maxBlocksPerMultiProcessor = in->max_blocks_per_sm;
	p->hostRegisterSupported = 1;
	p->unifiedFunctionPointers = 1;
	p->deviceNumaId = -1;
	p->hostNumaId = -1;
}

RT_API cudaError_t cudaGetDeviceCount(int *count)
{
	cudaError_t e = rt_init();

	if (!count)
		return rt_error(cudaErrorInvalidValue);
	*count = e == cudaSuccess ? rt_device_count() : 0;
	return rt_error(e);
}

/* cudaGetDeviceProperties in CUDA 13's layout; abi12.c and abi13.c export
 * it under each version's name and layout. */
cudaError_t rt_device_props(struct cudaDeviceProp *prop, int device)
{
	struct rt_device *d;
	cudaError_t e;

	if (!prop)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(device, &d);
	if (d && d->b)         /* properties stay readable on a faulted device */
		fill_props(&d->info, prop);
	return rt_error(d && d->b ? cudaSuccess : e);
}

static int attr_from_props(const struct cudaDeviceProp *p, const struct ag_device_info *in,
			   enum cudaDeviceAttr attr, int *v)
{
	switch (attr) {
	case cudaDevAttrMaxThreadsPerBlock: *v = p->maxThreadsPerBlock; break;
	case cudaDevAttrMaxBlockDimX: *v = p->maxThreadsDim[0]; break;
	case cudaDevAttrMaxBlockDimY: *v = p->maxThreadsDim[1]; break;
	case cudaDevAttrMaxBlockDimZ: *v = p->maxThreadsDim[2]; break;
	case cudaDevAttrMaxGridDimX: *v = p->maxGridSize[0]; break;
	case cudaDevAttrMaxGridDimY: *v = p->maxGridSize[1]; break;
	case cudaDevAttrMaxGridDimZ: *v = p->maxGridSize[2]; break;
	case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p->sharedMemPerBlock; break;
	case cudaDevAttrTotalConstantMemory: *v = (int)p->totalConstMem; break;
	case cudaDevAttrWarpSize: *v = p->warpSize; break;
	case cudaDevAttrMaxPitch: *v = (int)p->memPitch; break;
	case cudaDevAttrMaxRegistersPerBlock: *v = p->regsPerBlock; break;
	case cudaDevAttrClockRate: *v = in->clock_khz; break;
	case cudaDevAttrTextureAlignment: *v = (int)p->textureAlignment; break;
	case cudaDevAttrGpuOverlap: *v = p->asyncEngineCount > 0; break;
	case cudaDevAttrMultiProcessorCount: *v = p->multiProcessorCount; break;
	case cudaDevAttrKernelExecTimeout: *v = 0; break;
	case cudaDevAttrIntegrated: *v = p->integrated; break;
	case cudaDevAttrCanMapHostMemory: *v = p->canMapHostMemory; break;
	case cudaDevAttrComputeMode: *v = cudaComputeModeDefault; break;
	case cudaDevAttrSurfaceAlignment: *v = (int)p->surfaceAlignment; break;
	case cudaDevAttrConcurrentKernels: *v = p->concurrentKernels; break;
	case cudaDevAttrEccEnabled: *v = p->ECCEnabled; break;
	case cudaDevAttrPciBusId: *v = p->pciBusID; break;
	case cudaDevAttrPciDeviceId: *v = p->pciDeviceID; break;
	case cudaDevAttrTccDriver: *v = p->tccDriver; break;
	case cudaDevAttrMemoryClockRate: *v = in->mem_clock_khz; break;
	case cudaDevAttrGlobalMemoryBusWidth: *v = p->memoryBusWidth; break;
	case cudaDevAttrL2CacheSize: *v = p->l2CacheSize; break;
	case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p->maxThreadsPerMultiProcessor; break;
	case cudaDevAttrAsyncEngineCount: *v = p->asyncEngineCount; break;
	case cudaDevAttrUnifiedAddressing: *v = p->unifiedAddressing; break;
	case cudaDevAttrPciDomainId: *v = p->pciDomainID; break;
	case cudaDevAttrTexturePitchAlignment: *v = (int)p->texturePitchAlignment; break;
	case cudaDevAttrComputeCapabilityMajor: *v = p->major; break;
	case cudaDevAttrComputeCapabilityMinor: *v = p->minor; break;
	case cudaDevAttrStreamPrioritiesSupported: *v = p->streamPrioritiesSupported; break;
	case cudaDevAttrGlobalL1CacheSupported: *v = p->globalL1CacheSupported; break;
	case cudaDevAttrLocalL1CacheSupported: *v = p->localL1CacheSupported; break;
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = (int)p->sharedMemPerMultiprocessor; break;
	case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p->regsPerMultiprocessor; break;
	case cudaDevAttrManagedMemory: *v = p->managedMemory; break;
	case cudaDevAttrIsMultiGpuBoard: *v = p->isMultiGpuBoard; break;
	case cudaDevAttrMultiGpuBoardGroupID: *v = p->multiGpuBoardGroupID; break;
	case cudaDevAttrHostNativeAtomicSupported: *v = p->hostNativeAtomicSupported; break;
	case cudaDevAttrSingleToDoublePrecisionPerfRatio: *v = 2; break;
	case cudaDevAttrPageableMemoryAccess: *v = p->pageableMemoryAccess; break;
	case cudaDevAttrConcurrentManagedAccess: *v = p->concurrentManagedAccess; break;
	case cudaDevAttrComputePreemptionSupported: *v = p->computePreemptionSupported; break;
	case cudaDevAttrCanUseHostPointerForRegisteredMem: *v = p->canUseHostPointerForRegisteredMem; break;
	case cudaDevAttrCooperativeLaunch: *v = p->cooperativeLaunch; break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p->sharedMemPerBlockOptin; break;
	case cudaDevAttrCanFlushRemoteWrites: *v = 0; break;
	case cudaDevAttrHostRegisterSupported: *v = p->hostRegisterSupported; break;
	case cudaDevAttrPageableMemoryAccessUsesHostPageTables: *v = p->pageableMemoryAccessUsesHostPageTables; break;
	case cudaDevAttrDirectManagedMemAccessFromHost: *v = p->directManagedMemAccessFromHost; break;
	case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p->maxBlocksPerMultiProcessor; break;
	case cudaDevAttrMaxPersistingL2CacheSize: *v = p->persistingL2CacheMaxSize; break;
	case cudaDevAttrMaxAccessPolicyWindowSize: *v = p->accessPolicyMaxWindowSize; break;
	case cudaDevAttrReservedSharedMemoryPerBlock: *v = (int)p->reservedSharedMemPerBlock; break;
	case cudaDevAttrSparseCudaArraySupported: *v = 0; break;
	case cudaDevAttrHostRegisterReadOnlySupported: *v = p->hostRegisterReadOnlySupported; break;
	case cudaDevAttrTimelineSemaphoreInteropSupported: *v = 0; break;
	case cudaDevAttrMemoryPoolsSupported: *v = p->memoryPoolsSupported; break;
	case cudaDevAttrGPUDirectRDMASupported: *v = 0; break;
	case cudaDevAttrGPUDirectRDMAFlushWritesOptions: *v = 0; break;
	case cudaDevAttrGPUDirectRDMAWritesOrdering: *v = 0; break;
	case cudaDevAttrMemoryPoolSupportedHandleTypes: *v = 0; break;
	case cudaDevAttrClusterLaunch: *v = p->clusterLaunch; break;
	case cudaDevAttrDeferredMappingCudaArraySupported: *v = 0; break;
	case cudaDevAttrIpcEventSupport: *v = 0; break;
	case cudaDevAttrMemSyncDomainCount: *v = 1; break;
	case cudaDevAttrNumaConfig: *v = p->deviceNumaConfig; break;
	case cudaDevAttrNumaId: *v = p->deviceNumaId; break;
	case cudaDevAttrMpsEnabled: *v = 0; break;
	case cudaDevAttrHostNumaId: *v = p->hostNumaId; break;
	case cudaDevAttrD3D12CigSupported: *v = 0; break;
	case cudaDevAttrVulkanCigSupported: *v = 0; break;
	case cudaDevAttrGpuPciDeviceId: *v = (int)p->gpuPciDeviceID; break;
	case cudaDevAttrGpuPciSubsystemId: *v = (int)p->gpuPciSubsystemID; break;
	case cudaDevAttrHostNumaMemoryPoolsSupported: *v = 0; break;
	case cudaDevAttrHostNumaMultinodeIpcSupported: *v = 0; break;
	case cudaDevAttrHostMemoryPoolsSupported: *v = 0; break;
	case cudaDevAttrOnlyPartialHostNativeAtomicSupported: *v = 0; break;
	default:
		/* Texture and surface limits: anygpu has neither. */
		if (attr >= cudaDevAttrMaxTexture1DWidth && attr <= cudaDevAttrMaxTexture1DMipmappedWidth) {
			*v = 0;
			break;
		}
		return -1;
	}
	return 0;
}

RT_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	struct cudaDeviceProp p;
	struct rt_device *d;
	cudaError_t e;

	if (!value)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(device, &d);
	if (!d || !d->b)
		return rt_error(e);
	fill_props(&d->info, &p);
	if (attr_from_props(&p, &d->info, attr, value))
		return rt_error(cudaErrorInvalidValue);
	return cudaSuccess;
}

RT_API cudaError_t cudaSetDevice(int device)
{
	struct rt_device *d;
	cudaError_t e = rt_device_get(device, &d);

	if (e == cudaErrorInvalidDevice || e == cudaErrorNoDevice ||
	    e == cudaErrorInsufficientDriver)
		return rt_error(e);
	rt_set_current(device);
	return rt_error(e);
}

RT_API cudaError_t cudaGetDevice(int *device)
{
	cudaError_t e = rt_init();

	if (!device)
		return rt_error(cudaErrorInvalidValue);
	*device = rt_current_ordinal();
	return rt_error(e);
}

RT_API cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
	struct rt_device *d;

	return rt_error(rt_device_get(device, &d));
}

/* Waiting for the whole device conflicts with any capture; once idle,
 * memory pools may release memory. */
RT_API cudaError_t cudaDeviceSynchronize(void)
{
	struct rt_device *d;
	cudaError_t e = rt_current(&d);

	if (e == cudaSuccess)
		e = rt_capture_unsafe_check(1);
	if (e == cudaSuccess)
		e = rt_ops()->synchronize(d->b);
	if (e == cudaSuccess)
		rt_pools_release(d);
	return rt_result(d, e);
}

RT_API cudaError_t cudaDeviceReset(void)
{
	struct rt_device *d;
	cudaError_t e = rt_current(&d);

	if (!d)
		return rt_error(e);
	pthread_mutex_lock(&d->lock);
	if (d->b)
		rt_ops()->synchronize(d->b);   /* its faults die with the context */
	rt_device_close(d);
	pthread_mutex_unlock(&d->lock);
	return cudaSuccess;
}

RT_API cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
	struct rt_device *d;
	uint64_t f = 0, t = 0;
	cudaError_t e = rt_current(&d);

	if (e == cudaSuccess)
		e = rt_ops()->mem_info(d->b, &f, &t);
	if (e == cudaSuccess) {
		if (free)
			*free = f;
		if (total)
			*total = t;
	}
	return rt_result(d, e);
}

RT_API cudaError_t cudaDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return rt_error(cudaErrorInvalidValue);
	*driverVersion = RT_VERSION;
	return cudaSuccess;
}

RT_API cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
	if (!runtimeVersion)
		return rt_error(cudaErrorInvalidValue);
	*runtimeVersion = rt_runtime_version;
	return cudaSuccess;
}

#define DEVICE_FLAGS (cudaDeviceScheduleMask | cudaDeviceMapHost | \
		      cudaDeviceLmemResizeToMax | cudaDeviceSyncMemops)

RT_API cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	struct rt_device *d;
	cudaError_t e;

	if (flags & ~(unsigned)DEVICE_FLAGS)
		return rt_error(cudaErrorInvalidValue);
	e = rt_current(&d);
	if (e == cudaSuccess)
		d->flags = flags;
	return rt_result(d, e);
}

RT_API cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	struct rt_device *d;
	cudaError_t e;

	if (!flags)
		return rt_error(cudaErrorInvalidValue);
	e = rt_current(&d);
	if (e == cudaSuccess)   /* mapping host memory is always on, as in CUDA */
		*flags = d->flags | cudaDeviceMapHost;
	return rt_result(d, e);
}

/* The device whose compute capability is closest to the one asked for. */
RT_API cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
	int best = 0, best_gap = INT32_MAX, n = rt_device_count();
	struct rt_device *d;

	if (!device || !prop)
		return rt_error(cudaErrorInvalidValue);
	if (n == 0)
		return rt_error(rt_init());
	for (int i = 0; i < n; i++) {
		int gap;

		if (rt_device_get(i, &d) != cudaSuccess)
			continue;
		gap = (d->info.cc_major * 10 + d->info.cc_minor) - (prop->major * 10 + prop->minor);
		gap = gap < 0 ? -gap * 100 : gap;   /* prefer at least what was asked */
		if (gap < best_gap) {
			best = i;
			best_gap = gap;
		}
	}
	*device = best;
	return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
	struct rt_device *d;
	cudaError_t e;

	if (!pValue)
		return rt_error(cudaErrorInvalidValue);
	if ((unsigned)limit > cudaLimitDevRuntimePendingLaunchCount)
		return rt_error(cudaErrorUnsupportedLimit);
	e = rt_current(&d);
	if (e == cudaSuccess)
		*pValue = d->limits[limit];
	return rt_result(d, e);
}

RT_API cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	struct rt_device *d;
	cudaError_t e;

	if ((unsigned)limit > cudaLimitDevRuntimePendingLaunchCount)
		return rt_error(cudaErrorUnsupportedLimit);
	e = rt_current(&d);
	/* Nesting depth of device-side synchronisation: up to 24 levels,
	 * and only below compute capability 9.0. */
	if (e == cudaSuccess && limit == cudaLimitDevRuntimeSyncDepth)
		e = d->info.cc_major >= 9 ? cudaErrorUnsupportedLimit
		    : value > 24 ? cudaErrorInvalidValue : cudaSuccess;
	if (e == cudaSuccess && rt_ops()->set_limit)
		e = rt_ops()->set_limit(d->b, limit, value);
	if (e == cudaSuccess)
		d->limits[limit] = value;
	return rt_result(d, e);
}

RT_API cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	struct rt_device *d;
	cudaError_t e;

	if (!pciBusId || len <= 0)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(device, &d);
	if (e == cudaSuccess)
		snprintf(pciBusId, len, "%08X:%02X:%02X.0", d->info.pci_domain,
			 d->info.pci_bus, d->info.pci_device);
	return rt_result(d, e);
}

RT_API cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
	if (!pCacheConfig)
		return rt_error(cudaErrorInvalidValue);
	*pCacheConfig = cudaFuncCachePreferNone;
	return cudaSuccess;
}

/* A hint about the L1/shared split, which a CPU does not have. */
RT_API cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
	if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
		return rt_error(cudaErrorInvalidValue);
	return cudaSuccess;
}

/* Devices never address each other's memory here: peer copies go through
 * the host (cudaMemcpyPeer), peer access cannot be enabled. */
static cudaError_t check_peer(int peerDevice)
{
	struct rt_device *d, *peer;
	cudaError_t e = rt_current(&d);

	if (e == cudaSuccess)
		e = rt_device_get(peerDevice, &peer);
	if (e == cudaSuccess && peer == d)
		e = cudaErrorInvalidDevice;
	return e;
}

RT_API cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
	cudaError_t e = check_peer(peerDevice);

	if (e == cudaSuccess)
		e = flags ? cudaErrorInvalidValue : cudaErrorPeerAccessUnsupported;
	return rt_error(e);
}

RT_API cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
	cudaError_t e = check_peer(peerDevice);

	return rt_error(e == cudaSuccess ? cudaErrorPeerAccessNotEnabled : e);
}

RT_API cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
	struct rt_device *d;
	cudaError_t e;

	if (!canAccessPeer)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(device, &d);
	if (e == cudaSuccess)
		e = rt_device_get(peerDevice, &d);
	if (e == cudaSuccess)
		*canAccessPeer = 0;
	return rt_error(e);
}

/* No profiler is attached; starting and stopping it is harmless. */
RT_API cudaError_t cudaProfilerStart(void)
{
	return cudaSuccess;
}

RT_API cudaError_t cudaProfilerStop(void)
{
	return cudaSuccess;
}
