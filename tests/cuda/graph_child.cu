/*
 * graph_child: child graph nodes (cloned when added; the embedded graph
 * can be read and changed through cudaGraphChildGraphNodeGetGraph),
 * launches of a parent with two children replayed several times,
 * cudaGraphClone and cudaGraphNodeFindInClone, cudaGraphDestroyNode and
 * cudaGraphRemoveDependencies, cudaGraphExecChildGraphNodeSetParams and
 * cudaGraphExecUpdate through child nodes, and a graph launched into a
 * capturing stream, which becomes a child graph node.
 */
#include "check.h"

#define N 256

__global__ void scale_add(int *a, int mul, int add, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] * mul + add;
}

static int host_in[N], host_out[N];
static int *dev;
static int n = N;

/* A child graph: a[i] = (a[i] * mul1 + add1) * mul2 + add2, as two nodes. */
static cudaGraph_t make_child(int mul1, int add1, int mul2, int add2,
			      cudaGraphNode_t *first, cudaGraphNode_t *second)
{
	cudaGraph_t c;
	cudaKernelNodeParams kp = {};
	void *args1[] = { &dev, &mul1, &add1, &n };
	void *args2[] = { &dev, &mul2, &add2, &n };

	CK(cudaGraphCreate(&c, 0));
	kp.func = (void *)scale_add;
	kp.gridDim = dim3(N / 64);
	kp.blockDim = dim3(64);
	kp.kernelParams = args1;
	CK(cudaGraphAddKernelNode(first, c, NULL, 0, &kp));
	kp.kernelParams = args2;
	CK(cudaGraphAddKernelNode(second, c, first, 1, &kp));
	return c;
}

/* in -> device, child, child, device -> out */
static cudaGraph_t make_parent(cudaGraph_t child, cudaGraphNode_t *kid1, cudaGraphNode_t *kid2)
{
	cudaGraph_t g;
	cudaGraphNode_t in, out;

	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphAddMemcpyNode1D(&in, g, NULL, 0, dev, host_in, sizeof(host_in),
				    cudaMemcpyHostToDevice));
	CK(cudaGraphAddChildGraphNode(kid1, g, &in, 1, child));
	CK(cudaGraphAddChildGraphNode(kid2, g, kid1, 1, child));
	CK(cudaGraphAddMemcpyNode1D(&out, g, kid2, 1, host_out, dev, sizeof(host_out),
				    cudaMemcpyDeviceToHost));
	return g;
}

/* Each value through f twice, f(v) = (v * m1 + a1) * m2 + a2. */
static void expect(const char *what, int m1, int a1, int m2, int a2)
{
	static int want[N];

	for (int i = 0; i < N; i++) {
		int v = host_in[i];

		for (int k = 0; k < 2; k++)
			v = (v * m1 + a1) * m2 + a2;
		want[i] = v;
	}
	check_array(what, host_out, want, N);
}

static void run(cudaGraphExec_t x, cudaStream_t s, int round)
{
	for (int i = 0; i < N; i++)
		host_in[i] = i + round;
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
}

static size_t count_nodes(cudaGraph_t g)
{
	size_t count = 0;

	CK(cudaGraphGetNodes(g, NULL, &count));
	return count;
}

int main()
{
	cudaGraph_t child, parent, embedded, clone, captured, other;
	cudaGraphNode_t c1, c2, kid1, kid2, node, nodes[8], from[8], to[8];
	cudaGraphExec_t x, xc, xcap;
	cudaStream_t s;
	enum cudaGraphNodeType type;
	size_t count;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&dev, N * sizeof(int)));
	child = make_child(2, 1, 3, 0, &c1, &c2);
	parent = make_parent(child, &kid1, &kid2);

	/* The child was cloned: what happens to the original later does not
	 * reach the parent. */
	cudaGraphNode_t late;
	CK(cudaGraphAddEmptyNode(&late, child, &c2, 1));
	CK(cudaGraphNodeGetType(kid1, &type));
	check(type == cudaGraphNodeTypeGraph, "child node type %d", type);
	CK(cudaGraphChildGraphNodeGetGraph(kid1, &embedded));
	check(embedded != child, "the node owns a clone, not the graph given");
	check(count_nodes(embedded) == 2, "embedded graph has %zu nodes, want 2",
	      count_nodes(embedded));
	CK_EXPECT(cudaGraphChildGraphNodeGetGraph(c1, &other), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphDestroy(embedded), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddChildGraphNode(&node, parent, NULL, 0, NULL),
		  cudaErrorInvalidValue);

	CK(cudaGraphInstantiate(&x, parent, 0));
	for (int round = 0; round < 3; round++) {
		run(x, s, round);
		expect("parent with two children", 2, 1, 3, 0);
	}

	/* Changing the embedded graph changes the node: a new instance sees
	 * it, the old one does not. */
	CK(cudaGraphGetNodes(embedded, nodes, &(count = 2)));
	int m = 1, a = 5;
	void *args[] = { &dev, &m, &a, &n };
	cudaKernelNodeParams kp = {};
	kp.func = (void *)scale_add;
	kp.gridDim = dim3(N / 64);
	kp.blockDim = dim3(64);
	kp.kernelParams = args;
	CK(cudaGraphKernelNodeSetParams(nodes[1], &kp));   /* kid1: (v*2+1)+5 */
	run(x, s, 7);
	expect("old instance after the embedded graph changed", 2, 1, 3, 0);
	cudaGraphExec_t xnew;
	CK(cudaGraphInstantiate(&xnew, parent, 0));
	run(xnew, s, 8);
	{
		static int want[N];

		for (int i = 0; i < N; i++)
			want[i] = ((host_in[i] * 2 + 1) + 5) * 2 * 3 + 3;
		check_array("new instance with the changed embedded graph", host_out, want, N);
	}
	CK(cudaGraphExecDestroy(xnew));

	/* A clone, and its nodes found from the original's. */
	CK(cudaGraphClone(&clone, parent));
	check(count_nodes(clone) == 4, "clone has %zu nodes", count_nodes(clone));
	CK(cudaGraphNodeFindInClone(&node, kid2, clone));
	check(node != kid2, "the clone's node is its own");
	CK(cudaGraphNodeGetType(node, &type));
	check(type == cudaGraphNodeTypeGraph, "cloned node type %d", type);
	CK_EXPECT(cudaGraphNodeFindInClone(&node, c1, clone), cudaErrorInvalidValue);

	/* Remove the second child from the clone: its edges go with it. */
	CK(cudaGraphNodeFindInClone(&node, kid2, clone));
	CK(cudaGraphDestroyNode(node));
	CK_EXPECT(cudaGraphNodeGetType(node, &type), cudaErrorInvalidValue);
	check(count_nodes(clone) == 3, "clone has %zu nodes after removal", count_nodes(clone));
	CK(cudaGraphGetEdges(clone, NULL, NULL, NULL, &count));
	check(count == 1, "clone has %zu edges after removal, want 1", count);
	/* ... and join the copy out to the remaining child again. */
	cudaGraphNode_t ckid1, cout;
	CK(cudaGraphNodeFindInClone(&ckid1, kid1, clone));
	CK(cudaGraphGetNodes(clone, nodes, &(count = 3)));
	cout = nodes[2];
	CK(cudaGraphAddDependencies(clone, &ckid1, &cout, NULL, 1));
	CK(cudaGraphInstantiate(&xc, clone, 0));
	run(xc, s, 1);
	{
		static int want[N];

		for (int i = 0; i < N; i++)
			want[i] = (host_in[i] * 2 + 1) + 5;
		check_array("clone with one (changed) child", host_out, want, N);
	}

	/* Edges: removing one that exists, and one that does not. */
	CK(cudaGraphGetEdges(clone, from, to, NULL, &(count = 8)));
	check(count == 2, "clone edges %zu", count);
	CK(cudaGraphRemoveDependencies(clone, &from[1], &to[1], NULL, 1));
	CK_EXPECT(cudaGraphRemoveDependencies(clone, &from[1], &to[1], NULL, 1),
		  cudaErrorInvalidValue);
	cudaGraphNode_t twice_from[] = { from[0], from[0] }, twice_to[] = { to[0], to[0] };
	CK_EXPECT(cudaGraphRemoveDependencies(clone, twice_from, twice_to, NULL, 2),
		  cudaErrorInvalidValue);
	CK(cudaGraphGetEdges(clone, NULL, NULL, NULL, &count));
	check(count == 1, "clone has %zu edges, want 1", count);

	/* New child graph for an executable graph's child node: same shape
	 * works, another shape does not. */
	cudaGraphNode_t d1, d2;
	cudaGraph_t child2 = make_child(1, 10, 1, 0, &d1, &d2);
	CK(cudaGraphExecChildGraphNodeSetParams(x, kid1, child2));
	CK(cudaGraphExecChildGraphNodeSetParams(x, kid2, child2));
	run(x, s, 2);
	expect("children replaced in the executable graph", 1, 10, 1, 0);
	CK_EXPECT(cudaGraphExecChildGraphNodeSetParams(x, kid1, child), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphExecChildGraphNodeSetParams(x, c1, child2), cudaErrorInvalidValue);

	/* cudaGraphExecUpdate pairs child graphs node by node. */
	cudaGraphNode_t u1, u2, p1, p2;
	cudaGraph_t child3 = make_child(1, 0, 1, 20, &u1, &u2);
	cudaGraph_t parent3 = make_parent(child3, &p1, &p2);
	cudaGraphExecUpdateResultInfo info;
	CK(cudaGraphExecUpdate(x, parent3, &info));
	run(x, s, 3);
	expect("updated through child nodes", 1, 0, 1, 20);
	CK_EXPECT(cudaGraphExecUpdate(x, clone, &info), cudaErrorGraphExecUpdateFailure);

	/* A graph launched into a capturing stream becomes a child node. */
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamEndCapture(s, &captured));
	CK(cudaGraphGetNodes(captured, nodes, &(count = 8)));
	check(count == 1, "captured launch gave %zu nodes, want 1", count);
	CK(cudaGraphNodeGetType(nodes[0], &type));
	check(type == cudaGraphNodeTypeGraph, "captured launch node type %d", type);
	CK(cudaGraphChildGraphNodeGetGraph(nodes[0], &embedded));
	check(count_nodes(embedded) == 4, "captured child has %zu nodes", count_nodes(embedded));
	CK(cudaGraphInstantiate(&xcap, captured, 0));
	for (int round = 4; round < 6; round++) {
		run(xcap, s, round);
		expect("captured launch replayed", 1, 0, 1, 20);
	}

	CK(cudaGraphExecDestroy(xcap));
	CK(cudaGraphExecDestroy(xc));
	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(captured));
	CK(cudaGraphDestroy(parent3));
	CK(cudaGraphDestroy(child3));
	CK(cudaGraphDestroy(child2));
	CK(cudaGraphDestroy(clone));
	CK(cudaGraphDestroy(parent));
	CK_EXPECT(cudaGraphNodeGetType(kid1, &type), cudaErrorInvalidValue);
	CK(cudaGraphDestroy(child));
	CK(cudaFree(dev));
	CK(cudaStreamDestroy(s));
	return verdict("graph_child");
}
