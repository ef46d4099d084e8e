/*
 * graph_update: the pattern of programs that capture the same work again
 * with new arguments each step and update one executable graph with
 * cudaGraphExecUpdate instead of instantiating anew; an update with a
 * different shape is refused and says why.
 */
#include "check.h"

#define N 256

__global__ void set(int *a, int v)
{
	a[threadIdx.x] = v + threadIdx.x;
}

static cudaGraph_t capture(cudaStream_t s, int *dst, int v, int extra_node)
{
	cudaGraph_t g;

	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	CK(cudaMemsetAsync(dst, 0, N * sizeof(int), s));
	set<<<1, N, 0, s>>>(dst, v);
	if (extra_node == 1)
		set<<<1, N, 0, s>>>(dst, v);
	if (extra_node == 2)
		CK(cudaMemsetAsync(dst, 0, N * sizeof(int), s));
	CK(cudaStreamEndCapture(s, &g));
	return g;
}

int main()
{
	static int h[N], want[N];
	cudaGraphExecUpdateResultInfo info;
	cudaGraphExec_t x;
	cudaStream_t s;
	cudaGraph_t g;
	int *buf[2];

	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&buf[0], N * sizeof(int)));
	CK(cudaMalloc(&buf[1], N * sizeof(int)));
	g = capture(s, buf[0], 0, 0);
	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphDestroy(g));
	for (int step = 1; step <= 4; step++) {
		int *dst = buf[step % 2];

		g = capture(s, dst, 100 * step, 0);
		CK(cudaGraphExecUpdate(x, g, &info));
		check(info.result == cudaGraphExecUpdateSuccess, "step %d: update result %d", step,
		      info.result);
		CK(cudaGraphDestroy(g));
		CK(cudaGraphLaunch(x, s));
		CK(cudaMemcpyAsync(h, dst, sizeof(h), cudaMemcpyDeviceToHost, s));
		CK(cudaStreamSynchronize(s));
		for (int i = 0; i < N; i++)
			want[i] = 100 * step + i;
		check_array("updated graph's output", h, want, N);
	}

	/* One node more: the topology changed. */
	g = capture(s, buf[0], 7, 1);
	CK_EXPECT(cudaGraphExecUpdate(x, g, &info), cudaErrorGraphExecUpdateFailure);
	check(info.result == cudaGraphExecUpdateErrorTopologyChanged, "result %d, want %d",
	      info.result, cudaGraphExecUpdateErrorTopologyChanged);
	CK(cudaGraphDestroy(g));

	/* Same shape, a memset where the graph had a kernel. */
	cudaGraphExec_t x3;
	g = capture(s, buf[0], 7, 1);
	CK(cudaGraphInstantiate(&x3, g, 0));
	CK(cudaGraphDestroy(g));
	g = capture(s, buf[0], 7, 2);
	CK_EXPECT(cudaGraphExecUpdate(x3, g, &info), cudaErrorGraphExecUpdateFailure);
	check(info.result == cudaGraphExecUpdateErrorNodeTypeChanged && info.errorNode,
	      "result %d, want a node whose type changed", info.result);
	CK(cudaGraphDestroy(g));

	/* A refused update leaves the executable graph as it was. */
	CK(cudaGraphLaunch(x, s));
	CK(cudaMemcpyAsync(h, buf[0], sizeof(h), cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	for (int i = 0; i < N; i++)
		want[i] = 400 + i;
	check_array("after refused updates", h, want, N);

	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphExecDestroy(x3));
	CK(cudaFree(buf[0]));
	CK(cudaFree(buf[1]));
	CK(cudaStreamDestroy(s));
	return verdict("graph_update");
}
