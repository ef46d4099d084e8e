/*
 * graph_nodeparams: a graph built with cudaGraphAddNode (the tagged union
 * of every node kind: allocation, memset, kernel, child graph, memcpy,
 * host, event record and wait, free) and replayed; cudaGraphNodeSetParams
 * and cudaGraphExecNodeSetParams; event node get/set calls;
 * cudaGraphDebugDotPrint's file; memcpy nodes to and from a __device__
 * variable; kernel node attributes; and conditional nodes, which anygpu
 * refuses with a message.
 */
// expect-stderr: conditional graph nodes .* are not supported yet
#include <cstring>
#include <unistd.h>
#include "check.h"

#define N 512

__global__ void add(int *a, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] += v;
}

static int out[N];
static int n = N;
__device__ int sym[N];

__global__ void double_sym(int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		sym[i] *= 2;
}

/* host -> sym, sym *= 2, sym -> out; then other host arrays. */
static void symbol_nodes(cudaStream_t s)
{
	static int in[N], in2[N], out2[N];
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaGraphNode_t to, twice, from, node;
	cudaKernelNodeParams kp = {};
	void *args[] = { &n };

	for (int i = 0; i < N; i++) {
		in[i] = i;
		in2[i] = 3 * i;
	}
	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphAddMemcpyNodeToSymbol(&to, g, NULL, 0, sym, in, sizeof(in), 0,
					  cudaMemcpyHostToDevice));
	kp.func = (void *)double_sym;
	kp.gridDim = dim3(N / 128);
	kp.blockDim = dim3(128);
	kp.kernelParams = args;
	CK(cudaGraphAddKernelNode(&twice, g, &to, 1, &kp));
	CK(cudaGraphAddMemcpyNodeFromSymbol(&from, g, &twice, 1, out, sym, sizeof(out), 0,
					    cudaMemcpyDefault));
	CK_EXPECT(cudaGraphAddMemcpyNodeToSymbol(&node, g, NULL, 0, sym, in, sizeof(in), 4,
						 cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddMemcpyNodeToSymbol(&node, g, NULL, 0, sym, in, sizeof(in), 0,
						 cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddMemcpyNodeFromSymbol(&node, g, NULL, 0, out, in, 4, 0,
						   cudaMemcpyDeviceToHost), cudaErrorInvalidSymbol);
	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	for (int i = 0; i < N; i++)
		check(out[i] == 2 * i, "sym through a graph [%d]: %d", i, out[i]);

	/* The executable graph's copies change; the graph's own later. */
	CK(cudaGraphExecMemcpyNodeSetParamsToSymbol(x, to, sym, in2, sizeof(in2), 0,
						    cudaMemcpyHostToDevice));
	CK(cudaGraphExecMemcpyNodeSetParamsFromSymbol(x, from, out2, sym, sizeof(out2), 0,
						      cudaMemcpyDeviceToHost));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	for (int i = 0; i < N; i++)
		check(out2[i] == 6 * i, "exec symbol copies [%d]: %d", i, out2[i]);
	CK(cudaGraphMemcpyNodeSetParamsToSymbol(to, sym, in2, sizeof(int), 0,
						cudaMemcpyHostToDevice));
	CK(cudaGraphMemcpyNodeSetParamsFromSymbol(from, out, sym, sizeof(int), 4,
						  cudaMemcpyDeviceToHost));
	cudaMemcpy3DParms cp = {};
	CK(cudaGraphMemcpyNodeGetParams(from, &cp));
	check(cp.dstPtr.ptr == out && cp.extent.width == sizeof(int), "symbol node parameters");
	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(g));
}
static int host_calls;

static void CUDART_CB count_call(void *p)
{
	host_calls += *(int *)p;
}

static cudaGraphNodeParams kernel_node(int **p, int *v)
{
	static void *args[3];
	cudaGraphNodeParams np = {};

	args[0] = p;
	args[1] = v;
	args[2] = &n;
	np.type = cudaGraphNodeTypeKernel;
	np.kernel.func = (void *)add;
	np.kernel.gridDim = dim3(N / 128);
	np.kernel.blockDim = dim3(128);
	np.kernel.kernelParams = args;
	return np;
}

static void expect(const char *what, int v)
{
	static int want[N];

	for (int i = 0; i < N; i++)
		want[i] = v;
	check_array(what, out, want, N);
}

/* The DOT file names the kinds of node, the kernel and the edges. */
static void dot_file(cudaGraph_t g)
{
	static char path[64], text[65536];
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/tmp/graph_nodeparams.%d.dot", (int)getpid());
	CK(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
	f = fopen(path, "r");
	check(f != NULL, "no DOT file written");
	if (!f)
		return;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	remove(path);
	text[len] = 0;
	check(strncmp(text, "digraph", 7) == 0, "DOT file starts with: %.20s", text);
	const char *want[] = { "MEM_ALLOC", "MEMSET", "KERNEL", "add", "CHILD_GRAPH",
			       "cluster", "MEMCPY", "DtoH", "HOST", "EVENT_RECORD", "WAIT_EVENT",
			       "MEM_FREE", "\"0\" -> \"1\"" };
	for (const char *w : want)
		check(strstr(text, w) != NULL, "DOT file lacks \"%s\"", w);
	CK_EXPECT(cudaGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0),
		  cudaErrorOperatingSystem);
	CK_EXPECT(cudaGraphDebugDotPrint(g, NULL, 0), cudaErrorInvalidValue);
}

/* Set, read back, kept across new parameters, copied; refused where
 * CUDA refuses them on graph nodes. */
static void attributes(cudaStream_t s)
{
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaGraphNode_t k1, k2, empty;
	cudaLaunchAttributeValue v = {}, got;
	int *p, one = 1;
	cudaGraphNodeParams np = kernel_node(&p, &one);
	cudaKernelNodeParams kp = {};

	CK(cudaMalloc(&p, N * sizeof(int)));
	CK(cudaMemset(p, 0, N * sizeof(int)));
	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphAddNode(&k1, g, NULL, NULL, 0, &np));
	CK(cudaGraphAddNode(&k2, g, &k1, NULL, 1, &np));
	CK(cudaGraphAddEmptyNode(&empty, g, NULL, 0));

	memset(&got, 0xff, sizeof(got));
	CK(cudaGraphKernelNodeGetAttribute(k1, cudaLaunchAttributePriority, &got));
	check(got.priority == 0, "default priority %d", got.priority);
	v.priority = 3;
	CK(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributePriority, &v));
	v = {};
	v.cooperative = 1;
	CK(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributeCooperative, &v));
	CK(cudaGraphKernelNodeGetParams(k1, &kp));
	CK(cudaGraphKernelNodeSetParams(k1, &kp));
	CK(cudaGraphKernelNodeGetAttribute(k1, cudaLaunchAttributeCooperative, &got));
	check(got.cooperative == 1, "cooperative after new parameters: %d", got.cooperative);
	CK(cudaGraphKernelNodeCopyAttributes(k2, k1));
	CK(cudaGraphKernelNodeGetAttribute(k2, cudaLaunchAttributePriority, &got));
	check(got.priority == 3, "copied priority %d", got.priority);
	CK(cudaGraphKernelNodeGetAttribute(k2, cudaLaunchAttributeCooperative, &got));
	check(got.cooperative == 1, "copied cooperative %d", got.cooperative);

	v = {};
	v.clusterDim.x = 2;
	v.clusterDim.y = v.clusterDim.z = 1;
	CK_EXPECT(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributeClusterDimension, &v),
		  cudaErrorNotSupported);
	CK_EXPECT(cudaGraphKernelNodeSetAttribute(k1, cudaLaunchAttributeProgrammaticEvent, &v),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphKernelNodeSetAttribute(empty, cudaLaunchAttributePriority, &v),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphKernelNodeGetAttribute(k1, cudaLaunchAttributePriority, NULL),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphKernelNodeCopyAttributes(empty, k1), cudaErrorInvalidValue);

	/* Cooperative kernel nodes run (as cooperative launches). */
	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphLaunch(x, s));
	CK(cudaMemcpyAsync(out, p, sizeof(out), cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	expect("two cooperative kernel nodes", 2);
	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(g));
	CK(cudaFree(p));
}

int main()
{
	cudaGraph_t g, child;
	cudaGraphNode_t alloc, fill, kern, sub, copy, host, rec, wait, freed, inner, node;
	cudaGraphExec_t x;
	cudaStream_t s;
	cudaEvent_t ev, ev2, got;
	int *p, one = 1, ten = 10, weight = 1;

	CK(cudaStreamCreate(&s));
	CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	CK(cudaEventCreateWithFlags(&ev2, cudaEventDisableTiming));
	CK(cudaGraphCreate(&g, 0));

	cudaGraphNodeParams np = {};
	np.type = cudaGraphNodeTypeMemAlloc;
	np.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
	np.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
	np.alloc.poolProps.location.id = 0;
	np.alloc.bytesize = N * sizeof(int);
	CK(cudaGraphAddNode(&alloc, g, NULL, NULL, 0, &np));
	p = (int *)np.alloc.dptr;
	check(p != NULL, "cudaGraphAddNode gave the allocation no address");

	np = {};
	np.type = cudaGraphNodeTypeMemset;
	np.memset.dst = p;
	np.memset.elementSize = 4;
	np.memset.width = N;
	np.memset.height = 1;
	CK(cudaGraphAddNode(&fill, g, &alloc, NULL, 1, &np));

	np = kernel_node(&p, &one);
	CK(cudaGraphAddNode(&kern, g, &fill, NULL, 1, &np));

	/* A child graph adding 10. */
	CK(cudaGraphCreate(&child, 0));
	np = kernel_node(&p, &ten);
	CK(cudaGraphAddNode(&inner, child, NULL, NULL, 0, &np));
	np = {};
	np.type = cudaGraphNodeTypeGraph;
	np.graph.graph = child;
	CK(cudaGraphAddNode(&sub, g, &kern, NULL, 1, &np));

	np = {};
	np.type = cudaGraphNodeTypeMemcpy;
	np.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(p, sizeof(out), N, 1);
	np.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(out, sizeof(out), N, 1);
	np.memcpy.copyParams.extent = make_cudaExtent(sizeof(out), 1, 1);
	np.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
	CK(cudaGraphAddNode(&copy, g, &sub, NULL, 1, &np));

	np = {};
	np.type = cudaGraphNodeTypeHost;
	np.host.fn = count_call;
	np.host.userData = &weight;
	CK(cudaGraphAddNode(&host, g, &copy, NULL, 1, &np));

	np = {};
	np.type = cudaGraphNodeTypeEventRecord;
	np.eventRecord.event = ev;
	CK(cudaGraphAddNode(&rec, g, &host, NULL, 1, &np));
	np = {};
	np.type = cudaGraphNodeTypeWaitEvent;
	np.eventWait.event = ev;
	CK(cudaGraphAddNode(&wait, g, &rec, NULL, 1, &np));

	np = {};
	np.type = cudaGraphNodeTypeMemFree;
	np.free.dptr = p;
	CK(cudaGraphAddNode(&freed, g, &wait, NULL, 1, &np));

	/* Edge data other than the default, and conditional nodes. */
	cudaGraphEdgeData ed = {};
	ed.type = cudaGraphDependencyTypeProgrammatic;
	np = {};
	np.type = cudaGraphNodeTypeEmpty;
	CK_EXPECT(cudaGraphAddNode(&node, g, &kern, &ed, 1, &np), cudaErrorNotSupported);
	cudaGraphConditionalHandle handle;
	CK_EXPECT(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault),
		  cudaErrorNotSupported);
	np = {};
	np.type = cudaGraphNodeTypeConditional;
	np.conditional.type = cudaGraphCondTypeWhile;
	np.conditional.size = 1;
	CK_EXPECT(cudaGraphAddNode(&node, g, NULL, NULL, 0, &np), cudaErrorNotSupported);
	np = {};
	np.type = (cudaGraphNodeType)77;
	CK_EXPECT(cudaGraphAddNode(&node, g, NULL, NULL, 0, &np), cudaErrorInvalidValue);

	/* Event node parameters. */
	CK(cudaGraphEventRecordNodeGetEvent(rec, &got));
	check(got == ev, "record node's event");
	CK(cudaGraphEventWaitNodeGetEvent(wait, &got));
	check(got == ev, "wait node's event");
	CK(cudaGraphEventWaitNodeSetEvent(wait, ev2));
	CK(cudaGraphEventRecordNodeSetEvent(rec, ev2));
	CK(cudaGraphEventWaitNodeGetEvent(wait, &got));
	check(got == ev2, "wait node's new event");
	CK_EXPECT(cudaGraphEventWaitNodeGetEvent(rec, &got), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphEventRecordNodeSetEvent(rec, NULL), cudaErrorInvalidValue);

	dot_file(g);
	symbol_nodes(s);
	attributes(s);

	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	expect("alloc, memset, +1, child +10, copy", 11);
	check(host_calls == 1, "host node ran %d times", host_calls);
	CK(cudaEventQuery(ev2));

	/* The graph's kernel node through the generic call: a new instance
	 * sees it.  The executable graph's host node gets a new argument. */
	int two = 2;
	np = kernel_node(&p, &two);
	CK(cudaGraphNodeSetParams(kern, &np));
	weight = 0;
	int hundred = 100;
	np = {};
	np.type = cudaGraphNodeTypeHost;
	np.host.fn = count_call;
	np.host.userData = &hundred;
	CK(cudaGraphExecNodeSetParams(x, host, &np));
	np = {};
	np.type = cudaGraphNodeTypeMemFree;
	np.free.dptr = p;
	CK_EXPECT(cudaGraphExecNodeSetParams(x, freed, &np), cudaErrorNotSupported);
	CK_EXPECT(cudaGraphNodeSetParams(kern, &np), cudaErrorNotSupported);
	np = kernel_node(&p, &two);
	CK_EXPECT(cudaGraphNodeSetParams(copy, &np), cudaErrorInvalidValue);
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	expect("old instance after the node changed", 11);
	check(host_calls == 101, "host node's new argument: %d", host_calls);
	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	expect("new instance after the node changed", 12);

	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(g));
	CK(cudaGraphDestroy(child));
	CK(cudaEventDestroy(ev));
	CK(cudaEventDestroy(ev2));
	CK(cudaStreamDestroy(s));
	return verdict("graph_nodeparams");
}
