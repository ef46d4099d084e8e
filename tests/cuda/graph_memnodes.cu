/*
 * graph_memnodes: memory allocation and free nodes.  An explicit graph
 * that allocates, fills, uses, copies out and frees, replayed; the node
 * parameters; CUDA's rules for them (freed once, after the allocation, no
 * clone, no child, no node removal, one instance at a time); an allocation
 * left allocated refusing the next launch until it is freed (cudaFreeAsync,
 * cudaFree, a free node of another graph) or freed by auto-free; the
 * device's graph memory attributes; and cudaMallocAsync/cudaFreeAsync
 * captured as allocation and free nodes.
 */
#include "check.h"

#define N 1024

__global__ void fill(int *a, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = v + i;
}

static int out[N];
static int n = N;

static void expect(const char *what, int v)
{
	static int want[N];

	for (int i = 0; i < N; i++)
		want[i] = v + i;
	check_array(what, out, want, N);
}

static cudaMemAllocNodeParams alloc_params(size_t bytes)
{
	cudaMemAllocNodeParams ap = {};

	ap.poolProps.allocType = cudaMemAllocationTypePinned;
	ap.poolProps.location.type = cudaMemLocationTypeDevice;
	ap.poolProps.location.id = 0;
	ap.bytesize = bytes;
	return ap;
}

static void add_fill(cudaGraphNode_t *node, cudaGraph_t g, cudaGraphNode_t dep, int **p, int *v)
{
	cudaKernelNodeParams kp = {};
	void *args[] = { p, v, &n };

	kp.func = (void *)fill;
	kp.gridDim = dim3(N / 128);
	kp.blockDim = dim3(128);
	kp.kernelParams = args;
	CK(cudaGraphAddKernelNode(node, g, &dep, 1, &kp));
}

static unsigned long long graph_mem(cudaGraphMemAttributeType attr)
{
	unsigned long long v = ~0ull;

	CK(cudaDeviceGetGraphMemAttribute(0, attr, &v));
	return v;
}

/* alloc -> fill -> copy out -> free, launched three times. */
static void explicit_graph(cudaStream_t s)
{
	cudaGraph_t g, g2, c;
	cudaGraphNode_t alloc, kern, copy, freed, node, extra;
	cudaGraphExec_t x, x2;
	cudaMemAllocNodeParams ap = alloc_params(N * sizeof(int)), got;
	int v = 7, *p;
	void *fp = NULL;

	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphAddMemAllocNode(&alloc, g, NULL, 0, &ap));
	p = (int *)ap.dptr;
	check(p != NULL, "allocation node gave no address");
	add_fill(&kern, g, alloc, &p, &v);
	CK(cudaGraphAddMemcpyNode1D(&copy, g, &kern, 1, out, p, sizeof(out),
				    cudaMemcpyDeviceToHost));
	CK(cudaGraphAddMemFreeNode(&freed, g, &copy, 1, p));

	CK(cudaGraphMemAllocNodeGetParams(alloc, &got));
	check(got.dptr == p && got.bytesize == N * sizeof(int) &&
	      got.poolProps.location.type == cudaMemLocationTypeDevice &&
	      got.poolProps.location.id == 0, "allocation node parameters");
	CK(cudaGraphMemFreeNodeGetParams(freed, &fp));
	check(fp == p, "free node's address %p, want %p", fp, p);
	enum cudaGraphNodeType type;
	CK(cudaGraphNodeGetType(alloc, &type));
	check(type == cudaGraphNodeTypeMemAlloc, "allocation node type %d", type);
	CK(cudaGraphNodeGetType(freed, &type));
	check(type == cudaGraphNodeTypeMemFree, "free node type %d", type);

	/* The rules of memory nodes. */
	CK_EXPECT(cudaGraphAddMemFreeNode(&node, g, &copy, 1, p), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddMemFreeNode(&node, g, &copy, 1, out), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddMemFreeNode(&node, g, &copy, 1, p + 1), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphClone(&c, g), cudaErrorInvalidValue);
	CK(cudaGraphCreate(&g2, 0));
	CK_EXPECT(cudaGraphAddChildGraphNode(&node, g2, NULL, 0, g), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddMemFreeNode(&node, g2, NULL, 0, p), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphDestroyNode(kern), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphRemoveDependencies(g, &kern, &copy, NULL, 1), cudaErrorInvalidValue);
	ap.bytesize = 0;
	CK_EXPECT(cudaGraphAddMemAllocNode(&node, g2, NULL, 0, &ap), cudaErrorInvalidValue);
	ap = alloc_params(64);
	ap.poolProps.location.type = cudaMemLocationTypeHost;
	CK_EXPECT(cudaGraphAddMemAllocNode(&node, g2, NULL, 0, &ap), cudaErrorInvalidValue);
	CK(cudaGraphAddEmptyNode(&extra, g2, NULL, 0));
	cudaGraph_t inner;
	CK(cudaGraphAddChildGraphNode(&node, g2, NULL, 0, g2));
	CK(cudaGraphChildGraphNodeGetGraph(node, &inner));
	ap = alloc_params(64);
	CK_EXPECT(cudaGraphAddMemAllocNode(&extra, inner, NULL, 0, &ap), cudaErrorInvalidValue);
	CK(cudaGraphDestroy(g2));

	/* A free node that does not follow its allocation is refused. */
	cudaGraph_t g3;
	cudaGraphNode_t a3, root;
	CK(cudaGraphCreate(&g3, 0));
	CK(cudaGraphAddEmptyNode(&root, g3, NULL, 0));
	ap = alloc_params(256);
	CK(cudaGraphAddMemAllocNode(&a3, g3, &root, 1, &ap));
	CK_EXPECT(cudaGraphAddMemFreeNode(&node, g3, &root, 1, ap.dptr), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphAddMemFreeNode(&node, g3, NULL, 0, ap.dptr), cudaErrorInvalidValue);
	CK(cudaGraphAddMemFreeNode(&node, g3, &a3, 1, ap.dptr));
	CK(cudaGraphDestroy(g3));

	CK(cudaGraphInstantiate(&x, g, 0));
	CK_EXPECT(cudaGraphInstantiate(&x2, g, 0), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphExecKernelNodeSetParams(x, kern, NULL), cudaErrorInvalidValue);
	for (int round = 0; round < 3; round++) {
		v = 100 * round;
		cudaKernelNodeParams kp = {};
		void *args[] = { &p, &v, &n };
		kp.func = (void *)fill;
		kp.gridDim = dim3(N / 128);
		kp.blockDim = dim3(128);
		kp.kernelParams = args;
		CK(cudaGraphExecKernelNodeSetParams(x, kern, &kp));
		CK(cudaGraphLaunch(x, s));
		CK(cudaStreamSynchronize(s));
		expect("allocate, fill, copy, free", 100 * round);
	}
	/* An update from the same graph keeps its memory; a graph of the same
	 * shape with memory of its own cannot update it. */
	cudaGraphExecUpdateResultInfo info;
	CK(cudaGraphExecUpdate(x, g, &info));
	cudaGraph_t other;
	cudaGraphNode_t oa, ok, oc, of;
	ap = alloc_params(N * sizeof(int));
	CK(cudaGraphCreate(&other, 0));
	CK(cudaGraphAddMemAllocNode(&oa, other, NULL, 0, &ap));
	int *q = (int *)ap.dptr;
	add_fill(&ok, other, oa, &q, &v);
	CK(cudaGraphAddMemcpyNode1D(&oc, other, &ok, 1, out, q, sizeof(out),
				    cudaMemcpyDeviceToHost));
	CK(cudaGraphAddMemFreeNode(&of, other, &oc, 1, q));
	CK_EXPECT(cudaGraphExecUpdate(x, other, &info), cudaErrorGraphExecUpdateFailure);
	check(info.result == cudaGraphExecUpdateErrorParametersChanged && info.errorNode == oa,
	      "update with other memory: result %d", (int)info.result);
	CK(cudaGraphDestroy(other));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	expect("the graph's own kernel argument again (7), not the refused graph's", 7);
	check(graph_mem(cudaGraphMemAttrUsedMemCurrent) == 0, "graph memory in use after a "
	      "graph that frees: %llu", graph_mem(cudaGraphMemAttrUsedMemCurrent));
	check(graph_mem(cudaGraphMemAttrUsedMemHigh) >= N * sizeof(int), "used high watermark");
	check(graph_mem(cudaGraphMemAttrReservedMemCurrent) >= N * sizeof(int),
	      "reserved while the graph exists");
	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphInstantiate(&x2, g, 0));   /* the first instance is gone */
	CK(cudaGraphExecDestroy(x2));
	CK(cudaGraphDestroy(g));
	check(graph_mem(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved after the graph: %llu",
	      graph_mem(cudaGraphMemAttrReservedMemCurrent));
}

/* A graph that allocates and does not free. */
static cudaGraph_t leaking_graph(int **p, int *v)
{
	cudaGraph_t g;
	cudaGraphNode_t alloc, kern, copy;
	cudaMemAllocNodeParams ap = alloc_params(N * sizeof(int));

	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphAddMemAllocNode(&alloc, g, NULL, 0, &ap));
	*p = (int *)ap.dptr;
	add_fill(&kern, g, alloc, p, v);
	CK(cudaGraphAddMemcpyNode1D(&copy, g, &kern, 1, out, *p, sizeof(out),
				    cudaMemcpyDeviceToHost));
	return g;
}

static void unfreed(cudaStream_t s)
{
	cudaGraph_t g, gf;
	cudaGraphExec_t x, xf, xa;
	cudaGraphNode_t freer;
	int *p, v = 3;

	g = leaking_graph(&p, &v);
	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	expect("first launch", 3);
	check(graph_mem(cudaGraphMemAttrUsedMemCurrent) == N * sizeof(int),
	      "used after an allocation left allocated: %llu",
	      graph_mem(cudaGraphMemAttrUsedMemCurrent));
	CK_EXPECT(cudaGraphLaunch(x, s), cudaErrorInvalidValue);

	/* The program reads the memory after the graph, then frees it. */
	static int after[N];
	CK(cudaMemcpyAsync(after, p, sizeof(after), cudaMemcpyDefault, s));
	CK(cudaFreeAsync(p, s));
	CK(cudaStreamSynchronize(s));
	check(after[N - 1] == 3 + N - 1, "graph memory read after the launch: %d", after[N - 1]);
	check(graph_mem(cudaGraphMemAttrUsedMemCurrent) == 0, "used after cudaFreeAsync");

	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	CK(cudaFree(p));
	CK_EXPECT(cudaFree(p), cudaErrorInvalidValue);

	/* A free node in another graph frees it; that graph then owns the
	 * free, and the allocating graph cannot get a free node any more. */
	CK(cudaGraphCreate(&gf, 0));
	CK(cudaGraphAddMemFreeNode(&freer, gf, NULL, 0, p));
	cudaGraphNode_t root[1];
	size_t one = 1;
	CK(cudaGraphGetRootNodes(g, root, &one));
	CK_EXPECT(cudaGraphAddMemFreeNode(&freer, g, root, 1, p), cudaErrorInvalidValue);
	CK(cudaGraphInstantiate(&xf, gf, 0));
	CK(cudaGraphLaunch(x, s));
	CK(cudaGraphLaunch(xf, s));
	CK(cudaGraphLaunch(x, s));
	CK(cudaGraphLaunch(xf, s));
	CK(cudaStreamSynchronize(s));
	expect("launches alternating with another graph's free node", 3);
	CK(cudaGraphExecDestroy(x));

	/* Auto-free: each launch frees what the last one left. */
	CK(cudaGraphInstantiateWithFlags(&xa, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++)
			out[i] = 0;
		CK(cudaGraphLaunch(xa, s));
		CK(cudaStreamSynchronize(s));
		expect("auto-free launches", 3);
	}
	unsigned long long flags = 0;
	CK(cudaGraphExecGetFlags(xa, &flags));
	check(flags == cudaGraphInstantiateFlagAutoFreeOnLaunch, "exec flags %llu", flags);
	CK(cudaGraphExecDestroy(xa));
	CK(cudaGraphExecDestroy(xf));
	CK(cudaGraphDestroy(gf));
	/* Destroying the graph leaves the allocation to the program. */
	CK(cudaGraphDestroy(g));
	CK(cudaMemsetAsync(p, 0, sizeof(int), s));
	CK(cudaFreeAsync(p, s));
	CK(cudaStreamSynchronize(s));
	check(graph_mem(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved at the end: %llu",
	      graph_mem(cudaGraphMemAttrReservedMemCurrent));
}

static void attributes(void)
{
	unsigned long long zero = 0, one = 1;

	CK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
	CK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
	check(graph_mem(cudaGraphMemAttrUsedMemHigh) == 0, "used high after reset");
	CK_EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaDeviceGetGraphMemAttribute(99, cudaGraphMemAttrUsedMemCurrent, &one),
		  cudaErrorInvalidDevice);
	CK(cudaDeviceGraphMemTrim(0));
}

/* cudaMallocAsync and cudaFreeAsync while capturing. */
static void captured(cudaStream_t s)
{
	cudaGraph_t g;
	cudaGraphExec_t x;
	cudaGraphNode_t nodes[8];
	enum cudaGraphNodeType first, last;
	size_t count = 8;
	int *p = NULL, *plain;

	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK(cudaMallocAsync(&p, N * sizeof(int), s));
	fill<<<N / 128, 128, 0, s>>>(p, 42, N);
	CK(cudaMemcpyAsync(out, p, sizeof(out), cudaMemcpyDefault, s));
	CK(cudaFreeAsync(p, s));
	CK(cudaStreamEndCapture(s, &g));
	CK(cudaGraphGetNodes(g, nodes, &count));
	check(count == 4, "captured graph has %zu nodes, want 4", count);
	CK(cudaGraphNodeGetType(nodes[0], &first));
	CK(cudaGraphNodeGetType(nodes[count - 1], &last));
	check(first == cudaGraphNodeTypeMemAlloc && last == cudaGraphNodeTypeMemFree,
	      "captured node types %d .. %d", first, last);
	CK(cudaGraphInstantiate(&x, g, 0));
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++)
			out[i] = 0;
		CK(cudaGraphLaunch(x, s));
		CK(cudaStreamSynchronize(s));
		expect("captured allocation", 42);
	}
	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(g));

	/* Freeing memory that is not a graph allocation in a capture. */
	CK(cudaMalloc(&plain, 64));
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
	CK_EXPECT(cudaFreeAsync(plain, s), cudaErrorInvalidValue);
	CK_EXPECT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
	CK(cudaFree(plain));
}

int main()
{
	cudaStream_t s;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	explicit_graph(s);
	unfreed(s);
	attributes();
	captured(s);
	CK(cudaStreamDestroy(s));
	return verdict("graph_memnodes");
}
