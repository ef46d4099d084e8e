/*
 * graph_mem.c - graph memory: the memory of allocation nodes
 * (cudaGraphAddMemAllocNode, or cudaMallocAsync captured), their free
 * nodes, and the device's graph memory attributes.
 *
 * CUDA fixes an allocation node's address when the node is made: the
 * kernels added after it use that address at every launch.  A backend
 * cannot reserve addresses without memory, so the memory is allocated
 * through the backend's mem_alloc (quotas count it) when the node is made
 * and stays until nothing refers to it: no node, no executable graph, and
 * not the program, for which it is "allocated" from the launch of its
 * allocation node until its free (a free node, cudaFreeAsync, cudaFree, or
 * the auto-free of a relaunch).  It is in the runtime's allocation table as
 * device memory all that time, so that copies of kind cudaMemcpyDefault
 * and pointer queries know it while a capture is being recorded.  Giving
 * it back waits for the device, as cudaFree does, since work queued by a
 * launch may still use it.
 */
#include "graph_impl.h"

#include <stdlib.h>

#include "util/strbuf.h"

struct rt_gmem {
	int dev;
	unsigned generation;           /* of the device the memory belongs to */
	ag_dptr p;
	uint64_t size;
	unsigned refs;                 /* nodes and executable-graph steps */
	int allocated;
	int alloc_execs, free_execs;   /* executable graphs holding its nodes */
	const struct rt_graph *owner;  /* the allocation node's graph, and node */
	const struct rt_node *alloc_node;
	const struct rt_graph *freer;  /* the graph of its free node */
};

struct graph_mem_stats {
	uint64_t used, used_high, reserved, reserved_high;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_ptrmap by_addr;       /* address -> rt_gmem */
static struct graph_mem_stats stats[RT_MAX_DEVICES];

static void raise_high(uint64_t *high, uint64_t now)
{
	if (now > *high)
		*high = now;
}

static void set_allocated(struct rt_gmem *m, int allocated)
{
	struct graph_mem_stats *st = &stats[m->dev];

	if (m->allocated == allocated)
		return;
	m->allocated = allocated;
	if (allocated) {
		st->used += m->size;
		raise_high(&st->used_high, st->used);
	} else {
		st->used -= m->size;
	}
}

/* No one refers to m any more: out of the map now (the caller locks),
 * given back by drop() after the lock. */
static int unused(struct rt_gmem *m)
{
	if (m->refs || m->allocated)
		return 0;
	rt_ptrmap_del(&by_addr, (void *)(uintptr_t)m->p);
	stats[m->dev].reserved -= m->size;
	return 1;
}

/* After a cudaDeviceReset the memory went with the device. */
static void drop(struct rt_gmem *m)
{
	struct rt_device *d = rt_device_at(m->dev);
	struct rt_range r;

	if (d->b && d->generation == m->generation) {
		rt_mem_remove((void *)(uintptr_t)m->p, &r);
		rt_ops()->synchronize(d->b);
		rt_ops()->mem_free(d->b, m->p);
	}
	free(m);
}

cudaError_t rt_gmem_new(struct rt_device *d, uint64_t size, struct rt_gmem **out)
{
	struct rt_range r = { 0 };
	struct rt_gmem *m;
	ag_dptr addr;
	cudaError_t e = rt_ops()->mem_alloc(d->b, size, AG_MEM_DEVICE, &addr);

	if (e != cudaSuccess)
		return e;
	m = xcalloc(1, sizeof(*m));
	m->dev = d->ordinal;
	m->generation = d->generation;
	m->p = addr;
	m->size = size;
	m->refs = 1;
	r.base = addr;
	r.size = size;
	r.kind = RT_MEM_DEVICE;
	r.dev = d->ordinal;
	rt_mem_add(&r);
	pthread_mutex_lock(&lock);
	rt_ptrmap_put(&by_addr, (void *)(uintptr_t)addr, m);
	stats[m->dev].reserved += size;
	raise_high(&stats[m->dev].reserved_high, stats[m->dev].reserved);
	pthread_mutex_unlock(&lock);
	*out = m;
	return cudaSuccess;
}

void rt_gmem_ref(struct rt_gmem *m)
{
	pthread_mutex_lock(&lock);
	m->refs++;
	pthread_mutex_unlock(&lock);
}

void rt_gmem_unref(struct rt_gmem *m)
{
	int gone;

	if (!m)
		return;
	pthread_mutex_lock(&lock);
	m->refs--;
	gone = unused(m);
	pthread_mutex_unlock(&lock);
	if (gone)
		drop(m);
}

void *rt_gmem_ptr(const struct rt_gmem *m)
{
	return (void *)(uintptr_t)m->p;
}

struct rt_gmem *rt_gmem_find(const void *p)
{
	struct rt_gmem *m;

	pthread_mutex_lock(&lock);
	m = p ? rt_ptrmap_get(&by_addr, p) : NULL;
	if (m)
		m->refs++;
	pthread_mutex_unlock(&lock);
	return m;
}

cudaError_t rt_gmem_claim_free(struct rt_gmem *m, const struct rt_graph *g)
{
	cudaError_t e = cudaErrorInvalidValue;

	pthread_mutex_lock(&lock);
	if (!m->freer) {
		m->freer = g;
		e = cudaSuccess;
	}
	pthread_mutex_unlock(&lock);
	return e;
}

void rt_gmem_unclaim_free(struct rt_gmem *m, const struct rt_graph *g)
{
	pthread_mutex_lock(&lock);
	if (m->freer == g)
		m->freer = NULL;
	pthread_mutex_unlock(&lock);
}

void rt_gmem_set_owner(struct rt_gmem *m, const struct rt_graph *g, const struct rt_node *n)
{
	pthread_mutex_lock(&lock);
	m->owner = g;
	m->alloc_node = n;
	pthread_mutex_unlock(&lock);
}

const struct rt_node *rt_gmem_owner_node(const struct rt_gmem *m, const struct rt_graph *g)
{
	const struct rt_node *n;

	pthread_mutex_lock(&lock);
	n = m->owner == g ? m->alloc_node : NULL;
	pthread_mutex_unlock(&lock);
	return n;
}

int rt_gmem_exec_busy(const struct rt_gmem *m, enum cudaGraphNodeType type)
{
	int busy;

	pthread_mutex_lock(&lock);
	busy = type == cudaGraphNodeTypeMemAlloc ? m->alloc_execs : m->free_execs;
	pthread_mutex_unlock(&lock);
	return busy;
}

void rt_gmem_exec_ref(struct rt_gmem *m, enum cudaGraphNodeType type, int delta)
{
	pthread_mutex_lock(&lock);
	if (type == cudaGraphNodeTypeMemAlloc)
		m->alloc_execs += delta;
	else
		m->free_execs += delta;
	pthread_mutex_unlock(&lock);
}

cudaError_t rt_gmem_launch_check(struct rt_gmem *m, int autofree)
{
	cudaError_t e = cudaSuccess;

	pthread_mutex_lock(&lock);
	if (m->allocated && autofree)
		set_allocated(m, 0);
	else if (m->allocated)
		e = cudaErrorInvalidValue;
	pthread_mutex_unlock(&lock);
	return e;
}

/* A free of memory that is not allocated is a program error CUDA leaves
 * undefined; here it changes nothing. */
void rt_gmem_run(struct rt_gmem *m, enum cudaGraphNodeType type)
{
	pthread_mutex_lock(&lock);
	set_allocated(m, type == cudaGraphNodeTypeMemAlloc);
	pthread_mutex_unlock(&lock);
}

int rt_gmem_free_ptr(const void *p, cudaError_t *e)
{
	struct rt_gmem *m;
	int gone = 0;

	pthread_mutex_lock(&lock);
	m = p ? rt_ptrmap_get(&by_addr, p) : NULL;
	if (m) {
		*e = m->allocated ? cudaSuccess : cudaErrorInvalidValue;
		set_allocated(m, 0);
		gone = unused(m);
	}
	pthread_mutex_unlock(&lock);
	if (gone)
		drop(m);
	return m != NULL;
}

/* The pool properties CUDA reports for an allocation on device dev. */
static struct cudaMemPoolProps device_props(int dev)
{
	struct cudaMemPoolProps props = { 0 };

	props.allocType = cudaMemAllocationTypePinned;
	props.handleTypes = cudaMemHandleTypeNone;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = dev;
	return props;
}

cudaError_t rt_gmem_capture_alloc(struct rt_device *d, struct ag_stream *s, size_t size,
				  void **ptr, int *captured)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeMemAlloc };
	struct rt_gmem *m;
	cudaError_t e = rt_gmem_new(d, size, &m);

	*captured = 0;
	if (e != cudaSuccess)
		return e;
	p.u.mem.mem = m;
	p.u.mem.props = device_props(d->ordinal);
	p.u.mem.bytes = size;
	e = rt_capture_op(d, s, &p, captured);
	if (e == cudaSuccess && *captured)
		*ptr = rt_gmem_ptr(m);
	rt_gmem_unref(m);
	return e;
}

/* Memory that is not graph memory makes a free node with no memory,
 * which the graph refuses (cudaErrorInvalidValue, the capture invalid). */
cudaError_t rt_gmem_capture_free(struct rt_device *d, struct ag_stream *s, void *ptr,
				 int *captured)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeMemFree };
	cudaError_t e;

	p.u.mem.mem = rt_gmem_find(ptr);
	e = rt_capture_op(d, s, &p, captured);
	rt_gmem_unref(p.u.mem.mem);
	return e;
}

/* Access descriptors may name any device of this process, read-write. */
static int access_ok(const struct cudaMemAccessDesc *descs, size_t n)
{
	if (n && !descs)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (descs[i].location.type != cudaMemLocationTypeDevice ||
		    descs[i].location.id < 0 || descs[i].location.id >= rt_device_count() ||
		    descs[i].flags != cudaMemAccessFlagsProtReadWrite)
			return 0;
	return 1;
}

static int alloc_params_ok(const struct cudaMemAllocNodeParams *np)
{
	return np && np->bytesize && np->poolProps.allocType == cudaMemAllocationTypePinned &&
	       np->poolProps.handleTypes == cudaMemHandleTypeNone &&
	       np->poolProps.location.type == cudaMemLocationTypeDevice &&
	       access_ok(np->accessDescs, np->accessDescCount);
}

RT_API cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					    const cudaGraphNode_t *pDependencies,
					    size_t numDependencies,
					    struct cudaMemAllocNodeParams *nodeParams)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeMemAlloc };
	struct rt_device *d;
	struct rt_gmem *m;
	cudaError_t e;

	if (!alloc_params_ok(nodeParams))
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(nodeParams->poolProps.location.id, &d);
	if (e != cudaSuccess)
		return rt_result(d, e == cudaErrorInvalidDevice ? cudaErrorInvalidValue : e);
	e = rt_gmem_new(d, nodeParams->bytesize, &m);
	if (e != cudaSuccess)
		return rt_result(d, e);
	p.u.mem.mem = m;
	p.u.mem.props = nodeParams->poolProps;
	p.u.mem.descs = (struct cudaMemAccessDesc *)nodeParams->accessDescs;
	p.u.mem.ndescs = nodeParams->accessDescCount;
	p.u.mem.bytes = nodeParams->bytesize;
	e = rt_graph_add_checked(pGraphNode, graph, pDependencies, numDependencies, &p);
	if (e == cudaSuccess)
		nodeParams->dptr = rt_gmem_ptr(m);
	rt_gmem_unref(m);
	return rt_error(e);
}

RT_API cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					   const cudaGraphNode_t *pDependencies,
					   size_t numDependencies, void *dptr)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeMemFree };
	cudaError_t e;

	p.u.mem.mem = rt_gmem_find(dptr);
	e = rt_graph_add_checked(pGraphNode, graph, pDependencies, numDependencies, &p);
	rt_gmem_unref(p.u.mem.mem);
	return rt_error(e);
}

/* The descriptors and properties point into the node, as in CUDA. */
RT_API cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
						  struct cudaMemAllocNodeParams *params_out)
{
	struct rt_node *n;
	int ok;

	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	ok = n && params_out && n->p.type == cudaGraphNodeTypeMemAlloc;
	if (ok) {
		params_out->poolProps = n->p.u.mem.props;
		params_out->accessDescs = n->p.u.mem.descs;
		params_out->accessDescCount = n->p.u.mem.ndescs;
		params_out->bytesize = n->p.u.mem.bytes;
		params_out->dptr = rt_gmem_ptr(n->p.u.mem.mem);
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
	struct rt_node *n;
	int ok;

	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	ok = n && dptr_out && n->p.type == cudaGraphNodeTypeMemFree;
	if (ok)
		*(void **)dptr_out = rt_gmem_ptr(n->p.u.mem.mem);
	pthread_mutex_unlock(&rt_graph_lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* Nothing is cached: graph memory goes back to the backend as soon as
 * nothing refers to it. */
RT_API cudaError_t cudaDeviceGraphMemTrim(int device)
{
	struct rt_device *d;
	cudaError_t e = rt_device_get(device, &d);

	if (e == cudaErrorInvalidDevice)
		return rt_error(cudaErrorInvalidValue);
	return e == cudaSuccess ? cudaSuccess : rt_result(d, e);
}

static uint64_t *stat_field(struct graph_mem_stats *st, enum cudaGraphMemAttributeType attr)
{
	switch (attr) {
	case cudaGraphMemAttrUsedMemCurrent:
		return &st->used;
	case cudaGraphMemAttrUsedMemHigh:
		return &st->used_high;
	case cudaGraphMemAttrReservedMemCurrent:
		return &st->reserved;
	case cudaGraphMemAttrReservedMemHigh:
		return &st->reserved_high;
	default:
		return NULL;
	}
}

/* Used: bytes allocated (between an allocation's launch and its free);
 * reserved: bytes held for graph allocations. */
RT_API cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
						  void *value)
{
	struct rt_device *d;
	uint64_t *field;
	cudaError_t e = rt_device_get(device, &d);

	if (e != cudaSuccess)
		return rt_result(d, e);
	field = stat_field(&stats[device], attr);
	if (!field || !value)
		return rt_error(cudaErrorInvalidValue);
	pthread_mutex_lock(&lock);
	*(uint64_t *)value = *field;
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

/* Only the high watermarks, and only to 0, which restarts them at the
 * current value. */
RT_API cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
						  void *value)
{
	struct graph_mem_stats *st;
	struct rt_device *d;
	cudaError_t e = rt_device_get(device, &d);

	if (e != cudaSuccess)
		return rt_result(d, e);
	if (!value || *(uint64_t *)value ||
	    (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
		return rt_error(cudaErrorInvalidValue);
	st = &stats[device];
	pthread_mutex_lock(&lock);
	if (attr == cudaGraphMemAttrUsedMemHigh)
		st->used_high = st->used;
	else
		st->reserved_high = st->reserved;
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}
