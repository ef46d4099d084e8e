/*
 * graph_explicit: a graph built node by node with a diamond dependency
 * (memset -> two kernels -> a kernel that joins them -> memcpy -> host
 * node), the queries about its shape, kernel arguments copied when the
 * node is added, parameter updates of a node and of an executable graph
 * (kernel, copy and host nodes), and a cycle refused.
 */
#include "check.h"

#define N 512

__global__ void add(int *a, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] += v;
}

__global__ void join(int *out, const int *a, const int *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = a[i] * b[i];
}

static int host_seen;
static int result[N];

static void CUDART_CB check_host(void *p)
{
	host_seen = result[N - 1] + *(int *)p;
}

static cudaKernelNodeParams add_params(void **args)
{
	cudaKernelNodeParams kp = {};

	kp.func = (void *)add;
	kp.gridDim = dim3(N / 128);
	kp.blockDim = dim3(128);
	kp.kernelParams = args;
	return kp;
}

static void expect_all(const char *what, int want)
{
	static int w[N];

	for (int i = 0; i < N; i++)
		w[i] = want;
	check_array(what, result, w, N);
}

int main()
{
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaGraphNode_t zero, left, right, mul, copy, host, empty, nodes[8], from[8], to[8];
	cudaStream_t s;
	int *a, *b, *out, n = N, va = 3, vb = 5, extra = 7;
	size_t count;
	enum cudaGraphNodeType type;

	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&a, 2 * N * sizeof(int)));
	b = a + N;
	CK(cudaMalloc(&out, N * sizeof(int)));
	CK(cudaGraphCreate(&g, 0));

	cudaMemsetParams mp = {};
	mp.dst = a;
	mp.value = 0;
	mp.elementSize = 4;
	mp.width = 2 * N;
	mp.height = 1;
	CK(cudaGraphAddMemsetNode(&zero, g, NULL, 0, &mp));

	void *left_args[] = { &a, &va, &n };
	void *right_args[] = { &b, &vb, &n };
	cudaKernelNodeParams kp = add_params(left_args);
	CK(cudaGraphAddKernelNode(&left, g, &zero, 1, &kp));
	kp = add_params(right_args);
	CK(cudaGraphAddKernelNode(&right, g, &zero, 1, &kp));
	va = 100;       /* the node keeps the value it was given: 3 */

	void *join_args[] = { &out, &a, &b, &n };
	cudaKernelNodeParams jp = {};
	jp.func = (void *)join;
	jp.gridDim = dim3(N / 128);
	jp.blockDim = dim3(128);
	jp.kernelParams = join_args;
	cudaGraphNode_t both[] = { left, right };
	CK(cudaGraphAddKernelNode(&mul, g, both, 2, &jp));
	CK(cudaGraphAddMemcpyNode1D(&copy, g, &mul, 1, result, out, sizeof(result),
				    cudaMemcpyDeviceToHost));
	cudaHostNodeParams hp = { check_host, &extra };
	CK(cudaGraphAddHostNode(&host, g, &copy, 1, &hp));
	CK(cudaGraphAddEmptyNode(&empty, g, NULL, 0));

	/* The shape. */
	count = 8;
	CK(cudaGraphGetRootNodes(g, nodes, &count));
	check(count == 2, "roots: %zu, want the memset and the empty node", count);
	CK(cudaGraphGetEdges(g, NULL, NULL, NULL, &count));
	check(count == 6, "edges: %zu, want 6", count);
	count = 8;
	CK(cudaGraphGetEdges(g, from, to, NULL, &count));
	check(count == 6 && to[2] == mul && to[3] == mul, "edges into the join node");
	count = 8;
	CK(cudaGraphNodeGetDependentNodes(zero, nodes, NULL, &count));
	check(count == 2 && nodes[0] == left && nodes[1] == right, "memset's dependents");
	CK(cudaGraphNodeGetDependencies(mul, NULL, NULL, &count));
	check(count == 2, "join node depends on %zu nodes", count);
	CK(cudaGraphNodeGetType(copy, &type));
	check(type == cudaGraphNodeTypeMemcpy, "copy node type %d", type);

	/* A cycle, a repeated edge and a node of no graph are refused. */
	CK_EXPECT(cudaGraphAddDependencies(g, &host, &zero, NULL, 1), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddDependencies(g, &zero, &left, NULL, 1), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddDependencies(g, &zero, (cudaGraphNode_t *)&g, NULL, 1),
		  cudaErrorInvalidValue);
	cudaGraphNode_t bad_from[] = { host, host }, bad_to[] = { empty, zero };
	CK_EXPECT(cudaGraphAddDependencies(g, bad_from, bad_to, NULL, 2), cudaErrorInvalidValue);
	CK(cudaGraphNodeGetDependencies(empty, NULL, NULL, &count));
	check(count == 0, "a refused batch of edges left %zu behind", count);
	CK(cudaGraphAddDependencies(g, &host, &empty, NULL, 1));

	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	expect_all("(0+3)*(0+5)", 15);
	check(host_seen == 15 + 7, "host node saw %d, want 22", host_seen);

	/* New arguments for the graph's node reach a new instance only. */
	va = 4;
	kp = add_params(left_args);
	CK(cudaGraphKernelNodeSetParams(left, &kp));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	expect_all("old instance after node update", 15);
	cudaGraphExec_t x2;
	CK(cudaGraphInstantiate(&x2, g, 0));
	CK(cudaGraphLaunch(x2, s));
	CK(cudaStreamSynchronize(s));
	expect_all("new instance (0+4)*(0+5)", 20);

	/* Updating the executable graph's node leaves the graph alone. */
	vb = 6;
	kp = add_params(right_args);
	CK(cudaGraphExecKernelNodeSetParams(x2, right, &kp));
	CK(cudaGraphLaunch(x2, s));
	CK(cudaStreamSynchronize(s));
	expect_all("updated instance (0+4)*(0+6)", 24);
	cudaKernelNodeParams got = {};
	CK(cudaGraphKernelNodeGetParams(right, &got));
	check(got.func == (void *)add && *(int *)got.kernelParams[1] == 5,
	      "graph node's own argument changed");

	/* Other kinds of node: the executable graph's copy goes elsewhere and
	 * its host node gets another argument; the type must match. */
	static int other[N];
	int extra2 = 1000;
	cudaHostNodeParams hp2 = { check_host, &extra2 };
	CK(cudaGraphExecMemcpyNodeSetParams1D(x2, copy, other, out, sizeof(other),
					      cudaMemcpyDeviceToHost));
	CK(cudaGraphExecHostNodeSetParams(x2, host, &hp2));
	CK_EXPECT(cudaGraphExecHostNodeSetParams(x2, copy, &hp2), cudaErrorInvalidValue);
	for (int i = 0; i < N; i++)
		result[i] = 0;
	CK(cudaGraphLaunch(x2, s));
	CK(cudaStreamSynchronize(s));
	expect_all("copy no longer lands here", 0);
	check(other[0] == 24 && other[N - 1] == 24, "redirected copy: %d", other[0]);
	check(host_seen == 1000, "host node saw %d, want 1000", host_seen);

	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphExecDestroy(x2));
	CK(cudaGraphDestroy(g));
	CK_EXPECT(cudaGraphNodeGetType(copy, &type), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphDestroy(g), cudaErrorInvalidValue);
	CK(cudaFree(a));
	CK(cudaFree(out));
	CK(cudaStreamDestroy(s));
	return verdict("graph_explicit");
}
