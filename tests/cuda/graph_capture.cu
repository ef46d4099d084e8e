/*
 * graph_capture: work captured from a stream (async copies, a memset,
 * kernels, a host function) becomes a graph that replays the same work
 * each time it is launched, and nothing runs while capturing.
 */
#include "check.h"

#define N 4096

__global__ void scale_add(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void bump(int *counter)
{
	atomicAdd(counter, 1);
}

static void CUDART_CB count_host(void *p)
{
	++*(int *)p;
}

int main()
{
	static float hx[N], hy[N], want[N];
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t x;
	float *dx, *dy;
	int *dc, hc = -1, host_runs = 0;
	enum cudaStreamCaptureStatus st;
	unsigned long long id;
	size_t nodes = 0;

	for (int i = 0; i < N; i++)
		hx[i] = (float)i;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&dx, N * sizeof(float)));
	CK(cudaMalloc(&dy, N * sizeof(float)));
	CK(cudaMalloc(&dc, sizeof(int)));
	CK(cudaMemset(dc, 0, sizeof(int)));

	CK_EXPECT(cudaStreamIsCapturing(s, &st), cudaSuccess);
	check(st == cudaStreamCaptureStatusNone, "status before capture: %d", st);
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK(cudaStreamIsCapturing(s, &st));
	check(st == cudaStreamCaptureStatusActive, "status while capturing: %d", st);
	CK(cudaStreamGetCaptureInfo(s, &st, &id));
	check(id != 0, "capture id 0");
	CK(cudaMemcpyAsync(dx, hx, sizeof(hx), cudaMemcpyHostToDevice, s));
	CK(cudaMemsetAsync(dy, 0, N * sizeof(float), s));
	scale_add<<<N / 256, 256, 0, s>>>(dy, dx, 2.0f, N);
	scale_add<<<N / 256, 256, 0, s>>>(dy, dx, 0.5f, N);
	bump<<<1, 32, 0, s>>>(dc);
	CK(cudaLaunchHostFunc(s, count_host, &host_runs));
	CK(cudaMemcpyAsync(hy, dy, sizeof(hy), cudaMemcpyDeviceToHost, s));
	CK(cudaMemcpyAsync(&hc, dc, sizeof(int), cudaMemcpyDeviceToHost, s));
	CK(cudaStreamEndCapture(s, &g));
	CK(cudaStreamIsCapturing(s, &st));
	check(st == cudaStreamCaptureStatusNone, "status after capture: %d", st);

	/* Nothing ran while capturing. */
	CK(cudaDeviceSynchronize());
	check(host_runs == 0, "host function ran %d times during capture", host_runs);
	check(hc == -1, "a captured copy ran during capture");
	CK(cudaGraphGetNodes(g, NULL, &nodes));
	check(nodes == 8, "captured %zu nodes, want 8", nodes);

	for (int i = 0; i < N; i++)
		want[i] = 2.5f * hx[i];
	CK(cudaGraphInstantiate(&x, g, 0));
	for (int run = 1; run <= 3; run++) {
		for (int i = 0; i < N; i++)
			hy[i] = -1;
		CK(cudaGraphLaunch(x, s));
		CK(cudaStreamSynchronize(s));
		check_array("y", hy, want, N);
		check(hc == 32 * run, "run %d: counter %d, want %d", run, hc, 32 * run);
		check(host_runs == run, "run %d: host function ran %d times", run, host_runs);
	}

	/* The graph copies what it was given: changing the source of the
	 * host-to-device copy changes the next replay's input. */
	for (int i = 0; i < N; i++) {
		hx[i] = 1.0f;
		want[i] = 2.5f;
	}
	CK(cudaGraphLaunch(x, s));
	CK(cudaStreamSynchronize(s));
	check_array("y after new input", hy, want, N);

	CK(cudaGraphExecDestroy(x));
	CK(cudaGraphDestroy(g));
	CK_EXPECT(cudaGraphLaunch(x, s), cudaErrorInvalidValue);
	CK(cudaFree(dx));
	CK(cudaFree(dy));
	CK(cudaFree(dc));
	CK(cudaStreamDestroy(s));
	return verdict("graph_capture");
}
