/*
 * abi12.c - the entry points whose signature or structure layout differs
 * in CUDA 12; only libcudart.so.12 links this file (abi13.c holds CUDA 13's
 * forms of the same names).
 *
 * CUDA 12 programs get the device properties through
 * cudaGetDeviceProperties_v2 (the headers map the plain name to it) in
 * CUDA 12's layout (cudart12.h); the unified memory hints take a device
 * ordinal there (cudaCpuDeviceId for the host), and the cudaMemLocation
 * forms are the _v2 names.  The graph calls that take edge data in CUDA 13
 * take none under their plain names in CUDA 12 (the edge-data forms are
 * the _v2 names), and the headers map cudaStreamGetCaptureInfo to _v2 (no
 * edge data) and _v3 (edge data); the plain name is CUDA 11's form.
 */
#include "graph.h"

#include <string.h>

#include "cudart12.h"

/* The last CUDA 12 release: programs built with any 12.x accept it. */
const int rt_runtime_version = 12090;

/* The CUDA 12 forms carry the names CUDA 13's headers declare with other
 * types: give them other C names and the exported names as asm labels. */
#define ABI12(name) __asm__(#name) RT_API

cudaError_t get_props12(struct cudaDeviceProp12 *prop, int device)
	ABI12(cudaGetDeviceProperties);
cudaError_t prefetch12(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream)
	ABI12(cudaMemPrefetchAsync);
cudaError_t advise12(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
		     int device) ABI12(cudaMemAdvise);
cudaError_t add_deps12(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
		       size_t numDependencies) ABI12(cudaGraphAddDependencies);
cudaError_t remove_deps12(cudaGraph_t graph, const cudaGraphNode_t *from,
			  const cudaGraphNode_t *to, size_t numDependencies)
	ABI12(cudaGraphRemoveDependencies);
cudaError_t get_edges12(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
			size_t *numEdges) ABI12(cudaGraphGetEdges);
cudaError_t node_deps12(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
			size_t *pNumDependencies) ABI12(cudaGraphNodeGetDependencies);
cudaError_t node_dependents12(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
			      size_t *pNumDependentNodes) ABI12(cudaGraphNodeGetDependentNodes);
cudaError_t add_node12(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
		       const cudaGraphNode_t *pDependencies, size_t numDependencies,
		       struct cudaGraphNodeParams *nodeParams) ABI12(cudaGraphAddNode);
cudaError_t capture_info11(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
			   unsigned long long *id) ABI12(cudaStreamGetCaptureInfo);
cudaError_t capture_info11_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
				unsigned long long *id) ABI12(cudaStreamGetCaptureInfo_ptsz);
cudaError_t update_deps12(cudaStream_t stream, cudaGraphNode_t *deps, size_t ndeps,
			  unsigned flags) ABI12(cudaStreamUpdateCaptureDependencies);
cudaError_t update_deps12_ptsz(cudaStream_t stream, cudaGraphNode_t *deps, size_t ndeps,
			       unsigned flags) ABI12(cudaStreamUpdateCaptureDependencies_ptsz);

#define SAME(f) (out->f = p->f)
#define SAME_ARRAY(f) memcpy(out->f, p->f, sizeof(out->f))

/* CUDA 12's size, and the prefix both layouts share. */
_Static_assert(sizeof(struct cudaDeviceProp12) == 1032, "CUDA 12 cudaDeviceProp is 1032 bytes");
_Static_assert(offsetof(struct cudaDeviceProp12, clockRate) ==
	       offsetof(struct cudaDeviceProp, maxGridSize) + sizeof(int[3]),
	       "the layouts agree up to maxGridSize");

static void props12(const struct cudaDeviceProp *p, const struct rt_device *d,
		    struct cudaDeviceProp12 *out)
{
	memset(out, 0, sizeof(*out));
	/* Identical up to maxGridSize. */
	memcpy(out, p, offsetof(struct cudaDeviceProp12, clockRate));
	out->clockRate = d->info.clock_khz;
	SAME(totalConstMem); SAME(major); SAME(minor);
	SAME(textureAlignment); SAME(texturePitchAlignment);
	out->deviceOverlap = p->asyncEngineCount > 0;
	SAME(multiProcessorCount);
	SAME(integrated); SAME(canMapHostMemory);
	out->computeMode = cudaComputeModeDefault;
	SAME(maxTexture1D); SAME(maxTexture1DMipmap);
	SAME_ARRAY(maxTexture2D); SAME_ARRAY(maxTexture2DMipmap);
	SAME_ARRAY(maxTexture2DLinear); SAME_ARRAY(maxTexture2DGather);
	SAME_ARRAY(maxTexture3D); SAME_ARRAY(maxTexture3DAlt); SAME(maxTextureCubemap);
	SAME_ARRAY(maxTexture1DLayered); SAME_ARRAY(maxTexture2DLayered);
	SAME_ARRAY(maxTextureCubemapLayered); SAME(maxSurface1D); SAME_ARRAY(maxSurface2D);
	SAME_ARRAY(maxSurface3D); SAME_ARRAY(maxSurface1DLayered);
	SAME_ARRAY(maxSurface2DLayered); SAME(maxSurfaceCubemap);
	SAME_ARRAY(maxSurfaceCubemapLayered);
	SAME(surfaceAlignment); SAME(concurrentKernels); SAME(ECCEnabled);
	SAME(pciBusID); SAME(pciDeviceID); SAME(pciDomainID); SAME(tccDriver);
	SAME(asyncEngineCount); SAME(unifiedAddressing);
	out->memoryClockRate = d->info.mem_clock_khz;
	SAME(memoryBusWidth); SAME(l2CacheSize); SAME(persistingL2CacheMaxSize);
	SAME(maxThreadsPerMultiProcessor); SAME(streamPrioritiesSupported);
	SAME(globalL1CacheSupported); SAME(localL1CacheSupported);
	SAME(sharedMemPerMultiprocessor); SAME(regsPerMultiprocessor); SAME(managedMemory);
	SAME(isMultiGpuBoard); SAME(multiGpuBoardGroupID); SAME(hostNativeAtomicSupported);
	out->singleToDoublePrecisionPerfRatio = 2;   /* as cudaDevAttr says */
	SAME(pageableMemoryAccess); SAME(concurrentManagedAccess);
	SAME(computePreemptionSupported); SAME(canUseHostPointerForRegisteredMem);
	SAME(cooperativeLaunch);
	SAME(sharedMemPerBlockOptin); SAME(pageableMemoryAccessUsesHostPageTables);
	SAME(directManagedMemAccessFromHost); SAME(maxBlocksPerMultiProcessor);
	SAME(accessPolicyMaxWindowSize); SAME(reservedSharedMemPerBlock);
	SAME(hostRegisterSupported); SAME(sparseCudaArraySupported);
	SAME(hostRegisterReadOnlySupported); SAME(timelineSemaphoreInteropSupported);
	SAME(memoryPoolsSupported); SAME(gpuDirectRDMASupported);
	SAME(gpuDirectRDMAFlushWritesOptions); SAME(gpuDirectRDMAWritesOrdering);
	SAME(memoryPoolSupportedHandleTypes); SAME(deferredMappingCudaArraySupported);
	SAME(ipcEventSupported); SAME(clusterLaunch); SAME(unifiedFunctionPointers);
}

RT_API cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp12 *prop, int device)
{
	struct cudaDeviceProp p;
	cudaError_t e;

	if (!prop)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_props(&p, device);
	if (e == cudaSuccess)
		props12(&p, rt_device_at(device), prop);
	return e;
}

/* Only programs that bypass the headers' mapping call the plain name; they
 * were built against CUDA 12's layout too. */
cudaError_t get_props12(struct cudaDeviceProp12 *prop, int device)
{
	return cudaGetDeviceProperties_v2(prop, device);
}

/* CUDA 12's device ordinals for a location: cudaCpuDeviceId is the host. */
static struct cudaMemLocation location_of(int device)
{
	struct cudaMemLocation loc = { cudaMemLocationTypeDevice, device };

	if (device == cudaCpuDeviceId)
		loc.type = cudaMemLocationTypeHost;
	else if (device < 0)
		loc.id = RT_MAX_DEVICES;   /* no such device */
	return loc;
}

cudaError_t prefetch12(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream)
{
	return rt_mem_prefetch(devPtr, count, location_of(dstDevice), 0, stream, 0);
}

RT_API cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, int dstDevice,
					     cudaStream_t stream)
{
	return rt_mem_prefetch(devPtr, count, location_of(dstDevice), 0, stream, 1);
}

RT_API cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count,
					   struct cudaMemLocation location, unsigned int flags,
					   cudaStream_t stream)
{
	return rt_mem_prefetch(devPtr, count, location, flags, stream, 0);
}

RT_API cudaError_t cudaMemPrefetchAsync_v2_ptsz(const void *devPtr, size_t count,
						struct cudaMemLocation location,
						unsigned int flags, cudaStream_t stream)
{
	return rt_mem_prefetch(devPtr, count, location, flags, stream, 1);
}

cudaError_t advise12(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device)
{
	return rt_mem_advise(devPtr, count, advice, location_of(device));
}

RT_API cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count,
				    enum cudaMemoryAdvise advice, struct cudaMemLocation location)
{
	return rt_mem_advise(devPtr, count, advice, location);
}

cudaError_t add_deps12(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
		       size_t numDependencies)
{
	return rt_graph_add_dependencies(graph, from, to, NULL, numDependencies);
}

RT_API cudaError_t cudaGraphAddDependencies_v2(cudaGraph_t graph, const cudaGraphNode_t *from,
					       const cudaGraphNode_t *to,
					       const cudaGraphEdgeData *edgeData,
					       size_t numDependencies)
{
	return rt_graph_add_dependencies(graph, from, to, edgeData, numDependencies);
}

cudaError_t remove_deps12(cudaGraph_t graph, const cudaGraphNode_t *from,
			  const cudaGraphNode_t *to, size_t numDependencies)
{
	return rt_graph_remove_dependencies(graph, from, to, NULL, numDependencies);
}

RT_API cudaError_t cudaGraphRemoveDependencies_v2(cudaGraph_t graph,
						  const cudaGraphNode_t *from,
						  const cudaGraphNode_t *to,
						  const cudaGraphEdgeData *edgeData,
						  size_t numDependencies)
{
	return rt_graph_remove_dependencies(graph, from, to, edgeData, numDependencies);
}

cudaError_t get_edges12(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
			size_t *numEdges)
{
	return rt_graph_get_edges(graph, from, to, NULL, numEdges);
}

RT_API cudaError_t cudaGraphGetEdges_v2(cudaGraph_t graph, cudaGraphNode_t *from,
					cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
					size_t *numEdges)
{
	return rt_graph_get_edges(graph, from, to, edgeData, numEdges);
}

cudaError_t node_deps12(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
			size_t *pNumDependencies)
{
	return rt_graph_node_dependencies(node, pDependencies, NULL, pNumDependencies);
}

RT_API cudaError_t cudaGraphNodeGetDependencies_v2(cudaGraphNode_t node,
						   cudaGraphNode_t *pDependencies,
						   cudaGraphEdgeData *edgeData,
						   size_t *pNumDependencies)
{
	return rt_graph_node_dependencies(node, pDependencies, edgeData, pNumDependencies);
}

cudaError_t node_dependents12(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
			      size_t *pNumDependentNodes)
{
	return rt_graph_node_dependents(node, pDependentNodes, NULL, pNumDependentNodes);
}

RT_API cudaError_t cudaGraphNodeGetDependentNodes_v2(cudaGraphNode_t node,
						     cudaGraphNode_t *pDependentNodes,
						     cudaGraphEdgeData *edgeData,
						     size_t *pNumDependentNodes)
{
	return rt_graph_node_dependents(node, pDependentNodes, edgeData, pNumDependentNodes);
}

cudaError_t add_node12(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
		       const cudaGraphNode_t *pDependencies, size_t numDependencies,
		       struct cudaGraphNodeParams *nodeParams)
{
	return rt_graph_add_node(pGraphNode, graph, pDependencies, NULL, numDependencies,
				 nodeParams);
}

RT_API cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
				       const cudaGraphNode_t *pDependencies,
				       const cudaGraphEdgeData *dependencyData,
				       size_t numDependencies,
				       struct cudaGraphNodeParams *nodeParams)
{
	return rt_graph_add_node(pGraphNode, graph, pDependencies, dependencyData,
				 numDependencies, nodeParams);
}

cudaError_t capture_info11(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
			   unsigned long long *id)
{
	return rt_stream_capture_info(stream, status, id, NULL, NULL, NULL, NULL, 0);
}

cudaError_t capture_info11_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
				unsigned long long *id)
{
	return rt_stream_capture_info(stream, status, id, NULL, NULL, NULL, NULL, 1);
}

RT_API cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
					       enum cudaStreamCaptureStatus *status,
					       unsigned long long *id, cudaGraph_t *graph,
					       const cudaGraphNode_t **deps, size_t *ndeps)
{
	return rt_stream_capture_info(stream, status, id, graph, deps, NULL, ndeps, 0);
}

RT_API cudaError_t cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t stream,
						    enum cudaStreamCaptureStatus *status,
						    unsigned long long *id, cudaGraph_t *graph,
						    const cudaGraphNode_t **deps, size_t *ndeps)
{
	return rt_stream_capture_info(stream, status, id, graph, deps, NULL, ndeps, 1);
}

RT_API cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t stream,
					       enum cudaStreamCaptureStatus *status,
					       unsigned long long *id, cudaGraph_t *graph,
					       const cudaGraphNode_t **deps,
					       const cudaGraphEdgeData **edges, size_t *ndeps)
{
	return rt_stream_capture_info(stream, status, id, graph, deps, edges, ndeps, 0);
}

RT_API cudaError_t cudaStreamGetCaptureInfo_v3_ptsz(cudaStream_t stream,
						    enum cudaStreamCaptureStatus *status,
						    unsigned long long *id, cudaGraph_t *graph,
						    const cudaGraphNode_t **deps,
						    const cudaGraphEdgeData **edges, size_t *ndeps)
{
	return rt_stream_capture_info(stream, status, id, graph, deps, edges, ndeps, 1);
}

cudaError_t update_deps12(cudaStream_t stream, cudaGraphNode_t *deps, size_t ndeps,
			  unsigned flags)
{
	return rt_stream_update_capture_deps(stream, deps, NULL, ndeps, flags, 0);
}

cudaError_t update_deps12_ptsz(cudaStream_t stream, cudaGraphNode_t *deps, size_t ndeps,
			       unsigned flags)
{
	return rt_stream_update_capture_deps(stream, deps, NULL, ndeps, flags, 1);
}

RT_API cudaError_t cudaStreamUpdateCaptureDependencies_v2(cudaStream_t stream,
							  cudaGraphNode_t *deps,
							  const cudaGraphEdgeData *edges,
							  size_t ndeps, unsigned int flags)
{
	return rt_stream_update_capture_deps(stream, deps, edges, ndeps, flags, 0);
}

RT_API cudaError_t cudaStreamUpdateCaptureDependencies_v2_ptsz(cudaStream_t stream,
							       cudaGraphNode_t *deps,
							       const cudaGraphEdgeData *edges,
							       size_t ndeps, unsigned int flags)
{
	return rt_stream_update_capture_deps(stream, deps, edges, ndeps, flags, 1);
}
