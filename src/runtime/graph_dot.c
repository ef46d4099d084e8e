/*
 * graph_dot.c - cudaGraphDebugDotPrint: a graph as a Graphviz DOT file.
 *
 * Each node is a box labelled with its type and its id (the order of
 * creation; a child graph's nodes are numbered inside it as "parent_id.k")
 * and, as CUDA does by default, a kernel's name and a copy's direction;
 * the flags of cudaGraphDebugDotFlags add the parameters of each kind of
 * node and the handles.  A child graph is drawn as a cluster next to its
 * node, joined to it by a dashed edge.
 */
#include "graph_impl.h"

#include <stdio.h>

static const char *type_name(enum cudaGraphNodeType t)
{
	switch (t) {
	case cudaGraphNodeTypeKernel: return "KERNEL";
	case cudaGraphNodeTypeMemcpy: return "MEMCPY";
	case cudaGraphNodeTypeMemset: return "MEMSET";
	case cudaGraphNodeTypeHost: return "HOST";
	case cudaGraphNodeTypeGraph: return "CHILD_GRAPH";
	case cudaGraphNodeTypeEmpty: return "EMPTY";
	case cudaGraphNodeTypeWaitEvent: return "WAIT_EVENT";
	case cudaGraphNodeTypeEventRecord: return "EVENT_RECORD";
	case cudaGraphNodeTypeMemAlloc: return "MEM_ALLOC";
	case cudaGraphNodeTypeMemFree: return "MEM_FREE";
	default: return "UNKNOWN";
	}
}

static const char *copy_kind(enum cudaMemcpyKind k)
{
	static const char *const names[] = { "HtoH", "HtoD", "DtoH", "DtoD", "Default" };

	return (unsigned)k <= cudaMemcpyDefault ? names[k] : "?";
}

static int wants(unsigned flags, unsigned flag)
{
	return (flags & (flag | cudaGraphDebugDotFlagsVerbose)) != 0;
}

/* The part of a node's label that depends on its type. */
static void print_params(FILE *f, const struct rt_node_params *p, unsigned flags)
{
	switch (p->type) {
	case cudaGraphNodeTypeKernel:
		fprintf(f, "\\n%s", rt_kernel_name(p->u.kernel.k));
		if (wants(flags, cudaGraphDebugDotFlagsKernelNodeParams))
			fprintf(f, "\\ngrid (%u,%u,%u) block (%u,%u,%u)\\nshared %u, %u param bytes",
				p->u.kernel.grid.x, p->u.kernel.grid.y, p->u.kernel.grid.z,
				p->u.kernel.block.x, p->u.kernel.block.y, p->u.kernel.block.z,
				p->u.kernel.shared, (unsigned)p->u.kernel.bytes);
		break;
	case cudaGraphNodeTypeMemcpy:
		fprintf(f, "\\n%s", copy_kind(p->u.copy.kind));
		if (wants(flags, cudaGraphDebugDotFlagsMemcpyNodeParams))
			fprintf(f, "\\n%p -> %p\\nextent (%zu,%zu,%zu)", p->u.copy.srcPtr.ptr,
				p->u.copy.dstPtr.ptr, p->u.copy.extent.width,
				p->u.copy.extent.height, p->u.copy.extent.depth);
		break;
	case cudaGraphNodeTypeMemset:
		if (wants(flags, cudaGraphDebugDotFlagsMemsetNodeParams))
			fprintf(f, "\\n%p value 0x%x\\n%zu x %zu of %u bytes, pitch %zu",
				p->u.fill.dst, p->u.fill.value, p->u.fill.width, p->u.fill.height,
				p->u.fill.elementSize, p->u.fill.pitch);
		break;
	case cudaGraphNodeTypeHost:
		if (wants(flags, cudaGraphDebugDotFlagsHostNodeParams))
			fprintf(f, "\\nfn %p data %p", (void *)p->u.host.fn, p->u.host.userData);
		break;
	case cudaGraphNodeTypeWaitEvent:
	case cudaGraphNodeTypeEventRecord:
		if (wants(flags, cudaGraphDebugDotFlagsEventNodeParams))
			fprintf(f, "\\nevent %p", (void *)p->u.event);
		break;
	case cudaGraphNodeTypeMemAlloc:
		fprintf(f, "\\n%p, %zu bytes", rt_gmem_ptr(p->u.mem.mem), p->u.mem.bytes);
		break;
	case cudaGraphNodeTypeMemFree:
		fprintf(f, "\\n%p", rt_gmem_ptr(p->u.mem.mem));
		break;
	default:
		break;
	}
}

/* A graph's nodes and edges; ids are prefix + creation index. */
static void print_graph(FILE *f, const struct rt_graph *g, const char *prefix, unsigned flags)
{
	char id[256];

	for (size_t i = 0; i < g->n; i++) {
		const struct rt_node *n = g->nodes[i];

		fprintf(f, "\"%s%zu\" [shape=box, label=\"%s\\nid %s%zu", prefix, i,
			type_name(n->p.type), prefix, i);
		print_params(f, &n->p, flags);
		if (wants(flags, cudaGraphDebugDotFlagsHandles))
			fprintf(f, "\\nnode %p", (const void *)n);
		fprintf(f, "\"];\n");
		for (size_t j = 0; j < n->ndeps; j++)
			fprintf(f, "\"%s%zu\" -> \"%s%zu\";\n", prefix, n->deps[j]->index, prefix, i);
		if (n->p.type != cudaGraphNodeTypeGraph)
			continue;
		snprintf(id, sizeof(id), "%s%zu.", prefix, i);
		fprintf(f, "subgraph \"cluster_%s\" {\nlabel=\"child graph of %s%zu\";\n", id,
			prefix, i);
		print_graph(f, n->p.u.child, id, flags);
		fprintf(f, "}\n");
		if (n->p.u.child->n)
			fprintf(f, "\"%s%zu\" -> \"%s0\" [style=dashed];\n", prefix, i, id);
	}
}

RT_API cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags)
{
	struct rt_graph *g;
	cudaError_t e = cudaErrorInvalidValue;
	FILE *f;

	if (!path)
		return rt_error(e);
	pthread_mutex_lock(&rt_graph_lock);
	g = rt_graph_find(graph, RT_TAG_GRAPH);
	f = g ? fopen(path, "w") : NULL;
	if (f) {
		fprintf(f, "digraph cuda_graph {\nlabel=\"graph %p\";\n", (void *)g);
		print_graph(f, g, "", flags);
		fprintf(f, "}\n");
		e = fclose(f) ? cudaErrorOperatingSystem : cudaSuccess;
	} else if (g) {
		e = cudaErrorOperatingSystem;
	}
	pthread_mutex_unlock(&rt_graph_lock);
	return rt_error(e);
}
