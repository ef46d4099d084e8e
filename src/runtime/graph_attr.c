/*
 * graph_attr.c - kernel node attributes (cudaGraphKernelNodeSetAttribute,
 * GetAttribute, CopyAttributes).
 *
 * Cooperative is part of the node's launch (its parameters carry it, as a
 * captured cooperative launch's do).  Clusters of more than one block and
 * device-updatable nodes are not supported; the hints (access policy
 * window, priority, cluster scheduling preference, memory synchronisation
 * domains, NVLink scheduling) are kept for the queries and change nothing
 * on these backends.  Attributes CUDA allows only on launches or streams
 * are refused as on a GPU.
 */
#include "graph_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

/* Whether a graph node may have the attribute, and with that value. */
static cudaError_t attr_allowed(cudaLaunchAttributeID id, const cudaLaunchAttributeValue *v)
{
	static int said_cluster, said_updatable;

	switch (id) {
	case cudaLaunchAttributeAccessPolicyWindow:
	case cudaLaunchAttributeCooperative:
	case cudaLaunchAttributeClusterSchedulingPolicyPreference:
	case cudaLaunchAttributePriority:
	case cudaLaunchAttributeMemSyncDomainMap:
	case cudaLaunchAttributeMemSyncDomain:
	case cudaLaunchAttributeNvlinkUtilCentricScheduling:
		return cudaSuccess;
	case cudaLaunchAttributeClusterDimension:
	case cudaLaunchAttributePreferredClusterDimension:
		if (v->clusterDim.x * v->clusterDim.y * v->clusterDim.z <= 1)
			return cudaSuccess;
		rt_warn_once(&said_cluster, "thread block clusters are not supported yet");
		return cudaErrorNotSupported;
	case cudaLaunchAttributeDeviceUpdatableKernelNode:
		if (!v->deviceUpdatableKernelNode.deviceUpdatable)
			return cudaSuccess;
		rt_warn_once(&said_updatable, "device-updatable kernel nodes are not supported yet");
		return cudaErrorNotSupported;
	default:
		return cudaErrorInvalidValue;
	}
}

/* The node's stored value of id, or NULL. */
static struct rt_kattr *stored(struct rt_node *n, cudaLaunchAttributeID id)
{
	for (size_t i = 0; i < n->nattrs; i++)
		if (n->attrs[i].id == id)
			return &n->attrs[i];
	return NULL;
}

static void store(struct rt_node *n, cudaLaunchAttributeID id, const cudaLaunchAttributeValue *v)
{
	struct rt_kattr *a = stored(n, id);

	if (id == cudaLaunchAttributeCooperative) {
		n->p.u.kernel.cooperative = v->cooperative != 0;
		return;
	}
	if (!a) {
		n->attrs = xrealloc(n->attrs, (n->nattrs + 1) * sizeof(*n->attrs));
		a = &n->attrs[n->nattrs++];
		a->id = id;
	}
	a->val = *v;
}

/* A kernel node of a live graph; the caller locks. */
static struct rt_node *kernel_node(cudaGraphNode_t h)
{
	struct rt_node *n = rt_graph_find(h, RT_TAG_NODE);

	return n && n->p.type == cudaGraphNodeTypeKernel ? n : NULL;
}

RT_API cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode,
						   cudaKernelNodeAttrID attr,
						   const cudaKernelNodeAttrValue *value)
{
	struct rt_node *n;
	cudaError_t e = value ? attr_allowed(attr, value) : cudaErrorInvalidValue;

	if (e != cudaSuccess)
		return rt_error(e);
	pthread_mutex_lock(&rt_graph_lock);
	n = kernel_node(hNode);
	if (n)
		store(n, attr, value);
	pthread_mutex_unlock(&rt_graph_lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

/* An attribute never set reads as zeros, its default. */
RT_API cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode,
						   cudaKernelNodeAttrID attr,
						   cudaKernelNodeAttrValue *value_out)
{
	static const cudaLaunchAttributeValue none;
	struct rt_kattr *a;
	struct rt_node *n;
	cudaError_t e = value_out ? attr_allowed(attr, &none) : cudaErrorInvalidValue;

	if (e != cudaSuccess)
		return rt_error(e);
	pthread_mutex_lock(&rt_graph_lock);
	n = kernel_node(hNode);
	a = n ? stored(n, attr) : NULL;
	if (n)
		*value_out = a ? a->val : none;
	if (n && attr == cudaLaunchAttributeCooperative)
		value_out->cooperative = n->p.u.kernel.cooperative;
	pthread_mutex_unlock(&rt_graph_lock);
	return n ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

RT_API cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc)
{
	struct rt_node *dst, *src;
	int ok;

	pthread_mutex_lock(&rt_graph_lock);
	dst = kernel_node(hDst);
	src = kernel_node(hSrc);
	ok = dst && src;
	if (ok && dst != src) {
		dst->p.u.kernel.cooperative = src->p.u.kernel.cooperative;
		dst->nattrs = 0;
		for (size_t i = 0; i < src->nattrs; i++)
			store(dst, src->attrs[i].id, &src->attrs[i].val);
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return ok ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}
