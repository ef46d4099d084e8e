/*
 * graph_nodes.c - the cudaGraphAdd*Node calls, and the calls that read and
 * change one node's parameters, in a graph or in an executable graph.
 *
 * Each node type's parameters are checked and converted to struct
 * rt_node_params in one place (kernel_params, copy_params, ...), which the
 * add, set and exec-set calls share.
 */
#include "graph_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

static cudaError_t add_node(cudaGraphNode_t *pNode, cudaGraph_t graph,
			    const cudaGraphNode_t *deps, size_t ndeps,
			    const struct rt_node_params *p)
{
	return rt_error(rt_graph_add_checked(pNode, graph, deps, ndeps, p));
}

/* Adds a node with the parameters p that building gave; built is what
 * building returned.  p's copies are freed here. */
static cudaError_t add_built(cudaGraphNode_t *pNode, cudaGraph_t graph,
			     const cudaGraphNode_t *deps, size_t ndeps, cudaError_t built,
			     struct rt_node_params *p)
{
	cudaError_t e = built == cudaSuccess ? add_node(pNode, graph, deps, ndeps, p)
					     : rt_error(built);

	rt_params_free(p);
	return e;
}

/* A kernel node's parameters from cudaKernelNodeParams: the arguments are
 * packed now, with the kernel's layout on the current device. */
static cudaError_t kernel_params(const struct cudaKernelNodeParams *kp,
				 struct rt_node_params *p)
{
	static int said;
	struct rt_device *d;
	void *buf;
	uint32_t bytes;
	cudaError_t e;

	memset(p, 0, sizeof(*p));
	if (!kp)
		return cudaErrorInvalidValue;
	if (kp->extra) {
		rt_warn_once(&said, "kernel node arguments in the \"extra\" form are not supported yet");
		return cudaErrorNotSupported;
	}
	memset(p, 0, sizeof(*p));
	p->type = cudaGraphNodeTypeKernel;
	p->u.kernel.k = rt_kernel_find(kp->func);
	if (!p->u.kernel.k)
		return cudaErrorInvalidDeviceFunction;
	e = rt_current(&d);
	if (e == cudaSuccess)
		e = rt_kernel_pack(p->u.kernel.k, d, kp->kernelParams, &buf, &bytes);
	if (e != cudaSuccess)
		return e;
	p->u.kernel.func = kp->func;
	p->u.kernel.grid = kp->gridDim;
	p->u.kernel.block = kp->blockDim;
	p->u.kernel.shared = kp->sharedMemBytes;
	p->u.kernel.params = buf;
	p->u.kernel.bytes = bytes;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					  const cudaGraphNode_t *pDependencies,
					  size_t numDependencies,
					  const struct cudaKernelNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return add_built(pGraphNode, graph, pDependencies, numDependencies,
			 kernel_params(pNodeParams, &p), &p);
}

static cudaError_t copy_params(const struct cudaMemcpy3DParms *cp, struct rt_node_params *p)
{
	static int said;

	memset(p, 0, sizeof(*p));
	if (!cp)
		return cudaErrorInvalidValue;
	if (cp->srcArray || cp->dstArray) {
		rt_warn_once(&said, "CUDA arrays are not supported yet (memcpy node)");
		return cudaErrorNotSupported;
	}
	if ((unsigned)cp->kind > cudaMemcpyDefault)
		return cudaErrorInvalidMemcpyDirection;
	memset(p, 0, sizeof(*p));
	p->type = cudaGraphNodeTypeMemcpy;
	p->u.copy = *cp;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					  const cudaGraphNode_t *pDependencies,
					  size_t numDependencies,
					  const struct cudaMemcpy3DParms *pCopyParams)
{
	struct rt_node_params p;

	return add_built(pGraphNode, graph, pDependencies, numDependencies,
			 copy_params(pCopyParams, &p), &p);
}

/* A 1D copy as the 3D parameters memcpy nodes keep. */
static struct cudaMemcpy3DParms copy_1d(void *dst, const void *src, size_t count,
					enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = { 0 };

	cp.srcPtr.ptr = (void *)src;
	cp.srcPtr.pitch = cp.srcPtr.xsize = count;
	cp.srcPtr.ysize = 1;
	cp.dstPtr.ptr = dst;
	cp.dstPtr.pitch = cp.dstPtr.xsize = count;
	cp.dstPtr.ysize = 1;
	cp.extent.width = count;
	cp.extent.height = cp.extent.depth = 1;
	cp.kind = kind;
	return cp;
}

RT_API cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					    const cudaGraphNode_t *pDependencies,
					    size_t numDependencies, void *dst, const void *src,
					    size_t count, enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = copy_1d(dst, src, count, kind);

	return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &cp);
}

/* A copy to (to != 0) or from the variable symbol names, as the 1D memcpy
 * node it becomes: the variable's address on the current device, as
 * cudaMemcpyToSymbol finds it; the other side is host memory or, for
 * cudaMemcpyDeviceToDevice, device memory. */
static cudaError_t symbol_params(int to, const void *symbol, void *other, size_t count,
				 size_t offset, enum cudaMemcpyKind kind, struct rt_node_params *p)
{
	enum cudaMemcpyKind host_kind = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
	struct cudaMemcpy3DParms cp;
	size_t size = 0;
	char *addr = NULL;
	cudaError_t e;

	memset(p, 0, sizeof(*p));
	if (kind != host_kind && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
		return cudaErrorInvalidValue;     /* what the graph calls' documentation lists */
	e = cudaGetSymbolAddress((void **)&addr, symbol);
	if (e == cudaSuccess)
		e = cudaGetSymbolSize(&size, symbol);
	if (e != cudaSuccess)
		return e;
	if (offset > size || count > size - offset)
		return cudaErrorInvalidValue;
	cp = to ? copy_1d(addr + offset, other, count, kind)
		: copy_1d(other, addr + offset, count, kind);
	return copy_params(&cp, p);
}

RT_API cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
						  const cudaGraphNode_t *pDependencies,
						  size_t numDependencies, const void *symbol,
						  const void *src, size_t count, size_t offset,
						  enum cudaMemcpyKind kind)
{
	struct rt_node_params p;

	return add_built(pGraphNode, graph, pDependencies, numDependencies,
			 symbol_params(1, symbol, (void *)src, count, offset, kind, &p), &p);
}

RT_API cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode,
						    cudaGraph_t graph,
						    const cudaGraphNode_t *pDependencies,
						    size_t numDependencies, void *dst,
						    const void *symbol, size_t count, size_t offset,
						    enum cudaMemcpyKind kind)
{
	struct rt_node_params p;

	return add_built(pGraphNode, graph, pDependencies, numDependencies,
			 symbol_params(0, symbol, dst, count, offset, kind, &p), &p);
}

static cudaError_t fill_params(const struct cudaMemsetParams *m, struct rt_node_params *p)
{
	memset(p, 0, sizeof(*p));
	if (!m || !m->dst || (m->elementSize != 1 && m->elementSize != 2 && m->elementSize != 4))
		return cudaErrorInvalidValue;
	if (m->height > 1 && m->pitch < m->width * m->elementSize)
		return cudaErrorInvalidValue;
	p->type = cudaGraphNodeTypeMemset;
	p->u.fill = *m;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					  const cudaGraphNode_t *pDependencies,
					  size_t numDependencies,
					  const struct cudaMemsetParams *pMemsetParams)
{
	struct rt_node_params p;

	return add_built(pGraphNode, graph, pDependencies, numDependencies,
			 fill_params(pMemsetParams, &p), &p);
}

static cudaError_t host_params(const struct cudaHostNodeParams *hp, struct rt_node_params *p)
{
	memset(p, 0, sizeof(*p));
	if (!hp || !hp->fn)
		return cudaErrorInvalidValue;
	p->type = cudaGraphNodeTypeHost;
	p->u.host = *hp;
	return cudaSuccess;
}

RT_API cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					const cudaGraphNode_t *pDependencies,
					size_t numDependencies,
					const struct cudaHostNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return add_built(pGraphNode, graph, pDependencies, numDependencies,
			 host_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					 const cudaGraphNode_t *pDependencies,
					 size_t numDependencies)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeEmpty };

	return add_node(pGraphNode, graph, pDependencies, numDependencies, &p);
}

/* An event record or wait node's parameters: a live event. */
static cudaError_t event_params(cudaEvent_t event, enum cudaGraphNodeType type,
				struct rt_node_params *p)
{
	struct rt_device *d;
	struct ag_event *e;

	memset(p, 0, sizeof(*p));
	p->type = type;
	p->u.event = event;
	return rt_event_get(event, &d, &e) == cudaSuccess ? cudaSuccess : cudaErrorInvalidValue;
}

static cudaError_t add_event_node(cudaGraphNode_t *pNode, cudaGraph_t graph,
				  const cudaGraphNode_t *deps, size_t ndeps, cudaEvent_t event,
				  enum cudaGraphNodeType type)
{
	struct rt_node_params p;

	return add_built(pNode, graph, deps, ndeps, event_params(event, type, &p), &p);
}

RT_API cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					       const cudaGraphNode_t *pDependencies,
					       size_t numDependencies, cudaEvent_t event)
{
	return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
			      cudaGraphNodeTypeEventRecord);
}

RT_API cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					     const cudaGraphNode_t *pDependencies,
					     size_t numDependencies, cudaEvent_t event)
{
	return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
			      cudaGraphNodeTypeWaitEvent);
}

/* The child graph is cloned into the node (rt_params_copy); one with
 * allocation or free nodes cannot be a child, as in CUDA. */
RT_API cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
					      const cudaGraphNode_t *pDependencies,
					      size_t numDependencies, cudaGraph_t childGraph)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeGraph };

	p.u.child = (struct rt_graph *)childGraph;
	return add_node(pGraphNode, graph, pDependencies, numDependencies, &p);
}

RT_API cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
						struct cudaKernelNodeParams *pNodeParams)
{
	const struct ag_func_info *info;
	struct rt_device *d;
	struct ag_func *f;
	struct rt_node *n;
	cudaError_t e = cudaErrorInvalidValue;

	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	if (n && pNodeParams && n->p.type == cudaGraphNodeTypeKernel) {
		e = rt_current(&d);
		if (e == cudaSuccess)
			e = rt_kernel_func(n->p.u.kernel.k, d, &f, &info);
	}
	if (e == cudaSuccess) {
		free(n->args);
		n->args = xcalloc(info->nparams + 1, sizeof(*n->args));
		for (uint32_t i = 0; i < info->nparams; i++)
			n->args[i] = (char *)n->p.u.kernel.params + info->params[i].offset;
		pNodeParams->func = (void *)n->p.u.kernel.func;
		pNodeParams->gridDim = n->p.u.kernel.grid;
		pNodeParams->blockDim = n->p.u.kernel.block;
		pNodeParams->sharedMemBytes = n->p.u.kernel.shared;
		pNodeParams->kernelParams = n->args;
		pNodeParams->extra = NULL;
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return rt_error(e);
}

/* A node's parameters of the given type (the union's member at its start). */
static cudaError_t get_params(cudaGraphNode_t node, enum cudaGraphNodeType type, void *out,
			      size_t size)
{
	struct rt_node *n;

	pthread_mutex_lock(&rt_graph_lock);
	n = rt_graph_find(node, RT_TAG_NODE);
	if (n && out && n->p.type == type)
		memcpy(out, &n->p.u, size);
	else
		n = NULL;
	pthread_mutex_unlock(&rt_graph_lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
						struct cudaMemcpy3DParms *pNodeParams)
{
	return get_params(node, cudaGraphNodeTypeMemcpy, pNodeParams, sizeof(*pNodeParams));
}

RT_API cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
						struct cudaMemsetParams *pNodeParams)
{
	return get_params(node, cudaGraphNodeTypeMemset, pNodeParams, sizeof(*pNodeParams));
}

RT_API cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
					      struct cudaHostNodeParams *pNodeParams)
{
	return get_params(node, cudaGraphNodeTypeHost, pNodeParams, sizeof(*pNodeParams));
}


/* New parameters for a node of a graph (x NULL), or for the step an
 * executable graph made of it; the node's type must stay.  built is what
 * building p returned; p's copies are freed here. */
static cudaError_t set_params(cudaGraphExec_t exec, cudaGraphNode_t node, cudaError_t built,
			      struct rt_node_params *p)
{
	struct rt_node_params *dst = NULL;
	struct rt_step *step = NULL;
	struct rt_exec *x;
	struct rt_node *n;

	pthread_mutex_lock(&rt_graph_lock);
	x = exec ? rt_graph_find(exec, RT_TAG_EXEC) : NULL;
	n = exec ? NULL : rt_graph_find(node, RT_TAG_NODE);
	if (x)
		step = rt_exec_step(x, node);
	if (step)
		dst = &step->p;
	if (n)
		dst = &n->p;
	if (built == cudaSuccess && dst && dst->type == p->type) {
		if (p->type == cudaGraphNodeTypeKernel)   /* an attribute, not a parameter */
			p->u.kernel.cooperative = dst->u.kernel.cooperative;
		rt_params_free(dst);
		rt_params_copy(dst, p);
	} else if (built == cudaSuccess) {
		built = cudaErrorInvalidValue;
	}
	pthread_mutex_unlock(&rt_graph_lock);
	rt_params_free(p);
	return rt_error(built);
}

RT_API cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
						const struct cudaKernelNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, kernel_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
						    cudaGraphNode_t node,
						    const struct cudaKernelNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, kernel_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
						const struct cudaMemcpy3DParms *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, copy_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
						    cudaGraphNode_t node,
						    const struct cudaMemcpy3DParms *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, copy_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
						  const void *src, size_t count,
						  enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = copy_1d(dst, src, count, kind);

	return cudaGraphMemcpyNodeSetParams(node, &cp);
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
						      cudaGraphNode_t node, void *dst,
						      const void *src, size_t count,
						      enum cudaMemcpyKind kind)
{
	struct cudaMemcpy3DParms cp = copy_1d(dst, src, count, kind);

	return cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, &cp);
}

RT_API cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
						const struct cudaMemsetParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, fill_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
						    cudaGraphNode_t node,
						    const struct cudaMemsetParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, fill_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
					      const struct cudaHostNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(NULL, node, host_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec,
						  cudaGraphNode_t node,
						  const struct cudaHostNodeParams *pNodeParams)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node, host_params(pNodeParams, &p), &p);
}

RT_API cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
	return get_params(node, cudaGraphNodeTypeEventRecord, event_out, sizeof(*event_out));
}

RT_API cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
	return get_params(node, cudaGraphNodeTypeWaitEvent, event_out, sizeof(*event_out));
}

RT_API cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
	struct rt_node_params p;

	return set_params(NULL, node, event_params(event, cudaGraphNodeTypeEventRecord, &p), &p);
}

RT_API cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
	struct rt_node_params p;

	return set_params(NULL, node, event_params(event, cudaGraphNodeTypeWaitEvent, &p), &p);
}

RT_API cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec,
							cudaGraphNode_t hNode, cudaEvent_t event)
{
	struct rt_node_params p;

	return set_params(hGraphExec, hNode,
			  event_params(event, cudaGraphNodeTypeEventRecord, &p), &p);
}

RT_API cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec,
						      cudaGraphNode_t hNode, cudaEvent_t event)
{
	struct rt_node_params p;

	return set_params(hGraphExec, hNode,
			  event_params(event, cudaGraphNodeTypeWaitEvent, &p), &p);
}

/* The node's own graph, not a copy: changes to it change the node. */
RT_API cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
	return get_params(node, cudaGraphNodeTypeGraph, pGraph, sizeof(*pGraph));
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
							const void *src, size_t count,
							size_t offset, enum cudaMemcpyKind kind)
{
	struct rt_node_params p;

	return set_params(NULL, node,
			  symbol_params(1, symbol, (void *)src, count, offset, kind, &p), &p);
}

RT_API cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
							  const void *symbol, size_t count,
							  size_t offset, enum cudaMemcpyKind kind)
{
	struct rt_node_params p;

	return set_params(NULL, node, symbol_params(0, symbol, dst, count, offset, kind, &p),
			  &p);
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
							    cudaGraphNode_t node,
							    const void *symbol, const void *src,
							    size_t count, size_t offset,
							    enum cudaMemcpyKind kind)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node,
			  symbol_params(1, symbol, (void *)src, count, offset, kind, &p), &p);
}

RT_API cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
							      cudaGraphNode_t node, void *dst,
							      const void *symbol, size_t count,
							      size_t offset,
							      enum cudaMemcpyKind kind)
{
	struct rt_node_params p;

	return set_params(hGraphExec, node,
			  symbol_params(0, symbol, dst, count, offset, kind, &p), &p);
}
