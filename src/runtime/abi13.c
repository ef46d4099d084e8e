/*
 * abi13.c - the entry points whose signature or structure layout is CUDA
 * 13's own; only libcudart.so.13 links this file (abi12.c holds the CUDA 12
 * forms under the same names).
 */
#include "graph.h"

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

/* Graph and capture calls with edge data: CUDA 13's names for CUDA 12's
 * _v2 (_v3 for the capture info) forms. */
RT_API cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
					    const cudaGraphNode_t *to,
					    const cudaGraphEdgeData *edgeData, size_t numDependencies)
{
	return rt_graph_add_dependencies(graph, from, to, edgeData, numDependencies);
}

RT_API cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
					       const cudaGraphNode_t *to,
					       const cudaGraphEdgeData *edgeData,
					       size_t numDependencies)
{
	return rt_graph_remove_dependencies(graph, from, to, edgeData, numDependencies);
}

RT_API cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
				     cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
				     size_t *numEdges)
{
	return rt_graph_get_edges(graph, from, to, edgeData, numEdges);
}

RT_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
						cudaGraphNode_t *pDependencies,
						cudaGraphEdgeData *edgeData,
						size_t *pNumDependencies)
{
	return rt_graph_node_dependencies(node, pDependencies, edgeData, pNumDependencies);
}

RT_API cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
						  cudaGraphNode_t *pDependentNodes,
						  cudaGraphEdgeData *edgeData,
						  size_t *pNumDependentNodes)
{
	return rt_graph_node_dependents(node, pDependentNodes, edgeData, pNumDependentNodes);
}

RT_API cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				    const cudaGraphNode_t *pDependencies,
				    const cudaGraphEdgeData *dependencyData,
				    size_t numDependencies, struct cudaGraphNodeParams *nodeParams)
{
	return rt_graph_add_node(pGraphNode, graph, pDependencies, dependencyData,
				 numDependencies, nodeParams);
}

RT_API cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
					    enum cudaStreamCaptureStatus *captureStatus_out,
					    unsigned long long *id_out, cudaGraph_t *graph_out,
					    const cudaGraphNode_t **dependencies_out,
					    const cudaGraphEdgeData **edgeData_out,
					    size_t *numDependencies_out)
{
	return rt_stream_capture_info(stream, captureStatus_out, id_out, graph_out,
				      dependencies_out, edgeData_out, numDependencies_out, 0);
}

RT_API cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
						 enum cudaStreamCaptureStatus *captureStatus_out,
						 unsigned long long *id_out, cudaGraph_t *graph_out,
						 const cudaGraphNode_t **dependencies_out,
						 const cudaGraphEdgeData **edgeData_out,
						 size_t *numDependencies_out)
{
	return rt_stream_capture_info(stream, captureStatus_out, id_out, graph_out,
				      dependencies_out, edgeData_out, numDependencies_out, 1);
}

RT_API cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
						       cudaGraphNode_t *dependencies,
						       const cudaGraphEdgeData *dependencyData,
						       size_t numDependencies, unsigned int flags)
{
	return rt_stream_update_capture_deps(stream, dependencies, dependencyData,
					     numDependencies, flags, 0);
}

RT_API cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
							    cudaGraphNode_t *dependencies,
							    const cudaGraphEdgeData *dependencyData,
							    size_t numDependencies,
							    unsigned int flags)
{
	return rt_stream_update_capture_deps(stream, dependencies, dependencyData,
					     numDependencies, flags, 1);
}
