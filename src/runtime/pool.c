/*
 * pool.c - stream-ordered allocation: cudaMallocAsync, cudaFreeAsync and
 * memory pools.
 *
 * A pool keeps blocks of device memory that the backend allocated (so
 * quotas count them) and that the program freed with cudaFreeAsync.  A
 * free records an event on its stream; a later allocation may take the
 * block back when that is safe, as CUDA's reuse policies say: at once on
 * the same stream (stream order puts the free first), when the event has
 * completed (opportunistic reuse), or by making the new stream wait for
 * the event (internal dependencies).  Synchronising a stream, an event or
 * the device gives freed memory above the pool's release threshold back to
 * the backend.  Blocks in use are in the runtime's allocation table as
 * device memory, like cudaMalloc's.
 */
#include "graph.h"

#include <stdlib.h>

#include "util/strbuf.h"

#define BLOCK_ALIGN 512

struct block {
	struct rt_pool *pool;
	ag_dptr p;
	uint64_t size;
	struct ag_stream *s;           /* freed on; its event marks the free */
	struct ag_event *ev;
	struct block *next;
};

struct rt_pool {
	int dev;
	unsigned generation;           /* device generation the memory belongs to */
	int is_default;
	int destroyed;                 /* freed once nothing is outstanding */
	uint64_t max_size;
	uint64_t threshold;
	int follow_events, opportunistic, internal_deps;
	uint64_t reserved, reserved_high, used, used_high;
	struct block *free_list;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_ptrmap pools;         /* live pool -> itself */
static struct rt_ptrmap allocs;        /* device address -> block in use */
static struct rt_pool *defaults[RT_MAX_DEVICES], *current[RT_MAX_DEVICES];

static struct rt_pool *pool_new(const struct rt_device *d, uint64_t max_size)
{
	struct rt_pool *p = xcalloc(1, sizeof(*p));

	p->dev = d->ordinal;
	p->generation = d->generation;
	p->max_size = max_size;
	p->follow_events = p->opportunistic = p->internal_deps = 1;
	rt_ptrmap_put(&pools, p, p);
	return p;
}

static void block_drop(struct rt_device *d, struct block *b, int release)
{
	if (b->ev)
		rt_ops()->event_destroy(d->b, b->ev);
	if (release) {
		rt_ops()->mem_free(d->b, b->p);
		b->pool->reserved -= b->size;
	}
	free(b);
}

/* After cudaDeviceReset the pool's memory and events are gone. */
static void pool_refresh(struct rt_pool *p, struct rt_device *d)
{
	struct block *b, *next;

	if (p->generation == d->generation)
		return;
	for (b = p->free_list; b; b = next) {
		next = b->next;
		free(b);
	}
	p->free_list = NULL;
	p->reserved = p->used = 0;
	p->generation = d->generation;
}

static struct rt_pool *default_pool(struct rt_device *d)
{
	if (!defaults[d->ordinal]) {
		defaults[d->ordinal] = pool_new(d, 0);
		defaults[d->ordinal]->is_default = 1;
	}
	return defaults[d->ordinal];
}

static struct rt_pool *current_pool(struct rt_device *d)
{
	return current[d->ordinal] ? current[d->ordinal] : default_pool(d);
}

/* Releases freed blocks whose free has completed while the pool holds more
 * than keep bytes; a destroyed pool with nothing left is freed. */
static void pool_trim(struct rt_pool *p, struct rt_device *d, uint64_t keep)
{
	struct block **link = &p->free_list;

	pool_refresh(p, d);
	while (*link && p->reserved > keep) {
		struct block *b = *link;

		if (rt_ops()->event_query(d->b, b->ev) != cudaSuccess) {
			link = &b->next;
			continue;
		}
		*link = b->next;
		block_drop(d, b, 1);
	}
	if (p->destroyed && !p->used && !p->free_list) {
		rt_ptrmap_del(&pools, p);
		free(p);
	}
}

void rt_pools_release(struct rt_device *d)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < pools.cap; i++) {
		struct rt_pool *p = (struct rt_pool *)pools.keys[i];

		if (p && p->dev == d->ordinal) {
			pool_trim(p, d, p->destroyed ? 0 : p->threshold);
			if (!rt_ptrmap_get(&pools, p))
				i--;    /* deletion may have shifted another key here */
		}
	}
	pthread_mutex_unlock(&lock);
}

/* May a block freed earlier serve stream s without waiting?  Yes when it
 * was freed on s (stream order puts the free first) or, if the pool
 * allows opportunistic reuse, when the free has completed. */
static int ready(struct rt_pool *p, struct rt_device *d, struct block *b, struct ag_stream *s)
{
	return b->s == s ||
	       (p->opportunistic && rt_ops()->event_query(d->b, b->ev) == cudaSuccess);
}

/* The smallest freed block that fits without wasting more than half (and
 * is ready, if asked); the link that points to it, or NULL. */
static struct block **best_fit(struct rt_pool *p, struct rt_device *d, uint64_t size,
			       struct ag_stream *s, int need_ready)
{
	struct block **best = NULL;

	for (struct block **link = &p->free_list; *link; link = &(*link)->next) {
		uint64_t have = (*link)->size;

		if (have >= size && have / 2 <= size && (!best || have < (*best)->size) &&
		    (!need_ready || ready(p, d, *link, s)))
			best = link;
	}
	return best;
}

/* A freed block for stream s: a ready one, else (when the pool allows
 * internal dependencies) one that s is made to wait for. */
static struct block *take_free(struct rt_pool *p, struct rt_device *d, uint64_t size,
			       struct ag_stream *s)
{
	struct block **best = best_fit(p, d, size, s, 1), *b;

	if (!best && p->internal_deps) {
		best = best_fit(p, d, size, s, 0);
		if (best && rt_ops()->stream_wait_event(d->b, s, (*best)->ev) != cudaSuccess)
			best = NULL;
	}
	if (!best)
		return NULL;
	b = *best;
	*best = b->next;
	rt_ops()->event_destroy(d->b, b->ev);
	b->ev = NULL;
	return b;
}

static cudaError_t new_block(struct rt_pool *p, struct rt_device *d, uint64_t size,
			     struct block **out)
{
	ag_dptr addr;
	cudaError_t e;

	if (p->max_size && p->reserved + size > p->max_size)
		return cudaErrorMemoryAllocation;
	e = rt_ops()->mem_alloc(d->b, size, AG_MEM_DEVICE, &addr);
	if (e == cudaErrorMemoryAllocation) {
		pool_trim(p, d, 0);    /* freed memory may make room */
		e = rt_ops()->mem_alloc(d->b, size, AG_MEM_DEVICE, &addr);
	}
	if (e != cudaSuccess)
		return e;
	*out = xcalloc(1, sizeof(**out));
	(*out)->pool = p;
	(*out)->p = addr;
	(*out)->size = size;
	p->reserved += size;
	if (p->reserved > p->reserved_high)
		p->reserved_high = p->reserved;
	return cudaSuccess;
}

static cudaError_t pool_alloc(struct rt_pool *p, struct rt_device *d, struct ag_stream *s,
			      size_t size, void **ptr)
{
	uint64_t want = (size + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
	struct rt_range r = { 0 };
	struct block *b;
	cudaError_t e = cudaSuccess;

	pool_refresh(p, d);
	b = take_free(p, d, want, s);
	if (!b)
		e = new_block(p, d, want, &b);
	if (e != cudaSuccess)
		return e;
	p->used += b->size;
	if (p->used > p->used_high)
		p->used_high = p->used;
	rt_ptrmap_put(&allocs, (void *)(uintptr_t)b->p, b);
	r.base = b->p;
	r.size = size;
	r.kind = RT_MEM_DEVICE;
	r.dev = d->ordinal;
	rt_mem_add(&r);
	*ptr = (void *)(uintptr_t)b->p;
	return cudaSuccess;
}

/* pool NULL: the device's current pool.  On a capturing stream the
 * allocation is an allocation node's graph memory (graph_mem.c). */
static cudaError_t malloc_async(void **ptr, size_t size, struct rt_pool *pool,
				cudaStream_t stream, int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	int captured = 0;
	cudaError_t e;

	if (!ptr)
		return rt_error(cudaErrorInvalidValue);
	*ptr = NULL;
	e = rt_stream_get(stream, per_thread_default, &d, &s);
	if (e != cudaSuccess || !size)
		return rt_result(d, e);
	if (s && rt_capture_member(s))
		e = rt_gmem_capture_alloc(d, s, size, ptr, &captured);
	else
		e = rt_capture_op(d, s, NULL, &captured);   /* the legacy stream's rule */
	if (e != cudaSuccess || captured)
		return rt_result(d, e);
	pthread_mutex_lock(&lock);
	if (!pool)
		pool = current_pool(d);
	if (pool->dev != d->ordinal)
		e = cudaErrorInvalidValue;
	else
		e = pool_alloc(pool, d, s, size, ptr);
	pthread_mutex_unlock(&lock);
	return rt_result(d, e);
}

RT_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
	return malloc_async(devPtr, size, NULL, hStream, 0);
}

RT_API cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
	return malloc_async(devPtr, size, NULL, hStream, 1);
}

static struct rt_pool *pool_find(cudaMemPool_t h)
{
	struct rt_pool *p;

	pthread_mutex_lock(&lock);
	p = h ? rt_ptrmap_get(&pools, h) : NULL;
	if (p && p->destroyed)
		p = NULL;
	pthread_mutex_unlock(&lock);
	return p;
}

static cudaError_t malloc_from_pool(void **ptr, size_t size, cudaMemPool_t memPool,
				    cudaStream_t stream, int per_thread_default)
{
	struct rt_pool *p = pool_find(memPool);

	if (!p)
		return rt_error(cudaErrorInvalidValue);
	return malloc_async(ptr, size, p, stream, per_thread_default);
}

RT_API cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
					   cudaStream_t stream)
{
	return malloc_from_pool(ptr, size, memPool, stream, 0);
}

RT_API cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
						cudaStream_t stream)
{
	return malloc_from_pool(ptr, size, memPool, stream, 1);
}

/* The block goes back to its pool, marked by an event on stream s. */
static cudaError_t pool_free(struct block *b, struct rt_device *d, struct ag_stream *s)
{
	struct rt_range r;
	cudaError_t e;

	e = rt_ops()->event_create(d->b, cudaEventDisableTiming, &b->ev);
	if (e == cudaSuccess)
		e = rt_ops()->event_record(d->b, b->ev, s);
	if (e != cudaSuccess) {
		if (b->ev)
			rt_ops()->event_destroy(d->b, b->ev);
		b->ev = NULL;
		return e;
	}
	rt_ptrmap_del(&allocs, (void *)(uintptr_t)b->p);
	rt_mem_remove((void *)(uintptr_t)b->p, &r);
	b->s = s;
	b->next = b->pool->free_list;
	b->pool->free_list = b;
	b->pool->used -= b->size;
	return cudaSuccess;
}

/* Memory from cudaMalloc may be freed here too: after the stream's work.
 * Graph memory is free at once (it stays with its graph); on a capturing
 * stream a free is a free node. */
static cudaError_t free_async(void *devPtr, cudaStream_t stream, int per_thread_default)
{
	struct rt_device *d;
	struct ag_stream *s;
	struct block *b;
	int captured = 0;
	cudaError_t e = rt_stream_get(stream, per_thread_default, &d, &s);

	if (e == cudaSuccess && s && rt_capture_member(s))
		e = rt_gmem_capture_free(d, s, devPtr, &captured);
	else if (e == cudaSuccess)
		e = rt_capture_op(d, s, NULL, &captured);   /* the legacy stream's rule */
	if (e != cudaSuccess || captured || rt_gmem_free_ptr(devPtr, &e))
		return rt_result(d, e);
	pthread_mutex_lock(&lock);
	b = devPtr ? rt_ptrmap_get(&allocs, devPtr) : NULL;
	if (b && b->pool->dev != d->ordinal)
		e = cudaErrorInvalidValue;
	else if (b && b->pool->generation == d->generation)
		e = pool_free(b, d, s);
	pthread_mutex_unlock(&lock);
	if (b)
		return rt_result(d, e);
	e = rt_ops()->stream_sync(d->b, s);
	if (e != cudaSuccess)
		return rt_result(d, e);
	return cudaFree(devPtr);
}

RT_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
	return free_async(devPtr, hStream, 0);
}

RT_API cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
	return free_async(devPtr, hStream, 1);
}

RT_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
	static int said;
	struct rt_device *d;
	cudaError_t e;

	if (!memPool || !poolProps || poolProps->allocType != cudaMemAllocationTypePinned ||
	    poolProps->location.type != cudaMemLocationTypeDevice)
		return rt_error(cudaErrorInvalidValue);
	if (poolProps->handleTypes != cudaMemHandleTypeNone) {
		rt_warn_once(&said, "memory pools shared between processes are not supported yet");
		return rt_error(cudaErrorNotSupported);
	}
	e = rt_device_get(poolProps->location.id, &d);
	if (e != cudaSuccess)
		return rt_result(d, e == cudaErrorInvalidDevice ? cudaErrorInvalidValue : e);
	pthread_mutex_lock(&lock);
	*memPool = (cudaMemPool_t)pool_new(d, poolProps->maxSize);
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

/* A pool with allocations outstanding goes when the last one is freed. */
RT_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
	struct rt_pool *p = pool_find(memPool);
	struct rt_device *d;
	cudaError_t e;

	if (!p || p->is_default)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(p->dev, &d);
	if (e != cudaSuccess)
		return rt_result(d, e);
	pthread_mutex_lock(&lock);
	if (current[p->dev] == p)
		current[p->dev] = NULL;
	p->destroyed = 1;
	pool_trim(p, d, 0);
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

RT_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
	struct rt_pool *p = pool_find(memPool);
	struct rt_device *d;
	cudaError_t e;

	if (!p)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(p->dev, &d);
	if (e != cudaSuccess)
		return rt_result(d, e);
	pthread_mutex_lock(&lock);
	pool_trim(p, d, minBytesToKeep);
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

static int *flag_attr(struct rt_pool *p, enum cudaMemPoolAttr attr)
{
	switch (attr) {
	case cudaMemPoolReuseFollowEventDependencies:
		return &p->follow_events;
	case cudaMemPoolReuseAllowOpportunistic:
		return &p->opportunistic;
	case cudaMemPoolReuseAllowInternalDependencies:
		return &p->internal_deps;
	default:
		return NULL;
	}
}

static uint64_t *size_attr(struct rt_pool *p, enum cudaMemPoolAttr attr)
{
	switch (attr) {
	case cudaMemPoolAttrReleaseThreshold:
		return &p->threshold;
	case cudaMemPoolAttrReservedMemCurrent:
		return &p->reserved;
	case cudaMemPoolAttrReservedMemHigh:
		return &p->reserved_high;
	case cudaMemPoolAttrUsedMemCurrent:
		return &p->used;
	case cudaMemPoolAttrUsedMemHigh:
		return &p->used_high;
	default:
		return NULL;
	}
}

/* Settable: the reuse flags, the threshold, and the high watermarks, which
 * only reset (to 0, after which they follow the current values again). */
RT_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
					   void *value)
{
	struct rt_pool *p = pool_find(memPool);
	cudaError_t e = cudaSuccess;

	if (!p || !value)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	if (flag_attr(p, attr))
		*flag_attr(p, attr) = *(int *)value != 0;
	else if (attr == cudaMemPoolAttrReleaseThreshold)
		p->threshold = *(uint64_t *)value;
	else if (attr == cudaMemPoolAttrReservedMemHigh && !*(uint64_t *)value)
		p->reserved_high = p->reserved;
	else if (attr == cudaMemPoolAttrUsedMemHigh && !*(uint64_t *)value)
		p->used_high = p->used;
	else
		e = cudaErrorInvalidValue;
	pthread_mutex_unlock(&lock);
	return rt_error(e);
}

RT_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
					   void *value)
{
	struct rt_pool *p = pool_find(memPool);
	cudaError_t e = cudaSuccess;

	if (!p || !value)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	if (flag_attr(p, attr))
		*(int *)value = *flag_attr(p, attr);
	else if (size_attr(p, attr))
		*(uint64_t *)value = *size_attr(p, attr);
	else
		e = cudaErrorInvalidValue;
	pthread_mutex_unlock(&lock);
	return rt_error(e);
}

static cudaError_t device_pool(cudaMemPool_t *memPool, int device, int want_default)
{
	struct rt_device *d;
	cudaError_t e;

	if (!memPool)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(device, &d);
	if (e != cudaSuccess)
		return rt_result(d, e);
	pthread_mutex_lock(&lock);
	*memPool = (cudaMemPool_t)(want_default ? default_pool(d) : current_pool(d));
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

RT_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
	return device_pool(memPool, device, 1);
}

RT_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
	return device_pool(memPool, device, 0);
}

RT_API cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
	struct rt_pool *p = pool_find(memPool);
	struct rt_device *d;
	cudaError_t e = rt_device_get(device, &d);

	if (e != cudaSuccess)
		return rt_result(d, e);
	if (!p)
		return rt_error(cudaErrorInvalidValue);
	if (p->dev != device)
		return rt_error(cudaErrorInvalidDevice);
	pthread_mutex_lock(&lock);
	current[device] = p;
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}
