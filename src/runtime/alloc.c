/*
 * alloc.c - allocation: device, managed, pitched and pinned host memory,
 * host registration, and what cudaPointerGetAttributes says about an
 * address.
 *
 * Device and managed memory come from the backend; pinned host memory is
 * page-aligned memory the runtime allocates itself.  Every range goes into
 * the allocation table, which is how copies know what a pointer is.
 */
#include "graph.h"

#include <stdlib.h>
#include <unistd.h>

#define PITCH_ALIGN 512
#define HOST_ALLOC_FLAGS (cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)
#define HOST_REGISTER_FLAGS (cudaHostRegisterPortable | cudaHostRegisterMapped | \
			     cudaHostRegisterIoMemory | cudaHostRegisterReadOnly)

static void add_range(const void *p, uint64_t size, enum rt_mem kind, int dev, unsigned flags,
		      ag_dptr mapped)
{
	struct rt_range r = { .base = (uintptr_t)p, .size = size, .kind = kind, .dev = dev,
			      .flags = flags, .mapped = mapped };

	rt_mem_add(&r);
}

/* Pinned host memory, page-locked by the backend where it can do that
 * (the cuda backend: copies from it are then DMA, and kernels reach it at
 * *mapped); elsewhere it stays the runtime's alone (*mapped 0). */
static cudaError_t pin(struct rt_device *d, void *p, size_t size, ag_dptr *mapped)
{
	*mapped = 0;
	if (!rt_ops()->host_register)
		return cudaSuccess;
	return rt_ops()->host_register(d->b, p, size, mapped);
}

/* Undoes pin() for a range leaving the table.  A device reset since has
 * dropped the registration with the context: nothing is left to undo. */
static void unpin(const struct rt_range *r)
{
	struct rt_device *d;

	if (r->mapped && rt_ops()->host_unregister && rt_device_get(r->dev, &d) == cudaSuccess)
		rt_ops()->host_unregister(d->b, (void *)r->base);
}

static cudaError_t device_alloc(void **ptr, size_t size, enum ag_mem_kind kind)
{
	static int said;
	struct rt_device *d;
	ag_dptr p = 0;
	cudaError_t e;

	if (!ptr)
		return rt_error(cudaErrorInvalidValue);
	*ptr = NULL;
	e = rt_current(&d);
	if (e == cudaSuccess)
		e = rt_capture_unsafe_check(0);
	if (e != cudaSuccess || size == 0)
		return rt_result(d, e);
	e = rt_ops()->mem_alloc(d->b, size, kind, &p);
	if (e != cudaSuccess)
		return rt_result(d, e);
	/* Managed memory must be one address for host and device. */
	if (kind == AG_MEM_MANAGED && rt_ops()->host_ptr(d->b, p) != (void *)(uintptr_t)p) {
		rt_ops()->mem_free(d->b, p);
		rt_warn_once(&said, "cudaMallocManaged is not supported by the %s backend",
			     rt_ops()->name);
		return rt_error(cudaErrorNotSupported);
	}
	add_range((void *)(uintptr_t)p, size,
		  kind == AG_MEM_MANAGED ? RT_MEM_MANAGED : RT_MEM_DEVICE, d->ordinal, 0, 0);
	*ptr = (void *)(uintptr_t)p;
	return cudaSuccess;
}

RT_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	return device_alloc(devPtr, size, AG_MEM_DEVICE);
}

RT_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
		return rt_error(cudaErrorInvalidValue);
	return device_alloc(devPtr, size, AG_MEM_MANAGED);
}

RT_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
	size_t p = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;

	if (!pitch)
		return rt_error(cudaErrorInvalidValue);
	*pitch = p;
	return device_alloc(devPtr, p * height, AG_MEM_DEVICE);
}

RT_API cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
	size_t pitch;
	cudaError_t e;

	if (!pitchedDevPtr)
		return rt_error(cudaErrorInvalidValue);
	e = cudaMallocPitch(&pitchedDevPtr->ptr, &pitch, extent.width,
			    extent.height * extent.depth);
	pitchedDevPtr->pitch = pitch;
	pitchedDevPtr->xsize = extent.width;
	pitchedDevPtr->ysize = extent.height;
	return e;
}

/* cudaFree waits for the device, as CUDA does, and reports its errors. */
RT_API cudaError_t cudaFree(void *devPtr)
{
	struct rt_device *d;
	struct rt_range r;
	cudaError_t e = rt_current(&d);

	if (e == cudaSuccess)
		e = rt_capture_unsafe_check(0);
	if (e != cudaSuccess || !devPtr || rt_gmem_free_ptr(devPtr, &e))
		return rt_result(d, e);
	if (!rt_mem_find(devPtr, &r) || r.base != (uintptr_t)devPtr ||
	    (r.kind != RT_MEM_DEVICE && r.kind != RT_MEM_MANAGED))
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(r.dev, &d);
	if (e == cudaSuccess)
		e = rt_ops()->synchronize(d->b);
	if (e != cudaSuccess)
		return rt_result(d, e);
	rt_mem_remove(devPtr, &r);
	return rt_result(d, rt_ops()->mem_free(d->b, (ag_dptr)(uintptr_t)devPtr));
}

RT_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	struct rt_device *d;
	ag_dptr mapped;
	void *p = NULL;
	cudaError_t e;

	if (!pHost || (flags & ~(unsigned)HOST_ALLOC_FLAGS))
		return rt_error(cudaErrorInvalidValue);
	*pHost = NULL;
	e = rt_current(&d);
	if (e != cudaSuccess || size == 0)
		return rt_result(d, e);
	if (posix_memalign(&p, sysconf(_SC_PAGESIZE), size))
		return rt_error(cudaErrorMemoryAllocation);
	e = pin(d, p, size, &mapped);
	if (e != cudaSuccess) {
		free(p);
		return rt_result(d, e);
	}
	add_range(p, size, RT_MEM_HOST, d->ordinal, flags, mapped);
	*pHost = p;
	return cudaSuccess;
}

RT_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

RT_API cudaError_t cudaFreeHost(void *ptr)
{
	struct rt_range r;

	if (!ptr)
		return cudaSuccess;
	if (!rt_mem_find(ptr, &r) || r.base != (uintptr_t)ptr || r.kind != RT_MEM_HOST)
		return rt_error(cudaErrorInvalidValue);
	rt_mem_remove(ptr, &r);
	unpin(&r);
	free(ptr);
	return cudaSuccess;
}

RT_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	struct rt_device *d;
	struct rt_range r;
	ag_dptr mapped;
	cudaError_t e;

	if (!ptr || !size || (flags & ~(unsigned)HOST_REGISTER_FLAGS))
		return rt_error(cudaErrorInvalidValue);
	e = rt_current(&d);
	if (e != cudaSuccess)
		return rt_result(d, e);
	if (rt_mem_find(ptr, &r) || rt_mem_find((char *)ptr + size - 1, &r))
		return rt_error(cudaErrorHostMemoryAlreadyRegistered);
	e = pin(d, ptr, size, &mapped);
	if (e != cudaSuccess)
		return rt_result(d, e);
	add_range(ptr, size, RT_MEM_REGISTERED, d->ordinal, flags, mapped);
	return cudaSuccess;
}

RT_API cudaError_t cudaHostUnregister(void *ptr)
{
	struct rt_range r;

	if (!ptr)
		return rt_error(cudaErrorInvalidValue);
	if (!rt_mem_find(ptr, &r) || r.base != (uintptr_t)ptr || r.kind != RT_MEM_REGISTERED)
		return rt_error(cudaErrorHostMemoryNotRegistered);
	rt_mem_remove(ptr, &r);
	unpin(&r);
	return cudaSuccess;
}

static int is_host_kind(enum rt_mem kind)
{
	return kind == RT_MEM_HOST || kind == RT_MEM_REGISTERED;
}

/* Pinned memory is mapped where the backend pinned it (the cuda backend),
 * or where the device addresses host memory directly (the cpu backend). */
RT_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	static int said;
	struct rt_device *d;
	struct rt_range r;
	cudaError_t e;

	if (!pDevice || flags || !rt_mem_find(pHost, &r) || !is_host_kind(r.kind))
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(r.dev, &d);
	if (e != cudaSuccess)
		return rt_result(d, e);
	if (r.mapped) {
		*pDevice = (void *)(uintptr_t)(r.mapped + ((uintptr_t)pHost - r.base));
		return cudaSuccess;
	}
	if (!d->info.integrated) {
		rt_warn_once(&said, "cudaHostGetDevicePointer is not supported by the %s backend",
			     rt_ops()->name);
		return rt_error(cudaErrorNotSupported);
	}
	*pDevice = pHost;
	return cudaSuccess;
}

RT_API cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
	struct rt_range r;

	if (!pFlags || !rt_mem_find(pHost, &r) || !is_host_kind(r.kind))
		return rt_error(cudaErrorInvalidValue);
	*pFlags = r.flags;
	return cudaSuccess;
}

RT_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
					    const void *ptr)
{
	struct rt_range r;
	void *p = (void *)ptr;

	if (!attributes)
		return rt_error(cudaErrorInvalidValue);
	if (!rt_mem_find(ptr, &r)) {
		attributes->type = cudaMemoryTypeUnregistered;
		attributes->device = -2;
		attributes->devicePointer = NULL;
		attributes->hostPointer = p;
		return cudaSuccess;
	}
	attributes->device = r.dev;
	attributes->devicePointer = p;
	attributes->hostPointer = p;
	if (r.kind == RT_MEM_MANAGED) {
		attributes->type = cudaMemoryTypeManaged;
	} else if (is_host_kind(r.kind)) {
		attributes->type = cudaMemoryTypeHost;
	} else {
		attributes->type = cudaMemoryTypeDevice;
		attributes->hostPointer = NULL;
	}
	return cudaSuccess;
}
