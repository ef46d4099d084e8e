/*
 * graph.h - what graphs, stream capture and memory pools share with the
 * rest of the runtime.
 *
 * A graph node is described by struct rt_node_params, whether it comes from
 * an explicit cudaGraphAdd*Node call or from an operation captured on a
 * stream.  The call sites that queue work (launch.c, memory.c, stream.c,
 * event.c) ask rt_capture_op() first: when the stream is capturing, the
 * operation becomes a node instead of being queued.  Replaying a graph
 * queues each node through the same public calls a program would make.
 */
#ifndef AG_RT_GRAPH_H
#define AG_RT_GRAPH_H

#include "rt.h"

struct rt_graph;
struct rt_node;

struct rt_node_params {
	enum cudaGraphNodeType type;
	union {
		struct {
			struct rt_kernel *k;
			const void *func;      /* as the program named it */
			dim3 grid, block;
			int cooperative;
			unsigned shared;
			const void *params;    /* packed .param block */
			uint32_t bytes;
		} kernel;
		struct cudaMemcpy3DParms copy;
		struct cudaMemsetParams fill;
		struct cudaHostNodeParams host;
		cudaEvent_t event;             /* event record and wait nodes */
		struct rt_graph *child;        /* child graph node: the graph it owns */
		struct {                       /* allocation and free nodes */
			struct rt_gmem *mem;   /* a reference */
			struct cudaMemPoolProps props;        /* allocation only */
			struct cudaMemAccessDesc *descs;      /* allocation only: owned */
			size_t ndescs;
			size_t bytes;                         /* allocation only */
		} mem;
	} u;
};

/* graph.c */
struct rt_graph *rt_graph_new(void);
void rt_graph_free(struct rt_graph *g);
cudaError_t rt_graph_add(struct rt_graph *g, const struct rt_node_params *p,
			 struct rt_node *const *deps, size_t ndeps, struct rt_node **out);
/* rt_graph_add with the program's handles: cudaErrorInvalidValue when
 * graph is not a live graph or pNode is NULL.  The caller makes an error
 * the thread's last error (rt_error). */
cudaError_t rt_graph_add_checked(cudaGraphNode_t *pNode, cudaGraph_t graph,
				 const cudaGraphNode_t *deps, size_t ndeps,
				 const struct rt_node_params *p);
/* Edge data other than all zeros (programmatic ports) is not supported. */
int rt_plain_edges(const cudaGraphEdgeData *ed, size_t n);
/* g is a live graph and nodes are n distinct nodes of it. */
cudaError_t rt_graph_check_nodes(struct rt_graph *g, const cudaGraphNode_t *nodes, size_t n);
/* 1 when node a is b or one of b's ancestors. */
int rt_node_precedes(const struct rt_node *a, const struct rt_node *b);

/* launch.c: a launch whose parameters are already packed */
cudaError_t rt_launch_packed(struct rt_kernel *k, dim3 grid, dim3 block, size_t shared,
			     int cooperative, const void *params, uint32_t bytes,
			     cudaStream_t stream);
/* The kernel's packed parameter block from an argument array (caller frees). */
cudaError_t rt_kernel_pack(struct rt_kernel *k, struct rt_device *d, void **args,
			   void **buf, uint32_t *bytes);

/* capture.c: the hooks of the calls that queue work or wait. */
/* *captured = 1 when s is capturing and the operation became a node (p
 * NULL: an operation that cannot be captured, such as synchronising the
 * stream, which is an error that invalidates the capture); an operation on
 * the legacy stream while a blocking stream captures fails. */
cudaError_t rt_capture_op(struct rt_device *d, struct ag_stream *s,
			  const struct rt_node_params *p, int *captured);
/* A call CUDA calls potentially unsafe (cudaMalloc, cudaDeviceSynchronize,
 * synchronous copies) while captures that forbid it are active. */
cudaError_t rt_capture_unsafe_check(int device_wide);
/* Event record and wait, as seen by capture: a record on a capturing
 * stream remembers the stream's position; a wait on such an event brings
 * the waiting stream into the capture (blocking: it is not a
 * cudaStreamNonBlocking stream). */
cudaError_t rt_capture_record(struct rt_device *d, struct ag_stream *s, cudaEvent_t h,
			      struct ag_event *e, unsigned flags, int *captured);
cudaError_t rt_capture_wait(struct rt_device *d, struct ag_stream *s, int blocking,
			    cudaEvent_t h, struct ag_event *e, unsigned flags, int *captured);
/* Waiting for or querying an event last recorded in a capture. */
cudaError_t rt_capture_event_check(struct ag_event *e);
void rt_capture_forget_stream(struct ag_stream *s);
void rt_capture_forget_event(struct ag_event *e);

/* capture.c: 1 when stream s takes part in a capture. */
int rt_capture_member(struct ag_stream *s);

/* graph_mem.c: the memory of allocation nodes.  It is allocated through the
 * backend when the node is made (its address is fixed for the node's life)
 * and released when no node or executable graph refers to it and it is not
 * allocated; "allocated" is the state between an allocation node's launch
 * and the free (free node, cudaFreeAsync, cudaFree or auto-free). */
struct rt_gmem;
cudaError_t rt_gmem_new(struct rt_device *d, uint64_t size, struct rt_gmem **out);
void rt_gmem_ref(struct rt_gmem *m);
void rt_gmem_unref(struct rt_gmem *m);
void *rt_gmem_ptr(const struct rt_gmem *m);
/* The graph memory whose address is p, with a reference, or NULL. */
struct rt_gmem *rt_gmem_find(const void *p);
/* The free node of p's allocation goes to graph g (whose node ordering is
 * checked by the caller): refused when another free node exists. */
cudaError_t rt_gmem_claim_free(struct rt_gmem *m, const struct rt_graph *g);
void rt_gmem_unclaim_free(struct rt_gmem *m, const struct rt_graph *g);
/* The graph whose allocation node made m, and that node; NULL after the
 * graph is destroyed. */
void rt_gmem_set_owner(struct rt_gmem *m, const struct rt_graph *g, const struct rt_node *n);
const struct rt_node *rt_gmem_owner_node(const struct rt_gmem *m, const struct rt_graph *g);
/* Executable graphs: at most one holds m's allocation (or free) step. */
int rt_gmem_exec_busy(const struct rt_gmem *m, enum cudaGraphNodeType type);
void rt_gmem_exec_ref(struct rt_gmem *m, enum cudaGraphNodeType type, int delta);
/* A launch: an allocation still allocated is refused, or freed when
 * autofree; then the steps mark the memory allocated and free. */
cudaError_t rt_gmem_launch_check(struct rt_gmem *m, int autofree);
void rt_gmem_run(struct rt_gmem *m, enum cudaGraphNodeType type);
/* cudaFree and cudaFreeAsync outside graphs: 1 when p is graph memory,
 * which is then free (*e: cudaErrorInvalidValue when it was not
 * allocated). */
int rt_gmem_free_ptr(const void *p, cudaError_t *e);
/* Stream capture of cudaMallocAsync and cudaFreeAsync: an allocation or a
 * free node (*captured 0: s no longer captures, nothing was done). */
cudaError_t rt_gmem_capture_alloc(struct rt_device *d, struct ag_stream *s, size_t size,
				  void **ptr, int *captured);
cudaError_t rt_gmem_capture_free(struct rt_device *d, struct ag_stream *s, void *ptr,
				 int *captured);

/* The entry points whose CUDA 12 form lacks the edge data (or, for the
 * capture info, is another name): abi12.c and abi13.c export them. */
cudaError_t rt_graph_add_dependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
				      const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
				      size_t numDependencies);
cudaError_t rt_graph_remove_dependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
					 const cudaGraphNode_t *to,
					 const cudaGraphEdgeData *edgeData, size_t numDependencies);
cudaError_t rt_graph_get_edges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
			      cudaGraphEdgeData *edgeData, size_t *numEdges);
cudaError_t rt_graph_node_dependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
				       cudaGraphEdgeData *edgeData, size_t *pNumDependencies);
cudaError_t rt_graph_node_dependents(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
				     cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes);
cudaError_t rt_graph_add_node(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
			      const cudaGraphNode_t *pDependencies,
			      const cudaGraphEdgeData *dependencyData, size_t numDependencies,
			      struct cudaGraphNodeParams *nodeParams);
cudaError_t rt_stream_capture_info(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
				  unsigned long long *id, cudaGraph_t *graph,
				  const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
				  size_t *ndeps, int per_thread_default);
cudaError_t rt_stream_update_capture_deps(cudaStream_t stream, cudaGraphNode_t *deps,
					  const cudaGraphEdgeData *edges, size_t ndeps,
					  unsigned flags, int per_thread_default);

/* pool.c: memory freed on a stream goes back to its pool; synchronising
 * releases what is above the pools' thresholds. */
void rt_pools_release(struct rt_device *d);

#endif
