/*
 * graph_capture_tograph: capture into an existing graph
 * (cudaStreamBeginCaptureToGraph, after given nodes; a failed capture
 * leaves the program's graph alive), a stream's capture dependencies
 * replaced and extended (cudaStreamUpdateCaptureDependencies), nodes of
 * an executable graph disabled and enabled again (cudaGraphNodeSetEnabled),
 * and cudaGraphInstantiateWithParams.
 */
#include "check.h"

#define N 256

__global__ void add(int *a, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] += v;
}

static int out[N];
static int *dev;

static void expect(const char *what, int v)
{
	static int want[N];

	for (int i = 0; i < N; i++)
		want[i] = v;
	check_array(what, out, want, N);
}

static void run(cudaGraphExec_t x, cudaStream_t s)
{
	CK(cudaGraphLaunch(x, s));
	CK(cudaMemcpyAsync(out, dev, sizeof(out), cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
}

static size_t dependencies(cudaGraphNode_t n)
{
	size_t count = 0;

	CK(cudaGraphNodeGetDependencies(n, NULL, NULL, &count));
	return count;
}

/* A memset node made by hand, then kernels captured after it. */
static void capture_to_graph(cudaStream_t s)
{
	cudaGraph_t g, got, other;
	cudaGraphNode_t zero, nodes[4], foreign;
	cudaGraphExec_t x;
	cudaMemsetParams mp = {};
	size_t count = 4;

	mp.dst = dev;
	mp.elementSize = 4;
	mp.width = N;
	mp.height = 1;
	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphAddMemsetNode(&zero, g, NULL, 0, &mp));
	CK(cudaStreamBeginCaptureToGraph(s, g, &zero, NULL, 1, cudaStreamCaptureModeGlobal));
	add<<<N / 64, 64, 0, s>>>(dev, 5, N);
	add<<<N / 64, 64, 0, s>>>(dev, 2, N);
	CK(cudaStreamEndCapture(s, &got));
	check(got == g, "the capture ended into another graph");
	CK(cudaGraphGetNodes(g, nodes, &count));
	check(count == 3, "graph has %zu nodes, want 3", count);
	check(count == 3 && dependencies(nodes[1]) == 1, "first captured node's dependencies");
	CK(cudaGraphInstantiate(&x, g, 0));
	run(x, s);
	expect("memset node, then captured kernels", 7);
	CK(cudaGraphExecDestroy(x));

	/* Dependencies must be the graph's; edge data must be the default. */
	CK(cudaGraphCreate(&other, 0));
	CK(cudaGraphAddEmptyNode(&foreign, other, NULL, 0));
	CK_EXPECT(cudaStreamBeginCaptureToGraph(s, g, &foreign, NULL, 1,
						cudaStreamCaptureModeGlobal),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaStreamBeginCaptureToGraph(s, NULL, NULL, NULL, 0,
						cudaStreamCaptureModeGlobal),
		  cudaErrorInvalidValue);
	cudaGraphEdgeData ed = {};
	ed.type = cudaGraphDependencyTypeProgrammatic;
	CK_EXPECT(cudaStreamBeginCaptureToGraph(s, g, &zero, &ed, 1, cudaStreamCaptureModeGlobal),
		  cudaErrorNotSupported);

	/* A failed capture into the program's graph leaves the graph to it. */
	CK(cudaStreamBeginCaptureToGraph(s, other, NULL, NULL, 0, cudaStreamCaptureModeGlobal));
	add<<<N / 64, 64, 0, s>>>(dev, 1, N);
	CK_EXPECT(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
	got = g;
	CK_EXPECT(cudaStreamEndCapture(s, &got), cudaErrorStreamCaptureInvalidated);
	check(got == NULL, "a failed capture returned a graph");
	CK(cudaGraphGetNodes(other, NULL, &(count = 0)));
	check(count == 2, "the program's graph after a failed capture has %zu nodes", count);
	CK(cudaGraphDestroy(other));
	CK(cudaGraphDestroy(g));
}

static void update_dependencies(cudaStream_t s)
{
	cudaGraph_t g, other;
	cudaGraphNode_t n1, n2, foreign, nodes[4];
	const cudaGraphNode_t *deps;
	cudaStreamCaptureStatus status;
	size_t ndeps, count = 4;

	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	add<<<N / 64, 64, 0, s>>>(dev, 1, N);
	CK(cudaStreamGetCaptureInfo(s, &status, NULL, NULL, &deps, NULL, &ndeps));
	check(ndeps == 1, "after one kernel the stream has %zu dependencies", ndeps);
	n1 = deps[0];
	CK(cudaStreamUpdateCaptureDependencies(s, NULL, NULL, 0,
					       cudaStreamSetCaptureDependencies));
	add<<<N / 64, 64, 0, s>>>(dev, 2, N);          /* a root: no dependencies */
	CK(cudaStreamGetCaptureInfo(s, &status, NULL, NULL, &deps, NULL, &ndeps));
	n2 = deps[0];
	CK(cudaStreamUpdateCaptureDependencies(s, &n1, NULL, 1, cudaStreamAddCaptureDependencies));
	CK(cudaStreamGetCaptureInfo(s, &status, NULL, NULL, &deps, NULL, &ndeps));
	check(ndeps == 2, "after adding, the stream has %zu dependencies", ndeps);
	add<<<N / 64, 64, 0, s>>>(dev, 4, N);          /* after both */

	CK(cudaGraphCreate(&other, 0));
	CK(cudaGraphAddEmptyNode(&foreign, other, NULL, 0));
	CK_EXPECT(cudaStreamUpdateCaptureDependencies(s, &foreign, NULL, 1, 0),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaStreamUpdateCaptureDependencies(s, &n1, NULL, 1, 7), cudaErrorInvalidValue);
	CK(cudaStreamEndCapture(s, &g));
	CK_EXPECT(cudaStreamUpdateCaptureDependencies(s, &n1, NULL, 1, 0), cudaErrorIllegalState);

	CK(cudaGraphGetNodes(g, nodes, &count));
	check(count == 3, "captured %zu nodes, want 3", count);
	check(dependencies(n2) == 0, "the second kernel has dependencies");
	check(count == 3 && dependencies(nodes[2]) == 2, "the third kernel depends on %zu nodes",
	      count == 3 ? dependencies(nodes[2]) : 0);
	CK(cudaGraphDestroy(g));
	CK(cudaGraphDestroy(other));
}

/* memset -> +1 -> +10 -> host node; the +10 kernel switched off and on. */
static void enable_nodes(cudaStream_t s)
{
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaGraphNode_t nodes[4], host;
	unsigned int enabled = 7;
	int one = 1, ten = 10, n = N;

	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK(cudaMemsetAsync(dev, 0, N * sizeof(int), s));
	add<<<N / 64, 64, 0, s>>>(dev, one, n);
	add<<<N / 64, 64, 0, s>>>(dev, ten, n);
	CK(cudaStreamEndCapture(s, &g));
	size_t count = 4;
	CK(cudaGraphGetNodes(g, nodes, &count));
	cudaHostNodeParams hp = { [](void *) {}, NULL };
	CK(cudaGraphAddHostNode(&host, g, &nodes[2], 1, &hp));

	cudaGraphInstantiateParams ip = {};
	ip.flags = cudaGraphInstantiateFlagUpload;
	ip.uploadStream = s;
	ip.result_out = cudaGraphInstantiateError;
	CK(cudaGraphInstantiateWithParams(&x, g, &ip));
	check(ip.result_out == cudaGraphInstantiateSuccess && ip.errNode_out == NULL,
	      "instantiate result %d", (int)ip.result_out);
	ip.flags = cudaGraphInstantiateFlagDeviceLaunch << 4;
	cudaGraphExec_t bad;
	CK_EXPECT(cudaGraphInstantiateWithParams(&bad, g, &ip), cudaErrorInvalidValue);
	check(ip.result_out == cudaGraphInstantiateError, "refused instantiation's result %d",
	      (int)ip.result_out);
	CK_EXPECT(cudaGraphInstantiateWithParams(&bad, g, NULL), cudaErrorInvalidValue);

	run(x, s);
	expect("all nodes enabled", 11);
	CK(cudaGraphNodeGetEnabled(x, nodes[2], &enabled));
	check(enabled == 1, "node enabled: %u", enabled);
	CK(cudaGraphNodeSetEnabled(x, nodes[2], 0));
	CK(cudaGraphNodeGetEnabled(x, nodes[2], &enabled));
	check(enabled == 0, "node disabled: %u", enabled);
	run(x, s);
	expect("+10 kernel disabled", 1);
	CK(cudaGraphNodeSetEnabled(x, nodes[0], 0));       /* the memset too */
	run(x, s);
	expect("memset disabled as well", 2);
	CK(cudaGraphNodeSetEnabled(x, nodes[0], 1));
	CK(cudaGraphNodeSetEnabled(x, nodes[2], 1));
	run(x, s);
	expect("enabled again", 11);
	CK_EXPECT(cudaGraphNodeSetEnabled(x, host, 0), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphNodeGetEnabled(x, host, &enabled), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphNodeGetEnabled(x, nodes[1], NULL), cudaErrorInvalidValue);
	CK(cudaGraphExecDestroy(x));
	CK_EXPECT(cudaGraphNodeSetEnabled(x, nodes[1], 0), cudaErrorInvalidValue);
	CK(cudaGraphDestroy(g));
}

int main()
{
	cudaStream_t s;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&dev, N * sizeof(int)));
	capture_to_graph(s);
	update_dependencies(s);
	enable_nodes(s);
	CK(cudaFree(dev));
	CK(cudaStreamDestroy(s));
	return verdict("graph_capture_tograph");
}
