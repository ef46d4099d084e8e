/*
 * graph_launch_order: CUDA orders each launch of an executable graph after
 * the earlier launches of the same graph, on whatever stream.  Stream a is
 * held by a host function and gets a launch; a launch on stream b must
 * then wait behind it: b is not done and the graph's host node has not run
 * until a is released.
 */
#include <atomic>
#include <chrono>
#include <thread>
#include "check.h"

#define N 128

static std::atomic<int> release;
static std::atomic<int> runs;

/* Holds the stream until released; gives up after 10 s so that a runtime
 * that wrongly waits for this stream fails the test instead of hanging. */
static void CUDART_CB hold(void *)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	while (!release.load() && std::chrono::steady_clock::now() < end)
		;
	if (!release.load())
		fprintf(stderr, "graph_launch_order: the host function was never released\n");
}

static void CUDART_CB count_run(void *)
{
	runs.fetch_add(1);
}

__global__ void add(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] += 1;
}

int main()
{
	cudaStream_t a, b;
	cudaGraph_t g;
	cudaGraphExec_t x;
	static int out[N];
	int *dev;

	CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	CK(cudaMalloc(&dev, N * sizeof(int)));
	CK(cudaMemset(dev, 0, N * sizeof(int)));

	CK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
	add<<<1, N, 0, a>>>(dev, N);
	CK(cudaLaunchHostFunc(a, count_run, NULL));
	CK(cudaStreamEndCapture(a, &g));
	CK(cudaGraphInstantiate(&x, g, 0));

	CK(cudaLaunchHostFunc(a, hold, NULL));
	CK(cudaGraphLaunch(x, a));
	CK(cudaGraphLaunch(x, b));
	/* Give a wrongly independent launch on b time to finish (0.2 s): it
	 * must still be waiting. */
	for (int i = 0; i < 200 && runs.load() == 0; i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	CK_EXPECT(cudaStreamQuery(b), cudaErrorNotReady);
	check(runs.load() == 0, "a launch ran before the earlier launch of the same graph");
	cudaGetLastError();

	release.store(1);
	CK(cudaStreamSynchronize(b));
	check(runs.load() == 2, "after the second launch %d launches ran, want 2", runs.load());
	CK(cudaGraphLaunch(x, a));       /* and back on a: after b's */
	CK(cudaStreamSynchronize(a));
	CK(cudaMemcpy(out, dev, sizeof(out), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N; i++)
		check(out[i] == 3, "out[%d] = %d after three launches", i, out[i]);

	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(g));
	CK(cudaFree(dev));
	CK(cudaStreamDestroy(a));
	CK(cudaStreamDestroy(b));
	return verdict("graph_launch_order");
}
