/*
 * graph_forkjoin: capture across two streams joined by events, the
 * pattern CUDA samples use.  The second stream joins the capture when it
 * waits on an event recorded on the capturing one, and must be joined
 * back before the capture ends; the graph has the fork and the join as
 * edges, and replays correctly.
 */
#include "check.h"

#define N 1024

__global__ void fill(int *a, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = v + i;
}

__global__ void sum(int *out, const int *a, const int *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = a[i] + b[i];
}

int main()
{
	static int h[N], want[N];
	cudaStream_t s1, s2;
	cudaEvent_t fork, join;
	cudaGraph_t g;
	cudaGraphExec_t x;
	int *a, *b, *c;
	enum cudaStreamCaptureStatus st;
	unsigned long long id1 = 0, id2 = 0;
	size_t nodes = 0, edges = 0, roots = 0;

	CK(cudaStreamCreate(&s1));
	CK(cudaStreamCreate(&s2));
	CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
	CK(cudaMalloc(&a, N * sizeof(int)));
	CK(cudaMalloc(&b, N * sizeof(int)));
	CK(cudaMalloc(&c, N * sizeof(int)));

	/* A fork that is not joined back: the capture cannot end. */
	CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	CK(cudaEventRecord(fork, s1));
	CK_EXPECT(cudaEventQuery(fork), cudaErrorCapturedEvent);
	CK(cudaStreamWaitEvent(s2, fork, 0));
	CK(cudaStreamIsCapturing(s2, &st));
	check(st == cudaStreamCaptureStatusActive, "s2 did not join the capture: %d", st);
	CK(cudaStreamGetCaptureInfo(s1, &st, &id1));
	CK(cudaStreamGetCaptureInfo(s2, &st, &id2));
	check(id1 == id2, "two streams of one capture have ids %llu and %llu", id1, id2);
	fill<<<N / 128, 128, 0, s1>>>(a, 1, N);
	fill<<<N / 128, 128, 0, s2>>>(b, 1000, N);
	CK_EXPECT(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureUnjoined);
	check(g == NULL, "an unjoined capture returned a graph");
	CK(cudaStreamIsCapturing(s2, &st));
	check(st == cudaStreamCaptureStatusNone, "s2 still capturing after the end: %d", st);

	/* The same, done right. */
	CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	CK(cudaEventRecord(fork, s1));
	CK(cudaStreamWaitEvent(s2, fork, 0));
	fill<<<N / 128, 128, 0, s1>>>(a, 1, N);
	fill<<<N / 128, 128, 0, s2>>>(b, 1000, N);
	CK_EXPECT(cudaStreamEndCapture(s2, &g), cudaErrorStreamCaptureUnmatched);
	CK(cudaEventRecord(join, s2));
	CK(cudaStreamWaitEvent(s1, join, 0));
	sum<<<N / 128, 128, 0, s1>>>(c, a, b, N);
	CK(cudaMemcpyAsync(h, c, sizeof(h), cudaMemcpyDeviceToHost, s1));
	CK(cudaStreamEndCapture(s1, &g));

	CK(cudaGraphGetNodes(g, NULL, &nodes));
	CK(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
	CK(cudaGraphGetRootNodes(g, NULL, &roots));
	check(nodes == 4, "nodes: %zu, want 4", nodes);
	check(edges == 3, "edges: %zu, want 3 (both fills before the sum, sum before the copy)",
	      edges);
	check(roots == 2, "roots: %zu, want the two fills", roots);

	for (int i = 0; i < N; i++)
		want[i] = 1001 + 2 * i;
	CK(cudaGraphInstantiate(&x, g, 0));
	for (int run = 0; run < 3; run++) {
		for (int i = 0; i < N; i++)
			h[i] = 0;
		CK(cudaMemset(c, 0, N * sizeof(int)));
		CK(cudaGraphLaunch(x, s2));
		CK(cudaStreamSynchronize(s2));
		check_array("c", h, want, N);
	}
	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(g));
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	CK(cudaEventDestroy(fork));
	CK(cudaEventDestroy(join));
	CK(cudaStreamDestroy(s1));
	CK(cudaStreamDestroy(s2));
	return verdict("graph_forkjoin");
}
