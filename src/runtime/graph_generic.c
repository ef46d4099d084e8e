/*
 * graph_generic.c - the calls that take any kind of node through the
 * tagged union struct cudaGraphNodeParams (cudaGraphAddNode,
 * cudaGraphNodeSetParams, cudaGraphExecNodeSetParams), each passed on to
 * the call for its kind, and conditional nodes, which are refused.
 *
 * Conditional nodes need cudaGraphSetConditional in kernels: nvcc
 * compiles it to a call of an external device function of that name,
 * which the cpu backend's translator does not provide, and a launch would
 * have to wait at each conditional node for the value the kernels set.
 * Creating a conditional handle or node is cudaErrorNotSupported with a
 * message.
 */
#include "graph_impl.h"

#include <string.h>

static void warn_conditional(void)
{
	static int said;

	rt_warn_once(&said, "conditional graph nodes (cudaGraphConditionalHandleCreate, "
		     "cudaGraphSetConditional) are not supported yet");
}

RT_API cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
						    cudaGraph_t graph,
						    unsigned int defaultLaunchValue,
						    unsigned int flags)
{
	warn_conditional();
	return rt_error(cudaErrorNotSupported);
}

static struct cudaKernelNodeParams kernel_v1(const struct cudaKernelNodeParamsV2 *k)
{
	struct cudaKernelNodeParams kp = { k->func, k->gridDim, k->blockDim, k->sharedMemBytes,
					   k->kernelParams, k->extra };

	return kp;
}

static struct cudaMemsetParams memset_v1(const struct cudaMemsetParamsV2 *m)
{
	struct cudaMemsetParams mp = { m->dst, m->pitch, m->value, m->elementSize, m->width,
				       m->height };

	return mp;
}

static struct cudaHostNodeParams host_v1(const struct cudaHostNodeParamsV2 *h)
{
	struct cudaHostNodeParams hp = { h->fn, h->userData };

	return hp;
}

/* Moving a graph into its node (rather than cloning it) is not supported. */
static cudaError_t add_child(cudaGraphNode_t *pNode, cudaGraph_t graph,
			     const cudaGraphNode_t *deps, size_t ndeps,
			     const struct cudaChildGraphNodeParams *c)
{
	static int said;

	if (c->ownership != cudaGraphChildGraphOwnershipClone) {
		rt_warn_once(&said, "child graph nodes that take ownership of their graph are "
			     "not supported yet");
		return rt_error(cudaErrorNotSupported);
	}
	return cudaGraphAddChildGraphNode(pNode, graph, deps, ndeps, c->graph);
}

static cudaError_t add_alloc(cudaGraphNode_t *pNode, cudaGraph_t graph,
			     const cudaGraphNode_t *deps, size_t ndeps,
			     struct cudaMemAllocNodeParamsV2 *a)
{
	struct cudaMemAllocNodeParams ap = { a->poolProps, a->accessDescs, a->accessDescCount,
					     a->bytesize, NULL };
	cudaError_t e = cudaGraphAddMemAllocNode(pNode, graph, deps, ndeps, &ap);

	if (e == cudaSuccess)
		a->dptr = ap.dptr;
	return e;
}

cudaError_t rt_graph_add_node(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
			      const cudaGraphNode_t *pDependencies,
			      const cudaGraphEdgeData *dependencyData, size_t numDependencies,
			      struct cudaGraphNodeParams *nodeParams)
{
	const cudaGraphNode_t *deps = pDependencies;
	size_t n = numDependencies;

	if (!nodeParams)
		return rt_error(cudaErrorInvalidValue);
	if (!rt_plain_edges(dependencyData, numDependencies))
		return rt_error(cudaErrorNotSupported);
	switch (nodeParams->type) {
	case cudaGraphNodeTypeKernel: {
		struct cudaKernelNodeParams kp = kernel_v1(&nodeParams->kernel);

		return cudaGraphAddKernelNode(pGraphNode, graph, deps, n, &kp);
	}
	case cudaGraphNodeTypeMemcpy:
		if (nodeParams->memcpy.flags)
			return rt_error(cudaErrorInvalidValue);
		return cudaGraphAddMemcpyNode(pGraphNode, graph, deps, n,
					      &nodeParams->memcpy.copyParams);
	case cudaGraphNodeTypeMemset: {
		struct cudaMemsetParams mp = memset_v1(&nodeParams->memset);

		return cudaGraphAddMemsetNode(pGraphNode, graph, deps, n, &mp);
	}
	case cudaGraphNodeTypeHost: {
		struct cudaHostNodeParams hp = host_v1(&nodeParams->host);

		return cudaGraphAddHostNode(pGraphNode, graph, deps, n, &hp);
	}
	case cudaGraphNodeTypeGraph:
		return add_child(pGraphNode, graph, deps, n, &nodeParams->graph);
	case cudaGraphNodeTypeEmpty:
		return cudaGraphAddEmptyNode(pGraphNode, graph, deps, n);
	case cudaGraphNodeTypeWaitEvent:
		return cudaGraphAddEventWaitNode(pGraphNode, graph, deps, n,
						 nodeParams->eventWait.event);
	case cudaGraphNodeTypeEventRecord:
		return cudaGraphAddEventRecordNode(pGraphNode, graph, deps, n,
						   nodeParams->eventRecord.event);
	case cudaGraphNodeTypeMemAlloc:
		return add_alloc(pGraphNode, graph, deps, n, &nodeParams->alloc);
	case cudaGraphNodeTypeMemFree:
		return cudaGraphAddMemFreeNode(pGraphNode, graph, deps, n, nodeParams->free.dptr);
	case cudaGraphNodeTypeConditional:
		warn_conditional();
		return rt_error(cudaErrorNotSupported);
	default:
		return rt_error(cudaErrorInvalidValue);
	}
}

/* exec NULL: the graph's node; else the executable graph's copy of it.
 * Allocation and free nodes cannot change (CUDA: "not supported"). */
static cudaError_t set_node_params(cudaGraphExec_t exec, cudaGraphNode_t node,
				   const struct cudaGraphNodeParams *np)
{
	if (!np)
		return rt_error(cudaErrorInvalidValue);
	switch (np->type) {
	case cudaGraphNodeTypeKernel: {
		struct cudaKernelNodeParams kp = kernel_v1(&np->kernel);

		return exec ? cudaGraphExecKernelNodeSetParams(exec, node, &kp)
			    : cudaGraphKernelNodeSetParams(node, &kp);
	}
	case cudaGraphNodeTypeMemcpy:
		return exec ? cudaGraphExecMemcpyNodeSetParams(exec, node, &np->memcpy.copyParams)
			    : cudaGraphMemcpyNodeSetParams(node, &np->memcpy.copyParams);
	case cudaGraphNodeTypeMemset: {
		struct cudaMemsetParams mp = memset_v1(&np->memset);

		return exec ? cudaGraphExecMemsetNodeSetParams(exec, node, &mp)
			    : cudaGraphMemsetNodeSetParams(node, &mp);
	}
	case cudaGraphNodeTypeHost: {
		struct cudaHostNodeParams hp = host_v1(&np->host);

		return exec ? cudaGraphExecHostNodeSetParams(exec, node, &hp)
			    : cudaGraphHostNodeSetParams(node, &hp);
	}
	case cudaGraphNodeTypeGraph:
		return exec ? cudaGraphExecChildGraphNodeSetParams(exec, node, np->graph.graph)
			    : rt_error(cudaErrorNotSupported);
	case cudaGraphNodeTypeWaitEvent:
		return exec ? cudaGraphExecEventWaitNodeSetEvent(exec, node, np->eventWait.event)
			    : cudaGraphEventWaitNodeSetEvent(node, np->eventWait.event);
	case cudaGraphNodeTypeEventRecord:
		return exec ? cudaGraphExecEventRecordNodeSetEvent(exec, node,
								   np->eventRecord.event)
			    : cudaGraphEventRecordNodeSetEvent(node, np->eventRecord.event);
	case cudaGraphNodeTypeMemAlloc:
	case cudaGraphNodeTypeMemFree:
		return rt_error(cudaErrorNotSupported);
	default:
		return rt_error(cudaErrorInvalidValue);
	}
}

RT_API cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node,
					  struct cudaGraphNodeParams *nodeParams)
{
	return set_node_params(NULL, node, nodeParams);
}

RT_API cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
					      struct cudaGraphNodeParams *nodeParams)
{
	if (!graphExec)
		return rt_error(cudaErrorInvalidValue);
	return set_node_params(graphExec, node, nodeParams);
}
