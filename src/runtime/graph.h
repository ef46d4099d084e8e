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
	} u;
};

/* graph.c */
struct rt_graph *rt_graph_new(void);
void rt_graph_free(struct rt_graph *g);
cudaError_t rt_graph_add(struct rt_graph *g, const struct rt_node_params *p,
			 struct rt_node *const *deps, size_t ndeps, struct rt_node **out);
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

/* pool.c: memory freed on a stream goes back to its pool; synchronising
 * releases what is above the pools' thresholds. */
void rt_pools_release(struct rt_device *d);

#endif
